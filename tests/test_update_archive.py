"""An update's archive, hostile or damaged (issue 33, items 9-11): ``baccarat update ARCHIVE`` unpacks
nothing outside its folder (also through a link it unpacked itself, on a Python without tarfile's
filters), answers any damaged archive with one line and exit 1, and refuses an archive that would
unpack to too much before it writes a byte of it.

The updater runs in-process on a fake install root (``--root``); its venv step is replaced by one
that stops the update, so an archive that unpacks well ends as ``update: error: ... stopped here``.
Free disk is faked at the bottom, in ``shutil.disk_usage``.
"""

from __future__ import annotations

import gzip
import io
import random
import shutil
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections import namedtuple
from pathlib import Path

import pytest

from firmware.updates import archive as release_archive
from firmware.updates import build as release_build
from firmware.updates import releases
from tests import test_update

_tar = test_update._tar
#: Each test that takes it runs twice: with tarfile's data filter, and as on Python 3.11.2 without it.
tar_python = test_update.tar_python

STOP = "the venv step, stopped here by the test"
PYPROJECT = '[project]\nname = "baccarat-prop"\nversion = "0.1.0"\n'
Usage = namedtuple("Usage", "total used free")


@pytest.fixture
def update(tmp_path, monkeypatch, capsys):
    """``update ARCHIVE`` on a fake root: (exit status, the lines on stderr)."""
    root = tmp_path / "root"
    root.mkdir()
    work = tmp_path / "work"  # the updater unpacks in work/baccarat-update-XXXX
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))

    def stop(release, running):
        raise releases.UpdateError(STOP)

    monkeypatch.setattr(releases, "make_venv", stop)

    def run(archive: Path) -> tuple[int, list[str]]:
        code = releases.main(["--root", str(root), str(archive)])
        out = capsys.readouterr()
        return code, out.err.splitlines()

    return run


# -- a link unpacked, then a path through it (item 9) ---------------------------------------------


def test_a_path_through_a_link_the_archive_made_is_refused(tmp_path, monkeypatch, tar_python):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    source = _tar(
        tmp_path / "bad.tar.gz",
        [
            ("file", "pyproject.toml", PYPROJECT),
            ("dir", "deep", ""),
            ("link", "deep/link", ".."),  # inside: deep/.. is the tree itself
            ("file", "deep/link/../../escaped.txt", "x"),  # "escaped.txt" by its name; two levels up by the link
        ],
    )
    with pytest.raises(releases.UpdateError, match="outside") as raised:
        with releases.unpacked(source):
            pass
    assert len(str(raised.value).splitlines()) == 1
    assert [p for p in tmp_path.rglob("escaped.txt")] == []


def test_a_link_that_stays_inside_is_followed_as_the_filter_does(tmp_path, tar_python):
    source = _tar(
        tmp_path / "ok.tar.gz",
        [
            ("file", "b/pyproject.toml", PYPROJECT),
            ("dir", "b/real", ""),
            ("link", "b/alias", "real"),
            ("file", "b/alias/notes.txt", "through the link"),
        ],
    )
    with releases.unpacked(source) as (tree, _):
        assert (tree / "real" / "notes.txt").read_text() == "through the link"


# -- damaged archives (item 10) --------------------------------------------------------------------

TREE = {
    "baccarat/pyproject.toml": PYPROJECT.encode(),
    "baccarat/README.md": b"# Baccarat\n" * 40,
    "baccarat/firmware/__init__.py": b'"""The firmware."""\n',
    "baccarat/scripts/start.sh": b"#!/bin/sh\nexec true\n",
    "baccarat/docs/notes.txt": bytes(range(256)) * 8,
}


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.comment = b"0123456789abcdef0123456789abcdef01234567"
    return out.getvalue()


def _tarball(files: dict[str, bytes], mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755 if name.endswith(".sh") else 0o644
            archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("baccarat/docs/readme")
        link.type, link.linkname = tarfile.SYMTYPE, "../README.md"
        archive.addfile(link)
    return out.getvalue()


FORMATS = {
    "tar": lambda files: _tarball(files, "w"),
    "tar.gz": lambda files: _tarball(files, "w:gz"),
    "tar.bz2": lambda files: _tarball(files, "w:bz2"),
    "tar.xz": lambda files: _tarball(files, "w:xz"),
    "zip": _zip,
    "zip-stored": lambda files: _zip(files, zipfile.ZIP_STORED),
}


def _damaged(rng: random.Random) -> tuple[str, bytes]:
    """One damaged archive: (what was done, its bytes)."""
    kind = rng.choice(sorted(FORMATS))
    files = dict(TREE)
    damage = rng.choice(["truncate", "flip", "overwrite", "insert", "long name", "not utf-8", "bad version", "garbage"])
    if damage == "long name":
        files["baccarat/" + "n" * rng.choice([256, 1100, 5000])] = b"x"
    elif damage == "not utf-8":
        files["baccarat/pyproject.toml"] = PYPROJECT.encode() + bytes(rng.randrange(128, 256) for _ in range(8))
    elif damage == "bad version":
        version = rng.choice(["../../../etc", "", "1/2", "x" * 300, "[1]", "1.0\n[x]"])
        files["baccarat/pyproject.toml"] = f'[project]\nversion = "{version}"\n'.encode(errors="replace")
    data = bytearray(FORMATS[kind](files))
    if damage == "truncate":
        del data[rng.randrange(len(data)) :]
    elif damage == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif damage == "overwrite":
        at = rng.randrange(len(data))
        data[at : at + rng.randint(1, 64)] = rng.randbytes(rng.randint(1, 64))
    elif damage == "insert":
        at = rng.randrange(len(data))
        data[at:at] = rng.randbytes(rng.randint(1, 64))
    elif damage == "garbage":
        data = bytearray(data[: rng.randint(0, 4)] + rng.randbytes(rng.randint(0, 2048)))
    return f"{damage} {kind}", bytes(data)


@pytest.mark.parametrize("chunk", range(2))
def test_a_thousand_damaged_archives_are_one_line_each_and_exit_1(update, tmp_path, tar_python, chunk):
    """1,000 damaged archives, seeded: 250 a chunk, two chunks on each tarfile variant; never a traceback."""
    rng = random.Random(f"issue 33 item 10, chunk {chunk}, {tar_python}")
    seen = set()
    for number in range(250):
        what, data = _damaged(rng)
        archive = tmp_path / "damaged.archive"
        archive.write_bytes(data)
        code, err = update(archive)  # an exception escaping it fails the test, naming the case below
        case = f"case {chunk}/{number}: {what}: {err}"
        assert code == 1, case
        assert len(err) == 1 and err[0].startswith("update: error: ") and len(err[0]) < 600, case
        seen.add(err[0].split(": ")[-1] == STOP)
    assert seen == {True, False}, "some damage must leave a readable archive, most not"


@pytest.mark.parametrize(
    "what",
    ["EOFError", "BadZipFile", "zlib.error", "BadGzipFile", "non-UTF-8 pyproject", "5,000-character name"],
)
def test_each_damage_the_issue_names_is_one_line(update, tmp_path, tar_python, what):
    if what == "EOFError":  # a tar.gz cut short inside a member's data
        data = FORMATS["tar.gz"](TREE)[:-40]
        message = "damaged"
    elif what == "BadZipFile":  # a zip's central directory pointing at nothing
        data = bytearray(FORMATS["zip"](TREE))
        data[: data.index(b"PK\x01\x02")] = bytes(data.index(b"PK\x01\x02"))
        message = "damaged"
    elif what == "zlib.error":  # a deflated member's data garbled
        data = bytearray(FORMATS["zip"](TREE))
        start = data.index(b"# Baccarat") if b"# Baccarat" in data else 40
        data[start : start + 16] = bytes(range(200, 216))
        data = bytes(data)
        message = "damaged"
    elif what == "BadGzipFile":  # the tar's second half in a gzip member that is not one
        tar = FORMATS["tar"](TREE)
        data = gzip.compress(tar[:1024]) + b"\x1f\x8b\x07" + gzip.compress(tar[1024:])[3:]
        message = "damaged"
    elif what == "non-UTF-8 pyproject":
        data = FORMATS["tar.gz"]({**TREE, "baccarat/pyproject.toml": b'[project]\nversion = "0.1.0" # caf\xe9\n'})
        message = "is not UTF-8 text"
    else:
        data = FORMATS["tar"]({**TREE, "baccarat/" + "n" * 5000: b"x"})
        message = "has a name of 5009 characters, too long: refused"
    archive = tmp_path / "damaged.archive"
    archive.write_bytes(bytes(data))
    code, err = update(archive)
    assert code == 1 and len(err) == 1 and message in err[0], err
    assert len(err[0]) < 400


def test_a_version_that_is_a_path_never_names_a_folder(update, tmp_path):
    archive = tmp_path / "r.tar.gz"
    archive.write_bytes(
        FORMATS["tar.gz"]({**TREE, "baccarat/pyproject.toml": b'[project]\nversion = "../../../../tmp/x"\n'})
    )
    code, err = update(archive)
    assert code == 1 and len(err) == 1 and "version '../../../../tmp/x' is not a version" in err[0], err
    assert not (tmp_path / "root" / "opt" / "baccarat" / "releases").exists()


# -- sizes and free space (item 11) ------------------------------------------------------------------

GIB = 1 << 30
MIB_OF_ZEROS = bytes(1 << 20)


def _gigabyte_of_zeros_tar_gz(path: Path) -> Path:
    """About 1 MB: a tar.gz whose first member is 1 GiB of zeros (1,024 gzip members of 1 MiB each,
    which gzip readers join), then a gzip member that is not one: reading past the big member's
    header would meet it and call the archive damaged."""
    header = tarfile.TarInfo("baccarat/zeros.bin")
    header.size = GIB
    with open(path, "wb") as out:
        out.write(gzip.compress(header.tobuf(format=tarfile.PAX_FORMAT)))
        out.write(gzip.compress(MIB_OF_ZEROS) * 1024)
        out.write(b"\x1f\x8b\x08\x00broken")
    return path


def _gigabyte_of_zeros_zip(path: Path) -> Path:
    """About 1 MB: a zip whose one member is 1 GiB of zeros, deflated (the same 1,037 bytes per MiB,
    each block ending in a full flush), with its true CRC."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(MIB_OF_ZEROS) + packer.flush(zlib.Z_FULL_FLUSH)
    data = block * 1024 + zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    crc = 0
    for _ in range(1024):
        crc = zlib.crc32(MIB_OF_ZEROS, crc)
    name = b"baccarat/zeros.bin"
    fields = (20, 0, 8, 0, 0, crc, len(data), GIB, len(name))
    local = struct.pack("<4s5HIIIHH", b"PK\x03\x04", *fields[:8], len(name), 0) + name
    central = struct.pack("<4s6HIIIHHHHHII", b"PK\x01\x02", 20, *fields[:8], len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4s4HIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    path.write_bytes(local + data + central + end)
    return path


@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_a_gigabyte_of_zeros_is_refused_at_its_header(update, tmp_path, tar_python, kind):
    make = _gigabyte_of_zeros_tar_gz if kind == "tar.gz" else _gigabyte_of_zeros_zip
    archive = make(tmp_path / f"bomb.{kind}")
    assert archive.stat().st_size < 2_000_000
    if kind == "zip":
        with zipfile.ZipFile(archive) as check:  # a true zip: zipfile reads its first MiB back
            with check.open("baccarat/zeros.bin") as member:
                assert member.read(1 << 20) == MIB_OF_ZEROS
    code, err = update(archive)
    assert code == 1
    assert err == [
        f"update: error: {archive}: the member 'baccarat/zeros.bin' unpacks to 1 GiB, more than the 32 MiB one "
        "file may: refused before unpacking anything"
    ]
    assert [p for p in (tmp_path / "work").rglob("*")] == []


def test_the_total_and_the_count_are_capped_too(update, tmp_path, monkeypatch, tar_python):
    archive = tmp_path / "r.tar"
    archive.write_bytes(FORMATS["tar"](TREE))
    monkeypatch.setattr(release_archive, "MAX_TOTAL_BYTES", 2048)
    code, err = update(archive)
    assert code == 1 and "it unpacks to more than 2 KiB" in err[0] and "refused before unpacking" in err[0], err
    monkeypatch.setattr(release_archive, "MAX_TOTAL_BYTES", 1 << 30)
    monkeypatch.setattr(release_archive, "MAX_MEMBERS", 3)
    code, err = update(archive)
    assert code == 1 and err == [f"update: error: {archive}: it holds more than 3 members: refused"]


def test_too_little_free_space_is_refused_before_unpacking(update, tmp_path, monkeypatch, tar_python):
    archive = tmp_path / "r.tar.gz"
    archive.write_bytes(FORMATS["tar.gz"](TREE))
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(8 << 30, (8 << 30) - (40 << 20), 40 << 20))
    code, err = update(archive)
    assert code == 1 and len(err) == 1, err
    assert err[0].startswith(f"update: error: {archive}: unpacking it needs 2.5 KiB and {tmp_path / 'work'}")
    assert "has 40 MiB free (64 MiB must stay free for the state and the journal): make room first" in err[0]
    assert [p for p in (tmp_path / "work").rglob("*")] == []
    # Room to unpack, but not for the release and its venv.
    monkeypatch.setattr(shutil, "disk_usage", real)
    monkeypatch.setattr(
        release_build,
        "room_problem",
        lambda needed, where, what: f"{what} needs {needed} bytes" if "venv" in what else None,
    )
    code, err = update(archive)
    assert (
        code == 1
        and err[0].startswith("update: error: installing 0.1.0+h")
        and "(its files and a venv) needs" in err[0]
    )


# -- the whole compressed stream checked (issue 41 item 22) ----------------------------------------


@pytest.mark.parametrize("field", ["CRC", "length"])
def test_a_gzip_stream_whose_check_is_wrong_is_refused_before_unpacking(update, tmp_path, tar_python, field):
    """tarfile stops at the tar's end and never reads gzip's trailer (its CRC-32, then the length):
    the whole stream is read first, and a wrong check refuses the archive before a byte is unpacked."""
    data = bytearray(FORMATS["tar.gz"](TREE))
    data[-8 if field == "CRC" else -4] ^= 0x01
    archive = tmp_path / "r.tar.gz"
    archive.write_bytes(bytes(data))
    with tarfile.open(archive) as check:  # tarfile alone reads it all without a complaint
        assert len(check.getmembers()) == len(check.getnames()) > 2
    code, err = update(archive)
    assert code == 1 and len(err) == 1, err
    assert err[0].startswith(f"update: error: {archive}: its gzip stream is damaged (")
    assert err[0].endswith("): refused before unpacking anything") and len(err[0]) < 400, err
    assert [p for p in (tmp_path / "work").rglob("*")] == []
    assert not (tmp_path / "root" / "opt" / "baccarat" / "releases").exists()
    archive.write_bytes(FORMATS["tar.gz"](TREE))  # the same archive whole: unpacked, up to the venv step
    assert update(archive)[1][-1].endswith(STOP)


def test_a_stream_longer_than_its_tar_is_refused_at_a_bound(update, tmp_path, tar_python, monkeypatch):
    """What follows the tar's end inside the stream is read only up to a bound: a stream padded with
    zeros beyond the members' sizes is refused, not read to its end."""
    monkeypatch.setattr(release_archive, "TAR_TAIL", 1 << 20)
    archive = tmp_path / "r.tar.gz"
    archive.write_bytes(gzip.compress(FORMATS["tar"](TREE) + bytes(8 << 20)))
    code, err = update(archive)
    assert code == 1 and err == [f"update: error: {archive}: its gzip stream holds more than its members: refused"]
