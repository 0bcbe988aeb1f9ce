"""The game thread: inputs in, the module's events out to hooks, lights and displays.

One thread owns the game: gpiozero's callbacks only queue inputs, and
commands from the network or the shell are queued as calls, so the module,
the displays and the lights are never touched from two threads at once.

A deal is decided at its gesture but presented in steps on a schedule rather
than with sleeps (:mod:`firmware.pacing`): with the original's pacing, the
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

A hook that raises is logged and the others still run (:func:`notify`).

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
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from gettext import NullTranslations
from typing import Any, Protocol, TypeVar

from PIL import Image

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.inputs import Arrow, Input, SetSolved, describe_input
from baccarat_core.records import field, record
from baccarat_core.rounds import AREAS

from .devices.board import PropBoard
from .devices.displays import Screen
from .devices.switching import OutputSwitched
from .errors import PropError
from .pacing import PACINGS, Beat, deal_timeline, is_third_card
from .scene import BetsOnTable, RoundOnTable, Scene, Shown, cards_left, compose, render_view

log = logging.getLogger("baccarat")

#: ``hook(events, module)``: :attr:`Daemon.on_handled` and :attr:`Daemon.on_settled`.
BatchHook = Callable[[list[ev.Event], BaccaratModule], None]
#: ``hook(event)``: :attr:`Daemon.on_shown`.
ShownHook = Callable[[ev.Event], None]
#: ``hook(role, image)``: :attr:`Daemon.on_frame`.
FrameHook = Callable[[str, Image.Image], None]
#: What the schedule reads: seconds that only go forward (``time.monotonic``).
Clock = Callable[[], float]

#: How often a display that stopped answering is tried again.
RETRY_SECONDS = 1.0

T = TypeVar("T")


@record(frozen=False)
class _Call:
    fn: Callable[[], Any]
    future: Future[Any]
    during_round: bool = False  # runs at once even while a round is shown (reads, or refuses then)


@record(frozen=False)
class _SolvedCount:
    count: int
    future: Future[list[ev.Event]]
    only_if_changed: bool = False


@record(frozen=False)
class _Step:
    due: float
    run: Callable[[], None]


@record(frozen=False)
class _Round:
    """The schedule of a round being shown, and what waits for its end."""

    steps: list[_Step]
    deferred: list[_Call] = field(default_factory=list)
    solved_counts: list[_SolvedCount] = field(default_factory=list)
    #: Calls that started this round, with their results: answered once the result is shown.
    replies: list[tuple[Future[Any], Any]] = field(default_factory=list)
    paid: bool = False  # the result is shown
    result_at: float = float("inf")  # when the result is paid (on the daemon's clock)


class _Stop:
    """What :meth:`Daemon.stop` queues."""


class Mode(Protocol):
    """Something that takes the prop over for a while (:meth:`Daemon.take_over`), on the game thread."""

    #: When :meth:`tick` is next due (``time.monotonic``; ``inf``: only inputs and calls move it on).
    due: float
    #: True once it is over: the daemon then calls :meth:`end` and shows the game again.
    finished: bool

    def tick(self, now: float) -> None:
        """Its time :attr:`due` has come."""

    def take(self, action: Input) -> None:
        """A player's input (the module never sees it)."""

    def end(self, stopped: bool) -> None:
        """It is over: finished, or ``stopped`` with the prop (SIGTERM)."""


_STOP = _Stop()


def notify(hooks: Sequence[Callable[..., None]], *args: Any) -> None:
    """Call each hook with ``args``; one that raises is logged, and the rest still run."""
    for hook in hooks:
        try:
            hook(*args)
        except Exception:
            log.exception("hook %r failed", hook)


class Daemon:
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
        self.module = module
        self.board = board
        self.screens = screens
        #: ``original`` (the original module's deal timeline) or ``quick`` (``card_seconds`` apart).
        self.pacing = pacing
        self.card_seconds = card_seconds
        self.result_seconds = result_seconds
        self.retry_seconds = retry_seconds
        #: What the schedule (a deal's steps, identify, display retries) and the bomb's countdown read.
        self.clock = clock
        #: The displays' words: ``[display] language``'s catalog (firmware.i18n), the original's English by default.
        self.display_words: NullTranslations = ev.ENGLISH
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
        self._unsettled: list[ev.Event] = []  # events since the last settled call
        self._to_settle = False  # a batch was handled or a frame sent since the last settled call
        self.ready = threading.Event()
        self._queue: queue.Queue[Input | _Call | _SolvedCount | _Stop] = queue.Queue()
        self._ended = False  # the game thread has stopped: calls fail at once (under _end_lock)
        self._end_lock = threading.Lock()
        self._on_table: RoundOnTable | None = None
        self._bets: BetsOnTable | None = None  # stacks the bets display shows instead of the module's
        self._hidden: list[ev.Event] = []  # a deal's events handled and not yet shown
        self._stacks: dict[str, tuple[int, ...]] = {}  # the module's stacks after the last batch
        self._round: _Round | None = None
        self._drawn: dict[str, object] = {}
        self._retry_at = float("inf")
        self._identify_until = float("-inf")
        self._thread: threading.Thread | None = None
        self._beat: Callable[[], None] | None = None
        self._beat_every = float("inf")
        self._beat_due = float("inf")
        self._mode: Mode | None = None
        self._mode_waiting: list[_Call | _SolvedCount] = []  # commands that wait for the mode's end
        self._timer_watchers: set[str] = set()  # who shows the countdown besides a casing display
        self._timer_shown: int | None = None  # the whole seconds the watchers last got
        # Outputs held on before a restart (see Outputs.restore): switched on again first thing.
        self._restore_outputs = dict(held_outputs or {})

    # -- feeding the daemon (any thread) ---------------------------------------------
    def submit(self, action: Input) -> None:
        """Queue a player's input (gpiozero callbacks land here)."""
        if isinstance(action, SetSolved):
            self.set_solved(action.solved)
            return
        self._queue.put(action)

    def call(self, fn: Callable[[], T], *, during_round: bool = False) -> Future[T]:
        """Run ``fn`` on the game thread; the future holds its result.

        While a round is being shown the call waits for its end, unless
        ``during_round`` (for calls that only read).
        """
        future: Future[T] = Future()
        self._enqueue(_Call(fn, future, during_round))
        return future

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
            self._on_table = None  # as a pressed input: the next input takes the last hands off the table
            events = produce(self.module)
            self._handle(events)
            return events

        return self.call(run, during_round=True)

    def set_solved(self, count: int, *, only_if_changed: bool = False) -> Future[list[ev.Event]]:
        """The bomb's solved count: applied at once, or during a round just before the round
        is finished (so a replacement deck uses it). The future holds the events.

        ``only_if_changed`` skips a count equal to the module's (a retained message
        arriving again after a reconnect).
        """
        future: Future[list[ev.Event]] = Future()
        self._enqueue(_SolvedCount(count, future, only_if_changed))
        return future

    def _enqueue(self, item: _Call | _SolvedCount) -> None:
        """Queue a call for the game thread, or fail it at once if that thread has stopped
        (its caller must not wait for an answer that cannot come)."""
        with self._end_lock:
            if not self._ended:
                self._queue.put(item)
                return
        _fail_stopped(item.future)

    # -- running -------------------------------------------------------------------------
    def start(self) -> None:
        """Run the game on a thread of its own (see :meth:`run`)."""
        self._thread = threading.Thread(target=self.run, name="baccarat-game", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Draw everything, arm the inputs, and run the game on this thread until :meth:`stop`."""
        self._stacks = {area: tuple(stack) for area, stack in self.module.stacks.items()}
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
        log.info("ready: inputs armed, displays drawn")
        self.ready.set()
        self._settled()
        self._heartbeat()
        while True:
            try:
                item = self._queue.get(timeout=self._timeout())
            except queue.Empty:
                item = None
            if isinstance(item, _Stop):
                break
            self._keep_time()  # the countdown as of now, before anything changes it
            self._run_due_steps()  # what was due before the item came goes first
            if item is not None:
                try:
                    self._dispatch(item)
                except Exception:  # never let one bad input take the prop down
                    log.exception("error while handling %r; the game goes on", item)
            self._run_due_steps()
            self._expire_outputs()
            self._run_mode()
            if self._queue.empty():  # inputs queued behind this one are handled before the next frame
                self._draw()
                self._settled()
            if time.monotonic() >= self._beat_due:
                self._heartbeat()
        self._shutdown()

    def stop(self) -> None:
        """Stop the game thread: outputs and lights off, displays blank (SIGTERM)."""
        self._queue.put(_STOP)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def heartbeat(self, seconds: float, beat: Callable[[], None]) -> None:
        """Call ``beat()`` on the game thread once the prop is ready (after the first frames and
        the "ready" line), then every ``seconds`` for as long as the game loop comes round: a
        thread stuck in a display write or a deadlock stops its beats (the service manager's
        watchdog, :mod:`firmware.sdnotify`). The loop wakes for a beat when nothing else wakes it,
        once per ``seconds``. Set before :meth:`start`."""
        self._beat = beat
        self._beat_every = seconds

    def watch_timer(self, name: str, watching: bool) -> Future[None]:
        """``name`` shows the countdown (True: an open web page) or stopped showing it: while anyone
        does (or a ``casing`` display is fitted) the game thread settles each time the whole seconds
        shown change, so that the ``on_settled`` hooks see it; else the countdown wakes nobody until
        it runs out."""

        def run() -> None:
            if watching:
                self._timer_watchers.add(name)
            else:
                self._timer_watchers.discard(name)

        return self.call(run, during_round=True)

    def running(self) -> bool:
        """True while the game thread started by :meth:`start` runs."""
        return self._thread is not None and self._thread.is_alive()

    def wait_stopped(self, timeout: float | None = None) -> None:
        """Wait for the game thread started by :meth:`start` to end (``timeout`` seconds at most)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def wait_idle(self, timeout: float = 5.0) -> None:
        """Block until everything queued so far has been handled and shown (tests, tools)."""
        self.call(lambda: None).result(timeout)

    def catch_up(self, timeout: float = 5.0) -> None:
        """Block until the game thread has run the steps due by :attr:`clock` and handled what is
        queued, without waiting for a deal to end (tools and tests that move their own clock)."""
        self.call(lambda: None, during_round=True).result(timeout)

    def identify(self, seconds: float = 3.0) -> Future[dict[str, float]]:
        """Blink both lights and invert every display for ``seconds``, so the game master sees
        which prop this is (runs at once, even during a round)."""

        def run() -> dict[str, float]:
            self._identify_until = self.clock() + seconds
            self.board.status.blink_both()
            self.board.deck_light.blink_white()
            log.info("identify: lights blinking and displays inverted for %g s", seconds)
            return {"identify_seconds": seconds}

        return self.call(run, during_round=True)

    @property
    def identifying(self) -> bool:
        """True while :meth:`identify`'s lights blink and the displays are inverted."""
        return self.clock() < self._identify_until

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

    # -- modes (game thread) ----------------------------------------------------------------
    @property
    def mode(self) -> Mode | None:
        """The mode that has the prop now (:meth:`take_over`), or None while the game does."""
        return self._mode

    def take_over(self, mode: Mode) -> None:
        """Hand the inputs, displays and lights to ``mode`` until it is finished (call on the game
        thread, from :meth:`call`, which waits for a round in progress to end)."""
        if self._mode is not None:
            raise PropError("the prop is busy with another mode")
        self._mode = mode
        self._run_mode()

    def send_frame(self, role: str, image: Image.Image) -> bool:
        """A mode's picture to ``role``'s display (and the ``on_frame`` hooks); False if the display
        did not take it (not answering, or the picture it shows already)."""
        screen = self.screens[role]
        if not screen.show(image):
            return False
        self._drawn.pop(role, None)  # the game's view is drawn again afterwards
        self._to_settle = True
        notify(self.on_frame, role, image)
        return True

    def emit(self, events: list[ev.Event]) -> None:
        """A mode's own events, handled and shown as the module's are (hooks, log lines)."""
        self._handle(events)

    @property
    def dealing(self) -> bool:
        """True from a deal's gesture until its round is finished."""
        return self._round is not None

    @property
    def result_due(self) -> float | None:
        """When (on :attr:`clock`) the round being dealt pays its result (and switches the outputs it
        names); None outside a deal. What the benchmark times an output against."""
        waiting = self._round
        return None if waiting is None else waiting.result_at

    # -- what is shown (game thread) --------------------------------------------------------
    def scene(self) -> Scene:
        """Every display's view now (call on the game thread, e.g. through :meth:`call`)."""
        return compose(self.module, self._on_table, bets=self._bets, inverted=self.identifying, shown=self.shown())

    def picture(self, role: str) -> Image.Image:
        """The picture ``role``'s display should show now, at its size and mode."""
        screen = self.screens[role]
        scene = self.scene()
        return render_view(
            role,
            scene.view(role),
            screen.size,
            screen.mode,
            inverted=scene.inverted,
            colour=screen.colour,
            t=self.display_words,
        )

    def shown(self) -> Shown:
        """The game as the players can see it now (call on the game thread): during a deal, the
        strikes and the solve of its result only once the result is shown, the cards left as
        they land, the stacks as the bets display shows them."""
        hidden = self._hidden
        stacks = self._bets.stacks if self._bets is not None else self.module.stacks
        return Shown(
            self.module.strikes - sum(isinstance(event, ev.Strike) for event in hidden),
            self.module.solved and not any(isinstance(event, ev.Solved) for event in hidden),
            cards_left(self.module, self._on_table),
            {area: tuple(stacks.get(area, ())) for area in AREAS},
            None if any(isinstance(event, ev.Exploded) for event in hidden) else self.module.exploded,
        )

    # -- internals ------------------------------------------------------------------------
    def _timeout(self) -> float | None:
        due = self._round.steps[0].due if self._round is not None and self._round.steps else float("inf")
        if self._identify_until != float("-inf"):
            due = min(due, self._identify_until)
        if any(screen.failing for screen in self.screens.values()):
            if self._retry_at == float("inf"):
                self._retry_at = self.clock() + self.retry_seconds
            due = min(due, self._retry_at)
        else:
            self._retry_at = float("inf")
        timer_due = self._timer_due()
        if timer_due is not None:
            due = min(due, timer_due)
        wait = None if due == float("inf") else max(0.0, due - self.clock())
        # The watchdog's beat and a mode (the self-test) run on real time, whatever the schedule reads.
        real = min(self._beat_due, self._mode.due if self._mode is not None else float("inf"))
        output_due = self.board.outputs.next_due()  # a pulse's end, a cut-off: real time too
        if output_due is not None:
            real = min(real, output_due)
        if real != float("inf"):
            beat = max(0.0, real - time.monotonic())
            wait = beat if wait is None else min(wait, beat)
        return wait

    def _timer_shown_somewhere(self) -> bool:
        return bool(self._timer_watchers) or "casing" in self.screens

    def _timer_due(self) -> float | None:
        """When the countdown needs the loop next (on :attr:`clock`): its expiry, and the next change
        of the whole seconds shown while something shows them; None while it does not run."""
        timer = self.module.timer
        if timer is None or not timer.running:
            return None
        due = timer.expires_at()
        if self._timer_shown_somewhere():
            tick = timer.next_second_at()
            due = tick if due is None or (tick is not None and tick < due) else due
        return due

    def _keep_time(self) -> None:
        """Bring the countdown to the clock's reading: at 0 the bomb explodes; a new whole second
        shown is a settled moment for whoever shows it."""
        timer = self.module.timer
        if timer is None:
            return
        timer.advance(self.clock())
        if timer.running and timer.done:
            self._handle(self.module.expire())
        if self._timer_shown_somewhere() and timer.shown() != self._timer_shown:
            self._timer_shown = timer.shown()
            self._to_settle = True

    def _dispatch(self, item: Input | _Call | _SolvedCount) -> None:
        if self._mode is not None and not (isinstance(item, _Call) and item.during_round):
            if isinstance(item, _Call | _SolvedCount):
                self._mode_waiting.append(item)
            else:
                self._mode.take(item)
            return
        if isinstance(item, _Call):
            if self._round is not None and not item.during_round:
                self._round.deferred.append(item)
                return
            self._run_call(item)
        elif isinstance(item, _SolvedCount):
            if self._round is not None:
                self._round.solved_counts.append(item)
                return
            self._apply_solved(item)
        else:
            if isinstance(item, Arrow):  # the original clicks on every press: at either end, and locked
                self._present(ev.ArrowClicked(item.direction))
            if self._round is not None:
                log.debug("ignored %s: it came during the deal", describe_input(item))
                return
            self._on_table = None  # the next input takes the last hands off the table
            self._handle(self.module.handle(item))  # a deal stops at its result: _finish_round ends it

    def _run_call(self, call: _Call) -> None:
        if not call.future.set_running_or_notify_cancel():
            return
        self._draw()  # a call sees the displays as the inputs before it left them
        before = self._round
        try:
            result = call.fn()
        except Exception as error:
            call.future.set_exception(error)
            return
        self._draw()  # what the call changed is on the displays when its caller hears back,
        self._settled()  # and its events reach the services before the reply does
        started = self._round
        if started is not None and started is not before and not started.paid:
            started.replies.append((call.future, result))  # a deal: answered with its result
            return
        call.future.set_result(result)

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
        show it: at once, or, for a deal, step by step on the schedule of :mod:`firmware.pacing`."""
        self._to_settle = True  # a batch, even an empty one
        before, self._stacks = self._stacks, {area: tuple(stack) for area, stack in self.module.stacks.items()}
        self.board.outputs.plan([event.kind for event in events])  # held_outputs() as the hooks save it
        notify(self.on_handled, events, self.module)
        cards = [event for event in events if isinstance(event, ev.CardDealt)]
        if not cards:
            self._show(events)
            return
        first = events.index(cards[0])
        start = max((i for i, event in enumerate(events[:first]) if isinstance(event, ev.DealStarted)), default=-1)
        last = events.index(cards[-1])
        head, checks, tail = events[: start + 1], events[start + 1 : first], events[last + 1 :]
        self._hidden = events[start + 1 :]
        switched = self._switch(head + checks)  # the deal's output, a strike at the gesture: first
        for event in head:  # what came before the gesture, and the gesture
            self._present(event)
        self._on_table = RoundOnTable(tuple(cards))
        original = self.pacing == "original"
        reorder = next((e for e in checks if isinstance(e, ev.ChipsReordered)), None)
        for event in checks:  # the stack-order strike at the gesture, as the original
            if event is not reorder or not original:
                self._present(event)
        if reorder is not None and original:  # the stacks as they were placed, marked
            placed = _replay(before, head)
            self._bets = BetsOnTable({**self._stacks, **placed}, tuple(reorder.stacks))
        hands = [card.hand for card in cards]
        beats = deal_timeline(
            hands,
            solved=any(isinstance(event, ev.Solved) for event in tail),
            restack=reorder is not None and original,
            pacing=self.pacing,
            card_seconds=self.card_seconds,
            result_seconds=self.result_seconds,
        )
        now = self.clock()
        pay = next((beat.at for beat in beats if beat.what == "pay"), None)
        self._round = _Round(
            [_Step(now + beat.at, self._step(beat, cards, reorder, tail)) for beat in beats],
            result_at=float("inf") if pay is None else now + pay,
        )
        self._switched(switched)
        self._run_due_steps()

    def _step(
        self, beat: Beat, cards: list[ev.CardDealt], reorder: ev.ChipsReordered | None, tail: list[ev.Event]
    ) -> Callable[[], None]:
        """What the daemon does at ``beat``."""
        if beat.what == "rebuild":
            assert reorder is not None  # deal_timeline rebuilds only when asked to re-stack
            restacking = tuple(reorder.stacks)
            return lambda: self._rebuild(reorder, restacking)
        if beat.what == "restacked":
            return self._restacked
        if beat.what == "land":
            hands = [card.hand for card in cards]
            landed = ev.CardLanded(cards[beat.card].hand, is_third_card(hands, beat.card))
            return lambda: self._land(landed)
        if beat.what == "turn":
            card = cards[beat.card]
            return lambda: self._turn(card)
        if beat.what == "pay":
            return lambda: self._show_result(tail)
        if beat.what == "clear":
            return self._finish_round
        raise ValueError(f"no step for {beat.what!r}")

    def _run_due_steps(self) -> None:
        if self._identify_until != float("-inf") and not self.identifying:
            self._identify_until = float("-inf")
            self._show_lights()  # the lights go back to what the game shows
        while self._round is not None and self._round.steps and self._round.steps[0].due <= self.clock():
            step = self._round.steps.pop(0)
            step.run()
            if self._round is not None and self._round.steps:
                self._draw()  # each step is on the displays before the next is due

    def _rebuild(self, reorder: ev.ChipsReordered, restacking: tuple[str, ...]) -> None:
        self._bets = BetsOnTable(dict(self._stacks), restacking)  # the module's stacks: re-ordered
        self._present(reorder)

    def _restacked(self) -> None:
        self._bets = None

    def _land(self, landed: ev.CardLanded) -> None:
        if self._on_table is not None:
            self._on_table = self._on_table.land_card()
        self._present(landed)

    def _turn(self, card: ev.CardDealt) -> None:
        if self._on_table is not None:
            self._on_table = self._on_table.turn_card()
        self._present(card)

    def _show_result(self, tail: list[ev.Event]) -> None:
        """The result and the payout: with the original's pacing the losing bets leave the bets
        display now, the winning ones and the pushes stay until the clearing."""
        switched = self._switch(tail)  # the lock opens as the result shows, before anything else
        for event in tail:
            if isinstance(event, ev.RoundPlayed):
                if self._on_table is not None:
                    self._on_table = self._on_table.show_result(event)
                if self.pacing == "original":
                    self._bets = BetsOnTable(
                        {area: () if event.results.get(area, 0) < 0 else stack for area, stack in self._stacks.items()}
                    )
            self._present(event)
        self._switched(switched)
        if self._round is not None:
            self._round.paid = True
            self._answer(self._round)

    def _show(self, events: list[ev.Event]) -> None:
        """Show events of one moment: the outputs they name switch first, then each is presented."""
        switched = self._switch(events)
        for event in events:
            self._present(event)
        self._switched(switched)

    def _switch(self, events: list[ev.Event]) -> list[ev.Event]:
        """Switch the outputs ``events`` name (pins only: no hook has run yet)."""
        switched: list[ev.Event] = []
        for event in events:
            if not isinstance(event, OutputSwitched):
                switched += self.board.outputs.follow(event.kind)
        return switched

    def _switched(self, switched: list[ev.Event]) -> None:
        """What the outputs did, as a batch of its own (saved, logged, published)."""
        if switched:
            self._handle(switched)

    def _expire_outputs(self) -> None:
        """Pulses and cut-offs that ran out (gpiozero's threads switched the pins): record them."""
        if self.board.outputs.next_due() is not None:
            self._switched([*self.board.outputs.expire()])

    def _answer(self, waiting: _Round) -> None:
        """Answer the calls that started ``waiting`` now that its result is shown."""
        replies, waiting.replies = waiting.replies, []
        if not replies:
            return
        self._draw()
        self._settled()  # the events reach the services before the replies
        for future, result in replies:
            future.set_result(result)

    def _finish_round(self) -> None:
        """The end of a round's pause: solved counts that came during it, then the clearing
        (and a new deck), then the calls that waited."""
        waiting = self._round
        self._round = None
        if waiting is None:
            return
        self._hidden = []
        self._answer(waiting)
        for item in waiting.solved_counts:
            self._apply_solved(item)
        self._handle(self.module.finish_round())
        for call in waiting.deferred:
            self._dispatch(call)

    def _present(self, event: ev.Event) -> None:
        if self._hidden:
            self._hidden = [hidden for hidden in self._hidden if hidden is not event]
        if event.published:
            self._unsettled.append(event)  # on_settled carries the events as they are shown
            self._to_settle = True
        notify(self.on_shown, event)
        if event.published:
            log.info("%s", event.describe())
        elif log.isEnabledFor(logging.DEBUG):  # a card face down, a click: words only when asked for
            log.debug("%s", event.describe())
        if isinstance(event, ev.DeckAppeared):
            self.board.deck_light.show(event.color)
        elif isinstance(event, ev.Strike):
            self.board.status.strike()
        elif isinstance(event, ev.Solved):
            self.board.status.solved()
        elif isinstance(event, ev.Exploded):
            self.board.status.exploded()
        elif isinstance(event, ev.ModuleReset):
            self.board.status.armed()
            self._on_table = None
            self._bets = None
        elif isinstance(event, ev.ChipsCleared):
            self._bets = None

    def _show_lights(self) -> None:
        if self.identifying or self._mode is not None:
            return
        if self.module.deck is not None:
            self.board.deck_light.show(self.module.deck.color)
        seen = self.shown()
        if seen.solved:
            self.board.status.solved()
        elif seen.exploded:
            self.board.status.exploded()
        else:
            self.board.status.armed()

    def _draw(self) -> None:
        """Render the roles whose view changed (and every failing display) and send them."""
        if self._mode is not None:
            return  # the mode draws
        scene = self.scene()
        for role, screen in self.screens.items():
            view = scene.view(role)
            if (view, scene.inverted) == self._drawn.get(role) and not screen.failing:
                continue
            image = render_view(
                role,
                view,
                screen.size,
                screen.mode,
                inverted=scene.inverted,
                colour=screen.colour,
                t=self.display_words,
            )
            self._drawn[role] = (view, scene.inverted)
            if screen.show(image):
                self._to_settle = True
                notify(self.on_frame, role, image)
        self._retry_at = float("inf")  # still failing: the next wait schedules another try

    def _run_mode(self) -> None:
        """Tick the mode when due; once it is finished, show the game again and run what waited."""
        mode = self._mode
        if mode is None:
            return
        if not mode.finished and mode.due <= time.monotonic():
            mode.tick(time.monotonic())
        if not mode.finished:
            return
        self._mode = None
        self._drawn.clear()  # every display shows the game again
        self._show_lights()
        self._draw()
        self._settled()  # the mode's last events are handed over before its caller hears back
        mode.end(False)
        waiting, self._mode_waiting = self._mode_waiting, []
        for item in waiting:
            self._dispatch(item)

    def _heartbeat(self) -> None:
        if self._beat is None:
            return
        self._beat_due = time.monotonic() + self._beat_every
        try:
            self._beat()
        except Exception:
            log.exception("heartbeat %r failed", self._beat)

    def _settled(self) -> None:
        if not self._to_settle:
            return
        events, self._unsettled, self._to_settle = self._unsettled, [], False
        notify(self.on_settled, events, self.module)

    def _shutdown(self) -> None:
        self._settled()  # what the last inputs did reaches the services before they stop
        log.info("stopping: lights off, displays blank")
        try:  # first: a lock or a relay matters more than a light
            self.board.outputs.all_off()  # the held ones stay saved: the next start switches them on again
        except Exception:
            log.exception("outputs did not turn off")
        waiting = self._round
        self._round = None
        if waiting is not None:  # a deal's reply: its events were handled and saved
            for future, result in waiting.replies:
                future.set_result(result)
        if self._mode is not None:
            mode, self._mode = self._mode, None
            try:
                mode.end(True)
            except Exception:
                log.exception("mode %r did not end cleanly", mode)
        with self._end_lock:
            self._ended = True
        left: list[object] = [*self._mode_waiting]
        if waiting is not None:
            left += [*waiting.deferred, *waiting.solved_counts]
        while True:  # and what was queued behind the stop
            try:
                left.append(self._queue.get_nowait())
            except queue.Empty:
                break
        # The round's result is saved (the next start finishes it); the calls that waited for
        # its end or for a mode (the self-test), or came after the stop, fail now rather than
        # leave their callers waiting.
        for item in left:
            if isinstance(item, _Call | _SolvedCount):
                _fail_stopped(item.future)
        try:
            self.board.lights_off()
        except Exception:
            log.exception("lights did not turn off")
        for screen in self.screens.values():
            screen.off()


def _replay(stacks: dict[str, tuple[int, ...]], events: list[ev.Event]) -> dict[str, tuple[int, ...]]:
    """``stacks`` after the chip events among ``events`` (the stacks as placed at a deal's gesture)."""
    out = dict(stacks)
    for event in events:
        if isinstance(event, ev.ChipAdded):
            out[event.area] = event.stack
        elif isinstance(event, ev.AreaCleared):
            out[event.area] = ()
        elif isinstance(event, ev.ChipsCleared | ev.ModuleReset):
            out = {area: () for area in out}
    return out


def _fail_stopped(future: Future[Any]) -> None:
    if not future.done() and future.set_running_or_notify_cancel():
        future.set_exception(PropError("the prop stopped before the command ran"))


def _summary(module: BaccaratModule) -> str:
    deck = module.deck
    return (
        f"limits {module.limits.placard()}, {deck.color if deck else '?'} deck with "
        f"{module.cards_left} cards, {module.strikes} strikes, "
        f"{'solved' if module.solved else 'exploded' if module.exploded else 'armed'}"
    )
