"""The prop as the controller of an OBUS bomb (``role = "controller"``), itself one of its modules.

At its start and after each reset of the prop's game it runs the two rounds OBUS's controllers
run, so that the modules are registered before the game master starts the bomb:

1. **INFO START** with a random seed; for :data:`~.roles.INFO_SECONDS` the info modules answer.
   When no info module 1 sent a serial number by :data:`~.roles.OWN_SERIAL_AT`, the prop sends its
   own edgework's as info module 1 would, in seven characters that the manual reads as it reads
   the prop's six (:func:`~.serial.to_obus`).
2. **HELLO**, and an **ACK** for each module that registers (up to :data:`~.roles.MAX_MODULES`).

The bomb starts with the prop's countdown (the game master's ``start``, or the players' first
input): **GAME START** with ``[bomb]``'s time and strike limit and the puzzle modules (the prop
counts as one), then **STATE** every :data:`~.roles.STATE_SECONDS`. The bomb's clock is kept here
(a :class:`~baccarat_core.timer.Countdown`, faster after each strike as ``[bomb] speed_up`` says)
and the prop's own countdown and strikes follow it. Strikes from every module count against the
one limit (each module's last STRIKE count, plus the prop's). It ends with **SOLVED** when every
puzzle module is, **TIMEOUT** at 0, **STRIKEOUT** at the strike limit.

A module that registers twice (a second module with the same id, or one that missed its ACK), a
REGISTER after the game started, a STRIKE or SOLVED from a module that never registered: one log
line each, and the game goes on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core.bomb import draw_serial
from baccarat_core.records import field, record
from baccarat_core.timer import BombRules, Countdown, rate_after

from . import protocol as p
from .roles import (
    INFO_SECONDS,
    MAX_MODULES,
    OWN_SERIAL_AT,
    STATE_SECONDS,
    Game,
    Note,
    PropEvent,
    Send,
    Tally,
    log,
    log_note,
    read_info,
)
from .serial import to_obus

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

#: The controller's phases.
IDLE, INFO, REGISTERING, PLAYING, OVER = "idle", "info", "registering", "playing", "over"
#: Draws of a random serial, at most, for one that fits OBUS's seven characters (2 in 3 do).
MAX_DRAWS = 50
_KINDS = {"solved": p.SOLVED, "timer": p.TIMEOUT, "strikes": p.STRIKEOUT}


@record(frozen=False, eq=False, repr=False)
class ControllerRole:
    """The controller's state machine: see the module's text. ``serial`` gives the prop's serial
    number now; ``count`` is how byte 7 is written (``left`` or ``solved``)."""

    send: Send
    game: Game
    rules: BombRules
    _: KW_ONLY
    serial: Any
    count: str = "left"
    rng: random.Random = field(default_factory=random.Random)
    note: Note = log_note
    #: True while the prop's edgework was drawn at random (its serial may be drawn again to fit).
    drawn: Callable[[], bool] = lambda: False

    def __post_init__(self) -> None:
        if self.rules.timer_seconds is None:
            raise ValueError("an OBUS controller needs [bomb] timer_seconds")
        self.phase = IDLE  # until the bus is open and the rounds begin
        self.modules: dict[p.Node, Tally] = {}
        self.clock = Countdown(self.rules.timer_seconds)
        self.prop_strikes = 0
        self.prop_solved = False
        self.info_until = 0.0
        self.serial_at: float | None = None
        self.serial_heard = False
        #: The edgework the info modules sent in this info round (``set_edgework``'s keys).
        self.edgework: dict[str, Any] = {}
        self.next_state = 0.0
        self.ended: str | None = None

    # -- the rounds --------------------------------------------------------------------------
    def begin(self, now: float) -> None:
        """Run the info round, then the registration round (at the start and after each reset)."""
        self.phase = INFO
        self.modules = {}
        self.clock = Countdown(self.rules.timer_seconds or 0.0)
        self.clock.advance(now)
        self.prop_strikes, self.prop_solved, self.ended = 0, False, None
        self.serial_heard = False
        self.edgework = {}
        self.info_until = now + INFO_SECONDS
        self.serial_at = now + OWN_SERIAL_AT
        self.send(p.info_start(self.rng.getrandbits(32)))
        self.game.sync(None, 0, 0)  # a new bomb: nothing solved, no strike
        self.game.changed()

    def _hello(self) -> None:
        if self.edgework:
            self.game.edgework(dict(self.edgework))
        self.phase = REGISTERING
        self.send(p.hello())
        log.info("obus: registration round: HELLO sent")

    def _own_serial(self) -> None:
        self.serial_at = None
        if self.serial_heard:
            return
        own = str(self.serial())
        seven = to_obus(own)
        if seven is None and self.drawn():
            # a bomb drawn at random: draw its serial again until it fits, as the prop's and the bus's
            six = next((s for s in (draw_serial(self.rng) for _ in range(MAX_DRAWS)) if to_obus(s)), None)
            if six is not None:
                seven = to_obus(six)
                self.edgework["serial"] = six
                log.info("obus: the drawn serial %s does not fit OBUS's seven characters: the bomb's is %s", own, six)
        if seven is None:
            self.note(
                "serial",
                f"obus: the prop's serial {own} has no seven-character form that the manual reads alike (three "
                "letters and three digits rarely have one): no serial number goes on the bus",
            )
            return
        self.send(p.info_message(p.SERIAL_INFO, seven.encode("ascii")))

    # -- the bus -------------------------------------------------------------------------------
    def on_message(self, message: p.Message, now: float) -> None:
        """One message from the bus (not the prop's own)."""
        sender = message.sender
        if sender.is_info:
            if self.phase == INFO:  # the bomb's edgework: the prop's too, at the round's end
                read_info(message, self.edgework, self.note)
                self.serial_heard = self.serial_heard or sender.id == p.SERIAL_INFO
            return
        if sender.is_controller:
            self.note("controller", f"obus: another controller is on the bus ({message.name()}): a bomb has one")
            return
        if message.kind == p.REGISTER:
            self._register(sender)
            return
        tally = self.modules.get(sender)
        if tally is None:
            self.note(
                f"unregistered {sender}", f"obus: {message.name()} from {sender}, which never registered: ignored"
            )
            return
        if self.phase != PLAYING:
            return
        if message.kind == p.STRIKE and message.count is not None:
            if message.count > tally.strikes:
                tally.strikes = message.count
                self._strikes_changed(now)
        elif message.kind == p.MODULE_SOLVED and not tally.solved:
            tally.solved = True
            self.game.sync(None, None, self.solved_count())
            self.game.changed()
            self._check_solved(now)

    def _register(self, node: p.Node) -> None:
        if self.phase == PLAYING:
            self.note(f"late {node}", f"obus: {node} registered after the game started: it is not in this game")
            return
        if node in self.modules:
            self.note(
                f"twice {node}",
                f"obus: {node} registered twice (a second module with the same id, or one that missed its ACK)",
            )
            self.send(p.ack(node))
            return
        if len(self.modules) >= MAX_MODULES:
            self.note("full", f"obus: {node} not registered: {MAX_MODULES} modules at most")
            return
        self.modules[node] = Tally(node)
        self.send(p.ack(node))
        log.info("obus: %s registered", node)
        self.game.changed()

    # -- counting ------------------------------------------------------------------------------
    @property
    def strikes(self) -> int:
        """The bomb's strikes: each module's last count, and the prop's."""
        return self.prop_strikes + sum(t.strikes for t in self.modules.values())

    def puzzles(self) -> int:
        """Puzzle modules in the game, the prop included."""
        return 1 + sum(1 for t in self.modules.values() if t.node.type == p.PUZZLE)

    def solved_count(self) -> int:
        """Puzzle modules solved, the prop included."""
        bus = sum(1 for t in self.modules.values() if t.node.type == p.PUZZLE and t.solved)
        return bus + (1 if self.prop_solved else 0)

    def _byte7(self) -> int:
        solved = self.solved_count()
        return solved if self.count == "solved" else self.puzzles() - solved

    def _status(self, kind: int) -> p.Message:
        limit = self.rules.strike_limit or 0
        return p.status_message(kind, round(self.clock.left * 1000), self.strikes, limit, self._byte7())

    def _strikes_changed(self, now: float) -> None:
        self.clock.advance(now)
        if self.rules.speed_up:
            self.clock.rate = rate_after(self.strikes)
        self.game.sync(self.clock.left, self.strikes, None, self.clock.rate)
        self.game.changed()
        limit = self.rules.strike_limit
        if limit is not None and self.strikes >= limit:
            self._end("strikes", now)

    def _check_solved(self, now: float) -> None:
        if self.solved_count() >= self.puzzles():
            self._end("solved", now)

    def _end(self, how: str, now: float) -> None:
        if self.phase != PLAYING:
            return
        self.clock.advance(now)
        if how == "timer":
            self.clock.left = 0.0
        self.clock.stop()
        self.phase = OVER
        self.ended = how
        self.send(self._status(_KINDS[how]))
        log.info("obus: the bomb's game is over: %s", how)
        self.game.end(how)
        self.game.changed()

    # -- the prop ------------------------------------------------------------------------------
    def on_prop(self, event: PropEvent, now: float) -> None:
        """The prop's own events: its countdown starts the bomb; its strikes and solve count; a reset
        runs the rounds again; the game master's time and pause act on the bomb's clock."""
        kind = event.kind
        if kind == "reset":
            self.begin(now)
        elif kind == "timer_started" and self.phase in (INFO, REGISTERING):
            self._start(now)
        elif self.phase != PLAYING:
            return
        elif kind == "strike":
            self.prop_strikes += 1
            self._strikes_changed(now)
        elif kind == "solved":
            self.prop_solved = True
            self.game.changed()
            self._check_solved(now)
        elif kind == "exploded":
            self._end("timer" if event.value == "timer" else "strikes", now)
        elif kind == "time_added":
            self.clock.advance(now)
            self.clock.add(float(event.value))
        elif kind == "enabled":
            self.clock.advance(now)
            self.clock.resume() if event.value else self.clock.pause()

    def _start(self, now: float) -> None:
        if self.phase == INFO:
            self.note(
                "early", "obus: the bomb started during the info round: the modules that did not register are out"
            )
        self.phase = PLAYING
        self.clock.advance(now)
        self.clock.start()
        self.next_state = now + STATE_SECONDS
        self.send(self._status(p.GAME_START))
        log.info("obus: GAME START: %d puzzle modules with the prop, %d in all", self.puzzles(), len(self.modules) + 1)
        self.game.changed()

    # -- time ----------------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """The rounds' deadlines, STATE every half second, and the bomb's clock."""
        if self.phase == INFO:
            if self.serial_at is not None and now >= self.serial_at:
                self._own_serial()
            if now >= self.info_until:
                self._hello()
        elif self.phase == PLAYING:
            self.clock.advance(now)
            if self.clock.done:
                self._end("timer", now)
                return
            if now >= self.next_state:
                self.next_state = max(self.next_state + STATE_SECONDS, now)
                self.send(self._status(p.STATE))
                self.game.sync(self.clock.left, self.strikes, None, self.clock.rate)

    def document(self) -> dict[str, Any]:
        """The state document's ``obus`` part."""
        return {
            "role": "controller",
            "phase": self.phase,
            "modules": [t.to_dict() for t in sorted(self.modules.values(), key=lambda t: (t.node.type, t.node.id))],
            "prop": {"solved": self.prop_solved, "strikes": self.prop_strikes},  # the prop's own puzzle module
            "bomb": {
                "left_ms": round(self.clock.left * 1000),
                "strikes": self.strikes,
                "max_strikes": self.rules.strike_limit or 0,
                "solved": self.solved_count(),
                "puzzles": self.puzzles(),
            },
            "ended": self.ended,
        }
