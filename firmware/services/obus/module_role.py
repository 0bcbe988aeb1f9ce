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

from typing import Any

from . import protocol as p
from .roles import SILENT_SECONDS, Game, Note, PropEvent, Send, log, log_note, read_info

#: The module's phases.
IDLE, WAITING, REGISTERED, PLAYING, OVER = "idle", "waiting", "registered", "playing", "over"
#: STATEs at least this far apart give the controller's countdown speed.
MIN_RATE_SECONDS = 0.3
_ENDS = {p.SOLVED: "solved", p.TIMEOUT: "timer", p.STRIKEOUT: "strikes"}


class ModuleRole:
    """The module's state machine: see the module's text. ``count`` is ``left`` or ``solved``."""

    def __init__(self, node: p.Node, send: Send, game: Game, *, count: str = "left", note: Note = log_note) -> None:
        self.node = node
        self.note = note
        self.send = send
        self.game = game
        self.count = count
        self.phase = IDLE
        #: The edgework the info modules sent since the last INFO START (``set_edgework``'s keys).
        self.edgework: dict[str, Any] = {}
        self.register_at: float | None = None
        self.strikes = 0  # the prop's own, sent with each STRIKE
        self.solved_sent = False
        self.total: int | None = None  # puzzle modules at GAME START ("left" counts)
        self.last_state: float | None = None
        self.state_at: float | None = None  # the last GAME START or STATE (for the countdown's speed)
        self.silent = False
        #: The bomb as the controller last said it: time left (ms), strikes, max strikes, solved.
        self.bomb: dict[str, int] = {}
        self.ended: str | None = None

    # -- the bus ---------------------------------------------------------------------------
    def on_message(self, message: p.Message, now: float) -> None:
        """One message from the bus (not the prop's own)."""
        sender = message.sender
        if sender.is_info:
            read_info(message, self.edgework, self.note)
        elif sender.is_controller:
            self._controller(message, now)

    def _controller(self, message: p.Message, now: float) -> None:
        kind = message.kind
        if kind == p.INFO_START:
            self.edgework = {}
        elif kind == p.HELLO:
            self.phase = WAITING
            self.strikes, self.solved_sent, self.ended, self.silent = 0, False, None, False
            self.total, self.last_state, self.state_at, self.bomb = None, None, None, {}
            self.register_at = now + p.register_delay(self.node)
            self.game.forget(dict(self.edgework))
        elif kind == p.ACK:
            if message.target == self.node and self.phase == WAITING:
                self.phase = REGISTERED
                log.info("obus: registered with the controller as %s", self.node)
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
        self.last_state = self.state_at = now
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
        before, then = self.bomb, self.state_at
        self._keep(status, self._solved_count(status))
        self.state_at = now
        changed = self.bomb["solved"] != before.get("solved")
        rate = None
        if then is not None and now - then >= MIN_RATE_SECONDS and "left_ms" in before:
            # the controller's own speed (faster after strikes, or not): its countdown between two STATEs
            rate = (before["left_ms"] - status.left_ms) / 1000 / (now - then)
            rate = rate if 0.5 <= rate <= 4.0 else None  # time given or taken: no speed to follow
        solved = self.bomb["solved"] if changed else None
        self.game.sync(status.left_ms / 1000, status.strikes, solved, rate, start=True)

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
        }
