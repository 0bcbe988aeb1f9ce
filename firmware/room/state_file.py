"""The state file on disk: written atomically, read without ever blocking or reading without end.

:func:`write_atomic` (temporary file, fsync, rename, fsync of the directory) leaves either the
old file or the new one after a power cut, never half of each; :func:`remove_leftover_temp_files`
clears what a save cut short left; :func:`read_state` refuses a FIFO, a device, a symlink out of
the directory or a file over the cap. :mod:`.saved_state` keeps the game in it.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import tempfile
from pathlib import Path

from baccarat_core import BaccaratError, strict
from baccarat_core.numbers import show_value

log = logging.getLogger("baccarat.state")

#: Largest state file read (a real one is about 1 KB).
MAX_STATE_BYTES = strict.MAX_BYTES


def _temp_prefix(path: Path) -> str:
    """How :func:`write_atomic`'s temporary files beside ``path`` begin; mkstemp adds 8 of [a-z0-9_]."""
    return f".{path.name}."


def write_atomic(path: Path, text: str) -> None:
    """Write, fsync, rename over ``path``, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def remove_leftover_temp_files(path: Path) -> int:
    """Remove the temporary files that saves cut short (``kill -9``, a power cut) left beside ``path``.

    Only :func:`write_atomic`'s own: regular files of this user named ``.<name>.`` and mkstemp's 8
    characters (``.state.json.k2x_9qa1``); nothing else in the directory is touched. Called at start,
    before the first save. Returns how many were removed.
    """
    pattern = re.compile(re.escape(_temp_prefix(path)) + r"[a-z0-9_]{8}")
    removed = 0
    try:
        names = [entry.name for entry in os.scandir(path.parent) if pattern.fullmatch(entry.name)]
    except OSError:
        return 0  # no directory yet: nothing left over; an unreadable one: saving will say so
    for name in names:
        leftover = path.parent / name
        try:
            info = leftover.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid():
                leftover.unlink()
                removed += 1
        except OSError as error:
            log.warning("cannot remove %s, left by a save cut short (%s)", leftover, error.strerror or error)
    if removed:
        log.info("removed %d temporary file(s) left beside %s by saves cut short", removed, path)
    return removed


def read_state(path: Path, *, max_bytes: int = MAX_STATE_BYTES) -> bytes:
    """The bytes of the state file, if it is a regular file of at most ``max_bytes``.

    Never blocks and never reads without end: a FIFO, a device (``/dev/zero``), a
    directory or a symlink that leads out of the state directory is refused, as is a
    file over the cap. Raises FileNotFoundError, OSError or BaccaratError with the reason.
    """
    target = path
    if path.is_symlink():
        target = path.resolve()
        if target.parent != path.parent.resolve():
            raise BaccaratError(f"it is a symlink out of the state directory (to {show_value(str(target), 80)})")
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}.get(
                stat.S_IFMT(info.st_mode), "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            )
            raise BaccaratError(f"it is {kind}, not a regular file")
        if info.st_size > max_bytes:
            raise BaccaratError(f"it is larger than {max_bytes} bytes ({info.st_size})")
        chunks = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise BaccaratError(f"it is larger than {max_bytes} bytes")
    return b"".join(chunks)
