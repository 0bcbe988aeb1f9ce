"""The prop as a puzzle module of an OBUS bomb (``role = "module"``).

It follows the protocol as OBUS's module library (``lib/obus_module.cpp``) does:

- **INFO START**: the info modules' messages that follow are the bomb's edgework (info module 1
  the serial number, 2 the indicators, 3 the ports); what the bomb does not send stays the prop's.
- **HELLO**: the last game is forgotten (a fresh game with the bomb's edgework, the table closed),
  and after its spread delay (:func:`~.protocol.register_delay`) the prop sends REGISTER.
- **ACK** for itself: it is in the next game. **GAME START**: an ACKed prop plays (the table
  opens, the countdown runs from the bomb's time left); one that was not ACKed stays out.
- **STATE**: the countdown, the strikes and the solved modules follow the controller's. Byte 7 is
  the puzzle modules left (``count = "left"``: solved = the count at GAME START minus it), or
  solved (``count = "solved"``, OBUS's Arduino controller).
- A strike on the prop sends STRIKE with the prop's own count; its solve sends SOLVED once.
- **SOLVED / TIMEOUT / STRIKEOUT**: the game ends as a bomb of the prop's own ends.
- No STATE for :data:`~.roles.SILENT_SECONDS` mid-game: the controller is *silent* (one log
  line, the console and ``doctor`` say so); the prop keeps its state and goes on with the next STATE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baccarat_core.records import record

from . import protocol as p
from .roles import MAX_MODULES, SILENT_SECONDS, Game, Note, PropEvent, Send, Tally, log, log_note, read_info

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

#: The module's phases.
IDLE, WAITING, REGISTERED, PLAYING, OVER = "idle", "waiting", "registered", "playing", "over"
#: The controller's countdown speed is measured over at least this long (since the game's start, or
#: since its strikes last changed: a controller may speed up after a strike), so that a STATE
#: that comes late on a busy bus does not look like a faster clock.
MIN_RATE_SECONDS = 1.0
#: The prop's countdown may stray this far from the controller's before a STATE corrects it (a
#: STATE that changes nothing the players see sends nothing to the game thread).
DRIFT_SECONDS = 0.25
#: A change of the controller's speed smaller than this is not followed.
RATE_STEP = 0.05
#: The prop's events after which the next STATE is told to the game whatever it says.
RESYNC = ("strike", "reset", "enabled", "time_added")
_ENDS = {p.SOLVED: "solved", p.TIMEOUT: "timer", p.STRIKEOUT: "strikes"}


@record(frozen=False, eq=False, repr=False)
class ModuleRole:
    """The module's state machine: see the module's text. ``count`` is ``left`` or ``solved``."""

    node: p.Node
    send: Send
    game: Game
    _: KW_ONLY
    count: str = "left"
    note: Note = log_note

    def __post_init__(self) -> None:
        self.phase = IDLE
        #: The edgework the info modules sent since the last INFO START (``set_edgework``'s keys).
        self.edgework: dict[str, Any] = {}
        self.register_at: float | None = None
        self.strikes = 0  # the prop's own, sent with each STRIKE
        self.solved_sent = False
        self.total: int | None = None  # puzzle modules at GAME START ("left" counts)
        self.last_state: float | None = None
        #: (when, seconds left, strikes) the controller's speed is measured from.
        self.anchor: tuple[float, float, int] | None = None
        #: What the game was last told: (when, seconds left, rate, strikes); None: tell it all at the next STATE.
        self.synced: tuple[float, float, float, int] | None = None
        self.silent = False
        #: The bomb as the controller last said it: time left (ms), strikes, max strikes, solved.
        self.bomb: dict[str, int] = {}
        self.ended: str | None = None
        #: The bomb's other modules as the bus shows them (every node hears every frame): the ones
        #: the controller ACKed since the last HELLO, with their STRIKE counts and SOLVED.
        self.others: dict[p.Node, Tally] = {}

    # -- the bus ---------------------------------------------------------------------------
    def on_message(self, message: p.Message, now: float) -> None:
        """One message from the bus (not the prop's own)."""
        sender = message.sender
        if sender.is_info:
            read_info(message, self.edgework, self.note)
        elif sender.is_controller:
            self._controller(message, now)
        elif sender != self.node:
            self._other(message)

    def _other(self, message: p.Message) -> None:
        """Another module's STRIKE or SOLVED: its row in the state document (the game hears the
        bomb's strikes and solved count from the controller's next STATE)."""
        tally = self.others.get(message.sender)
        if tally is None:
            return
        if message.kind == p.STRIKE and message.count is not None:
            tally.strikes = max(tally.strikes, message.count)
        elif message.kind == p.MODULE_SOLVED:
            tally.solved = True

    def _controller(self, message: p.Message, now: float) -> None:
        kind = message.kind
        if kind == p.INFO_START:
            self.edgework = {}
        elif kind == p.HELLO:
            self.phase = WAITING
            self.strikes, self.solved_sent, self.ended, self.silent = 0, False, None, False
            self.total, self.last_state, self.anchor, self.bomb, self.synced = None, None, None, {}, None
            self.register_at = now + p.register_delay(self.node)
            self.others = {}
            self.game.forget(dict(self.edgework))
        elif kind == p.ACK:
            if message.target == self.node and self.phase == WAITING:
                self.phase = REGISTERED
                log.info("obus: registered with the controller as %s", self.node)
                self.game.changed()
            elif message.target is not None and message.target != self.node and message.target not in self.others:
                if len(self.others) < MAX_MODULES:
                    self.others[message.target] = Tally(message.target)
                    self.game.changed()
        elif kind == p.GAME_START:
            self._start(message, now)
        elif kind == p.STATE:
            self._state(message, now)
        elif kind in _ENDS:
            self._end(message)

    def _solved_count(self, status: p.Status) -> int:
        if self.count == "solved":
            return status.count
        total = self.total if self.total is not None else status.count
        return max(total - status.count, 0)

    def _keep(self, status: p.Status, solved: int) -> None:
        self.bomb = {
            "left_ms": status.left_ms,
            "strikes": status.strikes,
            "max_strikes": status.max_strikes,
            "solved": solved,
        }
        if self.total is not None:
            self.bomb["puzzles"] = self.total  # GAME START's count: the puzzle modules in the game

    def _start(self, message: p.Message, now: float) -> None:
        status = message.status
        assert status is not None
        if self.phase != REGISTERED:
            if self.phase == WAITING:
                self.note("no ack", f"obus: the game started without an ACK for {self.node}: the prop stays out of it")
            elif self.phase in (IDLE, OVER):
                self.note(
                    "unregistered", "obus: a game started that the prop did not register for (it waits for HELLO)"
                )
            return
        self.phase = PLAYING
        # GAME START's byte 7 is the puzzle modules in the game, in both controllers: none solved yet
        self.total = status.count
        self.last_state = now
        self.anchor = (now, status.left_ms / 1000, status.strikes)
        self.synced = (now, status.left_ms / 1000, 1.0, status.strikes)
        self._keep(status, 0)
        log.info("obus: the bomb started: %d s, %d strikes allowed", status.left_ms // 1000, status.max_strikes)
        self.game.begin(status.left_ms / 1000, status.strikes, self.bomb["solved"])

    def _state(self, message: p.Message, now: float) -> None:
        if self.phase != PLAYING:
            return
        status = message.status
        assert status is not None
        self.last_state = now
        if self.silent:
            self.silent = False
            log.warning("obus: the controller is back")
            self.game.changed()
        before = self.bomb
        self._keep(status, self._solved_count(status))
        changed = self.bomb["solved"] != before.get("solved")
        rate = self._rate(status, now)
        left = status.left_ms / 1000
        synced = self.synced
        speed = rate if rate is not None else synced[2] if synced is not None else 1.0
        if (
            synced is None
            or changed
            or status.strikes != synced[3]
            or abs(synced[1] - synced[2] * (now - synced[0]) - left) > DRIFT_SECONDS
            or abs(speed - synced[2]) > RATE_STEP
        ):  # else the prop's countdown says what the controller does: nothing to send to the game
            self.game.sync(left, status.strikes, self.bomb["solved"] if changed else None, rate, start=True)
            self.synced = (now, left, speed, status.strikes)

    def _rate(self, status: p.Status, now: float) -> float | None:
        """The controller's countdown speed since the anchor, once it can be told (else None)."""
        left = status.left_ms / 1000
        anchor = self.anchor
        if anchor is None or status.strikes != anchor[2]:
            self.anchor = (now, left, status.strikes)
            return None
        if now - anchor[0] < MIN_RATE_SECONDS:
            return None
        rate = (anchor[1] - left) / (now - anchor[0])
        if not 0.5 <= rate <= 4.0:  # time given or taken: measured afresh from here
            self.anchor = (now, left, status.strikes)
            return None
        return rate

    def _end(self, message: p.Message) -> None:
        if self.phase != PLAYING:
            return
        self.phase = OVER
        self.ended = _ENDS[message.kind]
        status = message.status
        assert status is not None
        self.bomb["left_ms"] = status.left_ms  # bytes 5 and 7 differ between controllers: kept as they were
        log.info("obus: the bomb's game is over: %s", message.name())
        self.game.end(self.ended)

    # -- the prop ---------------------------------------------------------------------------
    def on_prop(self, event: PropEvent, now: float) -> None:
        """One of the prop's own events: a strike or the solve goes on the bus while it plays."""
        if self.phase != PLAYING:
            return
        if event.kind in RESYNC:
            self.synced = None  # the prop's countdown or strikes changed: the next STATE tells it all
        if event.kind == "strike":
            self.strikes += 1
            self.send(p.module_message(self.node, p.STRIKE, self.strikes))
        elif event.kind == "solved" and not self.solved_sent:
            self.solved_sent = True
            self.send(p.module_message(self.node, p.MODULE_SOLVED))

    # -- time --------------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Send REGISTER when its delay is over; notice a silent controller."""
        if self.register_at is not None and now >= self.register_at:
            self.register_at = None
            self.send(p.module_message(self.node, p.REGISTER))
        if self.phase == PLAYING and self.last_state is not None and not self.silent:
            if now - self.last_state >= SILENT_SECONDS:
                self.silent = True
                log.warning(
                    "obus: no STATE from the controller for %g s: the prop keeps the game and goes on when it is back",
                    SILENT_SECONDS,
                )
                self.game.changed()

    def document(self) -> dict[str, Any]:
        """The state document's ``obus`` part."""
        return {
            "role": "module",
            "node": {"type": self.node.type, "id": self.node.id},
            "phase": self.phase,
            "controller_silent": self.silent,
            "bomb": dict(self.bomb),
            "strikes_sent": self.strikes,
            "solved_sent": self.solved_sent,
            "ended": self.ended,
            "modules": [t.to_dict() for t in sorted(self.others.values(), key=lambda t: (t.node.type, t.node.id))],
        }
