"""Updates with a way back (issue 23, part 3): scripts/update.sh for real, in a fake install root.

The updater (firmware/updates/releases.py) runs as the Pi runs it, as root under the system's python3, on a
fake root: ``/opt/baccarat`` starts as the single checkout of earlier installs (the repository with
its .venv, its unit's ExecStart on that .venv). systemctl is a stand-in (tests/fake_systemctl.py)
that runs the unit's daemon on gpiozero's mock pins and reads its notify socket as ``Type=notify``
does. pip runs for real with no package index at all (``PIP_NO_INDEX``): a version whose
dependencies did not change installs offline.

In order, on one installation: a version whose daemon never says READY=1 is rolled back; one that
dies 2 s after READY=1 is rolled back; one that starts is kept; ``--rollback`` goes back by hand;
an archive made by ``git archive`` installs, and the oldest release is pruned. The game (the state
file) survives every step.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from firmware.updates import releases
from tests.conftest import ROOT
from tests.tiers import remove_later, seconds_left

#: The updates take minutes on a loaded machine; each step's own timeout is what is left of this
#: (tests.tiers.seconds_left), so a hung step fails with its output before the test does.
pytestmark = pytest.mark.timeout(600)
# The tests on the fake install are marked ``install`` (pip, venvs, a daemon started and watched);
# the ones on the state file and on archives run in the fast tier.

PYTHON = str(Path(sys.executable).resolve())  # the interpreter the suite's venv was made from
SYSTEMCTL = f"""#!/bin/sh
exec "{sys.executable}" "{ROOT / "tests" / "fake_systemctl.py"}" "$@"
"""


def _runtime_distributions() -> list[metadata.Distribution]:
    """baccarat-prop's dependencies (no extras), their own dependencies, pip and setuptools, as the
    suite's venv has them."""
    wanted = ["baccarat-prop", "pip", "setuptools"]
    seen: dict[str, metadata.Distribution] = {}
    while wanted:
        name = wanted.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = metadata.distribution(name)
        seen[key] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement.name)
    del seen["baccarat-prop"]
    return list(seen.values())


def _seed_venv(path: Path) -> Path:
    """A venv with the prop's runtime packages copied from the suite's: what a Pi's venv holds."""
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(path)], check=True)
    site = next(path.glob("lib/python*/site-packages"))
    for dist in _runtime_distributions():
        for file in dist.files or []:
            if str(file).startswith(".."):
                continue
            source = Path(dist.locate_file(file))
            if source.is_file():
                target = site / file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    return path


def _git_copy(dest: Path, *, message: str = "a release", patch: dict[str, tuple[str, str]] | None = None) -> Path:
    """This checkout's files as a git repository of its own, with ``patch`` (file: (old, new)) applied."""
    releases.copy_source(ROOT, releases.source_files(ROOT), dest)
    for name, (old, new) in (patch or {}).items():
        path = dest / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new, 1))
    git = ["git", "-C", str(dest), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", message], check=True)
    return dest


class Install:
    """The fake root, its stand-in service manager, and the sources to install."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "root"
        self.systemd = base / "systemd"
        self.bin = base / "bin"
        self.layout = releases.Layout(self.root)
        self.bin.mkdir(parents=True)
        (self.bin / "systemctl").write_text(SYSTEMCTL)
        (self.bin / "systemctl").chmod(0o755)
        (self.bin / "python3").symlink_to(PYTHON)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GPIOZERO_", "NOTIFY_", "VIRTUAL_"))},
            "PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin",
            "FAKE_ROOT": str(self.root),
            "FAKE_SYSTEMD_DIR": str(self.systemd),
            "PIP_NO_INDEX": "1",  # no package index: nothing may be downloaded
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }

    def legacy(self, seed: Path) -> None:
        """/opt/baccarat as the single checkout of earlier installs, its service started."""
        checkout = self.layout.base
        releases.copy_source(ROOT, releases.source_files(ROOT), checkout)
        unit = checkout / "firmware" / "baccarat.service"
        unit.write_text(unit.read_text().replace("/opt/baccarat/current/.venv", "/opt/baccarat/.venv"))
        assert releases.copy_packages(seed, checkout / ".venv", PYTHON)
        self.sh(["bash", "-c", '. scripts/_venv.sh ""'], cwd=checkout, PIP_NO_BUILD_ISOLATION="0")
        self.layout.unit.parent.mkdir(parents=True)
        shutil.copy2(unit, self.layout.unit)
        self.layout.config.parent.mkdir(parents=True)
        shutil.copy2(ROOT / "firmware" / "config" / "default-config.toml", self.layout.config)
        assert self.systemctl("restart", "baccarat.service").returncode == 0, self.journal()

    def sh(self, cmd: list[str], *, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            cmd, cwd=cwd, env={**self.env, **env}, capture_output=True, text=True, timeout=seconds_left()
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def systemctl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["systemctl", *args], env=self.env, capture_output=True, text=True, timeout=seconds_left(120)
        )

    def update(self, *args: str) -> subprocess.CompletedProcess:
        """``bash scripts/update.sh ARGS --root ROOT``, as root would run it on the Pi."""
        return subprocess.run(
            ["bash", str(ROOT / "scripts" / "update.sh"), *args, "--root", str(self.root)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=seconds_left(),
        )

    def command(self, payload: dict) -> dict:
        """One command over the running daemon's control socket."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(30)
            client.connect(str(self.root / "run" / "baccarat" / "control.sock"))
            client.sendall((json.dumps(payload) + "\n").encode())
            reply = json.loads(client.makefile().readline())
        assert reply["ok"], reply
        return reply["result"]

    def service(self) -> dict:
        return json.loads((self.systemd / "status.json").read_text())

    def journal(self) -> str:
        path = self.systemd / "journal.log"
        return path.read_text()[-3000:] if path.exists() else ""

    def current(self) -> str:
        return os.readlink(self.layout.current)


@pytest.fixture(scope="module")
def install():
    base = Path(tempfile.mkdtemp(prefix="bacup-", dir="/tmp"))  # socket paths stay short
    box = Install(base)
    try:
        box.legacy(_seed_venv(base / "seed"))
        box.command({"command": "set_solved", "solved": 2})
        box.command({"command": "force_solve"})
        yield box
    finally:
        box.systemctl("stop", "baccarat.service")
        remove_later(base)


def _game(box: Install) -> tuple:
    status = box.command({"command": "status"})
    return status["status"], status["edgework"]["solved"], status["deck"], status["limits"]["placard"]


@pytest.mark.install
def test_a_version_that_never_says_ready_is_rolled_back(install):
    game = _game(install)
    pid = install.service()["MainPID"]
    broken = ('    """Run until SIGTERM', '    raise SystemExit("broken on purpose")\n    """Run')
    source = _git_copy(install.base / "never-ready", patch={"firmware/app.py": broken})
    done = install.update(str(source), "--watch", "3")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    version = re.search(r"installing (\S+) from", out).group(1)
    assert re.fullmatch(r"0\.1\.0\+g[0-9a-f]{7}", version), version
    assert "venv ready (the running version's packages copied; pip fetched only what changed)" in out
    assert f"{version} failed: it did not start (no READY=1)" in out
    assert "rolled back: the checkout at /opt/baccarat runs again" in out
    assert install.current() == "." and not (install.layout.releases / version).exists()
    assert not install.layout.previous.is_symlink()  # as before the update: nothing to go back to
    assert "broken on purpose" in install.journal()
    service = install.service()
    assert service["ActiveState"] == "active" and service["MainPID"] not in (0, pid)
    assert _game(install) == game
    assert install.command({"command": "status"})["version"] == "0.1.0"  # the checkout's own


@pytest.mark.install
def test_a_version_that_stops_within_the_minute_is_rolled_back(install):
    game = _game(install)
    dies = (
        "    notifier = sdnotify.attach(daemon)",
        "    threading.Timer(2.0, os._exit, (1,)).start()  # READY=1, then gone\n"
        "    notifier = sdnotify.attach(daemon)",
    )
    source = _git_copy(install.base / "dies-later", patch={"firmware/app.py": dies})
    done = install.update(str(source), "--watch", "8")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "failed: it stopped and was restarted within 8 s" in done.stdout
    assert "rolled back: the checkout at /opt/baccarat runs again" in done.stdout
    assert install.current() == "."
    assert _game(install) == game


@pytest.mark.install
def test_a_version_that_starts_is_kept(install):
    game = _game(install)
    source = _git_copy(install.base / "good")
    done = install.update(str(source), "--watch", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    version = re.search(r"installing (\S+) from", done.stdout).group(1)
    assert f"{version} runs: READY=1 came and it stayed up for 3 s" in done.stdout
    assert "the checkout at /opt/baccarat is kept: `sudo baccarat update --rollback` goes back to it" in done.stdout
    layout = install.layout
    assert install.current() == f"releases/{version}" and os.readlink(layout.previous) == "."
    assert layout.unit.read_text() == (ROOT / "firmware" / "baccarat.service").read_text()
    assert "ExecStart=/opt/baccarat/current/.venv/bin/baccarat run" in layout.unit.read_text()
    assert "daemon-reload" in (install.systemd / "calls.log").read_text()
    assert (layout.command.parent / os.readlink(layout.command)).resolve() == (
        layout.releases / version / ".venv" / "bin" / "baccarat"
    )
    assert install.command({"command": "status"})["version"] == version
    assert _game(install) == game
    # The release's own command reports its version; the checkout is untouched.
    assert install.sh([str(layout.command), "--version"]).stdout.strip() == f"baccarat {version}"
    assert (layout.base / ".venv" / "bin" / "baccarat").exists()
    # The room's language comes with it: its catalogs compiled by the release's own install (build
    # output, never in the source).
    for po in (ROOT / "firmware" / "locale").glob("*/LC_MESSAGES/baccarat.po"):
        assert (layout.releases / version / po.relative_to(ROOT).with_suffix(".mo")).is_file(), po
    again = install.update(str(source), "--watch", "3")
    assert again.returncode == 0 and f"{version} is the version running; nothing to do" in again.stdout


@pytest.mark.install
def test_rollback_by_hand_and_an_archive_and_pruning(install):
    game = _game(install)
    kept = os.readlink(install.layout.current)
    done = install.update("--rollback", "--watch", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert install.current() == "." and os.readlink(install.layout.previous) == kept
    assert install.command({"command": "status"})["version"] == "0.1.0"
    assert _game(install) == game
    # An archive of a later commit, as `git archive` makes it: its commit comes from the archive.
    source = install.base / "good"
    (source / "NOTES.txt").write_text("a later commit\n")
    subprocess.run(["git", "-C", str(source), "add", "NOTES.txt"], check=True)
    subprocess.run(
        ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "later"],
        check=True,
    )
    commit = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    archive = install.base / "baccarat.tar.gz"
    subprocess.run(
        ["git", "-C", str(source), "archive", "--format=tar.gz", "--prefix=baccarat/", "-o", str(archive), "HEAD"],
        check=True,
    )
    done = install.update(str(archive), "--watch", "2", "--keep", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    version = f"0.1.0+g{commit[:7]}"
    assert install.current() == f"releases/{version}"
    assert install.command({"command": "status"})["version"] == version
    # Two versions kept: the one running and the checkout before it; the other release is gone.
    assert f"removed {Path(kept).name} (keeping 2 versions)" in done.stdout
    assert sorted(p.name for p in install.layout.releases.iterdir()) == [version]
    assert _game(install) == game


@pytest.mark.install
def test_bad_sources_and_options_are_one_line(install, tmp_path):
    (tmp_path / "notes.txt").write_text("not the prop\n")
    for args, message in [
        ([str(tmp_path)], f"update: error: {tmp_path} holds no pyproject.toml: not a copy of the prop's repository"),
        ([str(tmp_path / "notes.txt")], "is not an archive this can read"),
        ([str(tmp_path), "--keep", "1"], "update: error: --keep 1: keep at least 2 versions"),
    ]:
        done = install.update(*args)
        assert done.returncode in (1, 2) and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# -- the state file across versions ------------------------------------------------------------------


def _saved(tmp_path, fmt: int):
    """A state file of format ``fmt`` holding a game with 2 strikes."""
    import random

    from baccarat_core import BaccaratModule
    from firmware.room import saved_state
    from tests.conftest import make_config

    config = make_config(state={"file": str(tmp_path / "state.json")})
    module = BaccaratModule(config.edgework, config.limits, rng=random.Random(1), first_color="red")
    module.start()
    module.strikes = 2
    document = {"version": fmt, "config": saved_state.fingerprint(config), "module": module.snapshot()}
    (tmp_path / "state.json").write_text(json.dumps(document))
    return config


def test_a_state_file_from_a_newer_version_is_one_line_and_a_fresh_game(tmp_path, caplog):
    import random

    from firmware.room import saved_state

    config = _saved(tmp_path, saved_state.VERSION + 1)
    assert saved_state.restore(config, random.Random(1)) is None
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        f"state file {tmp_path / 'state.json'}: it was saved by a newer version of the prop, in format "
        f"{saved_state.VERSION + 1}; this one reads {saved_state.VERSION}; starting a fresh game"
    ]


def test_an_older_state_file_is_migrated_or_named(tmp_path, caplog, monkeypatch):
    import random

    from firmware.room import saved_state

    monkeypatch.setattr(saved_state, "VERSION", 2)
    config = _saved(tmp_path, 1)
    assert saved_state.restore(config, random.Random(1)) is None
    assert "it was saved in format 1, which this version no longer reads (2); starting a fresh game" in caplog.text
    # With a migration from format 1, the game an older version saved is read.
    steps = []
    monkeypatch.setattr(saved_state, "MIGRATIONS", {1: lambda document: steps.append(1) or document})
    module = saved_state.restore(config, random.Random(1))
    assert steps == [1] and module is not None and module.strikes == 2


# -- archives on a Python without tarfile's extraction filters (Debian 12's 3.11.2) -------------------


def _tar(path: Path, members: list[tuple[str, str, str]]) -> Path:
    """A tar.gz of (kind, name, content or link target): kind "file", "exe", "dir", "link" or "fifo"."""
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as archive:
        for kind, name, content in members:
            info = tarfile.TarInfo(name)
            data = None
            if kind in ("file", "exe"):
                data = content.encode()
                info.size = len(data)
                info.mode = 0o4755 if kind == "exe" else 0o666  # set-id and world-writable: dropped
            elif kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif kind == "link":
                info.type, info.linkname = tarfile.SYMTYPE, content
            else:
                info.type = tarfile.FIFOTYPE
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


@pytest.fixture(params=["filters", "no filters"])
def tar_python(request, monkeypatch):
    """Each archive test twice: with tarfile's ``data`` filter, and as on Python 3.11.2 without it."""
    import tarfile

    if request.param == "no filters":  # as Python 3.11.2 is: neither the filters nor their errors
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
        monkeypatch.delattr(tarfile, "FilterError", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile filters (before 3.11.4): the no-filters variant is its case")
    return request.param


def test_a_file_that_is_no_archive_is_one_line(tmp_path, tar_python):
    (tmp_path / "notes.txt").write_text("not the prop\n")
    with pytest.raises(releases.UpdateError, match="is not an archive this can read"):
        with releases.unpacked(tmp_path / "notes.txt"):
            pass


def test_an_archive_unpacks_its_files_with_plain_modes(tmp_path, tar_python):
    source = _tar(
        tmp_path / "r.tar.gz",
        [
            ("dir", "baccarat", ""),
            ("file", "baccarat/pyproject.toml", "[project]\n"),
            ("exe", "baccarat/scripts/start.sh", "#!/bin/sh\n"),
            ("link", "baccarat/docs/manual", "../pyproject.toml"),
        ],
    )
    with releases.unpacked(source) as (tree, _):
        assert (tree / "pyproject.toml").read_text() == "[project]\n"
        assert (tree / "scripts" / "start.sh").stat().st_mode & 0o7777 == 0o755
        assert (tree / "pyproject.toml").stat().st_mode & 0o022 == 0
        assert os.readlink(tree / "docs" / "manual") == "../pyproject.toml"


@pytest.mark.parametrize(
    ("member", "word"),
    [
        (("file", "../outside.txt", "x"), "outside"),
        (("file", "{tmp}/outside.txt", "x"), None),  # the filter unpacks it below the tree instead
        (("link", "baccarat/escape", "/etc/passwd"), "outside|absolute"),
        (("link", "baccarat/escape", "../../etc"), "outside"),
        (("fifo", "baccarat/pipe", ""), "special|not a file"),
    ],
)
def test_an_archive_that_reaches_outside_its_tree_is_refused_whole(tmp_path, monkeypatch, tar_python, member, word):
    work = tmp_path / "work"  # the updater unpacks in work/baccarat-update-XXXX: ../ is work/
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    kind, name, content = member
    source = _tar(
        tmp_path / "bad.tar.gz",
        [("file", "baccarat/pyproject.toml", "[project]\n"), (kind, name.format(tmp=work), content)],
    )
    with pytest.raises(releases.UpdateError, match=word):
        with releases.unpacked(source):
            pass
    assert not (work / "outside.txt").exists()
