"""Inputs built on gpiozero: betting areas with short press and hold, plain buttons.

Contact bounce is filtered here, not by the pin backend: gpiozero's
``bounce_time`` means different things per backend and nothing under
``MockFactory``. A press counts when the contact has been closed for at
least ``debounce`` seconds before it opens again; shorter closures are bounce.
The filters and the hold timer read ``clock`` (``time.monotonic`` unless a test
passes its own), so a test can drive bounce and holds without sleeping.

Holds are timed here too (:class:`HoldTimer`), not by gpiozero's ``Button``:
each ``Button`` runs a ``HoldThread`` that wakes every 0.1 s whether anything is
pressed or not, so five betting areas woke an idle Pi 50 times a second (about
100 context switches). One thread here sleeps until a hold is actually due.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from gpiozero import DigitalInputDevice

from baccarat_core.records import record

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

Clock = Callable[[], float]

log = logging.getLogger("baccarat.inputs")


class HoldTimer:
    """One thread that calls each armed function once its time has passed.

    With nothing armed it waits without a timeout: an idle prop is never woken.
    Times are read from ``clock``: ``time.monotonic`` (a player's thumb is real), or
    the clock a test moves by hand, the one the debounce filters read, so that a hold
    fires at exactly ``hold_seconds`` on it; after moving that clock the test calls
    :meth:`catch_up`.
    """

    def __init__(self, name: str = "baccarat-holds", *, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._due: dict[Hashable, tuple[float, Callable[[], None]]] = {}
        self._calling = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def arm(self, key: Hashable, seconds: float, fn: Callable[[], None], *, since: float | None = None) -> None:
        """Call ``fn`` ``seconds`` after ``since`` (a reading of the clock; default now), on the
        timer's thread, unless :meth:`cancel` comes first; arming ``key`` again replaces its
        earlier time."""
        with self._cond:
            start = self._clock() if since is None else since
            self._due[key] = (start + seconds, fn)
            self._cond.notify_all()

    def cancel(self, key: Hashable) -> None:
        """Forget ``key``'s call, if it has not been made yet."""
        with self._cond:
            self._due.pop(key, None)

    def catch_up(self, timeout: float = 5.0) -> None:
        """Return once every call due by the clock's reading now has been made (a test moved
        its clock on: the timer's thread is woken to look at it again)."""
        with self._cond:
            now = self._clock()
            self._cond.notify_all()
            deadline = time.monotonic() + timeout
            while not self._closed and (self._calling or any(at <= now for at, _ in self._due.values())):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the hold timer did not make its due calls within {timeout:g} s")
                self._cond.wait(left)

    def close(self) -> None:
        """Stop the thread; armed calls are not made."""
        with self._cond:
            self._closed = True
            self._due.clear()
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(1.0)

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                if not self._due:
                    self._cond.wait()
                    continue
                key, (at, fn) = min(self._due.items(), key=lambda item: item[1][0])
                left = at - self._clock()
                if left > 0:
                    self._cond.wait(left)
                    continue
                del self._due[key]
                self._calling = True
                self._cond.release()
                try:
                    fn()
                except Exception:  # one failing call must not end the holds of every area
                    log.exception("hold: %r failed", key)
                finally:
                    self._cond.acquire()
                    self._calling = False
                    self._cond.notify_all()


@record(frozen=False, eq=False, repr=False)
class BettingArea:
    """One betting area: ``on_press()`` after a short press, ``on_hold()`` at the
    moment the hold time passes (its release then adds nothing).

    ``button`` is a plain gpiozero input; ``holds`` times the hold (``hold_seconds``
    from the contact closing, on the clock the hold timer and ``clock`` share). ``pressed_high`` is the pin level while
    the area is pressed (False for a button to GND on a pull-up).
    """

    button: DigitalInputDevice
    _: KW_ONLY
    on_press: Callable[[], None]
    #: Called on the hold timer's thread when the hold time has passed (a benchmark may wrap it).
    on_hold: Callable[[], None]
    holds: HoldTimer
    hold_seconds: float = 0.5
    debounce: float = 0.02
    pressed_high: bool = False
    clock: Clock = time.monotonic

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._closed_at: float | None = None
        self._held = False
        self.button.when_activated = self._pressed
        self.button.when_deactivated = self._released

    def _pressed(self) -> None:
        with self._lock:
            self._closed_at = closed_at = self.clock()
            self._held = False
        self.holds.arm(self, self.hold_seconds, self._hold_passed, since=closed_at)

    def _hold_passed(self) -> None:
        with self._lock:
            if self._held or self._closed_at is None:
                return
            self._held = True
        self.on_hold()

    def _released(self) -> None:
        self.holds.cancel(self)
        with self._lock:
            closed_at, held = self._closed_at, self._held
            self._closed_at = None
            self._held = False
        if held or closed_at is None:
            return
        if self.clock() - closed_at >= self.debounce:
            self.on_press()


@record(frozen=False, eq=False, repr=False)
class DebouncedButton:
    """A button or sensor that calls ``on_press()`` once per real press.

    The press is taken at the leading edge (the arrows and the deck answer at
    once); edges within ``debounce`` of the last accepted press are bounce.
    """

    button: DigitalInputDevice
    _: KW_ONLY
    on_press: Callable[[], None]
    debounce: float = 0.02
    pressed_high: bool = False
    clock: Clock = time.monotonic

    def __post_init__(self) -> None:
        self._last: float | None = None
        self._lock = threading.Lock()
        self.button.when_activated = self._pressed
        self.button.when_deactivated = self._released

    def _pressed(self) -> None:
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last < self.debounce:
                self._last = now
                return
            self._last = now
        self.on_press()

    def _released(self) -> None:
        with self._lock:
            self._last = self.clock()
