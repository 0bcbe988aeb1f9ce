"""Logins, sessions and the cross-site-forgery token of the console.

A session is a random token in an HttpOnly, SameSite=Strict cookie; each
session has its own random CSRF token, which the page sends in the
``X-CSRF-Token`` header of every POST (a cross-site form cannot set a header,
and a cross-site script cannot read the token). Secrets are compared in
constant time and never logged.

:class:`LoginForms` reads a login form's POST (the console's and the players' pages'), with
one count of wrong passwords for every login form.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import web

from baccarat_core.records import field, record

from .guard import address_key
from .replies import wait_words

if TYPE_CHECKING:
    from multidict import MultiDictProxy

    from .server import WebService

log = logging.getLogger("baccarat.web")

COOKIE = "baccarat_session"
CSRF_HEADER = "X-CSRF-Token"


def same_secret(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison of a secret (either side None: False)."""
    if given is None or expected is None:
        return False
    a = hashlib.sha256(given.encode("utf-8", "surrogatepass")).digest()
    b = hashlib.sha256(expected.encode("utf-8", "surrogatepass")).digest()
    return hmac.compare_digest(a, b)


def _key(token: str) -> bytes:
    # Sessions are looked up by a hash of the token: the lookup's timing says nothing of the token.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


@record(frozen=False)
class Session:
    """One browser's login."""

    token: str = field(repr=False)
    csrf: str = field(repr=False)
    last_seen: float = 0.0

    def csrf_ok(self, given: str | None) -> bool:
        """True when ``given`` is this session's CSRF token."""
        return same_secret(given, self.csrf)


class Sessions:
    """The sessions in memory (a restart logs everybody out), oldest dropped past ``limit``."""

    def __init__(
        self, *, limit: int = 64, idle_seconds: float = 12 * 3600, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._sessions: dict[bytes, Session] = {}
        self._lock = threading.Lock()
        self._limit = limit
        self._idle = idle_seconds
        self._clock = clock

    def create(self) -> Session:
        """A new session with fresh random tokens."""
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), self._clock())
        with self._lock:
            self._sessions[_key(session.token)] = session
            while len(self._sessions) > self._limit:
                oldest = min(self._sessions, key=lambda k: self._sessions[k].last_seen)
                del self._sessions[oldest]
        return session

    def get(self, token: str | None) -> Session | None:
        """The live session of a cookie value, or None."""
        if not token or len(token) > 200:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(_key(token))
            if session is None:
                return None
            if now - session.last_seen > self._idle:
                del self._sessions[_key(token)]
                return None
            session.last_seen = now
            return session

    def drop(self, token: str | None) -> None:
        """Log a session out."""
        if token:
            with self._lock:
                self._sessions.pop(_key(token), None)


def login_response(page: str, message: str = "", status: int = 200) -> web.Response:
    """The login ``page`` (HTML with a ``<!--message-->`` slot), showing ``message`` as an alert; never cached."""
    if message:
        page = page.replace("<!--message-->", f'<p class="error" role="alert">{message}</p>')
    return web.Response(status=status, text=page, content_type="text/html", headers={"Cache-Control": "no-store"})


def origin_ok(request: web.Request) -> bool:
    """The request came from a page of this site (or says nothing of where it came from)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()


class LoginForms:
    """The login forms' POSTs of :class:`~.server.WebService` (its password, throttle, pause and log)."""

    def __init__(self, service: WebService) -> None:
        self.service = service

    async def read(
        self, request: web.Request, page: Callable[[str, int], web.Response], *, wrong: str, pages: str
    ) -> MultiDictProxy[Any] | web.Response:
        """A login form's POST: its fields when the password is right, else ``page(message, status)``
        saying why not. A wrong one is answered after a pause and noted as ``wrong {wrong}``."""
        service = self.service
        if not origin_ok(request):
            return page("Refused: the form came from another site.", 403)
        address = request.remote
        if not service.throttle.allow(address):  # spare reading the body of a locked address
            return self._too_many(address, page)
        try:
            form = await asyncio.wait_for(request.post(), service.body_seconds)
        except TimeoutError:
            return page(f"The form did not arrive within {service.body_seconds:g} s.", 408)
        except ValueError:
            return page("The form could not be read.", 400)
        # From here to the count, no await: concurrent guesses from one address cannot all
        # pass the check before the first is counted.
        if not service.throttle.allow(address):
            return self._too_many(address, page)
        given = form.get("password")
        if not isinstance(given, str) or not same_secret(given, service.settings.password):
            service.throttle.fail(address)
            service.episodes.note("password", f"web: wrong {wrong} from {address_key(address)}")
            await asyncio.sleep(service.wrong_secret_pause)
            return page("Wrong password.", 401)
        log.info("web: %s login from %s", pages, address)
        return form

    def _too_many(self, address: str | None, page: Callable[[str, int], web.Response]) -> web.Response:
        service = self.service
        wait = service.throttle.retry_after(address)
        service.episodes.note("locked", f"web: login refused to {address_key(address)}: too many wrong passwords")
        response = page(f"Too many wrong passwords: wait {wait_words(wait)}.", 429)
        response.headers["Retry-After"] = str(wait)
        return response
