"""scripts/_venv.sh for real: the Raspberry Pi path, a venv without pip, no root and no sudo,
switching between start.sh and test.sh; and install-service.sh for real (who reads the config,
who uses the control socket).

The scripts run for real in a copy of the repository: real bash, a real venv, real pip. Only the
bottom is faked: the Pi's /proc/device-tree/model (BACCARAT_MODEL_FILE), and apt-get, dpkg and
sudo (stand-ins on PATH that keep a package list and put in place the Python modules each package
provides, as the real ones would). PATH holds only the stand-ins and the tools the scripts use, so
a machine's real sudo or apt-get can never be reached. Run as a user without root, every test
passes but the service install's, which needs root and is skipped with that reason (-rs shows it).

pip installs from a wheelhouse (:func:`wheelhouse`): every wheel a copy may need, downloaded once
and kept beside the suite's venv, so that a copy's pip reads no package index (``PIP_NO_INDEX``);
a pip run that should not happen still fails, as the offline runs check. Each subprocess may take
what is left of its test's time (:func:`tests.tiers.seconds_left`), so a hung step fails with its
own output before the test's timeout.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.namespace import SYSTEM_IN_OVERLAYS, run_private
from tests.tiers import remove_later, seconds_left

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_PYTHON = "/usr/bin/python3"  # Debian's own, which keeps ensurepip in python3-venv
#: Installs take minutes on a loaded machine; a step's own timeout is what is left of this.
pytestmark = [pytest.mark.install, pytest.mark.timeout(600)]
TOOLS = ("bash", "id", "tr", "grep", "awk", "rm", "tail", "env", "dirname", "cat", "cut", "sha256sum", "mkdir")

FAKE_APT = r"""#!/bin/bash
# Stand-in for apt-get: logs its arguments; "install" adds the packages to the fake dpkg database
# and puts in place the Python modules each one provides.
echo "apt-get $*" >> "$FAKE_ROOT/apt.log"
[ "$1" = install ] || exit 0
for arg in "$@"; do
  case "$arg" in -*|install) continue;; esac
  echo "$arg" >> "$FAKE_ROOT/dpkg.db"
  case "$arg" in
    python3-lgpio) : > "$FAKE_ROOT/dist/lgpio.py";;
    python3-spidev) : > "$FAKE_ROOT/dist/spidev.py";;
    python3-rpi-lgpio|python3-rpi.gpio)
      mkdir -p "$FAKE_ROOT/dist/RPi"; : > "$FAKE_ROOT/dist/RPi/__init__.py"; : > "$FAKE_ROOT/dist/RPi/GPIO.py";;
    python3-venv) rm -rf "$FAKE_ROOT/no-ensurepip/ensurepip";;
  esac
done
"""
FAKE_DPKG = r"""#!/bin/bash
# Stand-in for dpkg -s PACKAGE: installed when the fake database lists it.
[ "$1" = -s ] && grep -qx -- "$2" "$FAKE_ROOT/dpkg.db" 2>/dev/null
"""
FAKE_SUDO = r"""#!/bin/bash
# Stand-in for sudo: logs and runs the command (as the same user).
echo "sudo $*" >> "$FAKE_ROOT/sudo.log"
exec "$@"
"""


def _version(python: str) -> tuple[int, int]:
    """The major and minor version of the interpreter at ``python``."""
    if Path(python).resolve() == Path(sys.executable).resolve():
        return sys.version_info[:2]
    said = subprocess.run(
        [python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, check=True
    )
    major, minor = said.stdout.split()
    return int(major), int(minor)


def _wheelhouse_key(version: tuple[int, int]) -> str:
    """What a wheelhouse depends on: the project's requirements, the Python it is for and the machine."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(f"{version} {platform.machine()}".encode())
    return digest.hexdigest()[:16]


def _wheelhouse(tmp_path_factory, version: tuple[int, int]) -> Path | None:
    """The wheelhouse for a copy whose python3 is ``version`` (see :func:`wheelhouse`); None if it
    cannot be made. For a Python other than the suite's own, pip downloads that version's wheels
    (``--python-version``, wheels only: pip cannot build for an interpreter it does not run)."""
    in_venv = sys.prefix != sys.base_prefix
    home = Path(sys.prefix) / "wheelhouse" if in_venv else tmp_path_factory.getbasetemp() / "wheelhouse"
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o755)
    folder = home / _wheelhouse_key(version)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if folder.is_dir():
            return folder
        keep = {_wheelhouse_key(sys.version_info[:2]), _wheelhouse_key(_version(DEBIAN_PYTHON))}
        for old in home.iterdir():
            if old.is_dir() and old.name not in keep:
                shutil.rmtree(old, ignore_errors=True)  # an older pyproject's, or a download cut short
        partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=home))
        download = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "-d", str(partial)]
        if version != sys.version_info[:2]:
            download += ["--python-version", "{}.{}".format(*version), "--only-binary=:all:"]
        done = subprocess.run(
            [*download, f"{ROOT}[sim,test]", "setuptools>=70.1"], capture_output=True, text=True, timeout=seconds_left()
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            return None
        for path in [partial, *partial.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        partial.rename(folder)
    return folder


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Path | None:
    """A folder with a wheel of every package the copies install (the project's dependencies with
    its ``sim`` and ``test`` extras, and the setuptools that builds it), for ``PIP_FIND_LINKS``
    with ``PIP_NO_INDEX``. Downloaded once from the package index into the suite's venv
    (``.venv/wheelhouse/KEY``, made again when pyproject.toml changes), under a lock, so later runs
    and pytest-xdist's other workers reuse it. None if it cannot be made: the copies' pip then asks
    the index itself."""
    return _wheelhouse(tmp_path_factory, sys.version_info[:2])


@pytest.fixture(scope="session")
def public_wheelhouse(tmp_path_factory) -> Iterator[Path | None]:
    """The wheelhouse for Debian's python3 (:data:`DEBIAN_PYTHON`, which the unprivileged copies
    run), where any user can read it: the suite's own is under the checkout, which may be in a home
    only its owner can enter (``/root`` is 0700), and nobody, whom the tests become as root, could
    not read it. Hard links (a copy across file systems) in a folder of /tmp, removed after."""
    source = _wheelhouse(tmp_path_factory, _version(DEBIAN_PYTHON))
    if source is None:
        yield None
        return
    public = Path(tempfile.mkdtemp(prefix="baccarat-wheels-"))
    try:
        public.chmod(0o755)
        for wheel in source.iterdir():
            try:
                os.link(wheel, public / wheel.name)
            except OSError:
                shutil.copy2(wheel, public / wheel.name)
        yield public
    finally:
        remove_later(public)


class Sandbox:
    """A copy of the repository with fake apt-get, dpkg and (optionally) sudo on a closed PATH; its
    pip installs from ``wheels`` (see :func:`wheelhouse`) when given."""

    def __init__(self, base: Path, python: str, *, sudo: bool = False, wheels: Path | None = None):
        self.base = base
        self.wheels = wheels
        self.repo = base / "repo"
        self.fake = base / "fake"
        for name in ("baccarat_core", "firmware", "scripts"):
            shutil.copytree(ROOT / name, self.repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, self.repo / name)
        bin_dir = self.fake / "bin"
        bin_dir.mkdir(parents=True)
        (self.fake / "dist").mkdir()
        (self.fake / "home").mkdir()
        (self.fake / "dpkg.db").write_text("")
        scripts = {"apt-get": FAKE_APT, "dpkg": FAKE_DPKG} | ({"sudo": FAKE_SUDO} if sudo else {})
        for name, text in scripts.items():
            (bin_dir / name).write_text(text)
            (bin_dir / name).chmod(0o755)
        for tool in TOOLS:
            (bin_dir / tool).symlink_to(shutil.which(tool))
        (bin_dir / "python3").symlink_to(python)

    def installed(self, *packages: str) -> None:
        """Packages the fake dpkg reports as installed (their modules in place)."""
        (self.fake / "dpkg.db").write_text("".join(f"{p}\n" for p in packages))

    def without_ensurepip(self) -> None:
        """Hide ensurepip, as a Debian without python3-venv does; fake apt brings it back."""
        package = self.fake / "no-ensurepip" / "ensurepip"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'ensurepip'\")\n")
        (package / "__main__.py").write_text("import ensurepip\n")

    def log(self, name: str) -> list[str]:
        """The lines a stand-in logged."""
        path = self.fake / f"{name}.log"
        return path.read_text().splitlines() if path.exists() else []

    def run(
        self,
        *extras: str,
        model: str | None = None,
        user: int | None = None,
        script: str | None = None,
        offline: bool = False,
    ) -> subprocess.CompletedProcess:
        """Source scripts/_venv.sh in the copy, as start.sh and test.sh do (or run ``scripts/SCRIPT``).

        ``offline``: pip reaches no package index and no configured wheel folder, as on a machine
        without a network, so a pip run that needs to fetch anything fails.
        """
        env = {
            "PATH": str(self.fake / "bin"),
            "HOME": str(self.fake / "home"),
            "FAKE_ROOT": str(self.fake),
            "PYTHONPATH": os.pathsep.join([str(self.fake / "no-ensurepip"), str(self.fake / "dist")]),
            "LANG": "C.UTF-8",
            # root reuses the suite's download cache; another user gets its own
            "PIP_CACHE_DIR": str(self.fake / "home" / "pip-cache")
            if user is not None
            else os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
        }
        env |= {k: v for k, v in os.environ.items() if k in ("PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT")}
        if self.wheels is not None:
            env |= {"PIP_FIND_LINKS": str(self.wheels), "PIP_NO_INDEX": "1"}
        if offline:
            env.pop("PIP_FIND_LINKS", None)
            env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}
        model_file = self.fake / "model"
        if model is not None:
            model_file.write_bytes(model.encode() + b"\0")
        env["BACCARAT_MODEL_FILE"] = str(model_file)
        if script is not None:
            cmd = ["bash", f"scripts/{script}", *extras]
        else:
            cmd = ["bash", "-c", '. scripts/_venv.sh "$@"', "_venv", *extras]
        if user is not None:
            setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
            cmd = [setpriv, f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
        return subprocess.run(cmd, cwd=self.repo, env=env, capture_output=True, text=True, timeout=seconds_left())

    def script(self, name: str, *args: str, model: str) -> subprocess.CompletedProcess:
        """Run one of the copy's scripts as a user would (bash scripts/NAME ARGS)."""
        (self.fake / "model").write_bytes(model.encode() + b"\0")
        env = {
            "PATH": str(self.fake / "bin"),
            "HOME": str(self.fake / "home"),
            "FAKE_ROOT": str(self.fake),
            "PYTHONPATH": str(self.fake / "dist"),
            "BACCARAT_MODEL_FILE": str(self.fake / "model"),
            "LANG": "C.UTF-8",
        }
        return subprocess.run(
            ["bash", f"scripts/{name}", *args],
            cwd=self.repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=seconds_left(),
        )

    def venv_python(self, *code: str) -> subprocess.CompletedProcess:
        """Run the copy's .venv python."""
        return subprocess.run(
            [str(self.repo / ".venv" / "bin" / "python"), *code],
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=seconds_left(60),
        )

    def system_site(self) -> bool:
        """Whether the copy's venv sees the system's site-packages."""
        cfg = (self.repo / ".venv" / "pyvenv.cfg").read_text()
        return "include-system-site-packages = true" in cfg


def _base_python() -> str:
    """The interpreter the suite's venv was made from (python3 on PATH when test.sh ran)."""
    return str(Path(sys.executable).resolve())


# --- the Raspberry Pi path ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pi(tmp_path_factory, wheelhouse):
    """A copy installed once as on a fresh Raspberry Pi 5: what the first run did.

    With the sudo stand-in, so that a user other than root gets as far as root does (as root the
    scripts never call sudo).
    """
    box = Sandbox(tmp_path_factory.mktemp("pi"), _base_python(), sudo=True, wheels=wheelhouse)
    first = box.run(model="Raspberry Pi 5 Model B Rev 1.0")
    return box, first, box.log("apt")


#: What a Pi gets from apt-get besides the RPi.GPIO API: the compiled pieces, and the casing PNG's font.
PI_PACKAGES = {
    line.split()[0]
    for line in (ROOT / "scripts" / "pi-os-packages.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
} | {"fonts-dejavu-core"}


def _installed_by_apt(lines: list[str]) -> set[str]:
    return {
        word
        for line in lines
        if line.startswith("apt-get install")
        for word in line.split()[2:]
        if not word.startswith("-")
    }


def test_a_fresh_pi_gets_the_compiled_pieces_from_the_os_and_the_rest_from_pip(pi):
    box, first, apt = pi
    assert first.returncode == 0, first.stderr
    assert apt[0] == "apt-get update -qq"
    assert _installed_by_apt(apt) == PI_PACKAGES | {"python3-rpi-lgpio"}
    assert box.system_site(), "the Pi's venv must see the OS's packages"
    # The project and its pure-Python dependencies are in the venv, ready to run.
    run = box.venv_python("-m", "firmware.cli", "check-config", "firmware/config/default-config.toml")
    assert run.returncode == 0 and "GPIO5" in run.stdout, run.stderr
    pip_list = box.venv_python("-m", "pip", "list", "--format=freeze").stdout.lower()
    assert "gpiozero==2.0.1.post3" in pip_list and "luma.oled" in pip_list
    assert "lgpio" not in pip_list and "spidev" not in pip_list, "pip must not fetch what the OS provides"


def test_a_second_run_on_the_pi_installs_nothing_again(pi):
    box, first, _ = pi
    cfg = box.repo / ".venv" / "pyvenv.cfg"
    before = cfg.stat().st_mtime_ns
    lines_before = len(box.log("apt"))
    again = box.run(model="Raspberry Pi 5 Model B Rev 1.0")
    assert again.returncode == 0, again.stderr
    assert box.log("apt")[lines_before:] == []
    assert cfg.stat().st_mtime_ns == before, "a healthy venv is kept"
    assert again.stderr == ""


def test_an_older_pi_keeps_the_rpi_gpio_package_it_has(pi):
    box, _, _ = pi
    box.installed("python3-rpi.gpio")
    lines_before = len(box.log("apt"))
    run = box.run(model="Raspberry Pi 4 Model B Rev 1.5")
    assert run.returncode == 0, run.stderr
    assert _installed_by_apt(box.log("apt")[lines_before:]) == PI_PACKAGES


def test_a_pi_5_replaces_rpi_gpio_with_rpi_lgpio(pi):
    box, _, _ = pi
    box.installed("python3-rpi.gpio", *PI_PACKAGES)
    lines_before = len(box.log("apt"))
    run = box.run(model="Raspberry Pi 5 Model B Rev 1.0")
    assert run.returncode == 0, run.stderr
    assert _installed_by_apt(box.log("apt")[lines_before:]) == {"python3-rpi-lgpio"}
    assert "python3-rpi-lgpio replaces python3-rpi.gpio" in run.stderr


def test_a_missing_binding_is_named_in_one_line(pi):
    box, _, _ = pi
    box.installed("python3-rpi-lgpio", *PI_PACKAGES)
    spidev = box.fake / "dist" / "spidev.py"
    spidev.unlink()
    try:
        run = box.run(model="Raspberry Pi 5 Model B Rev 1.0")
    finally:
        spidev.write_text("")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        "error: the venv cannot use Raspberry Pi OS's packages (ModuleNotFoundError: No module named 'spidev')"
    ]


def test_a_pi_venv_that_cannot_see_the_os_packages_is_made_again(pi):
    box, _, _ = pi
    box.installed("python3-rpi-lgpio", *PI_PACKAGES)
    cfg = box.repo / ".venv" / "pyvenv.cfg"
    cfg.write_text(cfg.read_text().replace("site-packages = true", "site-packages = false"))
    run = box.run(model="Raspberry Pi 5 Model B Rev 1.0")
    assert run.returncode == 0, run.stderr
    assert box.system_site()


def test_start_sh_on_a_pi_runs_the_daemon_with_its_arguments(pi):
    box, _, _ = pi
    box.installed("python3-rpi-lgpio", *PI_PACKAGES)
    run = box.script("start.sh", "--help", model="Raspberry Pi Zero 2 W Rev 1.0")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: baccarat run"), run.stdout


# --- a venv that repairs itself (on a PC) -----------------------------------------------------------


def test_a_venv_without_pip_is_repaired(tmp_path, wheelhouse):
    box = Sandbox(tmp_path, _base_python(), wheels=wheelhouse)
    subprocess.run([_base_python(), "-m", "venv", "--without-pip", str(box.repo / ".venv")], check=True)
    assert box.venv_python("-m", "pip", "--version").returncode != 0
    run = box.run()
    assert run.returncode == 0, run.stderr
    assert box.venv_python("-m", "pip", "--version").returncode == 0
    assert box.venv_python("-c", "import firmware.cli, gpiozero, luma.oled").returncode == 0
    assert not box.system_site(), "a PC's venv stays plain"
    assert run.stdout + run.stderr == "", "quiet when nothing is wrong"
    assert box.log("apt") == []


def test_switching_between_start_and_test_never_reinstalls(tmp_path, wheelhouse):
    """test.sh (extra "test"), then start.sh (extra "sim") and the service install (no extra), offline:
    what is installed already covers them, so pip must not run (it would fail without a network)."""
    box = Sandbox(tmp_path, _base_python(), wheels=wheelhouse)
    first = box.run("test")
    assert first.returncode == 0, first.stderr
    stamp = box.repo / ".venv" / ".baccarat-installed"
    written = stamp.read_text()
    for extras in ("sim", "", "test", "sim"):
        again = box.run(extras, offline=True)
        assert again.returncode == 0, f"extras {extras!r} ran pip again: {again.stderr}"
        assert again.stdout + again.stderr == ""
        assert stamp.read_text() == written
    # A pyproject.toml that changed installs again, keeping every extra installed so far.
    pyproject = box.repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n")
    changed = box.run("sim")
    assert changed.returncode == 0, changed.stderr
    assert stamp.read_text() != written and set(stamp.read_text().split("extras=")[1].split()) == {"sim", "test"}
    assert box.run("test", offline=True).returncode == 0


NOBODY = 65534
AS_ROOT = os.geteuid() == 0


def _unprivileged_sandbox(base: Path, sudo: bool, wheels: Path | None) -> tuple[Sandbox, int | None]:
    """A copy for a user without root, and the uid to run it as.

    As root: handed to nobody, whom setpriv becomes. Otherwise: the user running the tests, who is
    already without root.
    """
    base.chmod(0o755)
    box = Sandbox(base, DEBIAN_PYTHON, sudo=sudo, wheels=wheels)
    box.without_ensurepip()
    # What a first run as this user left behind before the fix: a .venv without pip.
    subprocess.run([DEBIAN_PYTHON, "-m", "venv", "--without-pip", str(box.repo / ".venv")], check=True)
    if not AS_ROOT:
        return box, None
    for path in [base, *base.rglob("*")]:
        os.lchown(path, NOBODY, NOBODY)
    return box, NOBODY


@pytest.fixture
def unprivileged_base():
    """A folder nobody can enter (pytest's own is private to the user running the tests), removed after."""
    base = Path(tempfile.mkdtemp(prefix="baccarat-venv-"))
    try:
        yield base
    finally:
        remove_later(base)


def test_without_root_or_sudo_it_says_in_one_line_what_to_run_as_root(unprivileged_base, public_wheelhouse):
    box, user = _unprivileged_sandbox(unprivileged_base, sudo=False, wheels=public_wheelhouse)
    run = box.run(user=user)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "error: python3-venv missing and no sudo here; as root, run: apt-get install -y python3-venv"
    ]
    assert "ensurepip is not available" not in run.stdout + run.stderr
    assert box.log("apt") == []


def _test_packages() -> str:
    """The test command's own apt list (scripts/test.sh says it once)."""
    text = (ROOT / "scripts" / "test.sh").read_text()
    listed = re.search(r"^apt_packages=\((.*)\)$", text, re.M)
    assert listed, "scripts/test.sh has no apt_packages=(...) line"
    return " ".join(listed.group(1).split())


TEST_PACKAGES = _test_packages()


def test_test_sh_without_root_or_sudo_names_every_missing_package_at_once(unprivileged_base, public_wheelhouse):
    box, user = _unprivileged_sandbox(unprivileged_base, sudo=False, wheels=public_wheelhouse)
    run = box.run(user=user, script="test.sh")
    assert run.returncode == 1
    missing = f"python3-venv {TEST_PACKAGES}"
    assert run.stderr.splitlines() == [
        f"error: {missing} missing and no sudo here; as root, run: apt-get install -y {missing}"
    ]
    assert box.log("apt") == []


def test_with_sudo_it_installs_python3_venv_and_repairs_the_venv(unprivileged_base, public_wheelhouse):
    box, user = _unprivileged_sandbox(unprivileged_base, sudo=True, wheels=public_wheelhouse)
    run = box.run(user=user)
    assert run.returncode == 0, run.stderr
    assert box.log("sudo") == [
        "sudo apt-get update -qq",
        "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv",
    ]
    assert run.stderr.splitlines() == ["installing python3-venv with apt-get"]
    assert box.venv_python("-m", "pip", "--version").returncode == 0
    assert box.venv_python("-c", "import firmware.cli, gpiozero, luma.oled").returncode == 0


def test_the_shell_scripts_pass_shellcheck():
    tool = shutil.which("shellcheck")
    assert tool, "shellcheck is missing: scripts/test.sh installs it"
    scripts = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "scripts").glob("*.sh"))
    run = subprocess.run([tool, "-x", *scripts], cwd=ROOT, capture_output=True, text=True, timeout=seconds_left(60))
    assert run.returncode == 0, run.stdout


# --- the service install: who may read the config, who may use the control socket -------------------

SERVICE_INSTALL = (
    SYSTEM_IN_OVERLAYS
    + r"""
repo=$2
mkdir -p /opt/baccarat "$work/bin"
tar -C "$repo" --exclude=./.venv --exclude-vcs --exclude=__pycache__ --exclude='*.egg-info' \
  --exclude=./.hypothesis --exclude=./.ruff_cache -cf - . | tar -C /opt/baccarat -xf -
printf '#!/bin/sh\necho "systemctl $*" >>"%s/systemctl.log"\n' "$work" >"$work/bin/systemctl"
chmod +x "$work/bin/systemctl"
export PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin"
say() { echo "$1=$2" >>"$work/results"; }
as() { local who=$1; shift; setpriv --reuid "$who" --regid "$who" --init-groups "$@"; }

bash /opt/baccarat/scripts/install-service.sh >"$work/install.log" 2>&1
say install $?
# A game master joins the group the README names; another user joins nothing.
useradd -m gm && usermod -aG baccarat-control gm && useradd -m other
say gm_joined $?
as gm cat /etc/baccarat/config.toml >/dev/null 2>&1
say gm_reads_config $?
# The daemon as systemd starts it: the unit's user, groups, umask and directories.
unit=/opt/baccarat/firmware/baccarat.service
group=$(sed -n 's/^Group=//p' "$unit")
groups=$(sed -n 's/^SupplementaryGroups=//p' "$unit")
install -d -o baccarat -g "$group" -m "$(sed -n 's/^RuntimeDirectoryMode=//p' "$unit")" /run/baccarat
install -d -o baccarat -g "$group" -m "$(sed -n 's/^StateDirectoryMode=//p' "$unit")" "$work/state"
(
  umask "$(sed -n 's/^UMask=//p' "$unit")"
  exec setpriv --reuid baccarat --regid "$group" --groups "${groups// /,}" env -i PATH=/usr/bin:/bin \
    RUNTIME_DIRECTORY=/run/baccarat STATE_DIRECTORY="$work/state" HOME=/var/lib/baccarat \
    GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin \
    /opt/baccarat/.venv/bin/baccarat run --config /etc/baccarat/config.toml
) >"$work/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null' EXIT
for _ in $(seq 120); do [ -S /run/baccarat/control.sock ] && break; sleep 0.25; done
as gm /opt/baccarat/.venv/bin/baccarat status >"$work/gm-status.log" 2>&1
say gm_status $?
as other /opt/baccarat/.venv/bin/baccarat status >"$work/other-status.log" 2>&1
say other_status $?
# A game master an earlier install put in the baccarat group (its README said so) is moved.
useradd -m oldgm && usermod -aG baccarat oldgm
bash /opt/baccarat/scripts/install-service.sh >"$work/reinstall.log" 2>&1
say reinstall $?
say oldgm_groups "$(id -nG oldgm | tr ' ' ',')"
say baccarat_members "$(getent group baccarat | cut -d: -f4)"
"""
)


@pytest.mark.skipif(not AS_ROOT, reason="needs root: it makes users and groups (in overlays, in a mount namespace)")
def test_the_control_socket_group_cannot_read_the_configs_secrets(tmp_path, public_wheelhouse):
    """install-service.sh for real, in a mount namespace whose /etc and /opt are overlays (users,
    groups and files stay in tmp_path); only systemctl is a stand-in. A game master in the group the
    README names uses the socket of a daemon started as the unit says, and cannot read the config;
    another user gets a message naming the group; an earlier install's game master is moved."""
    # The install runs the system's python3 (DEBIAN_PYTHON), whose version the suite's may not be.
    pip = {"PIP_FIND_LINKS": str(public_wheelhouse), "PIP_NO_INDEX": "1"} if public_wheelhouse else {}
    run = run_private(SERVICE_INSTALL, tmp_path, str(ROOT), timeout=seconds_left(), env=pip)
    assert (tmp_path / "results").exists(), run.stderr

    def log(name: str) -> str:
        path = tmp_path / name
        return path.read_text() if path.exists() else f"({name} missing)"

    results = dict(line.split("=", 1) for line in log("results").splitlines())
    assert results.get("install") == "0", (run.stderr, log("install.log")[-3000:])
    assert results["gm_joined"] == "0", "the README's group for game masters must exist"
    assert results["gm_reads_config"] != "0", "a game master must not read the config's secrets"
    assert results["gm_status"] == "0", (log("gm-status.log"), log("daemon.log")[-3000:])
    assert "armed" in log("gm-status.log")
    assert results["other_status"] != "0"
    assert "join its group: sudo usermod -aG baccarat-control $USER" in log("other-status.log")
    assert results["reinstall"] == "0", log("reinstall.log")[-3000:]
    assert "baccarat-control" in results["oldgm_groups"].split(","), results
    assert "baccarat" not in results["oldgm_groups"].split(","), results
    assert results["baccarat_members"] in ("", "baccarat"), results
    assert "moved oldgm from the baccarat group" in log("reinstall.log")
