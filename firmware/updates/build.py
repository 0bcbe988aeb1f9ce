"""What a release is made of: its source (a checkout, a directory or an archive, copied with the
version it reports) and its venv (:mod:`firmware.updates.releases` installs and switches releases).

Standard library only, like :mod:`firmware.updates.releases`: it runs under the system's ``python3``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from firmware.updates.archive import ArchiveError, room_problem, unpack

#: What a copied source leaves out: build output, caches, venvs, and a release layout's own entries.
IGNORED = (
    ".git",
    ".venv",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "releases",
    "current",
    "previous",
)
#: What a release's version (pyproject's, before the ``+``) may be: it names the release's directory.
VERSION = re.compile(r"[0-9][0-9A-Za-z._-]{0,39}")
#: The largest pyproject.toml read (the prop's is about 4 KiB).
MAX_PYPROJECT_BYTES = 256 * 1024
#: A venv's size when there is no running one to measure (a Pi's holds about 60 MiB).
VENV_BYTES = 200 << 20
#: The installed package's own files in a venv (left out when a venv's packages are copied).
_OWN = re.compile(r"^(__editable__[._]+baccarat_prop|baccarat_prop-)")


class UpdateError(Exception):
    """An update that cannot go on: the message says why, in one line."""


def say(line: str) -> None:
    """One line of progress on stdout."""
    print(f"update: {line}", flush=True)


def run(cmd: Sequence[str | Path], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command; its output, or :class:`UpdateError` with its last line of errors."""
    try:
        done = subprocess.run(
            [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=3600
        )
    except FileNotFoundError:
        raise UpdateError(f"{cmd[0]} is not installed") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise UpdateError(
            f"{Path(str(cmd[0])).name} {' '.join(str(c) for c in cmd[1:3])} failed: "
            f"{lines[-1].strip() if lines else f'exit {done.returncode}'}"
        )
    return done.stdout


# -- the source --------------------------------------------------------------------------------------


@contextmanager
def unpacked(source: Path) -> Iterator[tuple[Path, str | None]]:
    """The source tree (the directory with pyproject.toml) and the commit an archive names, if any."""
    if source.is_dir():
        yield _tree_root(source), None
        return
    if not source.is_file():
        raise UpdateError(f"{source} is neither a directory nor an archive")
    with tempfile.TemporaryDirectory(prefix="baccarat-update-") as temp:
        try:
            commit = unpack(source, Path(temp))
        except ArchiveError as error:
            raise UpdateError(str(error)) from None
        if commit is not None and not re.fullmatch(r"[0-9a-f]{40}", commit):
            commit = None
        yield _tree_root(Path(temp)), commit


def _tree_root(path: Path) -> Path:
    if (path / "pyproject.toml").is_file():
        return path
    inside = [p for p in path.iterdir() if p.is_dir()]
    if len(inside) == 1 and (inside[0] / "pyproject.toml").is_file():
        return inside[0]
    raise UpdateError(f"{path} holds no pyproject.toml: not a copy of the prop's repository")


def _git(tree: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _is_checkout(tree: Path) -> bool:
    top = _git(tree, "rev-parse", "--show-toplevel")
    return top is not None and Path(top.strip()).resolve() == tree.resolve()


def source_files(tree: Path) -> list[Path]:
    """The files a release copies: git's tracked and untracked-but-not-ignored files in a checkout,
    else every file; neither with a part named in :data:`IGNORED` (a checkout at /opt/baccarat holds
    the release layout's own ``releases``, ``current`` and ``previous``, which git does not ignore)."""
    names: list[Path] = []
    listed = _git(tree, "ls-files", "-z", "--cached", "--others", "--exclude-standard") if _is_checkout(tree) else None
    if listed is not None:
        names = [Path(name) for name in listed.split("\0") if name]
    else:
        names = [path.relative_to(tree) for path in tree.rglob("*")]
    return sorted(
        {name for name in names if not any(_ignored(part) for part in name.parts) and (tree / name).is_file()}
    )


def _ignored(part: str) -> bool:
    return any(part == name or (name.startswith("*") and part.endswith(name[1:])) for name in IGNORED)


def release_version(tree: Path, files: Sequence[Path], commit: str | None = None) -> str:
    """pyproject's version with where it came from: ``+g<commit>`` (``.dirty<digest>`` with changes
    not committed), or ``+h<digest of the files>`` without git history."""
    pyproject = tree / "pyproject.toml"
    try:
        with open(pyproject, "rb") as file:
            text = file.read(MAX_PYPROJECT_BYTES + 1)
        if len(text) > MAX_PYPROJECT_BYTES:
            raise UpdateError(f"{pyproject} is larger than {MAX_PYPROJECT_BYTES} bytes: not the prop's")
        base = str(tomllib.loads(text.decode("utf-8"))["project"]["version"]).split("+")[0]
    except UnicodeDecodeError as error:
        raise UpdateError(f"{pyproject} is not UTF-8 text (byte {error.start})") from None
    except (OSError, ValueError, RecursionError, KeyError, TypeError) as error:  # TOMLDecodeError is a ValueError
        reason = " ".join(str(error).split())[:120]
        raise UpdateError(f"{pyproject} has no [project] version ({type(error).__name__}: {reason})") from None
    if not VERSION.fullmatch(base):
        shown = base if len(base) <= 40 else base[:37] + "..."
        raise UpdateError(f"{pyproject}: version {shown!r} is not a version (digits, letters, . _ - only)")
    if commit is None and _is_checkout(tree):
        head = _git(tree, "rev-parse", "HEAD")
        commit = head.strip() if head else None
        if commit and _git(tree, "status", "--porcelain", "--untracked-files=normal"):
            return f"{base}+g{commit[:7]}.dirty{_digest(tree, files)}"
    if commit:
        return f"{base}+g{commit[:7]}"
    return f"{base}+h{_digest(tree, files)}"


def _digest(tree: Path, files: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for name in files:
        digest.update(str(name).encode() + b"\0" + (tree / name).read_bytes() + b"\0")
    return digest.hexdigest()[:8]


def copy_source(tree: Path, files: Sequence[Path], dest: Path, version: str | None = None) -> None:
    """Copy ``files`` of ``tree`` to ``dest``; with ``version``, pyproject's version becomes it (the
    installed package then reports it: firmware/version.py)."""
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / name, target)
    if version is not None:
        pyproject = dest / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        stamped, count = re.subn(r'(?m)^version\s*=\s*"[^"]*"', f'version = "{version}"', text, count=1)
        if count != 1:
            raise UpdateError("pyproject.toml has no version line")
        pyproject.write_text(stamped, encoding="utf-8")


def check_room(tree: Path, files: Sequence[Path], dest: Path, running: Path | None) -> None:
    """Refuse, in one line, a release that would not fit beside the others: its files and a venv as
    large as the running version's (:data:`VENV_BYTES` without one)."""
    needed = sum((tree / name).stat().st_size for name in files)
    old = running / ".venv" if running is not None else None
    if old is not None and old.is_dir():
        needed += sum(entry.stat(follow_symlinks=False).st_size for entry in old.rglob("*"))
    else:
        needed += VENV_BYTES
    where = dest
    while not where.exists() and where != where.parent:
        where = where.parent
    problem = room_problem(needed, where, f"installing {dest.name} (its files and a venv)")
    if problem is not None:
        raise UpdateError(problem)


# -- the venv ----------------------------------------------------------------------------------------


def _python_version(python: Path | str) -> str | None:
    try:
        done = subprocess.run(
            [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def copy_packages(old_venv: Path, new_venv: Path, python: str = "python3") -> bool:
    """Make ``new_venv`` with ``python`` and copy into it every package ``old_venv`` has but the prop's
    own (so that pip finds its dependencies there). False when the two Pythons differ."""
    version = _python_version(old_venv / "bin" / "python")
    if version is None or version != _python_version(python):
        return False
    system_site = re.search(
        r"(?m)^include-system-site-packages\s*=\s*true", (old_venv / "pyvenv.cfg").read_text(encoding="utf-8")
    )
    run([python, "-m", "venv", "--without-pip", *(["--system-site-packages"] if system_site else []), new_venv])
    old_site = old_venv / "lib" / f"python{version}" / "site-packages"
    new_site = new_venv / "lib" / f"python{version}" / "site-packages"
    for entry in old_site.iterdir():
        if _OWN.match(entry.name):
            continue
        target = new_site / entry.name
        if entry.is_dir() and not entry.is_symlink():
            ignore = shutil.ignore_patterns("__editable__*baccarat_prop*") if entry.name == "__pycache__" else None
            shutil.copytree(entry, target, symlinks=True, ignore=ignore, dirs_exist_ok=True)
        else:
            shutil.copy2(entry, target, follow_symlinks=False)
    return True


def make_venv(release: Path, running: Path | None) -> str:
    """The release's venv, by its own ``scripts/_venv.sh``; returns how it was made."""
    venv_sh = ["bash", "-c", '. scripts/_venv.sh ""']
    old = running / ".venv" if running is not None else None
    if old is not None and (old / "pyvenv.cfg").is_file():
        try:
            if copy_packages(old, release / ".venv"):
                # The packages are there: pip builds only the prop itself, with the setuptools copied too.
                run(venv_sh, cwd=release, env={**os.environ, "PIP_NO_BUILD_ISOLATION": "0"})
                return "the running version's packages copied; pip fetched only what changed"
        except (UpdateError, OSError) as error:
            say(f"copying the running version's packages did not serve ({error}); pip installs them all")
        shutil.rmtree(release / ".venv", ignore_errors=True)
    run(venv_sh, cwd=release)
    # setuptools in the venv lets the next update build the prop without the network.
    try:
        run([release / ".venv" / "bin" / "python", "-m", "pip", "install", "-q", "setuptools>=70.1"])
    except UpdateError as error:
        say(f"note: the next update will need the package index for setuptools ({error})")
    return "pip installed every package"
