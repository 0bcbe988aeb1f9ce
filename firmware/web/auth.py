"""Logins, sessions and the cross-site-forgery token of the console.

A session is a random token in an HttpOnly, SameSite=Strict cookie; each
session has its own random CSRF token, which the page sends in the
``X-CSRF-Token`` header of every POST (a cross-site form cannot set a header,
and a cross-site script cannot read the token). Secrets are compared in
constant time and never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable

from aiohttp import web

from baccarat_core.records import field, record

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
