"""Inputs built on gpiozero: betting areas with short press and hold, plain buttons.

Contact bounce is filtered here, not by the pin backend: gpiozero's
``bounce_time`` means different things per backend and nothing under
``MockFactory``. A press counts when the contact has been closed for at
least ``debounce`` seconds before it opens again; shorter closures are bounce.
The filters read ``clock`` (``time.monotonic`` unless a test passes its own),
so a test can drive bounce without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from gpiozero import Button, DigitalInputDevice

Clock = Callable[[], float]


class BettingArea:
    """One betting area: ``on_press()`` after a short press, ``on_hold()`` at the
    moment the hold time passes (its release then adds nothing).

    ``pressed_high`` is the pin level while the area is pressed (False for a
    button to GND on a pull-up).
    """

    def __init__(
        self,
        button: Button,
        *,
        on_press: Callable[[], None],
        on_hold: Callable[[], None],
        debounce: float = 0.02,
        pressed_high: bool = False,
        clock: Clock = time.monotonic,
    ) -> None:
        self.button = button
        self.pressed_high = pressed_high
        self._on_press = on_press
        self._on_hold = on_hold
        self._debounce = debounce
        self._clock = clock
        self._lock = threading.Lock()
        self._closed_at: float | None = None
        self._held = False
        button.when_pressed = self._pressed
        button.when_held = self._hold_passed
        button.when_released = self._released

    def _pressed(self) -> None:
        with self._lock:
            self._closed_at = self._clock()
            self._held = False

    def _hold_passed(self) -> None:
        with self._lock:
            if self._held or self._closed_at is None:
                return
            self._held = True
        self._on_hold()

    def _released(self) -> None:
        with self._lock:
            closed_at, held = self._closed_at, self._held
            self._closed_at = None
            self._held = False
        if held or closed_at is None:
            return
        if self._clock() - closed_at >= self._debounce:
            self._on_press()


class DebouncedButton:
    """A button or sensor that calls ``on_press()`` once per real press.

    The press is taken at the leading edge (the arrows and the deck answer at
    once); edges within ``debounce`` of the last accepted press are bounce.
    """

    def __init__(
        self,
        button: DigitalInputDevice,
        *,
        on_press: Callable[[], None],
        debounce: float = 0.02,
        pressed_high: bool = False,
        clock: Clock = time.monotonic,
    ) -> None:
        self.button = button
        self.pressed_high = pressed_high
        self._on_press = on_press
        self._debounce = debounce
        self._clock = clock
        self._last: float | None = None
        self._lock = threading.Lock()
        button.when_activated = self._pressed
        button.when_deactivated = self._released

    def _pressed(self) -> None:
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last < self._debounce:
                self._last = now
                return
            self._last = now
        self._on_press()

    def _released(self) -> None:
        with self._lock:
            self._last = self._clock()
