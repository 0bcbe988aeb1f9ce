"""Where the lines go: the history file (append-only, bounded, rotated at a game's start), or memory.

The file, ``history.jsonl`` beside the state file, only ever grows by whole lines appended in one
``write()`` and made durable with ``fdatasync`` on a thread of its own (the game never waits for
the SD card). Bounds: when a game starts and the file holds :data:`ROTATE_BYTES` or more, it is
renamed to ``history.1.jsonl`` (replacing the one before: those games are dropped) and the new
game begins a new file. A game's lines are thus always in one file, the rename is atomic, and the
game being played is never in the part dropped. The two files hold at most about
2 x :data:`ROTATE_BYTES` (a game records at most 300 rounds line by line, about 180 KiB).

A line cut short (a power cut, or a ``kill -9`` in the middle of a ``write()``: the kernel may stop
a large write at a page boundary) is found at the first write after the start and cut off the
file, with one log line; a reader meanwhile skips it like any damaged line
(:mod:`.lines`).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from baccarat_core import BaccaratError, strict
from baccarat_core.numbers import show_value

from ..room.state_file import read_state
from .lines import MAX_LINE_BYTES, Problem, parse_line
from .totals import carried

log = logging.getLogger("baccarat.history")

#: When a game starts in a file this large, the file is moved aside (``history.1.jsonl``).
ROTATE_BYTES = 512 * 1024
#: Largest history file read (a bigger one is refused whole, with one line saying so).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Games kept when saving is off (the simulator): in memory, for this run only.
MEMORY_GAMES = 50

#: A checked line, the file it came from and its line number.
Located = tuple[dict[str, Any], str, int]


def history_path(state_file: Path) -> Path:
    """``history.jsonl`` beside ``state.json``; beside any other state file ``X.json``,
    ``X.history.jsonl`` (two props sharing a directory keep two histories)."""
    name = "history.jsonl" if state_file.stem == "state" else f"{state_file.stem}.history.jsonl"
    return state_file.with_name(name)


def older_path(path: Path) -> Path:
    """``history.1.jsonl``: where :data:`ROTATE_BYTES` of older games go."""
    return path.with_name(path.name.removesuffix(".jsonl") + ".1.jsonl")


class Store(Protocol):
    """Where the keeper's lines go, and where the readers find them."""

    where: str

    def hand(
        self, lines: list[dict[str, Any]], texts: list[str], *, new_game: bool = False, write: bool = True
    ) -> None:
        """Keep these lines (their JSON ``texts``): ``new_game`` when they begin a game; ``write``
        now, or wait in memory for the next lines that are written (readers see them meanwhile)."""

    def read(self) -> tuple[list[Located], list[Problem]]:
        """Every line kept, oldest first, and the lines skipped."""

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every line handed over is kept; False if ``timeout`` ran out."""

    def close(self) -> None:
        """Keep what is pending and stop."""

    def last_game(self) -> list[dict[str, Any]]:
        """The last game kept as a start needs it, oldest first: its end line alone if it ended, its
        stop line alone after a clean stop, else every line of it (see :mod:`.keeper`)."""


def read_lines(path: Path, where: str | None = None) -> tuple[list[Located], list[Problem]]:
    """The checked lines of one history file and the skipped ones; a missing file has none.

    Raises OSError or BaccaratError when the file cannot be read at all (a FIFO, a device, a
    symlink out of its directory, over :data:`MAX_FILE_BYTES`, unreadable).
    """
    where = where or path.name
    try:
        data = read_state(path, max_bytes=MAX_FILE_BYTES)
    except FileNotFoundError:
        return [], []
    lines: list[Located] = []
    problems: list[Problem] = []
    raw = data.split(b"\n")
    for number, line in enumerate(raw, 1):
        if not line.strip():
            continue
        try:
            lines.append((parse_line(line), where, number))
        except BaccaratError as error:
            if number == len(raw):  # no newline after it: a write that was cut short
                problems.append(Problem(where, number, f"cut short ({len(line)} bytes without their newline)"))
            else:
                problems.append(Problem(where, number, str(error)))
    return lines, problems


def read_files(path: Path) -> tuple[list[Located], list[Problem]]:
    """Both files of a history, the older first. A file that cannot be read at all (see
    :func:`read_lines`) is one problem with line number 0, and the other is still read."""
    lines: list[Located] = []
    problems: list[Problem] = []
    for each in (older_path(path), path):
        try:
            found, skipped = read_lines(each, str(each))
        except (OSError, BaccaratError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            problems.append(Problem(str(each), 0, f"the file cannot be read: {reason}"))
            continue
        lines += found
        problems += skipped
    return lines, problems


class FileStore:
    """The history file: lines handed over are appended by a writer thread (see the module)."""

    def __init__(self, path: Path, *, rotate_bytes: int = ROTATE_BYTES) -> None:
        self.path = path
        self.where = str(path)
        self.rotate_bytes = rotate_bytes
        self._file_lock = threading.Lock()  # the files: a write, a rotation or a read at a time
        self._cond = threading.Condition()  # the queue and its counters
        self._queue: list[tuple[str, bool]] = []  # handed over, not yet written: (text, begins a game)
        self._handed = 0  # items ever queued
        self._written = 0  # of those, written (or failed)
        self._due = 0  # the writer writes until this many items are written
        self._closing = False
        self._thread: threading.Thread | None = None
        self._tail_checked = False
        self._failing = False

    # -- the game thread hands over -----------------------------------------------------
    def hand(
        self, lines: list[dict[str, Any]], texts: list[str], *, new_game: bool = False, write: bool = True
    ) -> None:
        """Queue the lines; with ``write`` the writer thread appends everything queued, else they
        wait for the next lines that are written."""
        with self._cond:
            if texts:
                self._queue.append(("".join(text + "\n" for text in texts), new_game))
                self._handed += 1
        if write:
            self._request()

    def _request(self) -> None:
        with self._cond:
            self._due = self._handed
            self._cond.notify_all()
            start = self._thread is None and self._written < self._due
            if start:
                self._thread = threading.Thread(target=self._run, name="baccarat-history", daemon=True)
        if start and self._thread is not None:
            self._thread.start()

    def flush(self, timeout: float = 5.0) -> bool:
        """Write every line handed over so far, and wait for it; False if ``timeout`` ran out."""
        with self._cond:
            target = self._handed
        self._request()
        with self._cond:
            return self._cond.wait_for(lambda: self._written >= target, timeout)

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until every write asked for so far is done; lines waiting for a later write stay
        waiting (tests, tools). False if ``timeout`` ran out."""
        with self._cond:
            return self._cond.wait_for(lambda: self._written >= self._due, timeout)

    def close(self) -> None:
        """Write what is queued and stop the writer thread."""
        self._request()
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._written < self._due or self._closing)
                if self._written >= self._due:  # closing, and everything asked for is written
                    return
                batch = list(self._queue)
            with self._file_lock:
                self._write(batch)
                with self._cond:  # under the file lock: a reader sees each line in the file or the queue
                    del self._queue[: len(batch)]
                    self._written += len(batch)
                    self._cond.notify_all()

    # -- writing (the writer thread, under the file lock) ---------------------------------------
    def _write(self, batch: list[tuple[str, bool]]) -> None:
        """Append the batch: a game that begins in a full file begins the next file."""
        try:
            parts: list[str] = []
            for text, new_game in batch:
                if new_game and self._size() + sum(len(p) for p in parts) >= self.rotate_bytes:
                    self._append("".join(parts))
                    parts = []
                    self._rotate()
                parts.append(text)
            self._append("".join(parts))
        except OSError as error:
            if not self._failing:
                log.error("cannot write the history to %s (%s); the game goes on", self.path, error.strerror or error)
            self._failing = True
            return
        if self._failing:
            log.info("history written to %s again", self.path)
        self._failing = False

    def _size(self) -> int:
        try:
            return self.path.lstat().st_size
        except FileNotFoundError:
            return 0

    def _rotate(self) -> None:
        older = older_path(self.path)
        os.replace(self.path, older)
        _fsync_dir(self.path.parent)
        log.info("history: %s is full; its games are now in %s, the next games in a new file", self.path, older.name)

    def _append(self, text: str) -> None:
        if not text:
            return
        data = text.encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(
            self.path,
            os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
            0o640,
        )
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "it is not a regular file")
            if created:
                os.fchmod(fd, 0o640)  # the group (baccarat) may read it: `baccarat history` as a game master
            if not self._tail_checked:
                self._tail_checked = True
                _repair_tail(fd, self.path)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fdatasync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_dir(self.path.parent)

    # -- reading (any thread) ---------------------------------------------------------------------
    def read(self) -> tuple[list[Located], list[Problem]]:
        """Both files and the lines not yet written, oldest first (see :func:`read_lines`)."""
        with self._file_lock:
            lines, problems = read_files(self.path)
            with self._cond:
                queued = [text for text, _ in self._queue]
        for text in queued:
            for raw in text.splitlines():
                lines.append((parse_line(raw.encode("utf-8")), self.path.name, 0))
        return lines, problems

    def last_game(self) -> list[dict[str, Any]]:
        """The last game's lines as a start needs them, oldest first: the end line alone of a game
        that ended, or the stop line alone (with the game's totals) of one the prop stopped in
        cleanly (the file's last line, read and checked alone: a start costs the same however long
        the game or the file); else, after a power cut, the unfinished game's lines from the last
        that carries its totals (a round's every few rounds: :mod:`.totals`), or from its start,
        to go on with it (only the end of the file is read). Empty when there is none to read."""
        with self._file_lock:
            damaged: list[str] = []
            try:
                data, whole = _tail(self.path, MAX_LINE_BYTES + 1)  # the last line, whole
            except OSError:
                return []
            ended = _ended(data, whole, damaged)
            if ended is not None:
                for reason in damaged:
                    log.warning("history file %s: a damaged line at its end skipped: %s", self.path, reason)
                return ended
            size = 64 * 1024
            while True:
                try:
                    data, whole = _tail(self.path, size)
                except OSError:
                    return []
                damaged = []
                game = _last_game(data, whole, damaged)
                if game is not None:
                    break
                size *= 4
        for reason in damaged:
            log.warning("history file %s: a damaged line of its last game skipped: %s", self.path, reason)
        return game


def _tail(path: Path, size: int) -> tuple[bytes, bool]:
    """The last ``size`` bytes of a regular file (no symlink, FIFO or device), and whether that is all of it."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        length = min(size, info.st_size, MAX_FILE_BYTES)
        return os.pread(fd, length, info.st_size - length), length == info.st_size or length == MAX_FILE_BYTES
    finally:
        os.close(fd)


def _entries_from_the_end(data: bytes, whole: bool, damaged: list[str]) -> Iterator[dict[str, Any]]:
    """The lines of ``data`` (the end of a file, or the ``whole`` file) that can be read, last first;
    ``damaged`` gets the reason of each line passed over that cannot be read."""
    raw = data.split(b"\n")
    if not whole:
        raw = raw[1:]  # the first piece may be the end of a line that began before the data
    for line in reversed(raw):  # after the last newline: a line cut short (skipped), or a whole one
        if not line.strip():
            continue
        try:
            yield parse_line(line)
        except BaccaratError as error:
            damaged.append(strict.one_line(str(error), 160))


def _ended(data: bytes, whole: bool, damaged: list[str]) -> list[dict[str, Any]] | None:
    """``[line]`` when the last line in ``data`` (the end of a file) that can be read sums its game
    up: an end line, or the stop line of a clean stop (with the game's totals); [] when ``data`` is
    the whole file and holds no line; None otherwise (a game the prop did not stop cleanly in, or no
    line that can be read in ``data``: read more). ``damaged`` gets the lines passed over."""
    for entry in _entries_from_the_end(data, whole, damaged):
        if entry["t"] == "bomb":  # an OBUS bomb's end, after its game's end line
            continue
        summed_up = entry["t"] == "end" or (entry["t"] == "stop" and "gestures" in entry)
        return [entry] if summed_up else None
    return [] if whole else None


def _last_game(data: bytes, whole: bool, damaged: list[str]) -> list[dict[str, Any]] | None:
    """The last game's lines in ``data`` (the end of a file) from its last line that carries its
    totals (:mod:`.totals`), else from its start line; None when that line lies before ``data``
    (read more), or [] when there is none; ``damaged`` gets the reason of each line passed over
    that cannot be read."""
    game: list[dict[str, Any]] = []
    wanted: str | None = None
    for entry in _entries_from_the_end(data, whole, damaged):
        if wanted is None:
            wanted = entry["id"]
        if entry["id"] != wanted or entry["t"] == "bomb":  # a bomb line: after its game's end (see _ended)
            continue
        game.append(entry)
        if entry["t"] == "start" or carried(entry) is not None:  # the game's start, or its totals so far
            return game[::-1]
    return [] if whole else None


def _repair_tail(fd: int, path: Path) -> None:
    """Before the first append: a last line without its newline was cut short. A whole line gets
    its newline; a torn one is cut off (one log line)."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    start = max(0, size - MAX_LINE_BYTES - 1)
    chunk = os.pread(fd, size - start, start)
    cut = chunk.rfind(b"\n")
    tail = chunk[cut + 1 :]
    try:
        parse_line(tail)
    except BaccaratError:
        pass
    else:
        os.write(fd, b"\n")
        return
    if cut < 0 and start > 0:  # longer than any line: leave it, as a line of its own
        os.write(fd, b"\n")
        log.warning("history file %s ends in %d bytes that are no line; they are skipped when read", path, len(tail))
        return
    os.ftruncate(fd, start + cut + 1)
    log.warning(
        "history file %s: dropped its last %d bytes, a line cut short (a power cut or a kill during a write): %s",
        path,
        len(tail),
        show_value(tail.decode("utf-8", "replace"), 60),
    )


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class MemoryStore:
    """Saving is off (``[state] file = ""``, the simulator's default): the lines of the last
    :data:`MEMORY_GAMES` games stay in memory for this run, and nothing is written."""

    def __init__(self, games: int = MEMORY_GAMES) -> None:
        self.where = "memory (saving is off)"
        self._lock = threading.Lock()
        self._games: deque[list[dict[str, Any]]] = deque(maxlen=games)

    def hand(
        self, lines: list[dict[str, Any]], texts: list[str], *, new_game: bool = False, write: bool = True
    ) -> None:
        """Keep the lines, each with its game (a new game drops the oldest past :data:`MEMORY_GAMES`)."""
        with self._lock:
            for line in lines:
                if line["t"] == "start":
                    self._games.append([line])
                    continue
                for game in reversed(self._games):
                    if game[0]["id"] == line["id"]:
                        game.append(line)
                        break

    def read(self) -> tuple[list[Located], list[Problem]]:
        """Every game kept, oldest first."""
        with self._lock:
            return [(line, "memory", 0) for game in self._games for line in game], []

    def flush(self, timeout: float = 5.0) -> bool:
        """Nothing waits: always True."""
        return True

    def close(self) -> None:
        """Nothing to close."""

    def last_game(self) -> list[dict[str, Any]]:
        """Nothing survives a restart in memory."""
        return []
