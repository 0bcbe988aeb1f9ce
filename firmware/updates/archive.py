"""Unpacking an update's archive (tar, tar.gz, tar.bz2, tar.xz or zip): nothing outside its folder, no
devices, plain modes, bounded sizes, and one line for any archive it refuses or cannot read.

Before anything is written, the members are walked one header at a time and each is checked as it
comes: its name, its size (at most :data:`MAX_MEMBER_BYTES`), the total so far (at most
:data:`MAX_TOTAL_BYTES`) and the count (at most :data:`MAX_MEMBERS`); a member of 1 GiB of zeros in a
1 MB archive is refused at its header, before a byte of it is unpacked. The total must then fit in
the folder's file system with :data:`RESERVE_BYTES` to spare (on Raspberry Pi OS Bookworm ``/tmp``
is the root file system, which holds the state and the journal).

Tar archives are unpacked with tarfile's ``data`` filter. Python before 3.11.4 (Debian 12 and
Raspberry Pi OS Bookworm ship 3.11.2) has no extraction filters; there the same rules are kept by
hand: only directories, regular files (mode 0644, or 0755 if executable) and symbolic links are
unpacked, anything else refuses the whole archive, and each member's real path (the links unpacked
before it followed, as the filter does) must stay inside the folder when it is written. Zip
archives hold no links; their names are made safe by zipfile itself.

Standard library only, like :mod:`firmware.updates.releases`: it runs under the system's ``python3``.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import shutil
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

#: The most one member may unpack to (the repository's largest file is under 1 MiB).
MAX_MEMBER_BYTES = 32 << 20
#: The most a whole archive may unpack to (the repository unpacks to about 4 MiB).
MAX_TOTAL_BYTES = 256 << 20
#: The most members an archive may hold (the repository has a few hundred files).
MAX_MEMBERS = 10_000
#: The longest member name, in characters (each part of it at most 255 bytes, as Linux takes).
MAX_NAME = 1024
#: Room left free on the file system the archive is unpacked in.
RESERVE_BYTES = 64 << 20
#: What a damaged archive raises while it is read (gzip.BadGzipFile is an OSError).
DAMAGED = (
    tarfile.TarError,
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
)

#: What a tar may hold beside its members' data: each member's headers (a pax header with a long
#: name) and padding.
TAR_OVERHEAD = 4096
#: The end of a tar: two zero blocks and the padding to a full record (``git archive``: 10,240 bytes).
TAR_TAIL = 64 << 10
#: A compressed tar's first bytes, how to read its stream, and its name in a message.
STREAMS: dict[bytes, tuple[Callable[[Path], io.BufferedIOBase], str]] = {
    b"\x1f\x8b": (lambda path: gzip.open(path, "rb"), "gzip"),
    b"BZh": (lambda path: bz2.open(path, "rb"), "bzip2"),
    b"\xfd7zXZ\x00": (lambda path: lzma.open(path, "rb"), "xz"),
}

#: What tarfile's data filter raises for a member it refuses (a Python before 3.11.4 has none).
REFUSED: tuple[type[Exception], ...] = (tarfile.FilterError,) if hasattr(tarfile, "FilterError") else ()


class ArchiveError(Exception):
    """An archive that is refused or cannot be read: the message says why, in one line."""


def size(count: int) -> str:
    """``1.0 GiB``, ``32 MiB``, ``512 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{count} bytes"


def free_bytes(path: Path) -> int:
    """Free bytes on the file system that holds ``path``."""
    return shutil.disk_usage(path).free


def room_problem(needed: int, where: Path, what: str) -> str | None:
    """Why ``needed`` more bytes do not fit at ``where`` (less than :data:`RESERVE_BYTES` would stay
    free), in one line, or None."""
    available = free_bytes(where)
    if needed + RESERVE_BYTES <= available:
        return None
    return (
        f"{what} needs {size(needed)} and {where} has {size(available)} free ({size(RESERVE_BYTES)} must stay "
        "free for the state and the journal): make room first (sudo apt-get clean; "
        "sudo journalctl --vacuum-size=50M)"
    )


def shown(name: str) -> str:
    """A member's name as a message quotes it: at most 60 characters."""
    return repr(name if len(name) <= 60 else name[:57] + "...")


def unpack(source: Path, dest: Path) -> str | None:
    """Unpack the archive ``source`` into the folder ``dest``; the commit it names (``git archive``
    writes it in a tar's pax header or a zip's comment), or None."""
    try:
        if zipfile.is_zipfile(source):
            return _unpack_zip(source, dest)
        try:
            archive = tarfile.open(source)
        except tarfile.ReadError:
            raise ArchiveError(
                f"{source} is not an archive this can read (tar, tar.gz, tar.bz2, tar.xz or zip)"
            ) from None
        with archive:
            return _unpack_tar(archive, dest, source)
    except ArchiveError as error:
        raise ArchiveError(f"{source}: {error}") from None
    except REFUSED as error:  # tarfile's data filter: a member outside the tree, a device
        raise ArchiveError(f"{source}: {error}; refused") from None
    except DAMAGED as error:
        raise ArchiveError(f"{source} is damaged or cannot be unpacked here: {_reason(error)}") from None


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno is not None:
        return os.strerror(error.errno)
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:120]}" if text else type(error).__name__


def _check_name(name: str, count: int, total: int, member_size: int) -> None:
    if count > MAX_MEMBERS:
        raise ArchiveError(f"it holds more than {MAX_MEMBERS} members: refused")
    if len(name) > MAX_NAME or any(len(part.encode(errors="surrogateescape")) > 255 for part in name.split("/")):
        raise ArchiveError(f"the member {shown(name)} has a name of {len(name)} characters, too long: refused")
    if member_size > MAX_MEMBER_BYTES:
        raise ArchiveError(
            f"the member {shown(name)} unpacks to {size(member_size)}, more than the {size(MAX_MEMBER_BYTES)} "
            "one file may: refused before unpacking anything"
        )
    if total > MAX_TOTAL_BYTES:
        raise ArchiveError(
            f"it unpacks to more than {size(MAX_TOTAL_BYTES)} (at {shown(name)}): refused before unpacking anything"
        )


def _check_room(total: int, dest: Path) -> None:
    problem = room_problem(total, dest, "unpacking it")
    if problem is not None:
        raise ArchiveError(problem)


def _unpack_zip(source: Path, dest: Path) -> str | None:
    with zipfile.ZipFile(source) as archive:
        members = archive.infolist()
        total = 0
        for count, info in enumerate(members, 1):
            total += info.file_size
            _check_name(info.filename, count, total, info.file_size)
        _check_room(total, dest)
        for info in members:  # zipfile drops "..", "/" and drive letters from the names it writes
            written = Path(archive.extract(info, dest))  # at most info.file_size bytes: zipfile stops there
            if not info.is_dir():
                written.chmod(0o755 if (info.external_attr >> 16) & 0o100 else 0o644)
        return archive.comment.decode(errors="replace").strip() or None


def _unpack_tar(archive: tarfile.TarFile, dest: Path, source: Path) -> str | None:
    members = []
    total = 0
    while (member := archive.next()) is not None:  # one header at a time: a refusal reads no further
        members.append(member)
        total += member.size if member.isfile() else 0
        _check_name(member.name, len(members), total, member.size if member.isfile() else 0)
    _check_room(total, dest)
    verify_stream(source, total + len(members) * TAR_OVERHEAD + TAR_TAIL)
    extract_tar(archive, dest, members)
    comment = archive.pax_headers.get("comment")  # git archive names the commit here
    return comment if isinstance(comment, str) else None


def verify_stream(source: Path, most: int) -> None:
    """Read a compressed tar's whole stream to its end, so that its checks are verified (gzip's CRC
    and length, bzip2's and xz's own) before a byte is unpacked: tarfile stops at the tar's last
    member and never reads the trailer that holds them. At most ``most`` bytes are decompressed (the
    members' sizes, their headers and the end's padding: a tail of zeros after them is refused too).
    A plain tar has no check: nothing to do."""
    with open(source, "rb") as raw:
        magic = raw.read(6)
    found = [opened for start, opened in STREAMS.items() if magic.startswith(start)]
    if not found:
        return
    opener, kind = found[0]
    read = 0
    try:
        with opener(source) as stream:
            while chunk := stream.read(1 << 20):
                read += len(chunk)
                if read > most:
                    raise ArchiveError(f"its {kind} stream holds more than its members: refused")
    except DAMAGED as error:
        raise ArchiveError(
            f"its {kind} stream is damaged ({_reason(error)}): refused before unpacking anything"
        ) from None


def extract_tar(archive: tarfile.TarFile, dest: Path, members: list[tarfile.TarInfo] | None = None) -> None:
    """Unpack ``members`` of ``archive`` (all by default) into ``dest`` with tarfile's ``data`` filter:
    nothing outside ``dest``, no devices, no owners or set-id bits from the archive; by hand with the
    same rules on a Python without the filter (before 3.11.4)."""
    members = archive.getmembers() if members is None else members
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, members=members, filter="data")
        return
    root = dest.resolve()
    for member in members:  # all checked by name before anything is written
        target = (root / member.name).resolve()
        if member.name.startswith("/") or not target.is_relative_to(root):
            raise ArchiveError(f"the archive's {shown(member.name)} would land outside the tree: refused")
        if member.issym():
            linked = (target.parent / member.linkname).resolve()
            if member.linkname.startswith("/") or not linked.is_relative_to(root):
                raise ArchiveError(f"the archive's link {shown(member.name)} points outside the tree: refused")
        elif not (member.isdir() or member.isfile()):
            raise ArchiveError(f"the archive's {shown(member.name)} is not a file, directory or link: refused")
    for member in members:
        _write(archive, member, root)


def _inside(path: str, root: Path) -> bool:
    return Path(path).is_relative_to(root)


def _write(archive: tarfile.TarFile, member: tarfile.TarInfo, root: Path) -> None:
    """One member, its real path checked as it is written: the links unpacked before it are followed."""
    target = root / member.name
    if not (_inside(os.path.realpath(target), root) and _inside(os.path.realpath(target.parent), root)):
        raise ArchiveError(
            f"the archive's {shown(member.name)} would be written outside the tree through a link: refused"
        )
    if member.isdir():
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if member.issym():
        if not _inside(os.path.realpath(os.path.join(target.parent, member.linkname)), root):
            raise ArchiveError(f"the archive's link {shown(member.name)} points outside the tree: refused")
        os.symlink(member.linkname, target)
        return
    data = archive.extractfile(member)
    if data is None:  # a regular file always has its data
        raise ArchiveError(f"the archive's {shown(member.name)} has no data")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        raise ArchiveError(f"the archive's {shown(member.name)} would be written through a link: refused") from None
    with data, open(fd, "wb") as out:
        shutil.copyfileobj(data, out)
    target.chmod(0o755 if member.mode & 0o100 else 0o644)
