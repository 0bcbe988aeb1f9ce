"""Assembly: config -> devices -> daemon -> room services, and running until SIGTERM.

The only module that reads the config *and* builds things from it: the
devices get plain wiring values, the daemon gets a module, a board and
screens, the state keeper saves the game, and the room services (each a plugin:
:mod:`firmware.services`) attach to the daemon's hooks and send it commands.
"""

from __future__ import annotations

import gc
import logging
import os
import random
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import FrameType
from typing import TYPE_CHECKING

from gpiozero import Device
from gpiozero.pins import Factory

from baccarat_core import BaccaratModule
from firmware.game.daemon import Daemon
from firmware.system import sdnotify, storage

from .config import Config
from .devices.board import PropBoard, named_pin_factory
from .devices.buttons import Clock
from .devices.displays import DeviceFactory, Screen, open_luma_device
from .errors import PropError
from .i18n import SOURCE, translations
from .room import saved_state
from .room.commands import GameMaster

if TYPE_CHECKING:
    from baccarat_core.events import Event

    from .plugin import Prop, Service
    from .web.backend import PinDriver

log = logging.getLogger("baccarat")


#: A log line as the journal receives it (the journal adds its own time stamps).
JOURNAL_FORMAT = "%(levelname)s %(name)s: %(message)s"


def setup_logging(level: str = "INFO") -> None:
    """Log lines to stderr; under systemd the journal adds its own time stamps."""
    under_journal = bool(os.environ.get("JOURNAL_STREAM"))
    fmt = JOURNAL_FORMAT if under_journal else f"%(asctime)s {JOURNAL_FORMAT}"
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO), format=fmt, stream=sys.stderr)


def mock_pin_factory() -> Factory:
    """gpiozero's mock pins, with PWM so that the deck light can show silver."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def build_board(config: Config, *, pin_factory: Factory | None = None, clock: Clock = time.monotonic) -> PropBoard:
    """The board the config wires (``pin_factory=None``: the one ``GPIOZERO_PIN_FACTORY`` names, else
    gpiozero chooses)."""
    if pin_factory is None and Device.pin_factory is None:
        Device.pin_factory = named_pin_factory()  # None: gpiozero chooses at the first device
    timing = config.timing
    return PropBoard(
        config.inputs,
        config.status_light,
        config.deck_light,
        config.outputs,
        hold_seconds=timing.hold_seconds,
        debounce_seconds=timing.debounce_seconds,
        flash_seconds=timing.strike_flash_seconds,
        pin_factory=pin_factory,
        clock=clock,
    )


def build_daemon(
    config: Config,
    *,
    pin_factory: Factory | None = None,
    device_factory: DeviceFactory = open_luma_device,
    rng: random.Random | None = None,
    module: BaccaratModule | None = None,
    restore: Callable[[], BaccaratModule | saved_state.SavedGame | None] | None = None,
    held_outputs: Mapping[str, float | None] | None = None,
    clock: Clock = time.monotonic,
    schedule_clock: Clock = time.monotonic,
) -> Daemon:
    """A daemon wired to the board and displays the config describes.

    ``pin_factory=None`` lets gpiozero choose (``GPIOZERO_PIN_FACTORY``, else
    lgpio, RPi.GPIO, ...); tests and the simulator pass a ``MockFactory``.
    ``module`` is a restored game, or ``restore`` returns one (or None) once the board and the
    displays are open, so that a start refused there says nothing about the game; without
    either a fresh one starts. ``held_outputs`` (or a :class:`~.room.saved_state.SavedGame` from
    ``restore``) are the outputs held on before a restart, switched on again at the start.
    either a fresh one starts. ``clock`` is what the debounce filters and the hold timer read
    (tests drive bounce and holds with their own); ``schedule_clock`` what the daemon's schedule
    and the bomb's countdown read (a deal's steps, the timer: tests and the benchmark step
    through a deal or a countdown with their own).
    """
    rng = rng if rng is not None else random.Random()
    board = build_board(config, pin_factory=pin_factory, clock=clock)
    screens: dict[str, Screen] = {}
    try:
        for spec in config.displays:
            screens[spec.role] = Screen.open(spec, device_factory)
        if module is None and restore is not None:
            restored = restore()
            if isinstance(restored, saved_state.SavedGame):
                module, held_outputs = restored.module, restored.outputs
            else:
                module = restored
    except BaseException:  # DisplayRefused (settings luma refuses), or stopped during the start
        board.close()
        for screen in screens.values():
            screen.close()
        raise
    if module is None:
        module = BaccaratModule(
            config.edgework,
            config.limits,
            rng=rng,
            first_color=config.first_color,
            bombs=config.bombs,
            rules=config.bomb,
        )
    daemon = Daemon(
        module,
        board,
        screens,
        pacing=config.timing.pacing,
        card_seconds=config.timing.card_seconds,
        result_seconds=config.timing.result_seconds,
        held_outputs=held_outputs,
        clock=schedule_clock,
    )
    daemon.set_display_words(translations(config.display_language or SOURCE))  # [display] language
    return daemon


def restore_module(config: Config, rng: random.Random) -> BaccaratModule | None:
    """The module saved before a restart, or None for a fresh game (the log says why)."""
    return saved_state.restore(config, rng)


def restore_game(config: Config, rng: random.Random) -> saved_state.SavedGame | None:
    """The game saved before a restart (the module and the outputs held on), or None (the log says why)."""
    return saved_state.restore_game(config, rng)


class Attached(list[Callable[[], None]]):
    """The stop functions of what :func:`attach_services` started, last first; ``prop`` is what the
    services were given (its ``commands``: the one command path; ``running``: each one's value)."""

    prop: Prop


def attach_services(
    daemon: Daemon,
    config: Config,
    *,
    simulate: bool = False,
    pin_driver: PinDriver | None = None,
    pin_factory: Factory | None = None,
) -> Attached:
    """Start the state keeper and every room service the config turns on; returns their stop
    functions, last first (:class:`Attached`).

    Call before the daemon's game thread starts, so that the hooks see the first events. The
    services are found through their entry points (:mod:`firmware.services.registry`), each
    started with a :class:`~firmware.plugin.Prop` (``simulate``: the simulator, where
    ``pin_driver`` gives the console its front panel; a buzzer's pin comes from ``pin_factory``).
    One that fails to start is one log line, and the prop runs on without it.
    """
    from .plugin import Prop
    from .services.registry import installed

    closers: list[Callable[[], None]] = []
    services = installed()
    commands = GameMaster(
        daemon, default_limits=config.limits, commands=[spec for service in services for spec in service.commands()]
    )
    path = saved_state.state_path(config)
    if path is not None:
        keeper = saved_state.StateKeeper(path, config, background=True, outputs=daemon.held_outputs)
        daemon.on_handled.append(keeper)
        closers.append(keeper.close)
        log.info("game state is saved to %s", path)
        storage.warn_if_volatile(path)  # tmpfs, or Raspberry Pi OS's overlay file system: lost at a power cut
    prop = Prop(daemon, commands, config, simulate=simulate, pin_factory=pin_factory, pin_driver=pin_driver)
    try:
        for service in services.ordered():
            if service.name in config.settings:
                _start(service, prop, config.settings[service.name], closers)
    except BaseException:  # a refusal (another daemon holds the socket), or stopped during the start
        for close in reversed(closers):
            close()
        raise
    attached = Attached(reversed(closers))
    attached.prop = prop
    return attached


#: How long a third party's start (and its stop) may take before the prop goes on without it.
PLUGIN_START_SECONDS = 10.0


def _start(service: Service, prop: Prop, settings: object, closers: list[Callable[[], None]]) -> None:
    """Start one service: a :class:`~firmware.errors.PropError` refuses to run the prop at all (it
    says why, as ``run`` reports it); any other exception costs this service only, in one log line.

    A third party's service (one installed from another distribution than the prop's) starts on a
    thread of its own with a :class:`~firmware.plugin.Prop` whose daemon queues its hooks to a
    thread of the plugin's (:mod:`firmware.plugin.hooks`): a plugin that blocks or raises anything,
    at start, in a hook or at its stop, costs itself, never the game."""
    if not type(service).__module__.startswith("firmware.services."):
        _start_third(service, prop, settings, closers)
        return
    try:
        running = service.start(prop, settings)
    except PropError:
        raise
    except Exception as error:  # noqa: BLE001 - one service's fault costs that service only
        log.error(
            "service %s did not start (%s: %s); the prop runs without it", service.name, type(error).__name__, error
        )
        log.debug("service %s did not start", service.name, exc_info=True)
        return
    if running is not None:
        prop.running[service.name] = running.value
        closers.append(running.stop)


def _start_third(service: Service, prop: Prop, settings: object, closers: list[Callable[[], None]]) -> None:
    """A third party's start (see :func:`_start`)."""
    import copy

    from .plugin.hooks import DaemonView, HookRunner, run_bounded

    runner = HookRunner(service.name, logging.getLogger(f"baccarat.plugin.{service.name}"))
    own = copy.copy(prop)  # the same commands, config and neighbours (``running`` is one dict)
    own.daemon = DaemonView(prop.daemon, runner)  # type: ignore[assignment]
    prop.plugins[service.name] = runner
    state, result = run_bounded(service.name, lambda: service.start(own, settings), PLUGIN_START_SECONDS)
    if state != "ok":
        why = (
            f"its start has not finished after {PLUGIN_START_SECONDS:.0f} s"
            if state == "timeout"
            else f"{type(result).__name__}: {result}"
        )
        runner.disable(why, say=False)
        log.error("service %s did not start (%s); the prop runs without it", service.name, why)
        return

    def stop() -> None:
        runner.close()
        if not runner.drain(PLUGIN_START_SECONDS):  # its last events reach it before its own stop
            log.error(
                "service %s: its hooks had not caught up after %.0f s; stopping it", service.name, PLUGIN_START_SECONDS
            )
        if result is not None:
            state, error = run_bounded(service.name, result.stop, PLUGIN_START_SECONDS)
            if state != "ok":
                why = "it has not finished" if state == "timeout" else f"{type(error).__name__}: {error}"
                log.error("service %s did not stop cleanly (%s)", service.name, why)

    if result is not None:
        prop.running[service.name] = result.value
    closers.append(stop)


def resume_collection(events: list[Event], module: BaccaratModule) -> None:
    """An ``on_settled`` hook for a process that turned Python's cyclic garbage collector off for
    its start-up (``baccarat run``): at the first settled call, right after "ready", freeze
    what start-up made (``gc.freeze``: later collections never scan it again) and turn the
    collector back on. Later calls do nothing.

    Start-up allocates thousands of long-lived objects; with the collector on, it scans them
    again and again while they are made (about 7 ms of a 107 ms start here, more on a Pi).
    """
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def close_daemon(daemon: Daemon) -> None:
    """Release the pins and the displays' buses (after the game thread stopped)."""
    daemon.board.close()
    for screen in daemon.screens.values():
        screen.close()


def run_forever(daemon: Daemon, closers: list[Callable[[], None]] | None = None) -> int:
    """Run until SIGTERM or SIGINT; lights and displays end off. Returns the exit status."""
    notifier = sdnotify.attach(daemon)  # READY, the watchdog's pings and STOPPING under systemd

    def stop(signum: int, frame: FrameType | None) -> None:
        # The handler runs on this thread, which may be inside the game queue's lock:
        # hand the stop to another thread instead of taking that lock here.
        log.info("signal %s received", signal.Signals(signum).name)
        if notifier is not None:
            notifier.stopping()
        threading.Thread(target=daemon.stop, name="baccarat-stop", daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The game runs on its own thread; this one sleeps until a signal or the game's end.
    # CPython runs a handler only when the main thread's wait returns: a signal that lands
    # just before a wait without timeout was never handled, and the prop hung until SIGKILL
    # with its lights on (tests/test_faults_sigterm.py caught it 1-2 times in 7). A wait
    # with a timeout fixed that at the cost of waking twice a second; instead, the signal's
    # C handler writes a byte to a pipe (``signal.set_wakeup_fd``) that this thread sleeps
    # on, so a signal always wakes it, however late it lands.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    previous = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)

    def game_ended() -> None:
        daemon.wait_stopped()
        try:
            os.write(wake_w, b"\0")
        except OSError:  # the pipe is closed: run_forever already returned
            pass

    waiter = threading.Thread(target=game_ended, name="baccarat-wait", daemon=True)
    try:
        daemon.start()
        waiter.start()
        while daemon.running():
            select.select([wake_r], [], [])
            os.read(wake_r, 512)
    finally:
        signal.set_wakeup_fd(previous)
        if waiter.is_alive():
            waiter.join(1.0)  # the game has ended: its byte is written before the pipe closes
        os.close(wake_r)
        os.close(wake_w)
    for close in closers or []:
        close()
    close_daemon(daemon)
    if notifier is not None:
        notifier.close()
    if not daemon.stop_requested:  # no signal, no quit: the service manager restarts the prop
        log.error("the game stopped without being asked to; exit status 1")
        return 1
    return 0
