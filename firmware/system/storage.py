"""Where a file lives, read from ``/proc/self/mountinfo``: does it survive a power cut?

Raspberry Pi OS's overlay file system (``raspi-config`` > Performance > Overlay File
System, ``overlayroot=tmpfs`` on the kernel command line) keeps every change to the root
file system in RAM: the state file written there is gone after the breaker, and nothing
fails to say so. :func:`volatile_reason` tells, for a path, whether it would be lost:
on ``tmpfs`` or ``ramfs``, or on an ``overlay`` whose upper layer is on one of them (or
out of sight, as Bullseye's ``boot=overlay`` and a container's leave it). The daemon logs
it once at start; ``baccarat doctor`` shows it.

A mountinfo line (``proc(5)``)::

    36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
    id parent dev root mount-point options [optional fields] - type source super-options
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from baccarat_core.records import record

log = logging.getLogger("baccarat")

MOUNTINFO = Path("/proc/self/mountinfo")
#: File systems that live in RAM.
RAM_TYPES = frozenset({"tmpfs", "ramfs"})


@record
class Mount:
    """One line of mountinfo: where, what type, from where, and the file system's own options."""

    point: str
    fs_type: str
    source: str
    options: str

    def __init__(self, point: str, fs_type: str, source: str, options: str) -> None:
        # One write of the fields: the record's generic __init__ costs about 14,000 instructions a
        # mount, and every start reads a few dozen (benchmarks/instructions.md).
        self.__dict__.update(point=point, fs_type=fs_type, source=source, options=options)

    def option(self, name: str) -> str | None:
        """The value of ``name=value`` among the super options, or None."""
        for item in self.options.split(","):
            key, _, value = item.partition("=")
            if key == name:
                return value
        return None

    def describe(self) -> str:
        """``ext4 /dev/mmcblk0p2 at /``."""
        return f"{self.fs_type} {self.source} at {self.point}"


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes (``\\040``)."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([0-7]{3})", lambda found: chr(int(found.group(1), 8)), text)  # compiled when needed


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of a mountinfo text, in its order (later mounts cover earlier ones)."""
    mounts = []
    for line in text.splitlines():
        head, dash, tail = line.partition(" - ")  # a space in a name is written \\040: never " - "
        fields, after = head.split(), tail.split()
        if not dash or len(fields) < 6 or len(after) < 2:
            continue
        options = after[2] if len(after) > 2 else ""
        mounts.append(Mount(_unescape(fields[4]), after[0], _unescape(after[1]), options))
    return mounts


def read_mounts(path: Path | None = None) -> list[Mount]:
    """This process's mounts (``path``: another mountinfo file); an empty list where there is no /proc."""
    try:
        return parse_mountinfo((path or MOUNTINFO).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def _within(path: str, point: str) -> bool:
    return point == "/" or path == point or path.startswith(point.rstrip("/") + "/")


def mount_of(path: str | Path, mounts: list[Mount]) -> Mount | None:
    """The mount that holds ``path`` (which need not exist yet): the last mount whose point
    is the longest prefix of its resolved name."""
    resolved = os.path.realpath(path)
    best: Mount | None = None
    for mount in mounts:
        if _within(resolved, mount.point) and (best is None or len(mount.point) >= len(best.point)):
            best = mount
    return best


def volatile_reason(path: str | Path, mounts: list[Mount]) -> str | None:
    """Why ``path`` would not survive a power cut (a phrase: "it is on tmpfs ..."), or None."""
    mount = mount_of(path, mounts)
    if mount is None:
        return None
    if mount.fs_type in RAM_TYPES:
        return f"it is on {mount.fs_type} at {mount.point}, which lives in RAM"
    if mount.fs_type != "overlay":
        return None
    upper = mount.option("upperdir")
    below = mount_of(upper, mounts) if upper else None
    if below is not None and below.fs_type in RAM_TYPES:
        return (
            f"it is on an overlay file system at {mount.point} whose changes live in RAM "
            f"({below.fs_type} at {below.point}, as Raspberry Pi OS's overlay file system has it)"
        )
    if below is not None and below.fs_type != "overlay":
        return None  # the upper layer is on a disk
    return (
        f"it is on an overlay file system at {mount.point} whose changes may live in RAM "
        "(its upper layer cannot be seen from here)"
    )


def warn_if_volatile(path: Path, mounts: list[Mount] | None = None) -> str | None:
    """Log one warning when the state file would not survive a power cut; returns the reason."""
    reason = volatile_reason(path, read_mounts() if mounts is None else mounts)
    if reason is not None:
        log.warning(
            "the state file %s will not survive a power cut: %s; put it on a disk "
            "(docs/operate/read-only-root.md), or set [state] file",
            path,
            reason,
        )
    return reason
