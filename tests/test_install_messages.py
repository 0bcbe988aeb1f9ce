"""Installing where it cannot work as it stands (issue 35, item 10): each a clear line saying what to do,
never a traceback or a tool's raw error.

- ``scripts/check_pi_wheels.py`` with pip slower than its timeout (a real timeout: 0.01 s);
- ``scripts/_venv.sh`` on 32-bit ARM off a Pi, where the package index has no pygame wheel for the
  simulator (the machine faked at the bottom: ``uname``);
- ``scripts/_venv.sh``'s Pi path on a Debian whose apt knows no ``python3-lgpio`` (a stand-in apt-get
  that answers as apt does);
- pip failing for any reason (for real: offline, with nothing to install from).

The scripts run in the copy of the repository that tests/test_pi_install.py's sandbox makes: real
bash, a real venv, real pip; apt-get, dpkg and sudo stand-ins on a closed PATH.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_pi_install import ROOT, Sandbox, _base_python

#: Real venvs and real pip runs, as tests/test_pi_install.py's: the install tier (not in --fast).
pytestmark = [pytest.mark.install, pytest.mark.timeout(600)]

SCRIPT = ROOT / "scripts" / "check_pi_wheels.py"


def test_a_pip_slower_than_the_timeout_is_one_line_not_a_traceback():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--target", "trixie-32", "--target", "bookworm-64", "--timeout", "0.01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stdout.splitlines()[-1] == (
        "Pi wheel check: pip did not answer within 0.01 s for bookworm-64, trixie-32 (a slow or unreachable "
        "package index): run it again, or allow longer with --timeout SECONDS"
    )
    assert "  not checked: pip did not answer within 0.01 s" in run.stdout.splitlines()
    # The same from the environment (scripts/check_arm.sh sets it longer, for emulation).
    env = {**os.environ, "PI_WHEELS_TIMEOUT": "0.01"}
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--target", "trixie-32"], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 1 and run.stdout.splitlines()[-1].startswith(
        "Pi wheel check: pip did not answer within 0.01 s for trixie-32"
    ), run.stdout + run.stderr


def _fake(box: Sandbox, name: str, text: str) -> None:
    path = box.fake / "bin" / name
    path.unlink(missing_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def test_32_bit_arm_off_a_pi_says_how_to_get_pygame(tmp_path):
    box = Sandbox(tmp_path, _base_python())
    _fake(box, "uname", '#!/bin/bash\n[ "$1" = -m ] && echo armv7l || echo Linux\n')
    run = box.run("sim")
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "error: the simulator needs pygame, and the package index has no pygame wheel for armv7l: run the "
        "simulator on a 64-bit OS or a PC (on a Raspberry Pi, start.sh runs the prop itself, which needs no "
        "pygame), or build it here, as root: apt-get install -y build-essential python3-dev pkg-config "
        "libsdl2-dev libsdl2-image-dev libsdl2-mixer-dev libsdl2-ttf-dev libfreetype-dev libportmidi-dev "
        "libjpeg-dev && .venv/bin/python -m pip install pygame"
    ]
    assert not (box.repo / ".venv" / ".baccarat-installed").exists(), "pip must not have tried to build it"


APT_WITHOUT_LGPIO = r"""#!/bin/bash
# apt-get on plain Debian: no Raspberry Pi OS archive, so no python3-lgpio or python3-rpi-lgpio.
echo "apt-get $*" >> "$FAKE_ROOT/apt.log"
[ "$1" = install ] || exit 0
for arg in "$@"; do
  case "$arg" in python3-lgpio|python3-rpi-lgpio) echo "E: Unable to locate package $arg" >&2; failed=1;; esac
done
exit "${failed:+100}"
"""


def test_the_pi_path_on_plain_debian_names_the_missing_archive(tmp_path):
    box = Sandbox(tmp_path, _base_python(), sudo=True)
    _fake(box, "apt-get", APT_WITHOUT_LGPIO)
    run = box.run(model="Raspberry Pi 4 Model B Rev 1.5")
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert lines[-1] == (
        "error: apt knows no package python3-lgpio python3-rpi-lgpio: it comes from Raspberry Pi OS's own "
        "archive (archive.raspberrypi.com), which this system's apt does not use; install Raspberry Pi OS "
        "(hardware/README.md, section 2), or add that archive to apt's sources"
    )
    assert not [line for line in lines if line.startswith("E: ")], lines


def test_a_pip_that_fails_is_one_line_and_its_log(tmp_path):
    box = Sandbox(tmp_path, _base_python())
    run = box.run("", offline=True)  # no package index: pip cannot fetch the build backend
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "error: pip could not install the prop's packages: No matching distribution found for setuptools>=68 "
        "(pip's whole output: .venv/pip-install.log)"
    ]
    assert "setuptools" in (box.repo / ".venv" / "pip-install.log").read_text()
