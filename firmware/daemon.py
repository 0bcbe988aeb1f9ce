"""The daemon: inputs from the board go through ``baccarat_core``; the events
that come back drive the displays, the lights, the log and any listeners.

One thread owns the game: gpiozero's callbacks only queue inputs, and
commands from the network or the shell are queued as calls, so the module,
the displays and the lights are never touched from two threads at once.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.inputs import Input, SetSolved
from baccarat_core.rounds import AREAS

from .board import PropBoard
from .config import Config
from .displays import DeviceFactory, Screen, open_luma_device
from .render import BetsView, TableView, render_bets, render_placard, render_table

log = logging.getLogger("baccarat")

Listener = Callable[[list[ev.Event], BaccaratModule], None]

_STOP = object()

#: How often a display that stopped answering is tried again while no input comes.
RETRY_SECONDS = 1.0


class Daemon:
    """The prop: a module, a board and screens, run from one thread."""

    def __init__(
        self,
        config: Config,
        board: PropBoard,
        *,
        device_factory: DeviceFactory = open_luma_device,
        rng: random.Random | None = None,
        module: BaccaratModule | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.board = board
        self.rng = rng if rng is not None else random.Random()
        self.module = module or BaccaratModule(config.edgework, config.limits, rng=self.rng,
                                               first_color=config.first_color)
        self._restored = module is not None
        self.screens = {cfg.role: Screen.open(cfg, device_factory) for cfg in config.displays}
        self.clock = clock
        self.listeners: list[Listener] = []
        self.dealing = False
        self.ready = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self._deal_ended_at = float("-inf")
        self._table = _TableState()
        self._dirty: set[str] = set()
        self._thread: threading.Thread | None = None

    # -- feeding the daemon -----------------------------------------------------
    def submit(self, action: Input) -> None:
        """Queue an input (thread-safe; gpiozero callbacks land here)."""
        self._queue.put((action, self.clock()))

    def call(self, fn: Callable[[], Any]) -> Future:
        """Run ``fn`` on the game thread; the future holds its result."""
        future: Future = Future()
        self._queue.put((fn, future))
        return future

    def apply(self, produce: Callable[[BaccaratModule], list[ev.Event]]) -> Future:
        """Run a command on the module (on the game thread) and present its events."""
        def run() -> list[ev.Event]:
            events = produce(self.module)
            self._handle_events(events)
            return events
        return self.call(run)

    # -- running -------------------------------------------------------------------
    def start(self) -> None:
        """Draw everything and arm the inputs; the game thread runs in the background."""
        self._thread = threading.Thread(target=self.run, name="baccarat-game", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Run the game on this thread until :meth:`stop`."""
        if self._restored:
            log.info("state restored: %s", _summary(self.module))
            self._dirty |= set(self.screens)
            self._handle_events([])
        else:
            self._dirty |= set(self.screens)
            self._handle_events(self.module.start())
        self._show_lights()
        self._refresh()
        self.board.connect(self.submit)
        log.info("ready: inputs armed, displays drawn")
        self.ready.set()
        retry_at = float("inf")  # a display that stopped answering is retried even when nobody plays
        while True:
            timeout = None
            if self._failing():
                retry_at = min(retry_at, time.monotonic() + RETRY_SECONDS)
                timeout = max(0.0, retry_at - time.monotonic())
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                retry_at = float("inf")
                self._refresh()
                continue
            if item is _STOP:
                break
            try:
                self._dispatch(item)
            except Exception:  # never let one bad input take the prop down
                log.exception("error while handling %r; the game goes on", item[0])
        self._shutdown()

    def stop(self) -> None:
        """Stop the game thread: lights off, displays blank (SIGTERM)."""
        self._stopping.set()
        self._queue.put(_STOP)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def running(self) -> bool:
        """True while the game thread started by :meth:`start` runs."""
        return self._thread is not None and self._thread.is_alive()

    def wait_stopped(self, timeout: float | None = None) -> None:
        """Wait for the game thread started by :meth:`start` to end (``timeout`` seconds at most)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def wait_idle(self, timeout: float = 5.0) -> None:
        """Block until everything queued so far has been handled (tests, tools)."""
        self.call(lambda: None).result(timeout)

    # -- internals -------------------------------------------------------------------
    def _failing(self) -> bool:
        return any(screen.failing for screen in self.screens.values())

    def _dispatch(self, item: tuple) -> None:
        first, second = item
        if callable(first) and isinstance(second, Future):
            if second.set_running_or_notify_cancel():
                try:
                    second.set_result(first())
                except Exception as error:
                    second.set_exception(error)
            return
        action, received = first, second
        if not isinstance(action, SetSolved) and received < self._deal_ended_at:
            log.debug("ignored %s: it came during the deal", action)
            return
        self._table.clear_round()
        self._table.cards_left = self.module.cards_left
        self._dirty.add("table")
        self._handle_events(self.module.handle(action))

    def _handle_events(self, events: list[ev.Event]) -> None:
        for listener in self.listeners:
            try:
                listener(events, self.module)
            except Exception:
                log.exception("listener %r failed", listener)
        dealing = any(isinstance(e, ev.CardDealt) for e in events)
        if dealing:
            self.dealing = True
        try:
            for event in events:
                self._present(event)
        finally:
            if dealing:
                self.dealing = False
                self._deal_ended_at = self.clock()
        self._refresh()

    def _present(self, event: ev.Event) -> None:
        log.info("%s", event.describe())
        if isinstance(event, ev.LimitsSet):
            self._dirty.add("placard")
        elif isinstance(event, ev.DeckAppeared):
            self._table.deck_color = event.color
            self._table.cards_left = 52
            self.board.deck_light.show(event.color)
            self._dirty.add("table")
        elif isinstance(event, ev.Strike):
            self.board.status.strike()
        elif isinstance(event, ev.Solved):
            self.board.status.solved()
            self._table.status = "SOLVED"
            self._dirty.add("table")
        elif isinstance(event, ev.ModuleReset):
            self.board.status.armed()
            self._table.clear_round()
            self._dirty |= {"table", "bets"}
        elif isinstance(event, ev.CardDealt):
            self._table.add_card(event)
            self._table.status = "DEALING"
            self._dirty.add("table")
            self._refresh()
            self._stopping.wait(self.config.timing.card_seconds)
        elif isinstance(event, ev.RoundPlayed):
            self._table.finish(event)
            self._dirty.add("table")
        if isinstance(event, (ev.ChipAdded, ev.AreaCleared, ev.DenominationChanged, ev.ChipsReordered,
                              ev.ChipsCleared, ev.ModuleReset)):
            self._dirty.add("bets")

    def _show_lights(self) -> None:
        if self.module.deck is not None:
            self.board.deck_light.show(self.module.deck.color)
        if self.module.solved:
            self.board.status.solved()
        else:
            self.board.status.armed()

    def _refresh(self) -> None:
        """Render the screens whose picture may have changed and send what did."""
        for role in sorted(self._dirty):
            screen = self.screens.get(role)
            if screen is not None:
                screen.show(self.render(role, screen.size, screen.mode))
        for screen in self.screens.values():
            if screen.failing and screen.role not in self._dirty:
                screen.retry(self.render(screen.role, screen.size, screen.mode))
        self._dirty.clear()

    def render(self, role: str, size: tuple[int, int], mode: str):
        """The picture of one role for the current state (pure: draws, sends nothing)."""
        if role == "placard":
            return render_placard(self.module.limits, size, mode)
        if role == "table":
            return render_table(self.table_view(), size, mode)
        return render_bets(self.bets_view(), size, mode)

    def table_view(self) -> TableView:
        t = self._table
        status = "SOLVED" if self.module.solved else t.status
        left = self.module.cards_left if not self.dealing else t.cards_left
        return TableView(t.deck_color or (self.module.deck.color if self.module.deck else "red"),
                         left, tuple(t.player), tuple(t.banker), t.player_score, t.banker_score,
                         t.result, status)

    def bets_view(self) -> BetsView:
        m = self.module
        return BetsView({a: tuple(m.stacks[a]) for a in AREAS}, m.denomination,
                        m.denomination_index > 0, m.denomination_index < len(DENOMINATIONS) - 1)

    def _shutdown(self) -> None:
        log.info("stopping: lights off, displays blank")
        try:
            self.board.lights_off()
        except Exception:
            log.exception("lights did not turn off")
        for screen in self.screens.values():
            screen.off()


class _TableState:
    """What the table display shows between inputs: the hands of the last round."""

    def __init__(self) -> None:
        self.deck_color: str | None = None
        self.cards_left = 52
        self.clear_round()

    def clear_round(self) -> None:
        self.player: list[str] = []
        self.banker: list[str] = []
        self.player_score: int | None = None
        self.banker_score: int | None = None
        self.result: str | None = None
        self.status = "PLACE YOUR BETS"

    def add_card(self, event: ev.CardDealt) -> None:
        if not self.player and not self.banker:
            self.result = None
        getattr(self, event.hand).append(event.card)
        setattr(self, f"{event.hand}_score", event.score)
        self.cards_left -= 1

    def finish(self, event: ev.RoundPlayed) -> None:
        winner = {"player": "PLAYER WINS", "banker": "BANKER WINS", "tie": "TIE"}[event.winner]
        cents = event.profit_cents
        sign = "+" if cents > 0 else "-" if cents < 0 else ""
        self.result = f"{winner} {sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"
        self.status = self.result


def _summary(module: BaccaratModule) -> str:
    deck = module.deck
    return (f"limits {module.limits.placard()}, {deck.color if deck else '?'} deck with "
            f"{module.cards_left} cards, {module.strikes} strikes, {'solved' if module.solved else 'armed'}")
