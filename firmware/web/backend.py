"""What the web service needs from the prop, and its implementation on the daemon.

:class:`ConsoleBackend` lists exactly what the server uses; nothing in
``firmware/web`` touches the daemon any other way. :class:`DaemonBackend`
implements it on the daemon: a listener (called on the game thread after each
batch of events), the daemon's frame listeners, the one command path
(:class:`~firmware.room.commands.GameMaster`) and, in the simulator, the
mock-pin driver (:class:`~firmware.simulator.pins.PinDriver`).

Nothing here runs while no page is open except the listener's bookkeeping on
the game thread (the state document and the log lines): no thread, no timer.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from PIL import Image

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.cheatsheet import cheat_sheet
from baccarat_core.rounds import AREAS

from ..daemon import Daemon
from ..room.commands import GameMaster, hint, state_document
from ..sound.cues import CuePlanner

#: Inputs of the front panel, as the page and the pin driver name them.
PANEL_INPUTS: tuple[str, ...] = (*AREAS, "arrow_left", "arrow_right", "deal")

#: A strike's reason in plain words, for the log ("why did that strike?").
STRIKE_WORDS: dict[str, str] = {
    "exclusive": "the bets must be on exactly one of Player and Banker",
    "limits": "a bet was outside the table limits",
    "stack_order": "a larger chip sat on a smaller one",
    "loss": "the round lost money",
}

ChangeListener = Callable[[frozenset[str]], None]
EventSink = Callable[[list[dict[str, Any]]], None]
#: ``sink(cues)``: sounds to play now, as ``[{"cue": "card_deal", "after": 0.0}, ...]`` (seconds after now).
SoundSink = Callable[[list[dict[str, Any]]], None]


class PinDriver(Protocol):
    """Presses and releases the front panel's inputs by name (the simulator's mock pins)."""

    def press(self, name: str) -> None:
        """Press input ``name`` (one of :data:`PANEL_INPUTS`) and keep it down."""

    def release(self, name: str) -> None:
        """Release input ``name``."""


class ConsoleBackend(Protocol):
    """Everything the web service reads from and does to the prop.

    Change notifications name what changed: a display role (``"placard"``,
    ``"table"``, ``"bets"``), ``"state"`` (state document, answer panel) or
    ``"log"``. They may come from any thread and must return at once.
    """

    name: str
    roles: tuple[str, ...]

    @property
    def has_front_panel(self) -> bool:
        """True when :meth:`press` and :meth:`release` drive the inputs (the simulator)."""

    def subscribe(self, listener: ChangeListener) -> None:
        """Call ``listener(topics)`` whenever something a page shows changed."""

    def subscribe_events(self, sink: EventSink) -> None:
        """Call ``sink(events)`` with each batch of game events as JSON-ready dicts (game thread)."""

    def subscribe_sounds(self, sink: SoundSink) -> None:
        """Call ``sink(cues)`` with the sound cues of each event as it is shown, while a page is open."""

    def set_watching(self, watching: bool) -> None:
        """A page is open (True) or the last one closed: compute the answer panel only while one is."""

    def frame(self, role: str) -> Image.Image | None:
        """The last picture sent to display ``role`` (None before the first or without the display)."""

    def state(self) -> dict[str, Any]:
        """The state document as the displays show it now (after the current deal's last card)."""

    def controller_state(self) -> dict[str, Any]:
        """The newest state document (a deal counts from its start), for the room controllers."""

    def answer(self) -> dict[str, Any] | None:
        """The next round, its winning bet and the cheat sheet; None while no page is open."""

    def lights(self) -> dict[str, Any]:
        """The status light (``red``, ``green``) and the deck light (``deck``, ``deck_rgb``) now."""

    def log_since(self, seq: int) -> list[dict[str, Any]]:
        """Log entries with a sequence number above ``seq``, oldest first."""

    def command(self, payload: dict[str, Any]) -> Future[dict[str, Any]]:
        """Run a game-master command (the MQTT JSON form); the future holds the reply document."""

    def press(self, name: str) -> None:
        """Press a front-panel input."""

    def release(self, name: str) -> None:
        """Release a front-panel input."""


def log_entry(event: ev.Event) -> dict[str, Any]:
    """One log line for the console: the event's description, a strike's reason in words."""
    if isinstance(event, ev.Strike):
        why = STRIKE_WORDS.get(event.reason, event.reason)
        return {"kind": event.kind, "strike": True, "text": f"STRIKE {event.strikes}: {why} ({event.detail})"}
    return {"kind": event.kind, "strike": False, "text": event.describe()}


class DaemonBackend:
    """:class:`ConsoleBackend` on the daemon (attach before ``daemon.start()``)."""

    def __init__(
        self,
        daemon: Daemon,
        commands: GameMaster,
        pin_driver: PinDriver | None = None,
        *,
        name: str | None = None,
        log_size: int = 300,
    ) -> None:
        self.daemon = daemon
        self.commands = commands
        self.name = name or socket.gethostname()
        self.roles: tuple[str, ...] = tuple(role for role in ("placard", "table", "bets") if role in daemon.screens)
        self._pins = pin_driver
        self._lock = threading.Lock()
        self._listeners: list[ChangeListener] = []
        self._sinks: list[EventSink] = []
        self._log: deque[dict[str, Any]] = deque(maxlen=log_size)
        self._seq = 0
        self._shown_seq = 0
        self._latest = state_document(daemon.module)
        self._shown = self._latest
        self._answer: dict[str, Any] | None = None
        self._sheet_key: tuple[object, ...] | None = None
        self._sheet = ""
        self._watching = False
        self._sound_sinks: list[SoundSink] = []
        self._cues = CuePlanner()
        daemon.settled_listeners.append(self._on_events)
        daemon.frame_listeners.append(self._on_frame)
        daemon.shown_listeners.append(self._on_shown)

    # -- notifications ------------------------------------------------------------------
    @property
    def has_front_panel(self) -> bool:
        """True when a pin driver was given."""
        return self._pins is not None

    def subscribe(self, listener: ChangeListener) -> None:
        """See :meth:`ConsoleBackend.subscribe`."""
        self._listeners.append(listener)

    def subscribe_events(self, sink: EventSink) -> None:
        """See :meth:`ConsoleBackend.subscribe_events`."""
        self._sinks.append(sink)

    def subscribe_sounds(self, sink: SoundSink) -> None:
        """See :meth:`ConsoleBackend.subscribe_sounds`."""
        self._sound_sinks.append(sink)

    def _on_shown(self, event: ev.Event) -> None:
        """Daemon shown listener (game thread): the event's sounds, for the open pages."""
        cues = self._cues.for_event(event)  # always, so the planner keeps track of the chips
        if not cues or not self._watching:
            return
        for sink in self._sound_sinks:
            sink([{"cue": cue, "after": after} for after, cue in cues])

    def _notify(self, topics: frozenset[str]) -> None:
        for listener in self._listeners:
            listener(topics)

    def _on_frame(self, role: str, image: Image.Image) -> None:
        """Daemon frame listener (game thread): a new frame went to the display."""
        self._notify(frozenset((role,)))

    def _on_events(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon settled hook (game thread, after the frame): the state, the log and the webhooks."""
        doc = state_document(module)
        with self._lock:
            self._latest = doc
            for event in events:
                self._seq += 1
                self._log.append({"seq": self._seq, "time": time.strftime("%H:%M:%S"), **log_entry(event)})
            if not self._watching:
                self._shown = doc
                self._shown_seq = self._seq
        if events and self._sinks:
            dicts = [event.to_dict() for event in events]
            for sink in self._sinks:
                sink(dicts)
        if self._watching:
            # Queued behind the current batch: runs once its cards are on the displays, so a
            # page never shows the result before the table does.
            self.daemon.call(self._presented)

    def _presented(self) -> None:
        """Game thread, after a batch: what the page shows catches up, with the answer panel."""
        answer = self._compute_answer(self.daemon.module)
        with self._lock:
            self._shown = self._latest
            self._shown_seq = self._seq
            self._answer = answer
        self._notify(frozenset(("state", "log")))

    def _compute_answer(self, module: BaccaratModule) -> dict[str, Any] | None:
        deck = module.deck
        if deck is None:
            return None
        key = (module.edgework, module.limits, deck.color, deck.solved, tuple(str(c) for c in deck.cards))
        if key != self._sheet_key:
            self._sheet_key = key
            self._sheet = cheat_sheet(module.edgework, module.limits, deck)
        try:
            next_round = hint(module)
        except Exception as error:  # noqa: BLE001 - the panel says so; the game goes on
            next_round = {"error": str(error)}
        return {"hint": next_round, "cheat_sheet": self._sheet, "cards_left": module.cards_left}

    def set_watching(self, watching: bool) -> None:
        """See :meth:`ConsoleBackend.set_watching`."""
        with self._lock:
            self._watching = watching
            if not watching:
                self._answer = None
        if watching:
            self.daemon.call(self._presented)

    # -- reading ------------------------------------------------------------------------
    def frame(self, role: str) -> Image.Image | None:
        """See :meth:`ConsoleBackend.frame`."""
        screen = self.daemon.screens.get(role)
        return None if screen is None else screen.last_frame

    def state(self) -> dict[str, Any]:
        """See :meth:`ConsoleBackend.state`."""
        with self._lock:
            return self._shown

    def controller_state(self) -> dict[str, Any]:
        """See :meth:`ConsoleBackend.controller_state`."""
        with self._lock:
            return self._latest

    def answer(self) -> dict[str, Any] | None:
        """See :meth:`ConsoleBackend.answer`."""
        with self._lock:
            return self._answer

    def lights(self) -> dict[str, Any]:
        """See :meth:`ConsoleBackend.lights` (gpiozero values are safe to read from any thread)."""
        board = self.daemon.board
        rgb = board.deck_light.led.value
        return {
            "red": bool(board.status.red.value),
            "green": bool(board.status.green.value),
            "deck": board.deck_light.color,
            "deck_rgb": [round(float(c), 3) for c in rgb],
        }

    def log_since(self, seq: int) -> list[dict[str, Any]]:
        """See :meth:`ConsoleBackend.log_since`."""
        with self._lock:
            return [entry for entry in self._log if seq < entry["seq"] <= self._shown_seq]

    # -- doing ------------------------------------------------------------------------------
    def command(self, payload: dict[str, Any]) -> Future[dict[str, Any]]:
        """See :meth:`ConsoleBackend.command`: the one command path of MQTT and the socket."""
        return self.commands.handle(payload)

    def press(self, name: str) -> None:
        """See :meth:`ConsoleBackend.press`."""
        if self._pins is None:
            raise ValueError("this prop has no front panel in the console")
        self._pins.press(name)

    def release(self, name: str) -> None:
        """See :meth:`ConsoleBackend.release`."""
        if self._pins is None:
            raise ValueError("this prop has no front panel in the console")
        self._pins.release(name)
