"""What the web service needs from the prop, and its implementation on the daemon.

:class:`ConsoleBackend` lists exactly what the server uses; nothing in
``firmware/web`` touches the daemon any other way. :class:`DaemonBackend`
implements it on the daemon: two of its hooks (``on_shown`` for the log and
the sounds, ``on_settled`` for everything else), the one command path
(:class:`~firmware.room.commands.GameMaster`) and, in the simulator, the
mock-pin driver (:class:`~firmware.simulator.pins.PinDriver`).

**One page view at a time.** Everything an open page shows (the frames, the
state, the answer panel and how far the log goes) is taken together, on the
game thread, when it settles (:class:`PageView`), so that a page never shows
text ahead of or behind its displays. During a deal the text keeps what the
displays showed before the gesture until the result is on the table; then the
state, the answer panel (the next round) and the result's frame arrive as one
update. Nothing goes back through the game's queue to get there.

Nothing here runs while no page is open except that bookkeeping on the game
thread (the shared state document, the log lines): no thread, no timer.
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
from baccarat_core.records import record
from firmware.game.daemon import Daemon

from ..devices.wiring import ROLES
from ..room.commands import GameMaster, hint
from ..sound.cues import CuePlanner
from .words import log_text

#: ``listener()``: the page view changed (any thread; returns at once).
ChangeListener = Callable[[], None]
EventSink = Callable[[list[dict[str, Any]]], None]
#: ``sink(cues)``: sounds to play now, as ``[{"cue": "card_deal", "after": 0.0}, ...]`` (seconds after now).
SoundSink = Callable[[list[dict[str, Any]]], None]


@record
class PageView:
    """What an open page shows, taken at one moment on the game thread: never a frame
    without the text that goes with it."""

    #: The last picture sent to each display role (None: none yet, or the display is failing).
    frames: dict[str, Image.Image | None]
    #: The state document as the displays show it.
    state: dict[str, Any]
    #: The next round, its winning bet and the cheat sheet; None while no page is open.
    answer: dict[str, Any] | None
    #: The log goes up to this entry (see :meth:`ConsoleBackend.log_between`).
    log_seq: int


class PinDriver(Protocol):
    """Presses and releases the front panel's inputs by name (the simulator's mock pins)."""

    def press(self, name: str) -> None:
        """Press input ``name`` (one of :data:`~firmware.devices.wiring.INPUT_NAMES`) and keep it down."""

    def release(self, name: str) -> None:
        """Release input ``name``."""


class ConsoleBackend(Protocol):
    """Everything the web service reads from and does to the prop.

    The page view changes on the game thread; a change notice may come from any
    thread and must return at once.
    """

    name: str
    roles: tuple[str, ...]
    #: The prop's outputs as the console lists them: ``{"name", "mode", "text"}`` each (and ``text``'s
    #: parts: ``pin``, ``on``, ``off``, ``pulse_seconds``, ``max_on_seconds``), in config order.
    outputs: list[dict[str, Any]]

    @property
    def has_front_panel(self) -> bool:
        """True when :meth:`press` and :meth:`release` drive the inputs (the simulator)."""

    def subscribe(self, listener: ChangeListener) -> None:
        """Call ``listener()`` whenever the page view changed."""

    def subscribe_events(self, sink: EventSink) -> None:
        """Call ``sink(events)`` with each batch of game events as JSON-ready dicts (game thread)."""

    def subscribe_sounds(self, sink: SoundSink) -> None:
        """Call ``sink(cues)`` with the sound cues of each event as it is shown, while a page is open."""

    def set_watching(self, watching: bool) -> None:
        """A page is open (True) or the last one closed: compute the answer panel only while one is."""

    def page(self) -> PageView:
        """What the pages show now: the frames, the state and the answer panel of one moment."""

    def controller_state(self) -> dict[str, Any]:
        """The newest state document (a deal's result counts once it is shown), for the room controllers."""

    def lights(self) -> dict[str, Any]:
        """The status light (``red``, ``green``) and the deck light (``deck``, ``deck_rgb``) now."""

    def output_pins(self) -> dict[str, bool]:
        """Each output's pin now, on or off, by name (the game master's console only)."""

    def log_between(self, after: int, upto: int) -> list[dict[str, Any]]:
        """Log entries with a sequence number above ``after`` and at most ``upto``, oldest first."""

    def command(self, payload: dict[str, Any]) -> Future[dict[str, Any]]:
        """Run a game-master command (the MQTT JSON form); the future holds the reply document."""

    def press(self, name: str) -> None:
        """Press a front-panel input."""

    def release(self, name: str) -> None:
        """Release a front-panel input."""


def log_entry(event: ev.Event) -> dict[str, Any]:
    """One log line for the console: its words in English (:func:`~.words.log_text`) and the event
    itself, which a page in another language says in its own (the console's view: never sent)."""
    strike = isinstance(event, ev.Strike | ev.Exploded)  # red: a strike, and the end
    return {"kind": event.kind, "strike": strike, "text": log_text(event), "event": event}


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
        self.roles: tuple[str, ...] = tuple(role for role in ROLES if role in daemon.screens)
        self.outputs = [
            {
                "name": w.name,
                "mode": w.mode,
                "text": f"GPIO{w.pin}: {w.behaviour()}",
                # the same in parts, for a page in another language (console.js)
                "pin": w.pin,
                "on": w.on,
                "off": w.off_on,
                "pulse_seconds": w.pulse_seconds,
                "max_on_seconds": w.max_on_seconds,
            }
            for w in daemon.board.outputs.wirings.values()
        ]
        self._pins = pin_driver
        self._lock = threading.Lock()
        self._listeners: list[ChangeListener] = []
        self._sinks: list[EventSink] = []
        self._log: deque[dict[str, Any]] = deque(maxlen=log_size)
        self._seq = 0
        self._latest = commands.document()
        self._page = PageView(dict.fromkeys(self.roles), self._latest, None, 0)
        self._dealing = False  # a deal's cards are on the table and its result is not yet
        self._sheet_key: tuple[object, ...] | None = None
        self._sheet = ""
        self._watching = False
        self._sound_sinks: list[SoundSink] = []
        self._cues = CuePlanner()
        daemon.on_shown.append(self._on_shown)
        daemon.on_settled.append(self._on_settled)

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
        """Daemon ``on_shown`` hook (game thread): the log line and the sounds, as the event is shown
        (a card landing face down and an arrow's click only sound: no log line)."""
        if isinstance(event, ev.CardLanded | ev.CardDealt):
            self._dealing = True
        elif isinstance(event, ev.RoundPlayed):
            self._dealing = False
        if event.published:
            with self._lock:
                self._seq += 1
                self._log.append({"seq": self._seq, "time": time.strftime("%H:%M:%S"), **log_entry(event)})
        cues = self._cues.for_event(event)  # always, so the planner keeps track of the chips
        if not cues or not self._watching:
            return
        for sink in self._sound_sinks:
            sink([{"cue": cue, "after": after} for after, cue in cues])

    def _on_settled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread, the displays show everything handled): the
        controllers' state, the webhooks, and the page view of this moment."""
        latest = self.commands.document()  # the one MQTT publishes (built once a batch, or a second on)
        if latest is not self._latest:
            with self._lock:
                self._latest = latest
        if events:
            if self._sinks:
                dicts = [event.to_dict() for event in events]
                for sink in self._sinks:
                    sink(dicts)
        self._take_page(module)

    def _take_page(self, module: BaccaratModule) -> None:
        """The page view now (game thread); the pages hear of it if anything in it changed."""
        page = self._page
        # While a deal's cards turn, the text stays what the displays showed before the gesture;
        # with the result on the table, the state and the next round's answer come with it.
        state = page.state if self._dealing else self._latest
        if not self._watching:
            answer = None
        elif state is page.state and page.answer is not None:
            answer = page.answer
        elif self._dealing:  # a page opened during a deal: its answer comes with the result
            answer = None
        else:
            answer = self._compute_answer(module)
        frames = {role: self.daemon.screens[role].last_frame for role in self.roles}
        with self._lock:
            seq = self._seq
            changed = (
                state is not page.state
                or answer is not page.answer
                or seq != page.log_seq
                or any(frames[role] is not page.frames[role] for role in self.roles)
            )
            if changed:
                self._page = PageView(frames, state, answer, seq)
        if changed:
            for listener in self._listeners:
                listener()

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
        """See :meth:`ConsoleBackend.set_watching`: the answer panel is computed once now, on the
        game thread (a call that only reads, so it runs even during a deal), and then at each
        settled moment that changes what the page shows."""
        with self._lock:
            self._watching = watching
        self.daemon.watch_timer("web", watching)  # an open page shows the countdown: a settled moment a second
        self.daemon.call(lambda: self._take_page(self.daemon.module), during_round=True)

    # -- reading ------------------------------------------------------------------------
    def page(self) -> PageView:
        """See :meth:`ConsoleBackend.page`."""
        with self._lock:
            return self._page

    def frame(self, role: str) -> Image.Image | None:
        """The frame of ``role`` the pages show (the display's last frame once the game settled)."""
        return self.page().frames.get(role)

    def probe(self) -> Future[None]:
        """A future the game thread completes when it next comes round (:mod:`.health`)."""
        return self.daemon.call(lambda: None, during_round=True)

    def controller_state(self) -> dict[str, Any]:
        """See :meth:`ConsoleBackend.controller_state`."""
        with self._lock:
            return self._latest

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

    def output_pins(self) -> dict[str, bool]:
        """See :meth:`ConsoleBackend.output_pins` (gpiozero values are safe to read from any thread)."""
        return self.daemon.board.outputs.pins()

    def log_between(self, after: int, upto: int) -> list[dict[str, Any]]:
        """See :meth:`ConsoleBackend.log_between`."""
        with self._lock:
            return [entry for entry in self._log if after < entry["seq"] <= upto]

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
