"""The one driver of the board's mock pins: press, release, tap, hold and bounce by input name.

The simulator's keys, the tests and the benchmark all press buttons through
:class:`PinDriver`, so every simulated press travels the same path as a
finger on the Pi: pin edge, gpiozero callback, debounce filter, daemon.
"""

from __future__ import annotations

import threading
import time

from gpiozero.pins.mock import MockPin

from ..devices.board import INPUT_NAMES, PropBoard

#: Short names the driver also accepts.
ALIASES: dict[str, str] = {"left": "arrow_left", "right": "arrow_right"}


class ManualClock:
    """A clock that moves only when told: hand it to the board's debounce filters and
    hold timer (``build_daemon(clock=...)``) and to :class:`PinDriver`, and presses,
    holds and bounce take no real time."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        """The current reading."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock on."""
        with self._lock:
            self.now += seconds

    def advance_to(self, moment: float) -> None:
        """Move the clock on to exactly ``moment`` (a reading; never backwards)."""
        with self._lock:
            if moment < self.now:
                raise ValueError(f"the clock reads {self.now}; it cannot go back to {moment}")
            self.now = moment


class PinDriver:
    """Presses the board's inputs by driving their mock pins.

    With a :class:`ManualClock` (the one the board's filters and hold timer read),
    taps, holds and bounce advance that clock instead of sleeping, and each wait
    lets the hold timer make the calls now due before the next edge.
    """

    def __init__(self, board: PropBoard, *, clock: ManualClock | None = None) -> None:
        self.board = board
        self.clock = clock

    @staticmethod
    def name(name: str) -> str:
        """The input's full name (``left`` -> ``arrow_left``); unknown names are a KeyError."""
        full = ALIASES.get(name, name)
        if full not in INPUT_NAMES:
            raise KeyError(f"no input {name!r} (inputs: {', '.join(INPUT_NAMES)})")
        return full

    def pin(self, name: str) -> MockPin:
        """The mock pin behind input ``name``."""
        return self.board.inputs[self.name(name)].button.pin

    def set(self, name: str, pressed: bool) -> None:
        """Drive input ``name`` to its pressed or released level."""
        wrapper = self.board.inputs[self.name(name)]
        pin = wrapper.button.pin
        if pressed == wrapper.pressed_high:
            pin.drive_high()
        else:
            pin.drive_low()

    def press(self, name: str) -> None:
        """Close the contact (and keep it closed)."""
        self.set(name, True)

    def release(self, name: str) -> None:
        """Open the contact."""
        self.set(name, False)

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` pass for the debounce filters and the hold timer: on the manual
        clock (then the holds now due fire before this returns), or for real."""
        if self.clock is not None:
            self.clock.advance(seconds)
            self.board.catch_up()
        else:
            time.sleep(seconds)

    def wait_until(self, moment: float) -> None:
        """Let the manual clock reach exactly ``moment`` (then the holds due fire before this returns)."""
        if self.clock is None:
            raise RuntimeError("wait_until needs the manual clock")
        self.clock.advance_to(moment)
        self.board.catch_up()

    def tap(self, name: str, seconds: float = 0.04, *, settle: float = 0.03) -> None:
        """A short press: down for ``seconds``, then up, then ``settle`` before the next touch."""
        self.press(name)
        self.wait(seconds)
        self.release(name)
        self.wait(settle)

    def hold(self, name: str, seconds: float) -> None:
        """Keep input ``name`` pressed for ``seconds`` (see :meth:`wait`), then release it."""
        self.press(name)
        self.wait(seconds)
        self.release(name)

    def bounce(self, name: str, *, pressed: bool, edges: int = 4, gap: float = 0.001) -> None:
        """Contact chatter ending at the pressed (or released) level: ``edges`` quick flips first."""
        for _ in range(edges):
            self.set(name, pressed)
            self.wait(gap)
            self.set(name, not pressed)
            self.wait(gap)
        self.set(name, pressed)

    def tap_in_background(self, name: str, seconds: float = 0.06) -> None:
        """A tap (or, for ``seconds`` past the hold time, a hold) on a thread of its own."""
        threading.Thread(target=self.hold, args=(name, seconds), daemon=True).start()
