"""Unpacking an update's archive: nothing outside its folder, no devices, plain modes.

Standard library only, like :mod:`firmware.releases`: it runs under the system's ``python3``.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path


class ArchiveError(Exception):
    """An archive that is refused: the message says why, in one line."""


def extract_tar(archive: tarfile.TarFile, dest: Path) -> None:
    """Unpack ``archive`` into ``dest`` with tarfile's ``data`` filter: nothing outside ``dest``, no
    devices, no owners or set-id bits from the archive.

    Python before 3.11.4 (Debian 12 and Raspberry Pi OS Bookworm ship 3.11.2) has no extraction
    filters; there only directories, regular files (mode 0644, or 0755 if executable) and symbolic
    links that stay inside ``dest`` are unpacked, and anything else refuses the whole archive.
    """
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
        return
    root = dest.resolve()
    members = archive.getmembers()
    for member in members:  # all checked before anything is written
        target = (root / member.name).resolve()
        if member.name.startswith("/") or not target.is_relative_to(root):
            raise ArchiveError(f"the archive's {member.name!r} would land outside the tree: refused")
        if member.issym():
            linked = (target.parent / member.linkname).resolve()
            if member.linkname.startswith("/") or not linked.is_relative_to(root):
                raise ArchiveError(f"the archive's link {member.name!r} points outside the tree: refused")
        elif not (member.isdir() or member.isfile()):
            raise ArchiveError(f"the archive's {member.name!r} is not a file, directory or link: refused")
    for member in members:
        target = root / member.name
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if member.issym():
            os.symlink(member.linkname, target)
            continue
        data = archive.extractfile(member)
        if data is None:  # a regular file always has its data
            raise ArchiveError(f"the archive's {member.name!r} has no data")
        with data, open(target, "wb") as out:
            shutil.copyfileobj(data, out)
        target.chmod(0o755 if member.mode & 0o100 else 0o644)
