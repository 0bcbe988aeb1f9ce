"""scripts/check_pi_wheels.py: the proof that the Pi install compiles nothing (scripts/test.sh runs it)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.tiers import seconds_left

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_pi_wheels.py"

_spec = importlib.util.spec_from_file_location("check_pi_wheels", SCRIPT)
check_pi_wheels = importlib.util.module_from_spec(_spec)
sys.modules["check_pi_wheels"] = check_pi_wheels
_spec.loader.exec_module(check_pi_wheels)
TARGETS = {t.name: t for t in check_pi_wheels.TARGETS}


def test_every_manylinux_tag_the_release_glibc_accepts_is_offered():
    bookworm = TARGETS["bookworm-64"].platforms()
    assert {f"manylinux_2_{m}_aarch64" for m in range(17, 37)} <= set(bookworm)
    assert "manylinux2014_aarch64" in bookworm and "manylinux_2_37_aarch64" not in bookworm
    trixie = TARGETS["trixie-32"].platforms()
    assert {f"manylinux_2_{m}_armv7l" for m in range(17, 42)} <= set(trixie)
    assert "manylinux_2_42_armv7l" not in trixie
    # No manylinux standard covers ARMv6 (Pi 1, Zero, Zero W): only pure wheels fit there.
    assert TARGETS["trixie-armv6"].platforms() == ["linux_armv6l"]


def test_the_targets_cover_both_releases_both_widths_and_armv6():
    assert {(t.release, t.machine, t.python) for t in TARGETS.values()} == {
        (release, machine, python)
        for release, python in (("Bookworm", "3.11"), ("Trixie", "3.13"))
        for machine in ("aarch64", "armv7l", "armv6l")
    }


def test_the_os_packages_file_gives_a_version_for_each_release():
    rows = {p.dist: p for p in check_pi_wheels.read_os_packages()}
    assert set(rows) == {"pillow", "lgpio", "spidev", "msgpack"}  # msgpack: [obus] on udp_multicast (no armv7 wheel)
    assert rows["pillow"].deb == "python3-pil"
    assert rows["pillow"].versions == {"Bookworm": "9.4.0", "Trixie": "11.1.0"}


def test_the_project_accepts_the_pillow_each_release_ships():
    from packaging.requirements import Requirement

    (pillow,) = [Requirement(r) for r in check_pi_wheels.pi_requirements() if r.lower().startswith("pillow")]
    for version in check_pi_wheels.read_os_packages()[0].versions.values():
        assert pillow.specifier.contains(version), f"{pillow} refuses the OS's Pillow {version}"


def test_a_stub_wheel_carries_the_os_version(tmp_path):
    path = check_pi_wheels.write_stub_wheel(tmp_path, "pillow", "9.4.0+os", "python3-pil")
    assert path.name == "pillow-9.4.0+os-py3-none-any.whl"
    with zipfile.ZipFile(path) as wheel:
        metadata = wheel.read("pillow-9.4.0+os.dist-info/METADATA").decode()
    assert "Name: pillow\nVersion: 9.4.0+os\n" in metadata


def _item(name: str, version: str, *requires: str) -> dict:
    return {"metadata": {"name": name, "version": version, "requires_dist": list(requires)}}


def test_markers_are_judged_for_the_pi_not_for_this_machine():
    installs = [_item("luma.core", "2.6.0", 'spidev; platform_machine == "armv7l"', 'pytest; extra == "test"')]
    missing, wrong = check_pi_wheels._missed_by_markers(TARGETS["trixie-32"], ["luma.core"], installs)
    assert missing == ["spidev"] and wrong == []
    missing, wrong = check_pi_wheels._missed_by_markers(TARGETS["trixie-64"], ["luma.core"], installs)
    assert missing == [] and wrong == []
    installs = [_item("a", "1.0", 'b>=2; python_version >= "3.12"'), _item("b", "1.5")]
    assert check_pi_wheels._missed_by_markers(TARGETS["trixie-64"], ["a"], installs)[1] == [
        'b>=2; python_version >= "3.12" is not met by b 1.5'
    ]
    assert check_pi_wheels._missed_by_markers(TARGETS["bookworm-64"], ["a"], installs) == ([], [])


@pytest.mark.install  # asks the package index
@pytest.mark.timeout(600)
def test_without_the_os_packages_the_check_names_what_pip_would_compile(tmp_path):
    """Issue 10 as found: lgpio has no wheel for Python 3.13, Pillow none for 32-bit (asks the index)."""
    no_os = tmp_path / "none.txt"
    no_os.write_text("# Debian package     Python distribution   Bookworm   Trixie\n")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--os-packages", str(no_os), "--require", "lgpio>=0.2", "--target", "trixie-32"],
        capture_output=True,
        text=True,
        timeout=seconds_left(),
    )
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("FAIL Trixie armv7l (Python 3.13, glibc 2.41")
    assert any(line.strip().startswith("pillow>=9.4 has no wheel for armv7l and Python 3.13") for line in lines)
    assert any(line.strip().startswith("lgpio>=0.2 has no wheel for armv7l and Python 3.13") for line in lines)
    assert lines[-1].startswith("Pi wheel check: 1 of 1 targets would compile: trixie-32")
