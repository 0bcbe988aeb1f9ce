"""The game thread: inputs in, the module's events out to hooks, lights and displays.

One thread owns the game: gpiozero's callbacks only queue inputs, and
commands from the network or the shell are queued as calls, so the module,
the displays and the lights are never touched from two threads at once
(:mod:`firmware.game.loop`: the queue, the thread and its loop; :mod:`firmware.game.stage`:
the frames, the lights, the outputs and the hooks; :mod:`firmware.game.presentation`:
what the players see of a deal).

A deal is decided at its gesture but presented in steps on a schedule rather
than with sleeps (:mod:`firmware.game.presentation`, on the timeline of
:mod:`firmware.game.pacing`): with the original's pacing, the
cards land face down 0.25 s apart and turn face up 1 s after they land, the
third cards come sideways after a pause, the bets are paid 0.25 s after the
last card and the round is finished 1.5 s later (chips cleared, the deck
replaced when it runs low); with the quick pacing, each card face up
``card_seconds`` apart and the clearing ``result_seconds`` after the result.
The schedule reads :attr:`Daemon.clock` (``time.monotonic``; tests and tools
give their own). Player inputs are ignored from the gesture until then; the
game master's calls wait for it, except a new solved count, which is applied
just before the round is finished, so that a replacement deck reads the count
of the moment it appears.

Nothing gives a deal's result away before the table shows it: its events reach
``on_shown`` and ``on_settled`` as they are shown, the lights change with them,
and :meth:`Daemon.shown` (the strikes, the solve, the cards left, the stacks)
is what every view and published state reads. A command that starts a deal is
answered once the result is shown. The state file alone (an ``on_handled``
hook) counts the round from its gesture, so that pulling the plug cannot undo it.

**Outputs** (relays, locks: :mod:`.devices.outputs`) switch at the moment an
event that names them is shown (the result of the solving round when it is
paid, a strike, the reset, the deal gesture), before anything else is done with
that moment: before the ``on_shown`` hooks (sound, the console's log), the
frame, and any network work, so a broker or a console that is slow never delays
a lock. What they did goes through the hooks as
:class:`~.devices.switching.OutputSwitched` events.

The daemon knows nothing of MQTT, the socket, the web or the state file: they
attach to its four hooks, each named by the moment it fires (all on the game
thread, in this order for a batch; see :class:`Daemon`), and send calls.

==================  ===========================  ================================================
hook                called with                  when
==================  ===========================  ================================================
``on_handled``      ``(events, module)``         a batch of events, as the module made it, before
                                                 any of it is shown (the state file is written
                                                 here: a deal counts from its gesture)
``on_shown``        ``(event)``                  each event at the moment it is shown: a card as
                                                 it turns, the result, the clearing (sound); also
                                                 the moments that change nothing in the game (a
                                                 card landing face down, an arrow's click:
                                                 :attr:`~baccarat_core.events.Event.published`
                                                 false)
``on_frame``        ``(role, image)``            each picture, as it went to a display
``on_settled``      ``(events, module)``         the game thread caught up: every input and call
                                                 queued so far is handled and the displays show
                                                 it; ``events``: the game events *shown* since the
                                                 last call, maybe none (only frames changed: a
                                                 card landed). Work for other threads (MQTT, the
                                                 console, webhooks) is handed over here, never
                                                 before a frame and never before its event is
                                                 shown: a deal's strike goes out with its result
==================  ===========================  ================================================

A hook that raises is logged and the others still run (:func:`~firmware.game.loop.notify`).

**Modes.** For a while the prop can be handed to a :class:`Mode` (the pre-game self-test,
:mod:`firmware.selftest`): the inputs go to it instead of the module, it draws the displays and
sets the lights itself, and the game master's commands wait for its end (those marked
``during_round`` run at once). The game loop, and so the watchdog's pings, go on as ever; the
module is not touched, and the game is drawn again when the mode ends.
**The bomb's countdown** (``[bomb] timer_seconds``) is the module's
:class:`~baccarat_core.timer.Countdown`; the daemon brings it to its clock's
reading (``clock``, the monotonic clock on the prop) each time the loop comes round,
before an input or a call can change it, and wakes for it only when something is
due: its expiry (the bomb explodes), and, while something shows the countdown (a
``casing`` display, or a watcher such as an open web page: :meth:`Daemon.watch_timer`),
the moment the whole seconds shown change. With nothing showing it, a running
countdown costs one wake-up, at 0.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from gettext import NullTranslations

from PIL import Image

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.inputs import Arrow, Input, describe_input
from firmware.devices.board import PropBoard
from firmware.devices.displays import Screen
from firmware.errors import PropError
from firmware.game.loop import GameLoop, Mode, RoundShow, _Call, _SolvedCount, notify
from firmware.game.pacing import PACINGS
from firmware.game.presentation import Presentation
from firmware.game.scene import Scene, Shown
from firmware.game.stage import BatchHook, FrameHook, ShownHook, Stage
from firmware.game.tally import Tally

__all__ = ["BatchHook", "Clock", "Daemon", "FrameHook", "Mode", "ShownHook", "notify"]

log = logging.getLogger("baccarat")

#: The log line that says the prop is ready: inputs armed, displays drawn (the benchmarks and tests
#: wait for it).
READY = "ready: inputs armed, displays drawn"

#: What the schedule reads: seconds that only go forward (``time.monotonic``).
Clock = Callable[[], float]

#: How often a display that stopped answering is tried again.
RETRY_SECONDS = 1.0


class Daemon(GameLoop):
    """The prop: a module, a board and screens, run from one thread.

    The reference build on gpiozero's mock pins and luma's ``dummy`` displays (as the
    simulator and the tests run it), a tap on the Player area, and what was shown:

    >>> import random
    >>> from firmware.app import build_daemon, close_daemon, mock_pin_factory
    >>> from firmware.config import load_config
    >>> from firmware.devices.displays import open_dummy_device
    >>> from firmware.simulator.pins import ManualClock, PinDriver
    >>> clock = ManualClock()  # what the debounce filters read: a tap takes no real time
    >>> daemon = build_daemon(
    ...     load_config(), pin_factory=mock_pin_factory(), device_factory=open_dummy_device,
    ...     rng=random.Random(1), clock=clock,
    ... )
    >>> shown = []
    >>> daemon.on_shown.append(lambda event: shown.append(event.describe()))
    >>> daemon.start()
    >>> daemon.ready.wait(5)
    True
    >>> shown[0]
    'limits $10 - $10,000 (drawn at random)'
    >>> PinDriver(daemon.board, clock=clock).tap("player")  # pin edges, debounce, the game's queue
    >>> daemon.wait_idle()
    >>> shown[-1], daemon.module.bets()["player"]
    ('chip $1 on player: stack bottom to top $1 = $1', 1)
    >>> daemon.screens["bets"].frames_sent  # at the start, and with the chip
    2
    >>> daemon.stop()  # lights off, displays blank
    >>> close_daemon(daemon)
    """

    def __init__(
        self,
        module: BaccaratModule,
        board: PropBoard,
        screens: dict[str, Screen],
        *,
        pacing: str = "original",
        card_seconds: float = 0.6,
        result_seconds: float = 1.5,
        retry_seconds: float = RETRY_SECONDS,
        clock: Clock = time.monotonic,
        held_outputs: Mapping[str, float | None] | None = None,
    ) -> None:
        if pacing not in PACINGS:
            raise ValueError(f"unknown pacing {pacing!r} (known: {', '.join(PACINGS)})")
        super().__init__()
        self.module = module
        self.board = board
        self.screens = screens
        #: ``original`` (the original module's deal timeline) or ``quick`` (``card_seconds`` apart).
        self.pacing = pacing
        self.card_seconds = card_seconds
        self.result_seconds = result_seconds
        self.retry_seconds = retry_seconds  # how often a display that stopped answering is tried again
        #: What the schedule (a deal's steps, identify, display retries) and the bomb's countdown read.
        self.clock = clock
        #: ``hook(events, module)``: each batch as the module made it, before any of it is shown.
        self.on_handled: list[BatchHook] = []
        #: ``hook(event)``: each event at the moment it is shown (a card as it turns, the result,
        #: the clearing after the pause). Sound plays from here.
        self.on_shown: list[ShownHook] = []
        #: ``hook(role, image)``: each picture as it went to a display.
        self.on_frame: list[FrameHook] = []
        #: ``hook(events, module)``: once everything queued so far is handled and the displays show
        #: it, with every event since the last call (none when only frames changed). Work for other
        #: threads (MQTT's JSON and sockets, the console) is handed over here, so that it never
        #: competes with a frame for the interpreter (benchmarks/README.md).
        self.on_settled: list[BatchHook] = []
        hooks = (self.on_shown, self.on_frame, self.on_settled)
        self._stage = Stage(board, screens, hooks, clock=clock)  # the frames, the lights, the outputs
        self._show = Presentation(self, self._stage)  # the round on the table, the bets shown, the deal's steps
        # Outputs held on before a restart (see Outputs.restore): switched on again first thing.
        self._restore_outputs = dict(held_outputs or {})
        self.tally = Tally()  #: the hints and the game's start, for the solved event (game thread)

    # -- feeding the daemon (any thread) ---------------------------------------------
    def apply(self, produce: Callable[[BaccaratModule], list[ev.Event]]) -> Future[list[ev.Event]]:
        """Run a command on the module (on the game thread) and show its events."""

        def run() -> list[ev.Event]:
            events = produce(self.module)
            self._handle(events)
            return events

        return self.call(run)

    def play(self, produce: Callable[[BaccaratModule], list[ev.Event]]) -> Future[list[ev.Event]]:
        """Run a batch of player inputs on the module (remote play: the ``bet`` command) on the
        game thread, shown as the same inputs pressed one after the other are: the last hands
        leave the table, and a deal in the batch is shown card by card on the same schedule.

        While a round is being shown the future fails at once (:class:`PropError`), as pressed
        inputs are ignored then: a bet is the players' move on the table they see, and played
        after the round it would land on a table they have not seen.
        """

        def run() -> list[ev.Event]:
            if self._round is not None:
                raise PropError("a round is being dealt: bet again once the table is cleared")
            if self._mode is not None:  # the self-test has the buttons: the table is not in play
                raise PropError("the self-test is running: bet again once it has ended")
            self._show.clear_table()  # as a pressed input: the next input takes the last hands off the table
            events = produce(self.module)
            self._handle(events)
            return events

        return self.call(run, during_round=True)

    def watch_timer(self, name: str, watching: bool) -> Future[None]:
        """``name`` shows the countdown (True: an open web page) or stopped showing it: while anyone
        does (or a ``casing`` display is fitted) the game thread settles each time the whole seconds
        shown change, so that the ``on_settled`` hooks see it; else the countdown wakes nobody until
        it runs out."""
        return self.call(lambda: self._stage.watch_timer(name, watching), during_round=True)

    def identify(self, seconds: float = 3.0) -> Future[dict[str, float]]:
        """Blink both lights and invert every display for ``seconds``, so the game master sees
        which prop this is (runs at once, even during a round)."""
        return self.call(lambda: self._stage.identify(seconds), during_round=True)

    @property
    def identifying(self) -> bool:
        """True while :meth:`identify`'s lights blink and the displays are inverted."""
        return self._stage.identifying

    def set_display_words(self, words: NullTranslations) -> None:
        """The displays' words: ``[display] language``'s catalog (the original's English by default)."""
        self._stage.display_words = words

    def switch_output(self, name: str, state: str) -> Future[list[ev.Event]]:
        """The game master's override of output ``name``: ``on`` (held), ``off`` or ``pulse``. Runs at
        once, even during a deal; the future holds the events (none when nothing changed) or raises
        KeyError for an unknown name."""

        def run() -> list[ev.Event]:
            events: list[ev.Event] = list(self.board.outputs.command(name, state))
            self._handle(events)
            return events

        return self.call(run, during_round=True)

    def held_outputs(self) -> dict[str, float | None]:
        """What a restart must switch on again: the outputs held on (never a pulse), by name, each with
        the wall-clock time its cut-off ends or None, including what a round being shown will switch at
        its result (its gesture is saved; call on the game thread, as the ``on_handled`` hooks do)."""
        return self.board.outputs.held()

    def send_frame(self, role: str, image: Image.Image) -> bool:
        """A mode's picture to ``role``'s display (and the ``on_frame`` hooks); False if the display
        did not take it (not answering, or the picture it shows already)."""
        return self._stage.send_frame(role, image)

    def emit(self, events: list[ev.Event]) -> None:
        """A mode's own events, handled and shown as the module's are (hooks, log lines)."""
        self._handle(events)

    # -- what is shown (game thread) --------------------------------------------------------
    def scene(self) -> Scene:
        """Every display's view now (call on the game thread, e.g. through :meth:`call`)."""
        return self._show.scene(inverted=self.identifying)

    def picture(self, role: str) -> Image.Image:
        """The picture ``role``'s display should show now, at its size and mode."""
        return self._stage.picture(role, self.scene())

    def shown(self) -> Shown:
        """The game as the players can see it now (call on the game thread): during a deal, the
        strikes and the solve of its result only once the result is shown, the cards left as
        they land, the stacks as the bets display shows them."""
        return self._show.shown()

    # -- internals ------------------------------------------------------------------------
    @property
    def _round(self) -> RoundShow | None:
        return self._show.round

    def _timeout(self) -> float | None:
        due = self._stage.next_due(self._show.next_due(), self.retry_seconds)
        timer = self.module.timer
        timer_due = None if timer is None else self._stage.timer_due(timer)
        if timer_due is not None:
            due = min(due, timer_due)
        wait = None if due == float("inf") else max(0.0, due - self.clock())
        output_due = self.board.outputs.next_due()  # a pulse's end, a cut-off: real time
        return self._wait(wait, float("inf") if output_due is None else output_due)

    def _keep_time(self) -> None:
        """Bring the countdown to the clock's reading: at 0 the bomb explodes; a new whole second
        shown is a settled moment for whoever shows it."""
        timer = self.module.timer
        if timer is None:
            return
        timer.advance(self.clock())
        if timer.running and timer.done:
            self._handle(self.module.expire())
        self._stage.timer_moved(timer)

    def _begin(self) -> None:
        """Outputs held before a restart on again, the module started (or resumed), everything
        drawn, the inputs armed."""
        self._show.resume()
        self.tally.begin(self.clock())
        if self._restore_outputs:  # a lock that was open stays open: before anything else
            restored: list[ev.Event] = [*self.board.outputs.restore(self._restore_outputs)]
            self._restore_outputs = {}
            self._handle(restored)
        if self.module.deck is None:
            self._handle(self.module.start())
        else:
            log.info("state restored: %s", _summary(self.module))
            self._handle(self.module.resume())
        self._keep_time()  # a restored countdown that ran out while the prop was off explodes now
        self._show_lights()
        self._draw()
        self.board.connect(self.submit)
        log.info(READY)

    def _take(self, item: Input) -> None:
        if isinstance(item, Arrow):  # the original clicks on every press: at either end, and locked
            self._show.present(ev.ArrowClicked(item.direction))
        if self._round is not None:
            log.debug("ignored %s: it came during the deal", describe_input(item))
            return
        self._show.clear_table()  # the next input takes the last hands off the table
        self._handle(self.module.handle(item))  # a deal stops at its result: _round_over ends it

    def _apply_solved(self, item: _SolvedCount) -> None:
        def run() -> list[ev.Event]:
            if item.only_if_changed and item.count == self.module.edgework.solved:
                return []
            events = self.module.set_solved(item.count)
            self._handle(events)
            return events

        self._run_call(_Call(run, item.future))

    def _handle(self, events: list[ev.Event]) -> None:
        """Hand a batch to the ``on_handled`` hooks (the state is saved before it is shown), then
        show it: at once, or, for a deal, step by step (:meth:`Presentation.handle`)."""
        self._stage.changed()  # a batch, even an empty one
        if self._stage.names_outputs(events):
            self.board.outputs.plan([event.kind for event in events])  # held_outputs() as the hooks save it
        self.tally.stamp(events, strikes=self.module.strikes, now=self.clock())
        notify(self.on_handled, events, self.module)
        self._show.handle(events)

    def _run_due_steps(self) -> None:
        if self._stage.identified():
            self._show_lights()  # the lights go back to what the game shows
        self._show.run_due_steps()

    def _finish_round(self) -> None:
        self._handle(self.module.finish_round())

    def _switched(self, switched: list[ev.Event]) -> None:
        """What the outputs did, as a batch of its own (saved, logged, published)."""
        if switched:
            self._handle(switched)

    def _expire_outputs(self) -> None:
        self._switched(self._stage.expired())

    def _show_lights(self) -> None:
        if self.identifying or self._mode is not None:
            return
        deck = self.module.deck
        self._stage.show_lights(deck.color if deck is not None else None, self.shown())

    def _draw(self) -> None:
        """Render the roles whose view changed (and every failing display) and send them."""
        if self._mode is not None:
            return  # the mode draws
        self._stage.draw(self._show.view, self.identifying)

    def _show_game(self) -> None:
        self._stage.redraw_all()  # every display shows the game again
        self._show_lights()
        self._draw()
        self._settled()

    def _settled(self) -> None:
        self._stage.settle(self.module)

    def _shutdown(self) -> None:
        self._settled()  # what the last inputs did reaches the services before they stop
        log.info("stopping: lights off, displays blank")
        try:  # first: a lock or a relay matters more than a light
            self.board.outputs.all_off()  # the held ones stay saved: the next start switches them on again
        except Exception:
            log.exception("outputs did not turn off")
        waiting = self._show.abandon()
        if waiting is not None:  # a deal's reply: its events were handled and saved
            for future, result in waiting.replies:
                future.set_result(result)
        self._end(waiting)  # the round's result is saved: the next start finishes it
        self._stage.off()


def _summary(module: BaccaratModule) -> str:
    deck = module.deck
    return (
        f"limits {module.limits.placard()}, {deck.color if deck else '?'} deck with "
        f"{module.cards_left} cards, {module.strikes} strikes, "
        f"{'solved' if module.solved else 'exploded' if module.exploded else 'armed'}"
    )
