"""The bomb's countdown and strike limit, as the game has them: pure, the clock comes from outside.

A :class:`Countdown` holds its seconds left as of the last clock reading it was
given (:meth:`Countdown.advance`) and whether it runs. Whoever owns the clock (the
daemon, with its game thread's clock; a test, with numbers) advances it before
anything may change it, so that a start, a pause, a strike's faster rate or a stop
takes effect at that reading; between readings nothing here runs, and nothing here
reads a clock.

The rules (:class:`BombRules`, the config's ``[bomb]``): a countdown of
``timer_seconds`` that starts at the players' first input after a reset (or at the
game master's ``start``), pauses while the table is closed and stops when the module
is solved; a strike makes it run faster when ``speed_up`` is on (:func:`rate_after`);
at 0, or at the ``strike_limit``-th strike, the bomb explodes
(:class:`~baccarat_core.module.BaccaratModule` applies them).

>>> timer = Countdown(300.0)
>>> timer.advance(10.0)  # the clock reads 10 s: nothing runs yet
>>> timer.start()  # it was waiting: it runs now
True
>>> timer.advance(70.0)  # a minute later
>>> timer.left, clock_text(timer.left)
(240.0, '04:00')
>>> timer.rate = rate_after(1); timer.advance(80.0)  # a strike at 70 s: 10 s of the clock take 12.5
>>> timer.left, timer.expires_at()
(227.5, 262.0)
"""

from __future__ import annotations

import math
from typing import Any

from .errors import BaccaratError
from .numbers import show_value
from .records import field, record

#: Each strike makes the countdown run this much faster: the game's timer runs at 1.25x
#: after one strike and 1.5x after two (a bomb with the game's three strikes explodes at the
#: third, so a vanilla bomb never runs faster). A bomb allowed more strikes goes on in steps
#: of 0.25 ... (the rule of PurkkaKoodari/ktane-hw, a hardware build of the game:
#: ``maincontroller/bombgame/bomb/bomb.py``; meithecatte/ktanesim, a re-implementation, agrees
#: on 1.25x and 1.5x and jumps to 2x at the third strike)
RATE_STEP = 0.25
#: ... up to twice the normal speed (4 strikes and more).
MAX_RATE = 2.0

#: Longest countdown (``[bomb] timer_seconds``, and what ``add_time`` may bring it to): ten hours.
MAX_TIMER_SECONDS = 36_000.0
#: Largest strike limit (``[bomb] strike_limit``).
MAX_STRIKE_LIMIT = 99

#: What a countdown is doing: not started yet, running, paused (the table is closed), stopped
#: (solved or exploded: it shows the time it stopped at).
STATES: tuple[str, ...] = ("waiting", "running", "paused", "stopped")
#: Why a bomb explodes: its countdown reached 0, or the strike limit was reached.
CAUSES: tuple[str, ...] = ("timer", "strikes")

#: A countdown this close to a whole second shows that second (float dust never keeps a
#: second on a display, nor a due wake-up from coming).
_EPSILON = 1e-6


def rate_after(strikes: int) -> float:
    """How fast the countdown runs after ``strikes`` strikes (with ``speed_up``).

    >>> [rate_after(n) for n in range(6)]
    [1.0, 1.25, 1.5, 1.75, 2.0, 2.0]
    """
    return min(1.0 + RATE_STEP * max(strikes, 0), MAX_RATE)


def shown_seconds(left: float) -> int:
    """The whole seconds a display shows for ``left`` seconds left: rounded up, so that 00:00
    appears at the moment the bomb explodes (and 05:00 for the first second of five minutes)."""
    return max(0, math.ceil(left - _EPSILON))


def clock_text(left: float | None) -> str:
    """``04:59``, ``1:00:00``; ``--:--`` without a countdown. The one way the prop writes time left.

    >>> clock_text(299.2), clock_text(3600), clock_text(0.4), clock_text(None)
    ('05:00', '1:00:00', '00:01', '--:--')
    """
    if left is None:
        return "--:--"
    whole = shown_seconds(left)
    if whole >= 3600:
        return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return f"{whole // 60:02d}:{whole % 60:02d}"


@record
class BombRules:
    """The bomb around the module (``[bomb]``): a countdown of ``timer_seconds`` (None: none),
    explosion at ``strike_limit`` strikes (None: never), and ``speed_up``: each strike makes the
    countdown run faster (:func:`rate_after`)."""

    timer_seconds: float | None = None
    strike_limit: int | None = None
    speed_up: bool = True

    def describe(self) -> str:
        """``timer 05:00 (faster after each strike), explodes at 3 strikes``, as ``check-config`` says it."""
        if self.timer_seconds is None:
            timer = "no timer"
        else:
            timer = f"timer {clock_text(self.timer_seconds)}" + (
                " (faster after each strike: x1.25, x1.5, ... up to x2)"
                if self.speed_up
                else " (same speed throughout)"
            )
        limit = "no strike limit" if self.strike_limit is None else f"explodes at {self.strike_limit} strikes"
        return f"{timer}, {limit}"


@record(frozen=False)
class Countdown:
    """A countdown of ``seconds``: ``left`` seconds left as of the clock reading ``at`` (None: no
    reading yet), its ``state`` (:data:`STATES`) and its ``rate`` (1.0, faster after strikes)."""

    seconds: float
    left: float = -1.0  # -1: the full time
    state: str = "waiting"
    rate: float = 1.0
    at: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.left < 0:
            self.left = self.seconds

    # -- reading ----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while it counts down."""
        return self.state == "running"

    @property
    def done(self) -> bool:
        """True once it ran out (while running: the bomb explodes)."""
        return self.left <= _EPSILON

    def left_at(self, now: float) -> float:
        """Seconds left at the clock reading ``now`` (changes nothing)."""
        if not self.running or self.at is None or now <= self.at:
            return self.left
        return max(0.0, self.left - self.rate * (now - self.at))

    def shown(self) -> int:
        """The whole seconds a display shows now (as of the last reading)."""
        return shown_seconds(self.left)

    def expires_at(self) -> float | None:
        """The clock reading at which it reaches 0, while it runs (else None)."""
        if not self.running or self.at is None:
            return None
        return self.at + self.left / self.rate

    def next_second_at(self) -> float | None:
        """The clock reading at which the whole seconds shown change next, while it runs."""
        if not self.running or self.at is None:
            return None
        target = self.shown() - 1
        return self.at + max(0.0, self.left - target) / self.rate

    # -- changing (advance to the clock's reading first) -------------------------------------
    def advance(self, now: float) -> None:
        """Count down to the clock reading ``now``: what passed since the last reading, at the rate
        in force then. A clock reading earlier than the last one changes nothing."""
        if self.at is not None and now < self.at:
            return
        self.left = self.left_at(now)
        self.at = now

    def start(self, *, paused: bool = False) -> bool:
        """Start a countdown that waits (``paused``: the table is closed, it runs when it opens);
        False if it was not waiting."""
        if self.state != "waiting":
            return False
        self.state = "paused" if paused else "running"
        return True

    def pause(self) -> None:
        """Pause a running countdown (the table closed)."""
        if self.state == "running":
            self.state = "paused"

    def resume(self) -> None:
        """Run a paused countdown again (the table opened)."""
        if self.state == "paused":
            self.state = "running"

    def stop(self) -> None:
        """Stop for good (solved, exploded): it keeps the time it stopped at."""
        self.state = "stopped"

    def reset(self) -> None:
        """The full time again, waiting for the first input, at the normal rate."""
        self.left = self.seconds
        self.state = "waiting"
        self.rate = 1.0

    def elapse(self, seconds: float) -> None:
        """``seconds`` passed with no clock reading (the prop was off): a running countdown counts
        them down at its rate; nothing else changes."""
        if self.running and seconds > 0:
            self.left = max(0.0, self.left - self.rate * seconds)

    def add(self, seconds: float) -> None:
        """``seconds`` more (fewer when negative), from 0 to :data:`MAX_TIMER_SECONDS`."""
        self.left = min(max(self.left + seconds, 0.0), MAX_TIMER_SECONDS)

    # -- saving ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """What a saved game keeps (``left`` as of the last reading; the rate follows the strikes)."""
        return {"seconds": self.seconds, "left": round(self.left, 3), "state": self.state}

    @classmethod
    def from_dict(cls, data: object, seconds: float) -> Countdown:
        """A countdown of ``seconds`` from :meth:`to_dict`'s form, strictly: every key, ``seconds``
        as the rules have it, ``left`` a number from 0 to :data:`MAX_TIMER_SECONDS`, a known state."""
        if not isinstance(data, dict) or set(data) != {"seconds", "left", "state"}:
            raise BaccaratError(f"saved timer {show_value(data)} is not an object with seconds, left and state")
        if _number(data["seconds"]) != seconds:
            raise BaccaratError(f"saved timer of {show_value(data['seconds'])} s is not the bomb's ({seconds:g} s)")
        left = _number(data["left"])
        if left is None or not 0 <= left <= MAX_TIMER_SECONDS:
            raise BaccaratError(
                f"saved time left {show_value(data['left'])} is not a number of seconds from 0 to {MAX_TIMER_SECONDS:g}"
            )
        state = data["state"]
        if state not in STATES:
            raise BaccaratError(f"saved timer state {show_value(state)} is not one of {', '.join(STATES)}")
        return cls(seconds, float(left), state)


def _number(value: object) -> float | None:
    """``value`` as a float if it is a finite JSON number (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def check_seconds(value: object, what: str, *, low: float = -MAX_TIMER_SECONDS) -> float:
    """``value`` as seconds: a finite number (not a boolean) from ``low`` to :data:`MAX_TIMER_SECONDS`."""
    number = _number(value)
    if number is None:
        raise BaccaratError(f"{what} {show_value(value)} is not a number of seconds")
    if not low <= number <= MAX_TIMER_SECONDS:
        raise BaccaratError(f"{what} {show_value(value)} is not from {low:g} to {MAX_TIMER_SECONDS:g} seconds")
    return number
