"""The daemon's sound listener: events in, cues out at the right moment, never on the game thread.

The daemon calls :meth:`SoundListener.on_shown` (one of its ``on_shown`` hooks)
with each event at the moment it shows it, so each card's sounds start with the
card on the display, whatever the pacing. That only puts cues on a schedule and
returns: a scheduler thread hands them to the player when they are due. It
never blocks and never raises into the game thread; a failing player is logged
once.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from baccarat_core import events as ev
from baccarat_core.records import record

from .cues import FLIP_AFTER, CuePlanner
from .players import Player

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

log = logging.getLogger("baccarat.sound")

#: Cues waiting at most: more are dropped (a player that hangs must not grow memory).
MAX_PENDING = 64


@record(frozen=False, eq=False, repr=False)
class SoundListener:
    """Schedules the cues of the daemon's events and plays them on ``player`` off the game thread."""

    player: Player
    _: KW_ONLY
    card_seconds: float = 0.6
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        flip = FLIP_AFTER if self.card_seconds <= 0 else min(FLIP_AFTER, self.card_seconds / 2)
        self.planner = CuePlanner(flip_after=flip)
        self._cond = threading.Condition()
        self._pending: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self._closed = False
        self._player_failed = False
        self._thread = threading.Thread(target=self._run, name="baccarat-sound", daemon=True)
        self._thread.start()

    # -- the daemon's side (game thread): schedule and return ---------------------------
    def on_shown(self, event: ev.Event) -> None:
        """The daemon shows ``event`` now: schedule its cues from this moment."""
        try:
            self._schedule(self.planner.for_event(event))
        except Exception:  # never into the game thread
            log.exception("sound: event not scheduled")

    def play(self, cue: str) -> None:
        """Play ``cue`` now, off the caller's thread (the self-test plays every cue in turn)."""
        self._schedule([(0.0, cue)])

    def pending(self) -> list[str]:
        """The cues waiting for their moment, soonest first (tools and tests)."""
        with self._cond:
            return [cue for _, _, cue in sorted(self._pending)]

    def close(self) -> None:
        """Drop what waits, stop the scheduler and close the player."""
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify()
        self._thread.join(timeout=2)
        try:
            self.player.close()
        except Exception:
            log.exception("sound: closing the player failed")

    def _schedule(self, cues: Sequence[tuple[float, str]]) -> None:
        if not cues:
            return
        now = self.clock()
        with self._cond:  # held only by this method and between the scheduler's waits
            if self._closed:
                return
            for delay, cue in cues:
                if len(self._pending) >= MAX_PENDING:
                    log.debug("sound: %d cues waiting; %s dropped", len(self._pending), cue)
                    continue
                heapq.heappush(self._pending, (now + delay, next(self._order), cue))
            self._cond.notify()

    # -- the scheduler thread -------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    if self._pending:
                        wait = self._pending[0][0] - self.clock()
                        if wait <= 0:
                            break
                        self._cond.wait(wait)
                    else:
                        self._cond.wait()
                if self._closed:
                    return
                _, _, cue = heapq.heappop(self._pending)
            self._play(cue)  # outside the lock: a slow player delays cues, never the game

    def _play(self, cue: str) -> None:
        try:
            self.player.play(cue)
        except Exception:
            if not self._player_failed:
                self._player_failed = True
                log.exception("sound: the player failed on %s; the game goes on", cue)
            return
        self._player_failed = False
