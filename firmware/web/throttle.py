"""Wrong secrets, counted per guesser: the guesser is locked out, never the one who knows the secret.

- :func:`address_key`: an IPv6 address counts by its /64 prefix (one host has a whole
  /64 to churn through), an IPv4 address by itself.
- :class:`Throttle`: at most ``attempts`` wrong secrets per guesser in ``window`` seconds,
  checked and counted once the request is whole, with no ``await`` between the check, the
  comparison and the count (so concurrent guesses cannot overtake it).

A guesser is an address, and, for a browser's request that names the page it came from
(``Origin``), the address *and* that page: ten wrong tokens from another site's page in the
browser on the controller's PC lock that page out, not Escape Room Master polling from the
same PC. A client can name any origin, so one address gets its own count for at most
``max_origins`` origins; the rest share one (an origin that gave the right secret always
keeps its own).

Memory is bounded and nothing fails closed for want of room: the first ``max_addresses``
guessers are counted exactly (a locked one is forgotten only once its window has passed, so
churning addresses never unlocks it); guessers beyond them are counted in a fixed table of
cells, two per guesser by a hash salted afresh at each start (:class:`Crowd`), which locks
the guesser whose cells are both full. Someone else is locked out only if strangers fill both
of *its* cells, which takes tens of thousands of guessing addresses.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import secrets
import threading
import time
from array import array
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from baccarat_core.records import record

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

#: The longest origin kept for counting (a real one is a scheme, a host and a port).
MAX_ORIGIN = 200
#: Origins that gave the right secret, remembered so that each keeps its own count.
MAX_GOOD = 64


def address_key(address: str | None) -> str:
    """What the limits count by: an IPv4 address, or the /64 prefix of an IPv6 one.

    >>> address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::7")
    True
    >>> address_key("::ffff:192.0.2.7")
    '192.0.2.7'
    """
    if not address:
        return "?"
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Crowd:
    """Guessers counted in ``2 * cells`` leaky counters: each guesser has one cell in each half,
    chosen by a salted hash; a wrong secret adds one to both, each drains ``attempts`` per
    ``window``, and a guesser may try while one of its cells has room for one more (holds
    ``attempts - 1`` or less)."""

    def __init__(self, attempts: int, window: float, cells: int = 4096) -> None:
        self.attempts = attempts
        self.rate = attempts / window
        self.cells = cells
        self._levels = array("d", bytes(16 * cells))
        self._stamps = array("d", bytes(16 * cells))
        self._salt = secrets.token_bytes(16)

    def _pair(self, key: str) -> tuple[int, int]:
        digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), key=self._salt, digest_size=8).digest()
        return int.from_bytes(digest[:4]) % self.cells, self.cells + int.from_bytes(digest[4:]) % self.cells

    def _level(self, cell: int, now: float) -> float:
        return max(0.0, self._levels[cell] - (now - self._stamps[cell]) * self.rate)

    def level(self, key: str, now: float) -> float:
        """How full ``key``'s fuller-drained cell is (the lower of its two)."""
        return min(self._level(cell, now) for cell in self._pair(key))

    def fail(self, key: str, now: float) -> None:
        """Count a wrong secret of ``key``."""
        for cell in self._pair(key):
            self._levels[cell] = self._level(cell, now) + 1.0
            self._stamps[cell] = now

    def locked(self, key: str, now: float) -> bool:
        """True while ``key`` may not try."""
        return self.level(key, now) > self.attempts - 1

    def retry_after(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0 when it may now)."""
        return max(0.0, (self.level(key, now) - (self.attempts - 1)) / self.rate)


@record(frozen=False, eq=False, repr=False)
class Throttle:
    """At most ``attempts`` wrong secrets per guesser (an address, or an address and a page's
    origin) in ``window`` seconds.

    Call :meth:`allow` once the request is whole, then compare, then :meth:`fail` on a
    wrong secret (or :meth:`passed` on the right one), all without an ``await`` between them.

    >>> now = [0.0]
    >>> throttle = Throttle(attempts=2, window=60, clock=lambda: now[0])
    >>> for _ in range(2):
    ...     throttle.fail("10.0.0.5", "http://elsewhere.example")
    >>> throttle.allow("10.0.0.5", "http://elsewhere.example"), throttle.allow("10.0.0.5", "http://erm.example")
    (False, True)
    >>> now[0] = 61.0
    >>> throttle.allow("10.0.0.5", "http://elsewhere.example")
    True
    """

    _: KW_ONLY
    attempts: int = 10
    window: float = 300.0
    max_addresses: int = 1024
    max_origins: int = 4
    crowd_cells: int = 4096
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.crowd = Crowd(self.attempts, self.window, self.crowd_cells)
        self._failures: dict[str, deque[float]] = {}
        self._origins: dict[str, int] = {}  # address key -> how many of its origins have a count
        self._good: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def _key(self, address: str | None, origin: str | None) -> str:
        base = address_key(address)
        if not origin:
            return base
        key = f"{base} {origin[:MAX_ORIGIN]}"
        if key in self._failures or key in self._good or self._origins.get(base, 0) < self.max_origins:
            return key
        return f"{base} *"

    def _recent(self, key: str, now: float) -> deque[float] | None:
        times = self._failures.get(key)
        if times is None:
            return None
        while times and now - times[0] >= self.window:
            times.popleft()
        if not times:
            self._forget(key)
            return None
        return times

    def _forget(self, key: str) -> None:
        del self._failures[key]
        base, _, origin = key.partition(" ")
        if origin and origin != "*":
            left = self._origins.pop(base, 1) - 1
            if left:
                self._origins[base] = left

    def _purge(self, now: float) -> None:
        for key in list(self._failures):
            self._recent(key, now)

    def allow(self, address: str | None, origin: str | None = None) -> bool:
        """True when the guesser may try a secret now."""
        now = self.clock()
        with self._lock:
            key = self._key(address, origin)
            times = self._recent(key, now)
            if times is not None and len(times) >= self.attempts:
                return False
            return not self.crowd.locked(key, now)

    def fail(self, address: str | None, origin: str | None = None) -> None:
        """Count a wrong secret (right after :meth:`allow` said True)."""
        now = self.clock()
        with self._lock:
            key = self._key(address, origin)
            times = self._recent(key, now)
            if times is None:
                if len(self._failures) >= self.max_addresses:
                    self._purge(now)
                if len(self._failures) >= self.max_addresses:
                    self.crowd.fail(key, now)  # no room to count it exactly: counted all the same
                    return
                times = self._failures[key] = deque(maxlen=self.attempts)
                base, _, named = key.partition(" ")
                if named and named != "*":
                    self._origins[base] = self._origins.get(base, 0) + 1
            times.append(now)

    def passed(self, address: str | None, origin: str | None = None) -> None:
        """The guesser gave the right secret: a named origin keeps its own count from now on."""
        if not origin:
            return
        with self._lock:
            key = self._key(address, origin)
            if key.endswith(" *"):
                key = f"{address_key(address)} {origin[:MAX_ORIGIN]}"
            self._good[key] = None
            self._good.move_to_end(key)
            while len(self._good) > MAX_GOOD:
                self._good.popitem(last=False)

    def retry_after(self, address: str | None, origin: str | None = None) -> int:
        """Whole seconds until the guesser may try again (at least 1)."""
        now = self.clock()
        with self._lock:
            key = self._key(address, origin)
            times = self._recent(key, now)
            wait = self.crowd.retry_after(key, now)
            if times is not None and len(times) >= self.attempts:
                wait = max(wait, times[0] + self.window - now)
            return max(1, math.ceil(wait))

    def __len__(self) -> int:
        return len(self._failures)
