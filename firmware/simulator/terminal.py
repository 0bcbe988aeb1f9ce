"""The simulator in a plain terminal (works in tmux over SSH): keys read raw from stdin, and
either the displays drawn in braille (2x4 pixels a character) beside the lights and the log,
or the text view (:mod:`.textview`) when the terminal is too small for braille, is not UTF-8,
or ``--view text`` asks for it. The screen follows the terminal's size as it changes."""

from __future__ import annotations

import logging
import os
import select
import sys
import termios
import threading
import tty
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from baccarat_core.records import record
from firmware.game.daemon import Daemon

from ..devices.wiring import ROLES
from .braille import braille_lines
from .compose import LightStates, light_states
from .keys import KEY_MAP_LINES, action_for, press_length
from .pins import PinDriver
from .screenlog import RecentLog
from .textview import MIN_SIZE, Snapshot, take_snapshot, terminal_is_utf8, text_lines, too_small_lines

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

#: Log lines the braille view shows at least.
BRAILLE_LOG_LINES = 3


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


def _width(lines: Sequence[str]) -> int:
    return max((len(line) for line in lines), default=0)


def braille_size(daemon: Daemon) -> tuple[int, int]:
    """The terminal size the braille view needs: displays side by side, lights, key map, a few log lines."""
    blocks = {role: _block(daemon, role) for role in ROLES}
    table, bets = blocks["table"], blocks["bets"]
    columns = max(_width(blocks["placard"] + blocks["casing"]), _width(table) + 2 + _width(bets), _width(KEY_MAP_LINES))
    columns += 1
    rows = len(blocks["placard"]) + len(blocks["casing"]) + max(len(table), len(bets)) + 1 + len(KEY_MAP_LINES)
    rows += BRAILLE_LOG_LINES
    rows += 1 if daemon.board.outputs.names else 0  # the outputs' line
    return columns, rows


def render_screen(
    daemon: Daemon, columns: int, recent: Sequence[str], rows: int | None = None, *, strikes: int | None = None
) -> list[str]:
    """The braille view's lines: displays, lights, strikes, key map and the last log lines (as many as fit)."""
    blocks = {role: _block(daemon, role) for role in ROLES}
    lines = list(blocks["placard"]) + blocks["casing"]  # the casing display, when fitted, under the placard
    table, bets = blocks["table"], blocks["bets"]
    table_w = _width(table)
    if table_w + 2 + _width(bets) < columns:
        for number in range(max(len(table), len(bets))):
            left = table[number] if number < len(table) else ""
            right = bets[number] if number < len(bets) else ""
            lines.append(left.ljust(table_w) + "  " + right)
    else:
        lines += table + bets
    lights = light_states(daemon)
    line = f"Status light: {lights['status']:<16}  Deck light: {lights['deck']:<8}"
    lines.append(line + ("" if strikes is None else f"  Strikes: {strikes}"))
    if "outputs" in lights:
        lines.append(f"Outputs: {lights['outputs']}")
    lines += list(KEY_MAP_LINES)
    room = len(recent) if rows is None else max(0, rows - len(lines))
    lines += ["Log: " + line for line in list(recent)[-room:]] if room else []
    return [line[: columns - 1] for line in lines]


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


def _terminal_size(fd: int) -> tuple[int, int]:
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return 80, 24
    return size.columns, size.lines


@record(frozen=False, eq=False, repr=False)
class _Screen:
    """Chooses the view for the terminal's size and draws it when something changed."""

    daemon: Daemon
    recent: RecentLog
    _: KW_ONLY
    view: str
    gm: bool
    unicode: bool

    def __post_init__(self) -> None:
        self.changed = threading.Event()
        self.changed.set()
        self.last_lines: list[str] | None = None
        self.last_size: tuple[int, int] | None = None
        self.last_count = -1
        self.last_lights: LightStates | None = None
        self.snapshot: Snapshot | None = None
        self.mode = ""

    def mark(self, *_: object) -> None:
        """A daemon ``on_handled`` and ``on_frame`` hook: the game changed, draw again."""
        self.changed.set()

    def choose(self, size: tuple[int, int]) -> str:
        """``braille``, ``text`` or ``small`` for a terminal of ``size``."""
        columns, rows = size
        if self.view != "text" and self.unicode:
            need_columns, need_rows = braille_size(self.daemon)
            if columns >= need_columns and rows >= need_rows:
                return "braille"
        if columns >= MIN_SIZE[0] and rows >= MIN_SIZE[1]:
            return "text"
        return "small"

    def lines(self, size: tuple[int, int], *, fresh: bool = True) -> list[str]:
        """The lines to show now for a terminal of ``size`` (``fresh``: the game changed)."""
        columns, rows = size
        mode = self.choose(size)
        if mode != self.mode:
            if mode == "text" and self.view != "text":
                need = braille_size(self.daemon)
                why = "the terminal is not UTF-8" if not self.unicode else f"this terminal is {columns}x{rows}"
                self.recent.add(f"text view: {why}; the braille view needs {need[0]}x{need[1]} and UTF-8")
            self.mode = mode
        if mode == "small":
            return too_small_lines(columns, rows, braille_size(self.daemon))
        if fresh or self.snapshot is None:
            try:
                self.snapshot = take_snapshot(self.daemon, gm=self.gm)
            except TimeoutError:  # the game thread is busy or gone: show what was last read
                if self.snapshot is None:
                    return ["waiting for the prop..."]
        if mode == "braille":
            recent = self.recent.shown()
            if self.snapshot.hint:
                recent.append(self.snapshot.hint)
            return render_screen(self.daemon, columns, recent, rows, strikes=self.snapshot.strikes)
        return text_lines(
            self.snapshot,
            list(self.recent.lines),
            columns,
            rows,
            unicode=self.unicode,
            pinned=list(self.recent.pinned.values()),
        )

    def refresh(self, out: TextIO, fd: int) -> None:
        """Draw again if the size, the game, the lights or the log changed."""
        size = _terminal_size(fd)
        lights = light_states(self.daemon)
        changed = self.changed.is_set()
        if not changed and (size, self.recent.count, lights) == (self.last_size, self.last_count, self.last_lights):
            return
        self.changed.clear()  # a change from now on draws again on the next turn
        resized = size != self.last_size
        self.last_size, self.last_count, self.last_lights = size, self.recent.count, lights
        lines = self.lines(size, fresh=changed or resized)
        if lines == self.last_lines and not resized:
            return
        self.last_lines = lines
        # Home, each line then "erase to its end", then erase below: nothing scrolls, nothing stays behind.
        out.write(("\x1b[2J" if resized else "") + "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J")
        out.flush()


def run_terminal(
    daemon: Daemon,
    *,
    hold_seconds: float = 0.5,
    view: str = "terminal",
    gm: bool = False,
    recent: RecentLog | None = None,
) -> int:
    """Run the simulator in this terminal until ``x`` (the daemon is started and stopped here).

    ``view``: ``terminal`` (braille when the terminal is large enough and UTF-8, else the
    text view), ``text``, or ``asciiblock`` (luma.emulator's coloured blocks).
    """
    root = logging.getLogger()
    recent = recent or RecentLog()
    saved_handlers = root.handlers[:]
    for handler in saved_handlers:  # log lines would scroll the screen: they go to the view instead
        root.removeHandler(handler)
    root.addHandler(recent)
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    out = sys.stdout
    screen = _Screen(daemon, recent, view=view, gm=gm, unicode=terminal_is_utf8(out))
    daemon.on_handled.append(screen.mark)
    daemon.on_frame.append(screen.mark)
    block_device = None
    try:
        tty.setcbreak(fd)
        daemon.start()
        daemon.ready.wait(10)
        driver = PinDriver(daemon.board)
        if view == "asciiblock":
            from luma.emulator.device import asciiblock as asciiblock_device

            from .compose import compose

            first = compose(daemon)
            block_device = asciiblock_device(
                width=first.width, height=first.height, mode="RGB", transform="none", scale=1
            )
        out.write("\x1b[?1049h\x1b[?25l\x1b[2J")  # the alternate screen: the shell's text is back on quit
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
                screen.refresh(out, fd)
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
        out.write("\x1b[0m\x1b[?25h\x1b[2J\x1b[H\x1b[?1049l")
        out.flush()
        root.removeHandler(recent)
        for handler in saved_handlers:
            root.addHandler(handler)
        for hooks in (daemon.on_handled, daemon.on_frame):
            if screen.mark in hooks:
                hooks.remove(screen.mark)
        daemon.board.close()
