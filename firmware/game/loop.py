"""The game thread's queue: what other threads want of the game, run in order on one thread.

:class:`GameLoop` is the part of :class:`firmware.game.daemon.Daemon` that hands out the game
thread's time: a thread of its own (:meth:`GameLoop.start`), a queue that gpiozero's
callbacks, the network and the shell put inputs and calls on (from any thread), the
watchdog's heartbeat, and a stop that answers every call still waiting. What comes off the
queue goes to whoever has the game: a :class:`Mode` (the self-test) while one runs; else a
call runs at once, or after the round being shown, and an input goes to the game. The
daemon's loop (:meth:`firmware.game.daemon.Daemon.run`) takes the items off the queue.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, Protocol, TypeVar

from baccarat_core import events as ev
from baccarat_core.inputs import Input, SetSolved
from baccarat_core.records import field, record
from firmware.errors import PropError

log = logging.getLogger("baccarat")

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
class Step:
    """One moment of a round's schedule: what is done when the clock reads ``due``."""

    due: float
    run: Callable[[], None]


@record(frozen=False)
class RoundShow:
    """The schedule of a round being shown, and what waits for its end (the daemon's queued
    calls and solved counts, run once the round is finished)."""

    steps: list[Step]
    deferred: list[Any] = field(default_factory=list)
    solved_counts: list[Any] = field(default_factory=list)
    #: Calls that started this round, with their results: answered once the result is shown.
    replies: list[tuple[Future[Any], Any]] = field(default_factory=list)
    paid: bool = False  # the result is shown
    result_at: float = float("inf")  # when the result is paid (on the daemon's clock)


class _Stop:
    """What :meth:`GameLoop.stop` queues."""


_STOP = _Stop()


class Mode(Protocol):
    """Something that takes the prop over for a while (:meth:`GameLoop.take_over`), on the game thread."""

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


def notify(hooks: Sequence[Callable[..., None]], *args: Any) -> None:
    """Call each hook with ``args``; one that raises anything (``SystemExit`` too: it would end
    the game thread) is logged, and the rest still run. A hook's first failure of a kind is
    logged with its traceback; the next ones are counted (:func:`_hook_failed`)."""
    for hook in hooks:
        try:
            hook(*args)
        except BaseException as error:  # noqa: BLE001 - a hook never ends the game thread
            _hook_failed(hook, error)


#: (hook, kind of exception) -> how often it failed so far.
_FAILURES: dict[tuple[int, type[BaseException]], int] = {}
#: After the first failure of a kind, one line each this many more (not one per event).
FAILURES_SAID_EVERY = 100


def _hook_failed(hook: Callable[..., None], error: BaseException) -> None:
    key = (id(hook), type(error))
    count = _FAILURES[key] = _FAILURES.get(key, 0) + 1
    if count == 1:
        log.error("hook %r failed (%s: %s)", hook, type(error).__name__, error, exc_info=error)
    elif count % FAILURES_SAID_EVERY == 0:
        log.error("hook %r has failed %d times (%s: %s)", hook, count, type(error).__name__, error)


class GameLoop:
    """The queue and the thread of the game (see the module); the daemon adds the game."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self._queue: queue.Queue[Input | _Call | _SolvedCount | _Stop] = queue.Queue()
        self._ended = False  # the game thread has stopped: calls fail at once (under _end_lock)
        self.stop_requested = False  #: :meth:`stop` was called (a thread that ends without it: a bug)
        self._end_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._beat: Callable[[], None] | None = None
        self._beat_every = float("inf")
        self._beat_due = float("inf")
        self._mode: Mode | None = None
        self._mode_waiting: list[_Call | _SolvedCount] = []  # commands that wait for the mode's end

    # -- any thread ------------------------------------------------------------------------------
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

    def start(self) -> None:
        """Run the game on a thread of its own (see :meth:`run`)."""
        self._thread = threading.Thread(target=_logged, args=(self.run,), name="baccarat-game", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the game thread: outputs and lights off, displays blank (SIGTERM)."""
        self.stop_requested = True
        self._queue.put(_STOP)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def heartbeat(self, seconds: float, beat: Callable[[], None]) -> None:
        """Call ``beat()`` on the game thread once the prop is ready (after the first frames and
        the "ready" line), then every ``seconds`` for as long as the game loop comes round: a
        thread stuck in a display write or a deadlock stops its beats (the service manager's
        watchdog, :mod:`firmware.system.sdnotify`). The loop wakes for a beat when nothing else wakes it,
        once per ``seconds``. Set before :meth:`start`."""
        self._beat = beat
        self._beat_every = seconds

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
        """Block until the game thread has run the steps due by the daemon's clock and handled what
        is queued, without waiting for a deal to end (tools and tests that move their own clock)."""
        self.call(lambda: None, during_round=True).result(timeout)

    # -- the loop (game thread) ---------------------------------------------------------------------
    def run(self) -> None:
        """Start the game, then run what is queued and what falls due, in order, until :meth:`stop`."""
        self._begin()
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

    @property
    def dealing(self) -> bool:
        """True from a deal's gesture until its round is finished."""
        return self._round is not None

    @property
    def result_due(self) -> float | None:
        """When (on the daemon's clock) the round being dealt pays its result (and switches the
        outputs it names); None outside a deal. What the benchmark times an output against."""
        waiting = self._round
        return None if waiting is None else waiting.result_at

    # -- modes (game thread) ------------------------------------------------------------------------
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
        self._show_game()  # the mode's last events are handed over before its caller hears back
        mode.end(False)
        waiting, self._mode_waiting = self._mode_waiting, []
        for item in waiting:
            self._dispatch(item)

    # -- the game thread -------------------------------------------------------------------------
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
            self._take(item)

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

    def _round_over(self, waiting: RoundShow) -> None:
        """A round is finished (its presentation says): the solved counts that came during it, then
        the clearing (and a new deck), then the calls that waited."""
        for item in waiting.solved_counts:
            self._apply_solved(item)
        self._finish_round()
        for call in waiting.deferred:
            self._dispatch(call)

    def _wait(self, wait: float | None, real_due: float) -> float | None:
        """``wait`` (seconds, None: for ever), or less: the watchdog's beat, a mode (the self-test) and
        ``real_due`` run on real time (``time.monotonic``), whatever the daemon's clock reads."""
        real = min(self._beat_due, self._mode.due if self._mode is not None else float("inf"), real_due)
        if real != float("inf"):
            beat = max(0.0, real - time.monotonic())
            wait = beat if wait is None else min(wait, beat)
        return wait

    def _heartbeat(self) -> None:
        if self._beat is None:
            return
        self._beat_due = time.monotonic() + self._beat_every
        try:
            self._beat()
        except Exception:
            log.exception("heartbeat %r failed", self._beat)

    def _end(self, waiting: RoundShow | None) -> None:
        """The game thread stops: the calls that waited for the round ``waiting`` or for a mode (the
        self-test), or came after the stop, fail now rather than leave their callers waiting."""
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
        for item in left:
            if isinstance(item, _Call | _SolvedCount):
                _fail_stopped(item.future)

    # -- what the daemon adds ------------------------------------------------------------------------
    def _begin(self) -> None:
        """The game's start: its first events and frames, the inputs armed ("ready")."""
        raise NotImplementedError

    def _timeout(self) -> float | None:
        """Seconds until something falls due (None: nothing does)."""
        return None

    def _keep_time(self) -> None:
        """The countdown to the clock's reading."""

    def _run_due_steps(self) -> None:
        """Run what fell due: a deal's steps, identify's end."""

    def _expire_outputs(self) -> None:
        """Record the pulses and cut-offs that ran out."""

    def _shutdown(self) -> None:
        """The game thread stops (:meth:`_end` answers what waits)."""

    @property
    def _round(self) -> RoundShow | None:
        """The round being shown: calls wait for its end (unless ``during_round``)."""
        return None

    def _take(self, action: Input) -> None:
        """A player's input, while no mode has the prop."""
        raise NotImplementedError

    def _apply_solved(self, item: _SolvedCount) -> None:
        """A solved count, while no round is being shown."""
        raise NotImplementedError

    def _finish_round(self) -> None:
        """The end of a round's pause: its clearing (and a new deck)."""

    def _draw(self) -> None:
        """Put what is shown now on the displays."""

    def _settled(self) -> None:
        """Hand what was shown to the services (the ``on_settled`` hooks)."""

    def _show_game(self) -> None:
        """A mode ended: show the game again, and hand the mode's last events over."""


def _logged(run: Callable[[], None]) -> None:
    """The game thread: ``run``, with one line when it ends by anything but a stop."""
    try:
        run()
    except BaseException as error:  # noqa: BLE001 - said, then the thread ends (run_forever exits 1)
        log.critical("the game thread ended: %s: %s", type(error).__name__, error, exc_info=error)


def _fail_stopped(future: Future[Any]) -> None:
    if not future.done() and future.set_running_or_notify_cancel():
        future.set_exception(PropError("the prop stopped before the command ran"))
