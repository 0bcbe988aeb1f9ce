"""Assembling the prop from a config: pin factory, board, displays, daemon."""

from __future__ import annotations

import logging
import os
import random
import signal
import sys
import threading
from collections.abc import Callable

from baccarat_core import BaccaratModule

from .board import PropBoard
from .config import Config
from .daemon import Daemon
from .displays import DeviceFactory, open_luma_device

log = logging.getLogger("baccarat")


def setup_logging(level: str = "INFO") -> None:
    """Log lines to stderr; under systemd the journal adds its own time stamps."""
    under_journal = bool(os.environ.get("JOURNAL_STREAM"))
    fmt = "%(levelname)s %(name)s: %(message)s" if under_journal else \
        "%(asctime)s %(levelname)s %(name)s: %(message)s"
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO), format=fmt, stream=sys.stderr)


def mock_pin_factory():
    """gpiozero's mock pins, with PWM so that the deck light can show silver."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def build_daemon(
    config: Config,
    *,
    pin_factory=None,
    device_factory: DeviceFactory = open_luma_device,
    rng: random.Random | None = None,
    module: BaccaratModule | None = None,
    extras: Callable[[Daemon], None] | None = None,
) -> Daemon:
    """A daemon wired to the board and displays the config describes.

    ``pin_factory=None`` lets gpiozero choose (``GPIOZERO_PIN_FACTORY``, else
    lgpio, RPi.GPIO, ...); tests and the simulator pass a ``MockFactory``.
    """
    rng = rng if rng is not None else random.Random()
    board = PropBoard(config, pin_factory=pin_factory)
    try:
        daemon = Daemon(config, board, device_factory=device_factory, rng=rng, module=module)
        if extras is not None:
            extras(daemon)
    except BaseException:
        board.close()
        raise
    return daemon


def run_forever(daemon: Daemon, closers: list[Callable[[], None]] | None = None) -> int:
    """Run on this thread until SIGTERM or SIGINT; lights and displays end off."""
    def stop(signum, frame) -> None:
        # The handler runs on this thread, which may be inside the game queue's lock:
        # hand the stop to another thread instead of taking that lock here.
        log.info("signal %s received", signal.Signals(signum).name)
        threading.Thread(target=daemon.stop, name="baccarat-stop", daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The game runs on its own thread; this one only waits, with a timeout. CPython runs a
    # handler when the main thread's wait returns: a signal that lands just before a wait
    # without timeout (the game queue's get) was never handled, and the prop hung until
    # SIGKILL with its lights on (tests/test_faults_sigterm.py caught it 1-2 times in 7).
    daemon.start()
    while daemon.running():
        daemon.wait_stopped(0.5)
    for close in closers or []:
        close()
    daemon.board.close()
    for screen in daemon.screens.values():
        screen.close()
    return 0

