"""``baccarat run --simulate``: the real daemon on mock pins, shown on a PC.

The keyboard drives gpiozero's mock pins, so every key press travels the same
path as a button on the Pi: pin edge, gpiozero callback, daemon, displays.

The ``headless`` view shows nothing and reads no keyboard (a service manager, a container, a
pipe): the console and the players' pages are the way to look and play. In every view SIGTERM
(and SIGHUP, a terminal closing) is a clean stop, as on the Pi: the services say goodbye (the MQTT
state with the outputs off, ``offline``), the outputs end off, exit status 0.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the key map (keys.py) is read by `baccarat --help`: keep this package light to import
    from collections.abc import Callable

    from firmware.game.daemon import Daemon

    from .screenlog import RecentLog

# pygame prints a banner when imported (the window, and luma.emulator's asciiblock device).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

#: The simulator's views (``--view``).
VIEWS: tuple[str, ...] = ("auto", "window", "terminal", "text", "asciiblock", "headless")
#: The signals that stop a simulator cleanly (SIGINT stays the terminal's own: a KeyboardInterrupt).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

log = logging.getLogger("baccarat")


class Stopped(Exception):
    """A stop signal arrived: the view unwinds (its ``finally`` stops the daemon), the run returns 0."""


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP raise :class:`Stopped` on the main thread (once: a second
    one while it unwinds is ignored); the previous handlers are back after it."""

    def stop(signum: int, frame: FrameType | None) -> None:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        log.info("signal %s received", signal.Signals(signum).name)
        raise Stopped

    previous = {number: signal.signal(number, stop) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def run_simulator(
    daemon: Daemon,
    *,
    view: str = "auto",
    hold_seconds: float = 0.5,
    scale: int | None = None,
    gm: bool = False,
    recent: RecentLog | None = None,
) -> int:
    """Show the running prop on this PC (a window, or the terminal) until the user quits.

    ``gm``: show the game master's details (the deck's derivation, the next round) on screen;
    without it the players' screen and log lines keep them hidden. ``recent``: a log handler
    attached before the services started, so the screen shows what they said at start (the
    console's address, a port already taken).
    """
    if view == "auto":
        has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        view = "window" if has_display else "terminal" if sys.stdin.isatty() else "headless"
        if view == "headless":
            log.info("no display server and no terminal: the headless view (the console shows the prop)")
    if view not in ("window", "headless") and not sys.stdin.isatty():
        print(
            "baccarat run --simulate: error: the terminal views need a terminal on stdin "
            "(--view headless runs without one)",
            file=sys.stderr,
        )
        daemon.stop()
        return 2
    from .screenlog import RecentLog, hide_secrets

    undo: Callable[[], None] = (lambda: None) if gm else hide_secrets(daemon)
    recent = recent if recent is not None else RecentLog()
    try:
        if view == "headless":
            from ..app import run_forever  # SIGTERM and SIGINT stop it cleanly; READY under systemd

            return run_forever(daemon)
        with stop_on_signals():
            return _run_view(daemon, view, hold_seconds=hold_seconds, scale=scale, gm=gm, recent=recent)
    except Stopped:
        return 0
    finally:
        undo()


def _run_view(daemon: Daemon, view: str, *, hold_seconds: float, scale: int | None, gm: bool, recent: RecentLog) -> int:
    """The window or a terminal view, until the user quits."""
    root = logging.getLogger()
    if view == "window":
        from .window import run_window

        root.addHandler(recent)
        try:
            return run_window(daemon, hold_seconds=hold_seconds, scale=scale, recent=recent)
        finally:
            root.removeHandler(recent)
    from .terminal import run_terminal

    return run_terminal(daemon, hold_seconds=hold_seconds, view=view, gm=gm, recent=recent)
