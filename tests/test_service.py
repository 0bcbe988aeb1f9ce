"""The systemd unit and the check-config command (issue: prop daemon)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "firmware" / "baccarat.service"


def _service() -> dict[str, list[str]]:
    """The [Service] section: every value of each key, in order (systemd keys repeat)."""
    values: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif section == "Service" and line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def _one(key: str) -> str:
    (value,) = _service()[key]
    return value


def test_unit_runs_unprivileged_in_the_hardware_groups_and_restarts():
    assert _one("User") == "baccarat"
    # The control socket's group is its primary one (the socket and /run/baccarat get it); the
    # config is read through the baccarat group, which game masters are never told to join.
    assert _one("Group") == "baccarat-control"
    assert set(_one("SupplementaryGroups").split()) == {"baccarat", "gpio", "i2c", "spi", "audio"}
    assert _one("Restart") == "on-failure"
    assert _one("WorkingDirectory") == "/var/lib/baccarat"  # lgpio writes .lgd-nfy files there
    assert _one("StandardOutput") == "journal"
    assert "baccarat run --config" in _one("ExecStart")


def test_the_sandbox_still_lets_the_prop_work():
    service = _service()
    # lgpio's notification files, the state file and the control socket have somewhere to go.
    assert _one("StateDirectory") == "baccarat"
    assert "LG_WD=/var/lib/baccarat" in service["Environment"]
    assert _one("RuntimeDirectory") == "baccarat"
    # The pins, the display buses and sound, and nothing that hides them.
    assert {"char-gpiochip rw", "char-i2c rw", "char-spi rw", "char-alsa rw"} <= set(service["DeviceAllow"])
    assert _one("DevicePolicy") == "closed"
    assert "PrivateDevices" not in service and "PrivateNetwork" not in service
    # gpiozero reads the board revision from /proc/device-tree and /proc/cpuinfo.
    assert "ProcSubset" not in service
    # The control socket, MQTT and a web console.
    assert set(_one("RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}


def test_the_unit_waits_for_ready_and_restarts_a_hung_prop():
    assert _one("Type") == "notify"  # `systemctl start` returns once the first frames are drawn
    assert _one("NotifyAccess") == "main"  # only the daemon itself may say READY or ping
    assert 0 < float(_one("WatchdogSec")) <= 30  # tests/test_watchdog.py, firmware/system/sdnotify.py
    assert _one("Restart") == "on-failure"  # systemd counts a watchdog kill as a failure


def _syscalls(group: str) -> set[str]:
    """The system calls a ``SystemCallFilter=`` group stands for, its nested groups expanded."""
    run = _systemd_analyze("syscall-filter", "--no-pager", group)
    assert run.returncode == 0, run.stderr
    calls: set[str] = set()
    for line in run.stdout.splitlines()[1:]:
        name = line.strip()
        if name.startswith("@"):
            calls |= _syscalls(name)
        elif name and not name.startswith("#"):
            calls.add(name)
    return calls


def test_the_sandbox_lets_the_notify_datagram_through():
    """READY and the pings are one AF_UNIX datagram each to /run/systemd/notify. A socket is no
    file the read-only file system (ProtectSystem=strict) refuses to write to; what could stop
    the datagram is the address family or the system-call filter."""
    service = _service()
    assert "AF_UNIX" in _one("RestrictAddressFamilies").split()
    allowed, denied = set(), set()
    for line in service["SystemCallFilter"]:
        groups = line.removeprefix("~").split()
        for group in groups:
            (denied if line.startswith("~") else allowed).update(_syscalls(group) if group.startswith("@") else {group})
    assert {"socket", "sendto", "close"} <= allowed - denied


def _systemd_analyze(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: scripts/test.sh installs the systemd package"
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_the_sandbox_rates_at_most_2_0_in_systemd_analyze_security():
    run = _systemd_analyze("security", "--offline=true", "--no-pager", str(UNIT))
    match = re.search(r"Overall exposure level for baccarat\.service: (\d+\.\d+)", run.stdout)
    assert match, run.stdout + run.stderr
    assert float(match.group(1)) <= 2.0, run.stdout
    # and systemd-analyze's own threshold agrees (it exits non-zero above it)
    assert _systemd_analyze("security", "--offline=true", "--threshold=20", str(UNIT)).returncode == 0
    assert _systemd_analyze("security", "--offline=true", "--threshold=10", str(UNIT)).returncode != 0


def test_the_unit_file_is_valid_for_systemd(tmp_path):
    # verify needs ExecStart to exist: point it at this checkout's own baccarat command.
    baccarat = Path(sys.executable).parent / "baccarat"
    if not baccarat.exists():
        pytest.fail(f"{baccarat} is missing: install the project (scripts/test.sh does)")
    unit = tmp_path / "baccarat.service"
    unit.write_text(UNIT.read_text().replace("/opt/baccarat/current/.venv/bin/baccarat", str(baccarat)))
    run = _systemd_analyze("verify", str(unit), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "baccarat.service" not in run.stderr, run.stderr  # e.g. "Unknown key ... ignoring"


def _check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", "check-config", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_check_config_prints_the_wiring_of_the_reference_build():
    result = _check(ROOT / "firmware" / "config" / "default-config.toml")
    assert result.returncode == 0, result.stderr
    assert "GPIO5        pin 29      [inputs] player" in result.stdout
    assert "bets     sh1106 128x64 on SPI0 CE0, DC GPIO24, RST GPIO25" in result.stdout


def test_check_config_names_the_bad_key(tmp_path):
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text().replace("tie = 13", "tie = 5")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    result = _check(bad)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "GPIO5 is used twice" in lines[0] and "tie" in lines[0], result.stderr
