"""What the module's status light and the bomb around it show: strikes, solved, exploded, the
countdown, and whether the game master has the table open.

:class:`ModuleStatus` holds the rules of how a game ends (a winning round solves it, the strike
limit or the countdown explodes it, the game master may solve it or close the table) and is the
base of :class:`~baccarat_core.module.BaccaratModule`, which adds the table: the limits, the
deck, the chips and the rounds.

>>> from baccarat_core.timer import BombRules
>>> status = ModuleStatus(BombRules(timer_seconds=60.0, strike_limit=2))
>>> [event.kind for event in status.set_enabled(False)], status.start_timer()  # paused while closed
(['enabled'], [TimerStarted(seconds_left=60.0, forced=True)])
>>> [event.describe() for event in status.add_time(-60)]
['60 s taken away by the game master: 00:00 left', 'EXPLODED: the time ran out (0 strikes)']
>>> status.force_solve()
[InputIgnored(input='force solve', reason='exploded')]
"""

from __future__ import annotations

from . import events as ev
from .errors import BaccaratError
from .numbers import show_value
from .timer import CAUSES, BombRules, Countdown, check_seconds, rate_after


class ModuleStatus:
    """Strikes, the solve, the explosion, the countdown and the open table; see the module."""

    def __init__(self, rules: BombRules | None = None) -> None:
        #: The bomb's countdown and strike limit (``[bomb]``).
        self.rules = rules if rules is not None else BombRules()
        #: The countdown (None: the bomb has no timer); its owner advances it with a clock.
        self.timer: Countdown | None = (
            Countdown(self.rules.timer_seconds) if self.rules.timer_seconds is not None else None
        )
        self.strikes = 0
        self.solved = False
        #: False while the game master has closed the table: player inputs are ignored.
        self.enabled = True
        #: Why the bomb exploded (``timer`` or ``strikes``), or None; an exploded module takes no input.
        self.exploded: str | None = None

    def reset_status(self) -> None:
        """A fresh game: no strikes, not solved, not exploded, the countdown back to its start (the
        table stays as the game master left it)."""
        self.strikes = 0
        self.solved = False
        self.exploded = None
        if self.timer is not None:
            self.timer.reset()

    # -- the game master's -----------------------------------------------------------
    def set_enabled(self, enabled: bool) -> list[ev.Event]:
        """The game master opens (True) or closes (False) the table; a closed table ignores
        every player input. A reset does not reopen it."""
        if enabled == self.enabled:
            return []
        self.enabled = enabled
        if self.timer is not None:
            self.timer.resume() if enabled else self.timer.pause()
        return [ev.EnabledChanged(enabled)]

    def force_solve(self) -> list[ev.Event]:
        """The game master solves the module."""
        if self.solved or self.exploded:
            return [ev.InputIgnored("force solve", "solved" if self.solved else "exploded")]
        self.solved = True
        self._stop_timer()
        return [ev.Solved(forced=True)]

    def start_timer(self) -> list[ev.Event]:
        """The game master starts the countdown now, as the players' first input would (paused
        while the table is closed); nothing if it runs already or the game is over."""
        if self.timer is None:
            raise BaccaratError("this bomb has no timer (set [bomb] timer_seconds)")
        if self.solved or self.exploded or not self.timer.start(paused=not self.enabled):
            return []
        return [ev.TimerStarted(round(self.timer.left, 1), forced=True)]

    def add_time(self, seconds: float) -> list[ev.Event]:
        """The game master adds ``seconds`` to the countdown (takes them away when negative; at 0
        the bomb explodes). Refused (an ``ignored`` event) once the game is over."""
        if self.timer is None:
            raise BaccaratError("this bomb has no timer (set [bomb] timer_seconds)")
        seconds = check_seconds(seconds, "time to add")
        if refused := self._over("add time"):
            return refused
        self.timer.add(seconds)
        out: list[ev.Event] = [ev.TimeAdded(seconds, round(self.timer.left, 1))]
        return out + (self.explode("timer") if self.timer.done else [])

    # -- how a game ends -------------------------------------------------------------
    def expire(self) -> list[ev.Event]:
        """The countdown reached 0 (its owner says so): the bomb explodes."""
        if self.timer is None or not self.timer.done:
            return []
        return self.explode("timer")

    def explode(self, cause: str) -> list[ev.Event]:
        """The bomb explodes (``cause``: ``timer`` or ``strikes``): the countdown stops, and every
        player input is ignored until a reset. Nothing once the game is over."""
        if cause not in CAUSES:
            raise BaccaratError(f"cause {show_value(cause)} is not one of {', '.join(CAUSES)}")
        if self.solved or self.exploded:
            return []
        self.exploded = cause
        self._stop_timer()
        if cause == "timer" and self.timer is not None:
            self.timer.left = 0.0
        return [ev.Exploded(cause, self.strikes)]

    def _strike(self, reason: str, detail: str) -> list[ev.Event]:
        """A strike: the countdown runs faster, and at the strike limit the bomb explodes."""
        self.strikes += 1
        out: list[ev.Event] = [ev.Strike(reason, detail, self.strikes)]
        if self.timer is not None:
            self.timer.rate = self._rate()
        limit = self.rules.strike_limit
        if limit is not None and self.strikes >= limit:
            out += self.explode("strikes")
        return out

    def _win(self) -> list[ev.Event]:
        """A winning round solves the module."""
        self.solved = True
        self._stop_timer()
        return [ev.Solved()]

    # -- what a player's input meets -------------------------------------------------
    def _refuse(self, what: str) -> list[ev.Event]:
        """``[InputIgnored]`` when a player input cannot be taken now, else ``[]``."""
        if refused := self._over(what):
            return refused
        if not self.enabled:
            return [ev.InputIgnored(what, "disabled")]
        return []

    def _over(self, what: str) -> list[ev.Event]:
        """``[InputIgnored]`` once the game is over (solved or exploded), else ``[]``."""
        if self.exploded:
            return [ev.InputIgnored(what, "exploded")]
        if self.solved:
            return [ev.InputIgnored(what, "solved")]
        return []

    def _first_input(self) -> list[ev.Event]:
        """A player input was taken: the countdown starts if it waits for one."""
        if self.timer is None or not self.timer.start():
            return []
        return [ev.TimerStarted(round(self.timer.left, 1))]

    def _rate(self) -> float:
        """The countdown's rate for the strikes so far."""
        return rate_after(self.strikes) if self.rules.speed_up else 1.0

    def _stop_timer(self) -> None:
        """Stop the countdown where it is (the game is over)."""
        if self.timer is not None:
            self.timer.stop()
