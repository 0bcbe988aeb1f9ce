"""The systemd unit and the check-config command (issue: prop daemon)."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _unit() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(ROOT / "firmware" / "baccarat.service")
    return unit


def test_unit_runs_unprivileged_in_the_hardware_groups_and_restarts():
    service = _unit()["Service"]
    assert service["User"] == "baccarat"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "i2c", "spi"}
    assert service["Restart"] == "on-failure"
    assert service["WorkingDirectory"] == "/var/lib/baccarat"  # lgpio writes .lgd-nfy files there
    assert service["StandardOutput"] == "journal"
    assert "baccarat run --config" in service["ExecStart"]


def _check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", "check-config", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_check_config_prints_the_wiring_of_the_reference_build():
    result = _check(ROOT / "firmware" / "default-config.toml")
    assert result.returncode == 0, result.stderr
    assert "GPIO5        pin 29      [inputs] player" in result.stdout
    assert "bets     sh1106 128x64 on SPI0 CE0, DC GPIO24, RST GPIO25" in result.stdout


def test_check_config_names_the_bad_key(tmp_path):
    text = (ROOT / "firmware" / "default-config.toml").read_text().replace("tie = 13", "tie = 5")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    result = _check(bad)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "GPIO5 is used twice" in lines[0] and "tie" in lines[0], result.stderr
