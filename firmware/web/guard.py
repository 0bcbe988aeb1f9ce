"""What a stranger on the room network can cost the prop: bounded connections, guesses and log lines.

- :class:`ConnectionGuard`: at most :data:`MAX_CONNECTIONS` connections at once and
  :data:`MAX_PER_ADDRESS` from one address; a connection must send a whole request head
  within :data:`HEAD_SECONDS` of opening and its next one within :data:`IDLE_SECONDS` of
  the last answer, else it is closed. At a cap the oldest connection with no request
  in progress is closed to make room; when every one is busy (live pages, commands),
  the new one is answered 503 (up to :data:`MAX_REFUSED` at once; beyond, closed
  unanswered). The prop's other descriptors (the state file, the control socket,
  MQTT) are never starved by held connections. :data:`RESERVED` of the connections
  are kept for *trusted* requests (a console session's cookie, the controller's
  token): the others (public pages, logins, wrong tokens) may have at most the rest
  in progress at once, beyond which each is answered 503, so that strangers holding
  streams and slow bodies never starve the game master or the controller's polls;
  an idle connection that carried a trusted request is the last to make room. When those
  untrusted requests are all in progress, one from an address (an IPv6 /64) holding fewer of them
  than another is let in by closing that other address's oldest one, so that a game master who is not logged in yet can
  log in while a few addresses (or a crowd of them) hold public streams and unfinished bodies.
- wrong passwords and tokens are counted by :mod:`.throttle`, which also says what
  one address is (:func:`~.throttle.address_key`: an IPv6 host by its /64 prefix).
- a repeated warning (wrong tokens, malformed requests) is one log line, then one line saying
  how many more came, at most once per ``quiet`` seconds (:class:`~firmware.system.noise.Noise`,
  as for every surface).
- :class:`HttpLogFilter`: aiohttp's own logging of a malformed request quotes the raw
  request line and headers (``?token=``, the session cookie) with a traceback; it
  becomes one line naming the sender and the kind of damage.

Nothing here runs while nobody connects: timers exist only for open connections and
for an episode's closing count.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from baccarat_core.records import record
from firmware.system.noise import Noise
from firmware.system.redact import scrub_urls

from .throttle import address_key

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

log = logging.getLogger("baccarat.web")

#: Connections served at once (a page holds one for its live stream and up to six more briefly).
MAX_CONNECTIONS = 64
#: Connections from one address (an IPv6 /64) at once.
MAX_PER_ADDRESS = 16
#: Of :data:`MAX_CONNECTIONS`, how many only trusted requests (a console session, the controller
#: token) may use: the others may have at most the rest in progress at once.
RESERVED = 16
#: A new connection must send a whole request head within this many seconds.
HEAD_SECONDS = 10.0
#: A kept-alive connection must send its next request head within this many seconds.
IDLE_SECONDS = 15.0
#: A request body (a login form, a command) must arrive within this many seconds.
BODY_SECONDS = 10.0

#: Connections over a cap that are still answered (a 503 at their head); more are closed unanswered.
MAX_REFUSED = 16
#: Connections the kernel queues for the server (asyncio also accepts up to this many at a time).
ACCEPT_BACKLOG = 32


#: aiohttp's exception classes for a malformed request, in words (their messages quote the request).
_DAMAGE = {
    "BadStatusLine": "a bad request line",
    "BadHttpMethod": "no HTTP method (TLS or another protocol?)",
    "LineTooLong": "a line too long",
    "InvalidURLError": "a bad URL",
    "InvalidHeader": "a bad header",
    "BadHttpMessage": "a malformed head",
    "ContentLengthError": "a body that does not match its length",
    "TransferEncodingError": "a bad chunked body",
    "ContentEncodingError": "a body it cannot decode",
    "RequestPayloadError": "a body it cannot read",
    "DecompressSizeError": "a body too large once decompressed",
}


def damage(error: BaseException | None) -> str:
    """What was wrong with a request, in words and without its text."""
    if error is None:
        return "a malformed request"
    name = type(error).__name__
    return _DAMAGE.get(name, name)


class HttpLogFilter(logging.Filter):
    """On the logger aiohttp's request handler uses: each record becomes one safe line (:class:`~.Noise`).

    aiohttp logs a malformed request as ``Error handling request from ADDRESS`` with
    the exception, whose message quotes the request line and headers; this keeps only
    the address and the kind of damage. Every record is consumed (returns False).
    """

    def __init__(self, episodes: Noise) -> None:
        super().__init__()
        self.episodes = episodes

    def filter(self, record: logging.LogRecord) -> bool:
        """Swap the record for one safe line."""
        error = record.exc_info[1] if record.exc_info else None
        sender = ""
        if isinstance(record.args, tuple) and record.args and isinstance(record.args[0], str):
            sender = f" from {address_key(record.args[0])}"
        if error is None and record.levelno < logging.WARNING:
            return False  # aiohttp's own debugging lines
        self.episodes.note("malformed", f"web: refused a request{sender}: {damage(error)}")
        return False


def http_logger(episodes: Noise) -> logging.Logger:
    """The logger for aiohttp's request handler (``logger=`` of the app runner)."""
    logger = logging.getLogger("baccarat.web.http")
    for old in [f for f in logger.filters if isinstance(f, HttpLogFilter)]:
        logger.removeFilter(old)
    logger.addFilter(HttpLogFilter(episodes))
    return logger


@record(frozen=False, eq=False, repr=False)
class ConnectionGuard:
    """Counts the server's connections and closes the ones that cost without asking anything.

    :meth:`install` hooks the aiohttp ``Server``'s ``connection_made`` and
    ``connection_lost``; the app's outermost middleware calls :meth:`begin` and
    :meth:`end` around each request.
    """

    episodes: Noise
    _: KW_ONLY
    max_connections: int = MAX_CONNECTIONS
    max_per_address: int = MAX_PER_ADDRESS
    reserved: int = RESERVED
    head_seconds: float = HEAD_SECONDS
    idle_seconds: float = IDLE_SECONDS

    def __post_init__(self) -> None:
        # handler -> [transport, address key, requests in progress, timer, its last request trusted]
        self._open: OrderedDict[Any, list[Any]] = OrderedDict()
        self._untrusted = 0  # requests in progress that are not trusted
        self._untrusted_per_key: dict[str, int] = {}  # the same, by address
        # handler -> [transport, timer]: over a cap, answered 503 at their head
        self._refused: dict[Any, list[Any]] = {}
        self._per_key: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._accept_failures = 0
        self.refused = 0
        self.closed_idle = 0

    def __len__(self) -> int:
        return len(self._open)

    def install(self, server: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Hook ``server`` (an ``aiohttp.web.Server``) and set ``loop``'s exception handler."""
        self._loop = loop
        made, lost = server.connection_made, server.connection_lost

        def connection_made(handler: Any, transport: asyncio.Transport) -> None:
            made(handler, transport)
            self.opened(handler, transport)

        def connection_lost(handler: Any, exc: BaseException | None) -> None:
            self.lost(handler)
            lost(handler, exc)

        server.connection_made = connection_made
        server.connection_lost = connection_lost
        loop.set_exception_handler(self.loop_exception)

    # -- connections ---------------------------------------------------------------------------
    def opened(self, handler: Any, transport: asyncio.Transport) -> None:
        """A connection was accepted: make room for it, or refuse it; start its head timer."""
        if self._accept_failures:
            log.info("web: accepting connections again (%d attempts failed)", self._accept_failures)
            self._accept_failures = 0
        peer = transport.get_extra_info("peername")
        key = address_key(peer[0] if isinstance(peer, tuple) and peer else None)
        if self._per_key.get(key, 0) >= self.max_per_address:
            room = self._make_room(key)
            why = f"{self.max_per_address} connections from {key}"
        elif len(self._open) >= self.max_connections:
            room = self._make_room(None)
            why = f"{self.max_connections} connections"
        else:
            room, why = True, ""
        if not room:
            self.refused += 1
            self.episodes.note("busy", f"web: refused a connection from {key}: {why} are busy")
            if len(self._refused) >= MAX_REFUSED:
                transport.abort()
                return
            assert self._loop is not None
            timer = self._loop.call_later(self.head_seconds, self._expire_refused, handler)
            self._refused[handler] = [transport, timer]
            return
        self._open[handler] = [transport, key, 0, None, False]
        self._per_key[key] = self._per_key.get(key, 0) + 1
        self._arm(handler, self.head_seconds)

    def _make_room(self, key: str | None) -> bool:
        """Close a connection (from ``key``, or any) with no request in progress, one whose last
        request was not trusted first: the oldest of the address that holds the most, so that a
        few addresses keeping connections open lose their own, not a lone newcomer's whose request
        has not arrived yet (a controller's, on a busy machine)."""
        for trusted in (False, True):
            idle = [(h, e) for h, e in self._open.items() if e[2] == 0 and e[4] == trusted and key in (None, e[1])]
            if idle:
                # max() keeps the first of equals: the oldest of the address holding the most
                handler, entry = max(idle, key=lambda pair: self._per_key.get(pair[1][1], 0))
                self.closed_idle += 1
                self._drop(handler)
                entry[0].close()
                return True
        return False

    @property
    def untrusted_limit(self) -> int:
        """Requests that are not trusted in progress at most at once."""
        return max(1, self.max_connections - self.reserved)

    def _drop(self, handler: Any) -> list[Any] | None:
        entry = self._open.pop(handler, None)
        if entry is None:
            return None
        if entry[3] is not None:
            entry[3].cancel()
        if not entry[4]:
            self._untrusted -= entry[2]  # a request in progress on a connection that went
            self._count_untrusted(entry[1], -entry[2])
        count = self._per_key.get(entry[1], 1) - 1
        if count:
            self._per_key[entry[1]] = count
        else:
            self._per_key.pop(entry[1], None)
        return entry

    def lost(self, handler: Any) -> None:
        """A connection closed."""
        self._drop(handler)
        refused = self._refused.pop(handler, None)
        if refused is not None:
            refused[1].cancel()

    def _expire_refused(self, handler: Any) -> None:
        refused = self._refused.pop(handler, None)
        if refused is not None:
            refused[0].close()

    def _arm(self, handler: Any, seconds: float) -> None:
        entry = self._open[handler]
        if entry[3] is not None:
            entry[3].cancel()
        assert self._loop is not None
        entry[3] = self._loop.call_later(seconds, self._expire, handler)

    def _expire(self, handler: Any) -> None:
        entry = self._open.get(handler)
        if entry is None or entry[2]:
            return
        self.closed_idle += 1
        self._drop(handler)
        entry[0].close()

    # -- requests ------------------------------------------------------------------------------
    def begin(self, handler: Any, *, trusted: bool = False) -> bool:
        """A whole request head arrived on ``handler``'s connection: no timer while it is served.

        False when the connection came over a cap, or when the request is not ``trusted`` and no
        room is left for it (:meth:`_untrusted_problem`): answer 503 and close it.
        """
        if handler in self._refused:
            return False
        entry = self._open.get(handler)
        if entry is None:
            return True
        if not trusted:
            problem = self._untrusted_problem(entry[1])
            if problem:
                self.refused += 1
                self.episodes.note("busy", f"web: refused a request from {entry[1]}: {problem}")
                return False
            self._untrusted += 1
            self._count_untrusted(entry[1], 1)
        entry[2] += 1
        entry[4] = trusted
        if entry[3] is not None:
            entry[3].cancel()
            entry[3] = None
        return True

    def _untrusted_problem(self, key: str) -> str:
        """Why one more untrusted request from ``key`` has no room, or ``""``; at the cap, room is
        made by closing the oldest untrusted request of an address holding more than ``key``."""
        if self._untrusted >= self.untrusted_limit and not self._evict(self._untrusted_per_key.get(key, 0)):
            return f"{self.untrusted_limit} untrusted ones are busy"
        return ""

    def _evict(self, mine: int) -> bool:
        """Close the oldest untrusted request in progress of the address holding the most of them,
        if it holds more than ``mine``: True when room was made."""
        most = max(self._untrusted_per_key, key=lambda k: self._untrusted_per_key[k], default=None)
        if most is None or self._untrusted_per_key[most] <= mine:
            return False
        for handler, entry in self._open.items():  # the oldest first
            if entry[1] == most and entry[2] and not entry[4]:
                self.episodes.note("evicted", f"web: closed a request of {most} to make room for another address")
                self._drop(handler)
                entry[0].close()  # aiohttp cancels its handler (handler_cancellation)
                return True
        return False

    def _count_untrusted(self, key: str, change: int) -> None:
        count = self._untrusted_per_key.get(key, 0) + change
        if count > 0:
            self._untrusted_per_key[key] = count
        else:
            self._untrusted_per_key.pop(key, None)

    def end(self, handler: Any) -> None:
        """The request was answered: the next head must come within the idle time."""
        entry = self._open.get(handler)
        if entry is None or entry[2] == 0:
            return
        entry[2] -= 1
        if not entry[4]:
            self._untrusted -= 1
            self._count_untrusted(entry[1], -1)
        if entry[2] == 0:
            self._arm(handler, self.idle_seconds)

    # -- the loop's own complaints -------------------------------------------------------------
    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The web loop's exception handler: one line, no traceback, no request text.

        asyncio reports a failed ``accept()`` (out of descriptors) here, and on Linux
        it does so again and again while the listening socket stays readable: that is
        one line when it starts and one when accepting works again.
        """
        error = context.get("exception")
        message = str(context.get("message") or "")
        if "accept" in message and isinstance(error, OSError):
            self._accept_failures += 1
            if self._accept_failures == 1:
                name = errno.errorcode.get(error.errno or 0, "?")
                log.error(
                    "web: cannot accept connections: %s (%s); the prop goes on, the console retries",
                    error.strerror or error,
                    name,
                )
            return
        what = type(error).__name__ if error is not None else "no exception"
        self.episodes.note("loop", f"web: {scrub_urls(message)[:200]} ({what})", logging.ERROR)
