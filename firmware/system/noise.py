"""What a stranger on the network can cost the log: one line for a flood, then a count.

Anyone who may publish on the prop's topics, reach the console or the Modbus port can send
20,000 bad requests in a few seconds. :class:`Noise` keeps the log readable while they come,
for every surface alike (MQTT and Room 2.0, the web console, Clue Control, the other
controllers): the first of a kind is logged at once, the next ones are counted, and once
``quiet`` seconds have passed one line says how many came and the last one's text. The
counts are said at the next note of the kind, at :meth:`Noise.tick` (an MQTT link calls it at
each pass of its network loop), or, bound to an asyncio loop (:meth:`Noise.bind`), by that
loop's timer.

A command refused by the one command path (:mod:`.commands`) is logged there, on the
thread that handed it over: inside :meth:`Noise.capturing` those lines become notes too.

>>> import logging
>>> now = [0.0]
>>> noise = Noise(logging.getLogger("doc"), quiet=60, clock=lambda: now[0])
>>> said = []
>>> noise.say = lambda level, text: said.append(text)
>>> for n in range(3):
...     noise.note("bad", f"mqtt: bad command {n}")
>>> now[0] = 61.0
>>> noise.tick()
>>> said
['mqtt: bad command 0', '2 more like it in 60 s, the last: mqtt: bad command 2']
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from baccarat_core.records import record

if TYPE_CHECKING:
    import asyncio

#: Repeats of a kind within this many seconds of its first line are counted, not logged.
QUIET_SECONDS = 60.0
#: The logger whose lines a captured thread turns into notes (the one command path's).
COMMANDS_LOGGER = "baccarat.commands"


@record(frozen=False)
class _Spell:
    started: float
    repeats: int
    text: str
    level: int


class Noise:
    """Warnings that strangers can repeat at will: one line, then a count at most every ``quiet`` seconds."""

    def __init__(
        self, logger: logging.Logger, *, quiet: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger = logger
        self.quiet = quiet
        #: What the quiet time is measured on (a test's own clock).
        self.clock = clock
        self._spells: dict[str, _Spell] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Every note, by kind, since the start (for diagnostics and tests).
        self.totals: Counter[str] = Counter()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Say each count from ``loop``'s timer once its quiet time has passed, even if nothing follows."""
        self._loop = loop

    def say(self, level: int, text: str) -> None:
        """Log one line (a test may replace it)."""
        self.logger.log(level, "%s", text)

    def note(self, kind: str, text: str, level: int = logging.WARNING) -> None:
        """One occurrence of ``kind``, described by ``text`` (one line, already cut short)."""
        now = self.clock()
        with self._lock:
            self.totals[kind] += 1
            spell = self._spells.get(kind)
            if spell is not None and now - spell.started < self.quiet:
                spell.repeats += 1
                spell.text, spell.level = text, level
                if spell.repeats == 1:
                    self._arm(kind, self.quiet - (now - spell.started))
                return
            repeats = spell.repeats if spell is not None else 0
            self._spells[kind] = _Spell(now, 0, text, level)
        self.say(level, f"{text} (after {repeats} more like it)" if repeats else text)

    def _arm(self, kind: str, delay: float) -> None:
        """Have the bound loop close ``kind``'s count after ``delay`` seconds (from any thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.call_later, max(delay, 0.0), self.tick)

    def tick(self) -> None:
        """Say the count of each kind whose quiet time has passed (any thread; quick when none is due)."""
        if not self._spells:
            return
        now = self.clock()
        with self._lock:
            due = [kind for kind, spell in self._spells.items() if now - spell.started >= self.quiet]
        for kind in due:
            self.close(kind)

    def close(self, kind: str) -> None:
        """Say how many repeats of ``kind`` were not logged, and start afresh."""
        with self._lock:
            spell = self._spells.pop(kind, None)
        if spell is not None and spell.repeats:
            self.say(spell.level, f"{spell.repeats} more like it in {self.quiet:g} s, the last: {spell.text}")

    def close_all(self) -> None:
        """Stopping: say every open count."""
        for kind in list(self._spells):
            self.close(kind)

    @contextmanager
    def capturing(self, prefix: str) -> Iterator[None]:
        """Inside the block, this thread's warnings on the commands logger become notes of this
        :class:`Noise` (one kind a level), said as ``prefix: <line>``."""
        before = getattr(_capture.local, "to", None)
        _capture.local.to = (self, prefix)
        try:
            yield
        finally:
            _capture.local.to = before


class _Capture(logging.Filter):
    """On the commands logger: a capturing thread's warnings become notes (the line itself is dropped)."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        """False (dropped) for a line that became a note."""
        to = getattr(self.local, "to", None)
        if to is None or record.levelno < logging.WARNING:
            return True
        noise, prefix = to
        noise.note(f"commands {record.levelname}", f"{prefix}: {record.getMessage()}", record.levelno)
        return False


_capture = _Capture()
logging.getLogger(COMMANDS_LOGGER).addFilter(_capture)


def carried() -> Callable[[Callable[[], None]], None]:
    """What this thread captures now (:meth:`Noise.capturing`), for work that ends on another
    thread: ``run = carried()`` here, then ``run(fn)`` there logs ``fn``'s lines as they would
    have been logged here (a command that fails on the game thread, counted like one refused at
    once)."""
    to = getattr(_capture.local, "to", None)

    def run(fn: Callable[[], None]) -> None:
        before = getattr(_capture.local, "to", None)
        _capture.local.to = to
        try:
            fn()
        finally:
            _capture.local.to = before

    return run
