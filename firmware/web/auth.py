"""Logins, sessions and the cross-site-forgery token of the console.

A session is a random token in an HttpOnly, SameSite=Strict cookie; each
session has its own random CSRF token, which the page sends in the
``X-CSRF-Token`` header of every POST (a cross-site form cannot set a header,
and a cross-site script cannot read the token). Secrets are compared in
constant time and never logged.

:class:`LoginForms` reads a login form's POST (the console's and the players' pages'), with
one count of wrong passwords for every login form. A form is read as the pages send it
(``application/x-www-form-urlencoded``, :func:`read_form`): anything else, or a body that
does not parse, is one clear ``400`` and one log line that quotes nothing of it (a multipart
parser's error names the line it choked on, which can be the password).
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
from typing import TYPE_CHECKING, Protocol
from urllib.parse import parse_qsl, urlsplit

from aiohttp import web

from baccarat_core.records import field, record

from ..i18n import N_
from .replies import wait_words
from .throttle import address_key

if TYPE_CHECKING:
    from firmware.system.noise import Noise

    from .settings import WebSettings
    from .throttle import Throttle

log = logging.getLogger("baccarat.web")

COOKIE = "baccarat_session"
CSRF_HEADER = "X-CSRF-Token"
#: How the login pages send their form: the only content type a login form is read in.
FORM_TYPE = "application/x-www-form-urlencoded"
#: Fields a login form has at most (the pages send one or two).
MAX_FORM_FIELDS = 8


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


class LoginPage(Protocol):
    """A login page saying ``message`` (English, its ``{value}`` fields in ``values``) with ``status``."""

    def __call__(self, message: str, status: int, **values: str) -> web.Response:
        """The page, the message said in the page's language."""


class FormError(ValueError):
    """A login form that cannot be read; its message quotes nothing of the body."""


async def read_form(request: web.Request, timeout: float) -> dict[str, str]:
    """A login form's fields (the first of each name), read within ``timeout`` seconds.

    Raises :class:`FormError` (another content type, a body that is not UTF-8 or not a form,
    too many fields), TimeoutError, or aiohttp's ``HTTPRequestEntityTooLarge``.
    """
    if request.content_type != FORM_TYPE:
        raise FormError(f"a form sent as {request.content_type[:60] or 'nothing'!r}, not {FORM_TYPE}")
    try:
        raw = await asyncio.wait_for(request.read(), timeout)
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS, errors="strict")
    except UnicodeDecodeError:  # raw or percent-encoded
        raise FormError("a form that is not UTF-8") from None
    except ValueError:
        raise FormError(f"a form of more than {MAX_FORM_FIELDS} fields") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        form.setdefault(name, value)
    return form


class LoginHost(Protocol):
    """What the login forms use of :class:`~.server.WebService` (named by its shape: it imports this module)."""

    settings: WebSettings
    throttle: Throttle
    episodes: Noise
    body_seconds: float
    wrong_secret_pause: float


class LoginForms:
    """The login forms' POSTs of :class:`~.server.WebService` (its password, throttle, pause and log)."""

    def __init__(self, service: LoginHost) -> None:
        self.service = service

    async def read(
        self, request: web.Request, page: LoginPage, *, wrong: str, pages: str
    ) -> dict[str, str] | web.Response:
        """A login form's POST: its fields when the password is right, else ``page(message, status,
        **values)`` saying why not (the message in English, its ``{value}`` fields given apart, so
        that the page says it in its language). A wrong one is answered after a pause and noted as
        ``wrong {wrong}``."""
        service = self.service
        if not origin_ok(request):
            return page(N_("Refused: the form came from another site."), 403)
        address = request.remote
        if not service.throttle.allow(address):  # spare reading the body of a locked address
            return self._too_many(address, page)
        try:
            form = await read_form(request, service.body_seconds)
        except TimeoutError:
            return page(N_("The form did not arrive within {seconds} s."), 408, seconds=f"{service.body_seconds:g}")
        except FormError as error:
            service.episodes.note("malformed", f"web: refused a login form from {address_key(address)}: {error}")
            return page(N_("The form could not be read: send it from the login page."), 400)
        # From here to the count, no await: concurrent guesses from one address cannot all
        # pass the check before the first is counted.
        if not service.throttle.allow(address):
            return self._too_many(address, page)
        given = form.get("password")
        if given is None or not same_secret(given, service.settings.password):
            service.throttle.fail(address)
            service.episodes.note("password", f"web: wrong {wrong} from {address_key(address)}")
            await asyncio.sleep(service.wrong_secret_pause)
            return page(N_("Wrong password."), 401)
        log.info("web: %s login from %s", pages, address)
        return form

    def _too_many(self, address: str | None, page: LoginPage) -> web.Response:
        service = self.service
        wait = service.throttle.retry_after(address)
        service.episodes.note("locked", f"web: login refused to {address_key(address)}: too many wrong passwords")
        response = page(N_("Too many wrong passwords: wait {wait}."), 429, wait=wait_words(wait))
        response.headers["Retry-After"] = str(wait)
        return response
