"""Bad input from the network as few log lines: one at once, then one count per spell.

Anyone on the room network can send the prop's Modbus port garbage, or a
thousand requests with wrong values; each one is answered (or the connection
closed) and changes nothing, but the log must not grow by one line each. The
first of a spell is logged at once, naming what and from where; what follows
within :data:`SPELL_SECONDS` is counted by kind and said in one line when the
spell ends (at the next bad input after it, or by the loop's timer, or at
:meth:`Tally.close`).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

#: Bad input within this many seconds of a spell's first is counted, not logged.
SPELL_SECONDS = 60.0


class Tally:
    """Counts bad input by kind; logs the first of a spell and one summary line per spell.

    >>> import logging, sys
    >>> logger = logging.getLogger("doctest.tally")
    >>> logger.addHandler(logging.StreamHandler(sys.stdout))
    >>> logger.propagate = False
    >>> tally = Tally(logger)
    >>> tally.note("garbage", "not Modbus TCP from 10.0.0.9")
    not Modbus TCP from 10.0.0.9 (more bad input is counted for 60 s)
    >>> tally.note("value", "value 7 is no command, from 10.0.0.9")
    >>> tally.note("garbage", "not Modbus TCP from 10.0.0.9")
    >>> tally.close()
    2 more in 60 s (garbage 1, value 1), the last: not Modbus TCP from 10.0.0.9
    """

    def __init__(
        self,
        logger: logging.Logger,
        *,
        spell: float = SPELL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.spell = spell
        self._clock = clock
        self._loop: asyncio.AbstractEventLoop | None = None
        self._start: float | None = None  # the spell's first, on the clock
        self._counts: Counter[str] = Counter()
        self._last = ""
        self._timer: asyncio.TimerHandle | None = None
        #: Every bad input noted, by kind, since the start (for diagnostics and tests).
        self.totals: Counter[str] = Counter()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Say each spell's count from ``loop``'s timer when the spell ends (call on that loop's thread)."""
        self._loop = loop

    def note(self, kind: str, text: str) -> None:
        """One bad input of ``kind`` (a short word), described by ``text`` (one line, free of secrets)."""
        self.totals[kind] += 1
        now = self._clock()
        if self._start is not None and now - self._start >= self.spell:
            self.close()
        if self._start is None:
            self._start = now
            self.logger.warning("%s (more bad input is counted for %g s)", text, self.spell)
            if self._loop is not None:
                self._timer = self._loop.call_later(self.spell, self.close)
            return
        self._counts[kind] += 1
        self._last = text

    def close(self) -> None:
        """End the spell: one line with its count, when anything came after its first."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._counts:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self._counts.items()))
            total = sum(self._counts.values())
            self.logger.warning("%d more in %g s (%s), the last: %s", total, self.spell, kinds, self._last)
        self._start = None
        self._counts.clear()
        self._last = ""
