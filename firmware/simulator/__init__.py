"""``baccarat run --simulate``: the real daemon on mock pins, shown on a PC.

The keyboard drives gpiozero's mock pins, so every key press travels the same
path as a button on the Pi: pin edge, gpiozero callback, daemon, displays.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the key map (keys.py) is read by `baccarat --help`: keep this package light to import
    from collections.abc import Callable

    from ..daemon import Daemon
    from .screenlog import RecentLog

# pygame prints a banner when imported (the window, and luma.emulator's asciiblock device).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

#: The simulator's views (``--view``).
VIEWS: tuple[str, ...] = ("auto", "window", "terminal", "text", "asciiblock")


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
        view = "window" if has_display else "terminal"
    if view != "window" and not sys.stdin.isatty():
        print("baccarat run --simulate: error: the terminal views need a terminal on stdin", file=sys.stderr)
        daemon.stop()
        return 2
    from .screenlog import RecentLog, hide_secrets

    undo: Callable[[], None] = (lambda: None) if gm else hide_secrets(daemon)
    recent = recent if recent is not None else RecentLog()
    root = logging.getLogger()
    try:
        if view == "window":
            from .window import run_window

            root.addHandler(recent)
            try:
                return run_window(daemon, hold_seconds=hold_seconds, scale=scale, recent=recent)
            finally:
                root.removeHandler(recent)
        from .terminal import run_terminal

        return run_terminal(daemon, hold_seconds=hold_seconds, view=view, gm=gm, recent=recent)
    finally:
        undo()
