"""Updates with a way back: each version in a directory of its own, and a link to the one that runs.

The layout, under ``/opt/baccarat``::

    releases/0.1.0+g1a2b3c4/     a version: its code and its own .venv, never changed once installed
    releases/0.1.0+g5e6f7a8/
    current -> releases/...      what the service runs: ExecStart=/opt/baccarat/current/.venv/bin/baccarat
    previous -> releases/...     the version before it, for ``--rollback``
    /usr/local/bin/baccarat -> /opt/baccarat/current/.venv/bin/baccarat

An install (``sudo bash scripts/update.sh [SOURCE]``, or ``sudo baccarat update [SOURCE]``):

1. copies the source (a git checkout, a directory, or an archive made by ``git archive``) to
   ``releases/<version>``, the version being pyproject's with the commit it came from added
   (``0.1.0+g1a2b3c4``; a source without git history gets a digest of its files, ``+h...``);
2. makes its venv with ``scripts/_venv.sh``, first putting in the running version's installed
   packages, so that pip needs no network when the dependencies did not change (pip fetches only
   what changed; when the copy cannot serve, a plain ``_venv.sh`` run does it all);
3. checks the config with the new version, as the service's user: a version that refuses it is
   never switched to;
4. keeps a copy of the state file, switches ``current`` (and the unit, if the version brings a
   different one) and restarts the service. Under ``Type=notify``, ``systemctl restart`` returns
   once the daemon said ``READY=1`` (its first frames are on the displays) or its start failed;
5. watches it for a minute: the service must stay active, with no restart. If the start failed or
   it did not last, the previous version is switched back and started again, and the game saved
   before the update is put back if the new version left the state file in a format the old one
   does not read. It says so, and exits 1.

``--rollback`` switches back to ``previous`` by hand the same way. The last ``--keep`` versions are
kept (3: the running one and two before it). The single checkout of earlier installs (the repository
itself at /opt/baccarat, with its .venv) is the version called ``.``: the first update makes
``current`` point at it, so it is the one the first rollback goes back to; its files are left alone.

Standard library only: it runs under the system's ``python3`` (scripts/update.sh) before any venv
of the new version exists. ``--root DIR`` treats DIR as ``/`` (the tests' fake install).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SERVICE = "baccarat.service"
USER = "baccarat"
#: Versions kept by default: the one running and two before it.
KEEP = 3
#: Seconds the new version must stay up after READY=1.
WATCH_SECONDS = 60.0
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
#: The installed package's own files in a venv (left out when a venv's packages are copied).
_OWN = re.compile(r"^(__editable__[._]+baccarat_prop|baccarat_prop-)")
MARKER = ".release.json"


class UpdateError(Exception):
    """An update that cannot go on: the message says why, in one line."""


@dataclass(frozen=True)
class Layout:
    """Where everything is, under ``root`` (``/`` on a Pi)."""

    root: Path = Path("/")

    @property
    def base(self) -> Path:
        """``/opt/baccarat``."""
        return self.root / "opt" / "baccarat"

    @property
    def releases(self) -> Path:
        """``/opt/baccarat/releases``."""
        return self.base / "releases"

    @property
    def current(self) -> Path:
        """The link to the version that runs."""
        return self.base / "current"

    @property
    def previous(self) -> Path:
        """The link to the version before it."""
        return self.base / "previous"

    @property
    def unit(self) -> Path:
        """The installed systemd unit."""
        return self.root / "etc" / "systemd" / "system" / SERVICE

    @property
    def command(self) -> Path:
        """The ``baccarat`` command on every user's PATH."""
        return self.root / "usr" / "local" / "bin" / "baccarat"

    @property
    def config(self) -> Path:
        """The service's config file."""
        return self.root / "etc" / "baccarat" / "config.toml"

    def state_file(self) -> Path | None:
        """The state file the service writes: the config's ``[state] file``, else the state directory's."""
        try:
            with open(self.config, "rb") as file:
                configured = tomllib.load(file).get("state", {}).get("file")
        except (OSError, tomllib.TOMLDecodeError):
            configured = None
        if isinstance(configured, str):
            return (self.root / configured.lstrip("/")) if configured else None
        return self.root / "var" / "lib" / "baccarat" / "state.json"

    def target(self, link: Path) -> Path | None:
        """The release a link points at (``base`` itself for the single-checkout install), or None."""
        if not link.is_symlink():
            return None
        return (link.parent / os.readlink(link)).resolve()

    def name(self, release: Path | None) -> str:
        """How a release is called: its version, or "the checkout at /opt/baccarat"."""
        if release is None:
            return "nothing"
        if release == self.base.resolve():
            return f"the checkout at {Path('/') / self.base.relative_to(self.root)}"
        return release.name


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
        commit = None
        if zipfile.is_zipfile(source):
            with zipfile.ZipFile(source) as archive:
                archive.extractall(temp)
                commit = archive.comment.decode(errors="replace").strip() or None
        else:
            # tarfile's filter refusals; a Python before 3.11.4 has none (extract_tar refuses by itself)
            refused: tuple[type[Exception], ...] = (tarfile.FilterError,) if hasattr(tarfile, "FilterError") else ()
            try:
                with tarfile.open(source) as archive:
                    extract_tar(archive, Path(temp))
                    commit = archive.pax_headers.get("comment")  # git archive names the commit here
            except refused as error:  # a member outside the tree, a device: refused whole
                raise UpdateError(f"{source}: {error}; refused") from None
            except tarfile.TarError:
                raise UpdateError(f"{source} is not an archive this can read (tar, tar.gz, tar.xz or zip)") from None
        if commit is not None and not re.fullmatch(r"[0-9a-f]{40}", commit):
            commit = None
        yield _tree_root(Path(temp)), commit


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
            raise UpdateError(f"the archive's {member.name!r} would land outside the tree: refused")
        if member.issym():
            linked = (target.parent / member.linkname).resolve()
            if member.linkname.startswith("/") or not linked.is_relative_to(root):
                raise UpdateError(f"the archive's link {member.name!r} points outside the tree: refused")
        elif not (member.isdir() or member.isfile()):
            raise UpdateError(f"the archive's {member.name!r} is not a file, directory or link: refused")
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
            raise UpdateError(f"the archive's {member.name!r} has no data")
        with data, open(target, "wb") as out:
            shutil.copyfileobj(data, out)
        target.chmod(0o755 if member.mode & 0o100 else 0o644)


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
    else every file but :data:`IGNORED`."""
    if _is_checkout(tree):
        listed = _git(tree, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        if listed is not None:
            return sorted({Path(name) for name in listed.split("\0") if name and (tree / name).is_file()})
    files = []
    for path in sorted(tree.rglob("*")):
        relative = path.relative_to(tree)
        if any(_ignored(part) for part in relative.parts) or not path.is_file():
            continue
        files.append(relative)
    return files


def _ignored(part: str) -> bool:
    return any(part == name or (name.startswith("*") and part.endswith(name[1:])) for name in IGNORED)


def release_version(tree: Path, files: Sequence[Path], commit: str | None = None) -> str:
    """pyproject's version with where it came from: ``+g<commit>`` (``.dirty<digest>`` with changes
    not committed), or ``+h<digest of the files>`` without git history."""
    try:
        with open(tree / "pyproject.toml", "rb") as file:
            base = str(tomllib.load(file)["project"]["version"])
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        raise UpdateError(f"{tree / 'pyproject.toml'} has no [project] version ({error})") from None
    base = base.split("+")[0]
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


# -- the service ---------------------------------------------------------------------------------------


def systemctl(*args: str) -> subprocess.CompletedProcess[str]:
    """``systemctl ARGS`` (never raises: the caller reads the exit status)."""
    try:
        return subprocess.run(["systemctl", *args], capture_output=True, text=True, timeout=300)
    except (FileNotFoundError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess(["systemctl", *args], 1, "", str(error))


def service_state() -> dict[str, str]:
    """ActiveState, SubState, NRestarts and MainPID of the service."""
    done = systemctl("show", SERVICE, "--property=ActiveState,SubState,NRestarts,MainPID")
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def start_and_watch(watch: float) -> str | None:
    """Restart the service and watch it: None if it said READY=1 and stayed up ``watch`` seconds, else why not."""
    done = systemctl("restart", SERVICE)
    if done.returncode != 0:
        return "it did not start (no READY=1): journalctl -u baccarat -n 50 shows why"
    first = service_state()
    if first.get("ActiveState") != "active":
        return f"it is {first.get('ActiveState', 'unknown')} after the start"
    deadline = time.monotonic() + watch
    while time.monotonic() < deadline:
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        now = service_state()
        if now.get("NRestarts") != first.get("NRestarts") or now.get("MainPID") != first.get("MainPID"):
            return f"it stopped and was restarted within {watch:g} s: journalctl -u baccarat -n 50 shows why"
        if now.get("ActiveState") != "active":
            return f"it became {now.get('ActiveState', 'unknown')} within {watch:g} s"
    return None


# -- switching -----------------------------------------------------------------------------------------


def _link(link: Path, target: Path) -> None:
    """Point ``link`` at ``target`` (relative, replaced atomically)."""
    relative = os.path.relpath(target, link.parent)
    temp = link.with_name(f".{link.name}.new")
    temp.unlink(missing_ok=True)
    temp.symlink_to(relative)
    os.replace(temp, link)


def _state_format(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None


class Updater:
    """Installs, switches and rolls back releases in a :class:`Layout`."""

    def __init__(self, layout: Layout, *, keep: int = KEEP, watch: float = WATCH_SECONDS) -> None:
        self.layout = layout
        self.keep = keep
        self.watch = watch

    def running(self) -> Path | None:
        """The release ``current`` points at; an install without ``current`` (the single checkout of
        earlier versions) gets one pointing at itself."""
        layout = self.layout
        target = layout.target(layout.current)
        if target is not None:
            return target
        if (layout.base / ".venv" / "bin" / "baccarat").exists():
            _link(layout.current, layout.base)
            say(f"{layout.name(layout.base.resolve())} is now the release {layout.current.name} points at")
            return layout.base.resolve()
        return None

    def install(self, source: Path) -> int:
        """Install ``source`` and switch to it; 0 when it runs, 1 when it was rolled back."""
        layout = self.layout
        running = self.running()
        with unpacked(source) as (tree, commit):
            files = source_files(tree)
            version = release_version(tree, files, commit)
            release = layout.releases / version
            if running is not None and release == running:
                say(f"{version} is the version running; nothing to do")
                return 0
            if not (release / MARKER).is_file():
                self._build(tree, files, version, release, running)
            else:
                say(f"{version} is installed already (kept from before); switching to it")
        self._check_config(release)
        return self._switch(release, running, why="update")

    def rollback(self) -> int:
        """Switch back to ``previous``."""
        layout = self.layout
        running = self.running()
        before = layout.target(layout.previous)
        if before is None or not before.exists():
            raise UpdateError("there is no previous version to go back to")
        self._check_config(before)
        return self._switch(before, running, why="rollback")

    def _build(self, tree: Path, files: Sequence[Path], version: str, release: Path, running: Path | None) -> None:
        """Copy, venv, bytecode; the marker file last. The venv is made where it stays (its paths name its
        directory): a release without the marker is an interrupted build, made again from scratch."""
        self.layout.releases.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(release, ignore_errors=True)
        say(f"installing {version} from {tree}")
        try:
            copy_source(tree, files, release, version)
            how = make_venv(release, running)
            # Bytecode now, as root: the service cannot write under /opt (ProtectSystem=strict).
            python = release / ".venv" / "bin" / "python"
            run([python, "-m", "compileall", "-q", "-j", "0", "baccarat_core", "firmware", ".venv/lib"], cwd=release)
            reported = run([release / ".venv" / "bin" / "baccarat", "--version"]).strip()
            if reported != f"baccarat {version}":
                raise UpdateError(f"the new venv reports {reported!r}, not baccarat {version}")
            (release / MARKER).write_text(
                json.dumps({"version": version, "source": str(tree), "installed": time.time()}) + "\n",
                encoding="utf-8",
            )
        except BaseException:
            shutil.rmtree(release, ignore_errors=True)
            raise
        say(f"venv ready ({how})")

    def _check_config(self, release: Path) -> None:
        layout = self.layout
        if not layout.config.is_file():
            return
        command = [str(release / ".venv" / "bin" / "baccarat"), "check-config", str(layout.config)]
        if os.geteuid() == 0 and layout.root == Path("/"):
            try:
                pwd.getpwnam(USER)
                command = ["runuser", "-u", USER, "--", *command]
            except KeyError:
                pass
        try:
            run(command)
        except UpdateError as error:
            raise UpdateError(
                f"{layout.name(release)} refuses the config, so it was not switched to: {error}"
            ) from None

    def _switch(self, release: Path, running: Path | None, *, why: str) -> int:
        layout = self.layout
        before = layout.target(layout.previous)  # put back as it was if this switch fails
        state = layout.state_file()
        backup = state.with_name(state.name + ".before-update") if state is not None else None
        if state is not None and backup is not None and state.is_file():
            shutil.copy2(state, backup)
        self._point(release, running)
        say(f"{why}: restarting the service with {layout.name(release)}")
        problem = start_and_watch(self.watch)
        if problem is None:
            say(f"{layout.name(release)} runs: READY=1 came and it stayed up for {self.watch:g} s")
            self._prune()
            if running is not None:
                say(f"{layout.name(running)} is kept: `sudo baccarat update --rollback` goes back to it")
            return 0
        say(f"{layout.name(release)} failed: {problem}")
        if running is None:
            raise UpdateError("there is no earlier version to go back to")
        self._point(running, before)
        if state is not None and backup is not None and backup.is_file() and state.is_file():
            if _state_format(state) != _state_format(backup):
                shutil.copy2(backup, state)
                say("the game saved before the update is back (the new version had changed the state file's format)")
        again = start_and_watch(min(self.watch, 10.0))
        if again is None:
            say(f"rolled back: {layout.name(running)} runs again")
        else:
            say(f"rolled back to {layout.name(running)}, but it does not run either: {again}")
        if why == "update" and release.parent == layout.releases:
            shutil.rmtree(release, ignore_errors=True)
            say(f"removed {release.name}")
        return 1

    def _point(self, release: Path, before: Path | None) -> None:
        """``current`` at ``release`` (``previous`` at ``before``), its unit installed, the command linked."""
        layout = self.layout
        if before is not None and before != release:
            _link(layout.previous, before)
        else:
            layout.previous.unlink(missing_ok=True)
        _link(layout.current, release)
        unit = release / "firmware" / SERVICE
        if unit.is_file() and (not layout.unit.is_file() or layout.unit.read_bytes() != unit.read_bytes()):
            layout.unit.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(unit, layout.unit)
            systemctl("daemon-reload")
        layout.command.parent.mkdir(parents=True, exist_ok=True)
        _link(layout.command, layout.current / ".venv" / "bin" / "baccarat")

    def _prune(self) -> None:
        layout = self.layout
        keep = {layout.target(layout.current), layout.target(layout.previous)}
        releases = [p for p in layout.releases.iterdir() if (p / MARKER).is_file()]
        releases.sort(key=lambda p: (p / MARKER).stat().st_mtime, reverse=True)
        kept = sum(1 for p in keep if p is not None)
        for release in releases:
            if release.resolve() in keep:
                continue
            if kept < self.keep:
                kept += 1
                continue
            shutil.rmtree(release)
            say(f"removed {release.name} (keeping {self.keep} versions)")
        for unfinished in layout.releases.iterdir():  # a build that was interrupted
            if unfinished.is_dir() and not (unfinished / MARKER).is_file() and unfinished.resolve() not in keep:
                shutil.rmtree(unfinished, ignore_errors=True)


@contextmanager
def _locked(layout: Layout) -> Iterator[None]:
    layout.base.mkdir(parents=True, exist_ok=True)
    with open(layout.base / ".update.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UpdateError("another update is running") from None
        yield


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``baccarat update`` and ``scripts/update.sh``."""
    parser.add_argument("source", nargs="?", help="a git checkout, a directory or an archive (git archive) of the prop")
    parser.add_argument("--rollback", action="store_true", help="switch back to the previous version")
    parser.add_argument(
        "--keep", type=int, default=KEEP, help=f"versions kept, the running one included (default {KEEP})"
    )
    parser.add_argument(
        "--watch",
        type=float,
        default=WATCH_SECONDS,
        help=f"seconds the new version must stay up after READY=1 (default {WATCH_SECONDS:g})",
    )
    parser.add_argument("--root", default="/", help=argparse.SUPPRESS)  # a fake install for the tests


def main_with(args: argparse.Namespace) -> int:
    """Run an update or a rollback; errors are one line and exit 1."""
    layout = Layout(Path(args.root))
    if (args.source is None) == (not args.rollback):
        print("update: error: give a SOURCE to install, or --rollback", file=sys.stderr)
        return 2
    if args.keep < 2:
        print(
            f"update: error: --keep {args.keep}: keep at least 2 versions (the running one and the one before)",
            file=sys.stderr,
        )
        return 2
    if layout.root == Path("/") and os.geteuid() != 0:
        print("update: error: run it as root (sudo)", file=sys.stderr)
        return 1
    updater = Updater(layout, keep=args.keep, watch=args.watch)
    try:
        with _locked(layout):
            if args.rollback:
                return updater.rollback()
            return updater.install(Path(args.source).resolve())
    except UpdateError as error:
        print(f"update: error: {' '.join(str(error).split())}", file=sys.stderr)  # one line, whatever it quotes
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """``python3 -m firmware.releases [SOURCE] [--rollback] [--keep N] [--watch S]`` (scripts/update.sh)."""
    parser = argparse.ArgumentParser(prog="update", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return main_with(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
