"""The outputs held on, as the state file carries them across a restart, never longer than their cut-off.

An output held on without ``max_on_seconds`` is saved as ``null``: a restart switches it on
again. One with a cut-off is saved with the seconds of it left and the wall-clock time of the
save, ``{"fog": {"left": 12.5, "saved_at": 1767225600.5}}``; at a clean stop with ``"off":
true`` as well (the pin went off then). A restart gives it what is left, counted so that no
clock can lengthen it: a Pi without a real-time clock starts with a time from its last
shutdown or earlier, until the network sets it, and the clock may jump either way.

- Saved while it was on (the prop went down without stopping: a crash, ``kill -9``, a power
  cut): it may have stayed on for a while after the save. While such an output is on, the
  state keeper writes its time left again every :data:`CHECKPOINT_SECONDS` (counted on the
  monotonic clock, which a clock change does not move), so the file is never further behind;
  a restart takes off the larger of the wall-clock time since the save and
  :data:`CHECKPOINT_SECONDS`. A clock that went back costs the output those few seconds and
  gives it none.
- Saved at a clean stop: it has been off since; a restart takes off the wall-clock time since
  (the time ran on while the prop was down), or nothing if the clock reads earlier.
- A number (the file of an older release): the wall-clock time its cut-off ends.

An output whose time ran out stays off, with a log line saying so.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from baccarat_core.numbers import show_value
from baccarat_core.records import record

from ..config import Config

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

log = logging.getLogger("baccarat.state")

#: While an output with a cut-off is held on, its time left is written again this often (seconds):
#: the most a crash can leave uncounted, which a restart takes off its time left.
CHECKPOINT_SECONDS = 5.0
#: Keys of a saved output with a cut-off.
_ENTRY = frozenset({"left", "saved_at", "off"})


class Timer(Protocol):
    """What :data:`Schedule` returns: a timer that can be stopped."""

    def cancel(self) -> None:
        """Stop it (if it has not run)."""


#: ``schedule(seconds, fn)``: run ``fn`` once, ``seconds`` from now, on another thread.
Schedule = Callable[[float, Callable[[], None]], Timer]


def thread_timer(seconds: float, fn: Callable[[], None]) -> Timer:
    """:data:`Schedule` on a daemon ``threading.Timer``."""
    timer = threading.Timer(seconds, fn)
    timer.daemon = True
    timer.start()
    return timer


def encode(held: Mapping[str, float | None], wall: float, *, stopped: bool = False) -> dict[str, Any]:
    """The state file's ``outputs``: each output held on, by name, as :func:`held_outputs` reads it.

    >>> encode({"lock": None, "fog": 12.34567}, 1767225600.0)
    {'lock': None, 'fog': {'left': 12.345, 'saved_at': 1767225600.0}}
    """
    saved: dict[str, Any] = {}
    for name, left in held.items():
        if left is None:
            saved[name] = None
        else:
            # Rounded down, both: the time left never grows, the time since the save never shrinks.
            saved[name] = {"left": math.floor(max(0.0, left) * 1000) / 1000, "saved_at": math.floor(wall * 1000) / 1000}
            if stopped:
                saved[name]["off"] = True
    return saved


def counting(held: Mapping[str, float | None]) -> bool:
    """True while an output with a cut-off is held on (its time left wants :data:`CHECKPOINT_SECONDS`)."""
    return any(left for left in held.values())


def _number(value: object, top: float) -> float | None:
    """``value`` as a float when it is a number from 0 up to ``top`` (never a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < top:
        return None
    return float(value)


def _left(saved: object, now: float) -> float | None:
    """Seconds left of one saved output with a cut-off at wall-clock time ``now``; None if damaged."""
    deadline = _number(saved, 1e11)
    if deadline is not None:  # an older release's file: the wall-clock end of its cut-off
        return deadline - now
    if not isinstance(saved, dict) or not {"left", "saved_at"} <= saved.keys() <= _ENTRY:
        return None
    left, saved_at, off = _number(saved["left"], 1e6), _number(saved["saved_at"], 1e11), saved.get("off", False)
    if left is None or saved_at is None or off not in (True, False):
        return None
    since = now - saved_at
    return left - (max(0.0, since) if off else max(since, CHECKPOINT_SECONDS))


def held_outputs(saved: object, config: Config, path: Path, now: float) -> dict[str, float | None]:
    """The state file's ``outputs``, each checked (a configured output's name, an entry of
    :func:`encode` or an older release's number): the seconds each has left at wall-clock time
    ``now`` (None: no cut-off); one with none left, or damaged, is left out with a log line."""
    if not isinstance(saved, dict):
        log.warning("state file %s: outputs %s is not an object; no output switched on again", path, show_value(saved))
        return {}
    names = {output.name for output in config.outputs}
    held: dict[str, float | None] = {}
    for name, entry in saved.items():
        if name not in names:
            log.warning("state file %s: output %s is not in the config; not switched on again", path, show_value(name))
            continue
        if entry is None:
            held[name] = None
            continue
        left = _left(entry, now)
        if left is None:
            log.warning(
                "state file %s: output %s = %s is not a time; not switched on again", path, name, show_value(entry)
            )
        elif left <= 0:
            log.info("state file %s: output %s stays off: its max_on_seconds ran out", path, name)
        else:
            held[name] = left
    return held


@record(frozen=False, eq=False, repr=False)
class Checkpoints:
    """The state keeper's outputs: while one with a cut-off is on, the last document saved is
    handed to ``hand`` again every :data:`CHECKPOINT_SECONDS` (timed by ``schedule``) with the
    outputs' time left as it is then, counted on ``clock`` from that save; at the stop, once
    more with the time left as at the stop (:meth:`stopped`)."""

    hand: Callable[[str], None]
    _: KW_ONLY
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    schedule: Schedule = thread_timer

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._doc: dict[str, Any] | None = None  # the last document saved, its outputs and when (clock)
        self._held: dict[str, float | None] = {}
        self._at = 0.0
        self._timer: Timer | None = None
        self._stopped = False

    def saved(self, doc: dict[str, Any], held: Mapping[str, float | None]) -> None:
        """``doc`` was saved (call before it is handed to the writer) with ``held``, the outputs held
        on with their seconds left: count from now."""
        with self._lock:
            self._doc, self._held, self._at = doc, dict(held), self.clock()
            self._arm()

    def _arm(self) -> None:
        if self._timer is None and not self._stopped and counting(self._held):
            self._timer = self.schedule(CHECKPOINT_SECONDS, self._again)

    def _again(self) -> None:
        with self._lock:  # handed under the lock: a newer save is handed after this, never before
            self._timer = None
            if self._stopped or self._doc is None:
                return
            spent = self.clock() - self._at
            held = {name: None if left is None else max(0.0, left - spent) for name, left in self._held.items()}
            self.hand(json.dumps({**self._doc, "outputs": encode(held, self.wall_clock())}, sort_keys=True))
            if counting(held):
                self._arm()

    def stopped(self, outputs: Callable[[], Mapping[str, float | None]]) -> str | None:
        """The stop: no more checkpoints; the last document with ``outputs()`` (as at the stop, the
        outputs off) to write, when one with a cut-off was held on, else None."""
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
            if self._doc is None or not counting(self._held):
                return None
            return json.dumps(
                {**self._doc, "outputs": encode(outputs(), self.wall_clock(), stopped=True)}, sort_keys=True
            )
