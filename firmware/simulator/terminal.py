"""The simulator in a plain terminal (works in tmux over SSH): displays drawn in
braille, the lights and the last log lines as text, keys read raw from stdin."""

from __future__ import annotations

import collections
import logging
import os
import select
import shutil
import sys
import termios
import tty

from ..daemon import Daemon
from .braille import braille_lines
from .compose import light_states
from .keys import KEY_MAP_LINES, action_for, press_length
from .pins import PinDriver

ROLES = ("placard", "table", "bets")


class _RecentLog(logging.Handler):
    """Keeps the last few log lines to show under the displays."""

    def __init__(self, size: int = 5) -> None:
        super().__init__(logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=size)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage()[:160])
        self.count += 1


def _block(daemon: Daemon, role: str) -> list[str]:
    screen = daemon.screens.get(role)
    if screen is None:
        return []
    title = f"{role.upper()} ({screen.spec.driver} {screen.spec.width}x{screen.spec.height})"
    if screen.last_frame is None:
        return [title, f"[{role} display missing]"]
    body = braille_lines(screen.last_frame)
    width = len(body[0])
    return (
        [title.ljust(width + 2)]
        + ["\u2502" + line + "\u2502" for line in body]
        + ["\u2514" + "\u2500" * width + "\u2518"]
    )


def render_screen(daemon: Daemon, columns: int, recent: list[str]) -> list[str]:
    """The terminal's lines: displays, lights, key map and recent log lines."""
    blocks = {role: _block(daemon, role) for role in ROLES}
    lines = list(blocks["placard"])
    table, bets = blocks["table"], blocks["bets"]
    table_w = max((len(x) for x in table), default=0)
    if table_w + 2 + max((len(x) for x in bets), default=0) <= columns:
        for number in range(max(len(table), len(bets))):
            left = table[number] if number < len(table) else ""
            right = bets[number] if number < len(bets) else ""
            lines.append(left.ljust(table_w) + "  " + right)
    else:
        lines += table + bets
    lights = light_states(daemon)
    lines.append(f"Status light: {lights['status']:<16}  Deck light: {lights['deck']}")
    lines += list(KEY_MAP_LINES)
    lines += ["Log: " + line for line in recent]
    return [line[:columns] for line in lines]


def _read_keys(fd: int) -> list[str]:
    data = os.read(fd, 64).decode("utf-8", "replace")
    keys, i = [], 0
    while i < len(data):
        if data.startswith("\x1b[D", i):
            keys.append("left")
            i += 3
        elif data.startswith("\x1b[C", i):
            keys.append("right")
            i += 3
        elif data.startswith("\x1b[", i) and i + 2 < len(data):
            i += 3  # another arrow or function key: ignore
        else:
            keys.append(data[i])
            i += 1
    return keys


def run_terminal(daemon: Daemon, *, hold_seconds: float = 0.5, asciiblock: bool = False) -> int:
    """Run the simulator in this terminal until ``x`` (the daemon is started and stopped here)."""
    root = logging.getLogger()
    recent = _RecentLog()
    saved_handlers = root.handlers[:]
    for handler in saved_handlers:
        root.removeHandler(handler)
    root.addHandler(recent)
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    out = sys.stdout
    block_device = None
    try:
        tty.setcbreak(fd)
        daemon.start()
        daemon.ready.wait(10)
        driver = PinDriver(daemon.board)
        if asciiblock:
            from luma.emulator.device import asciiblock as asciiblock_device

            from .compose import compose

            first = compose(daemon)
            block_device = asciiblock_device(
                width=first.width, height=first.height, mode="RGB", transform="none", scale=1
            )
        out.write("\x1b[?25l\x1b[2J")
        last = None
        while True:
            if block_device is not None:
                from .compose import compose

                picture = compose(daemon)
                signature = picture.tobytes()
                if signature != last:
                    block_device.display(picture)
                    last = signature
            else:
                columns = shutil.get_terminal_size((132, 40)).columns
                lines = render_screen(daemon, columns, list(recent.lines))
                if lines != last:
                    out.write("\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[K\x1b[J")
                    out.flush()
                    last = lines
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            for key in _read_keys(fd):
                action = action_for(key)
                if action is None:
                    continue
                if action.kind == "quit":
                    return 0
                driver.tap_in_background(action.input, press_length(action, hold_seconds))
    finally:
        daemon.stop()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        out.write("\x1b[0m\x1b[?25h\x1b[2J\x1b[H")
        out.flush()
        root.removeHandler(recent)
        for handler in saved_handlers:
            root.addHandler(handler)
        daemon.board.close()
