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
   (``0.1.0+g1a2b3c4``; a source without git history gets a digest of its files, ``+h...``). An
   archive is unpacked by :mod:`firmware.updates.archive` (nothing outside its folder, sizes capped,
   free space checked first); the source and the venv are :mod:`firmware.updates.build`'s;
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
import json
import os
import pwd
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from firmware.updates.build import (
    UpdateError,
    check_room,
    copy_packages,
    copy_source,
    make_venv,
    release_version,
    run,
    say,
    source_files,
    unpacked,
)

__all__ = ["Layout", "UpdateError", "Updater", "copy_packages", "copy_source", "main", "source_files", "unpacked"]

SERVICE = "baccarat.service"
USER = "baccarat"
#: Versions kept by default: the one running and two before it.
KEEP = 3
#: Seconds the new version must stay up after READY=1.
WATCH_SECONDS = 60.0
MARKER = ".release.json"


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
        check_room(tree, files, release, running)
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
    """``python3 -m firmware.updates.releases [SOURCE] [--rollback] [--keep N] [--watch S]`` (scripts/update.sh)."""
    parser = argparse.ArgumentParser(prog="update", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return main_with(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
