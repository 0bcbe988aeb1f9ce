"""The log lines the simulator shows its players.

The daemon logs every event in words, the deck's derivation included (``deck
red appears with 0 solved: letter D, digit 3, first index 30 (10D), ...``):
the game master wants that, but on the players' screen it gives the answer
away. :class:`PlayerSafeLog` is a filter on the ``baccarat`` logger that swaps
such a line for a player-safe one built from the event itself (``deck red
appears``). ``baccarat run --simulate --gm`` leaves it off; the daemon on the
Pi never installs it, so the journal keeps the full lines.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from firmware.game.daemon import Daemon


def player_line(event: ev.Event) -> str | None:
    """What the players may read of ``event``, when its log line tells more; else None."""
    if isinstance(event, ev.DeckAppeared):
        if event.replaces:
            return f"deck {event.color} replaces {event.replaces}"
        return f"deck {event.color} appears"
    return None


class PlayerSafeLog(logging.Filter):
    """Rewrites the daemon's log lines that give the answer away into player-safe lines.

    A daemon ``on_handled`` hook sees each event before the daemon logs it and notes the
    event's log line and its player-safe form; the filter swaps the one for the
    other as the line is logged.
    """

    def __init__(self) -> None:
        super().__init__()
        self._safe: dict[str, str] = {}

    def listener(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """A ``Daemon.on_handled`` hook: note the lines to swap (game thread)."""
        for event in events:
            line = player_line(event)
            if line is not None:
                self._safe[event.describe()] = line

    def filter(self, record: logging.LogRecord) -> bool:
        """Swap a secret line for its safe form; every record passes."""
        if self._safe:
            safe = self._safe.pop(record.getMessage(), None)
            if safe is not None:
                record.msg, record.args = safe, ()
        return True


def hide_secrets(daemon: Daemon) -> Callable[[], None]:
    """Keep the deck's derivation off the players' screen; returns a function that undoes it."""
    safe = PlayerSafeLog()
    logger = logging.getLogger("baccarat")
    logger.addFilter(safe)
    daemon.on_handled.append(safe.listener)

    def undo() -> None:
        logger.removeFilter(safe)
        if safe.listener in daemon.on_handled:
            daemon.on_handled.remove(safe.listener)

    return undo


#: ``log.info(..., extra={PIN: "console"})``: the line stays on the simulator's screen, below the
#: scrolling log, until another line with the same pin replaces it.
PIN = "pin"


class RecentLog(logging.Handler):
    """Keeps the last log lines, for the simulator to show beside the displays.

    A record logged with ``extra={PIN: name}`` is pinned instead: :meth:`shown` always ends
    with it (the console's address, or why there is none), however many lines came since.
    """

    def __init__(self, size: int = 40) -> None:
        super().__init__(logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=size)
        self.pinned: dict[str, str] = {}
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one line (the message only: no time stamp or level)."""
        pin = getattr(record, PIN, None)
        if isinstance(pin, str):
            self.pinned[pin] = record.getMessage()[:300]
            self.count += 1
            return
        self.add(record.getMessage())

    def shown(self) -> list[str]:
        """The lines a view shows, oldest first: the recent ones, then the pinned ones (a view
        that keeps the newest lines that fit keeps the pinned ones)."""
        return [*self.lines, *self.pinned.values()]

    def add(self, line: str) -> None:
        """Keep a line of the simulator's own (e.g. why the view changed)."""
        self.lines.append(line[:300])
        self.count += 1
