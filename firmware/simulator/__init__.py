"""``baccarat run --simulate``: the real daemon on mock pins, shown on a PC.

The keyboard drives gpiozero's mock pins, so every key press travels the same
path as a button on the Pi: pin edge, gpiozero callback, daemon, displays.
"""

from __future__ import annotations

import os
import sys

from ..daemon import Daemon


def run_simulator(daemon: Daemon, *, view: str = "auto", hold_seconds: float = 0.5) -> int:
    """Show the running prop on this PC (a window, or the terminal) until the user quits."""
    if view == "auto":
        has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        view = "window" if has_display else "terminal"
    if view == "window":
        from .window import run_window

        return run_window(daemon, hold_seconds=hold_seconds)
    if not sys.stdin.isatty():
        print("baccarat run --simulate: error: the terminal view needs a terminal on stdin", file=sys.stderr)
        daemon.stop()
        return 2
    from .terminal import run_terminal

    return run_terminal(daemon, hold_seconds=hold_seconds, asciiblock=(view == "asciiblock"))
