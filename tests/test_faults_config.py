"""Broken config files: each one is refused with one line that names the key.

Every case is the reference config (``firmware/config/default-config.toml``) with one
mistake in it, written to a file and given to ``baccarat check-config`` and to
``baccarat run --config`` in a subprocess: exit code 2, exactly one line on
stderr, no traceback, and the line names the key (as a word: ``min`` must not
be satisfied by "minimum").
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from firmware.config import DEFAULT_CONFIG

ROOT = Path(__file__).resolve().parent.parent
BASE = DEFAULT_CONFIG.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Broken:
    name: str
    edits: tuple[tuple[str, str], ...]  # (text in the reference config, its replacement), first match
    key: str  # what the error line must name
    append: str = ""

    def text(self) -> str:
        text = BASE
        for old, new in self.edits:
            assert old in text, f"{self.name}: {old!r} is no longer in the reference config"
            text = text.replace(old, new, 1)
        return text + self.append


FIXED = ('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000')

CASES = [
    # unknown keys and sections
    Broken("unknown-key", (("player = 5", "player = 5\nplayer_2 = 7"),), "player_2"),
    Broken("unknown-section", (), "leds", append="\n[leds]\nred = 3\n"),
    Broken("unknown-display-key", (("rotate = 0", "rotate = 0\ncontrast = 255"),), "contrast"),
    # wrong types
    Broken("pin-as-string", (("player = 5", 'player = "5"'),), "player"),
    Broken("bool-as-string", (("\npull_up = true", '\npull_up = "yes"'),), "pull_up"),
    Broken("seconds-as-string", (("hold_seconds = 0.5", 'hold_seconds = "half"'),), "hold_seconds"),
    Broken("ports-not-a-list", (('ports = ["Parallel", "Serial", "RJ-45"]', 'ports = "Parallel"'),), "ports"),
    Broken("state-file-a-number", (), "file", append="\n[state]\nfile = 3\n"),
    # pins
    Broken("pin-used-twice", (("banker = 6", "banker = 5"),), "banker"),
    Broken("led-on-an-input-pin", (("red = 17", "red = 5"),), "red"),
    Broken("dc-on-an-input-pin", (("dc = 24", "dc = 6"),), "dc"),
    Broken("input-on-the-i2c-bus", (("tie = 13", "tie = 2"),), "tie"),
    Broken("pin-off-the-header", (("deal = 21", "deal = 41"),), "deal"),
    Broken("pin-on-the-eeprom-bus", (("arrow_left = 16", "arrow_left = 0"),), "arrow_left"),
    Broken("pin-missing", (("green = 27\n", ""),), "green"),
    # the bus lines a kernel driver owns, and the reserved shutdown pin (one validator for
    # check-config, run and hardware/generate.py)
    *[
        Broken(f"input-on-spi0-{line.lower()}", (("tie = 13", f"tie = {gpio}"),), "tie")
        for line, gpio in (("MOSI", 10), ("MISO", 9), ("SCLK", 11), ("CE0", 8), ("CE1", 7))
    ],
    Broken("input-on-the-shutdown-pin", (("deal = 21", "deal = 12"),), "deal"),
    Broken(
        "input-on-i2c1-behind-a-mux",
        (
            ("port = 1\naddress = 0x3C", "port = 3\naddress = 0x3C"),
            ("port = 1\naddress = 0x3D", "port = 4\naddress = 0x3D"),
            ("tie = 13", "tie = 3"),
        ),
        "tie",
    ),
    # displays
    Broken("unknown-driver", (('driver = "ssd1306"', 'driver = "ssd1306x"'),), "driver"),
    Broken("address-not-7-bit", (("address = 0x3C", "address = 0x80"),), "address"),
    Broken("address-shared", (("address = 0x3D", "address = 0x3C"),), "address"),
    Broken("unknown-interface", (('interface = "spi"', 'interface = "usb"'),), "interface"),
    Broken("spi-port", (('interface = "spi"\nport = 0', 'interface = "spi"\nport = 2'),), "port"),
    Broken("width", (("width = 128", "width = 1000"),), "width"),
    Broken("width-luma-refuses", (("width = 128", "width = 100"),), "width"),
    Broken(
        "ssd1325-over-i2c",
        (
            (
                'driver = "ssd1306"\ninterface = "i2c"\nport = 1\naddress = 0x3D',
                'driver = "ssd1325"\ninterface = "i2c"\nport = 1\naddress = 0x3D',
            ),
        ),
        "interface",
    ),
    Broken("rotate", (("rotate = 0", "rotate = 5"),), "rotate"),
    Broken("role-twice", (('role = "table"', 'role = "placard"'),), "role"),
    Broken("bus-speed", (("reset = 25", "reset = 25\nbus_speed_hz = 0"),), "bus_speed_hz"),
    # serial and edgework
    Broken("serial-too-long", (('serial = "AB3DE4"', 'serial = "AB3DE4X"'),), "serial"),
    Broken("serial-bad-character", (('serial = "AB3DE4"', 'serial = "AB-DE4"'),), "serial"),
    Broken("serial-a-number", (('serial = "AB3DE4"', "serial = 123456"),), "serial"),
    Broken("serial-missing", (('serial = "AB3DE4"\n', ""),), "serial"),
    Broken("solved-negative", (("solved = 0", "solved = -1"),), "solved"),
    Broken("lit-not-a-label", (('lit = ["FRK"]', 'lit = ["F-K"]'),), "lit"),
    Broken("edgework-mode", (('mode = "fixed"', 'mode = "randm"'),), "mode"),
    Broken("seed-with-fixed-edgework", (('mode = "fixed"', 'mode = "fixed"\nseed = 7'),), "seed"),
    Broken("serial-with-random-edgework", (('mode = "fixed"', 'mode = "random"'),), "serial"),
    Broken(
        "seed-negative",
        (
            ('serial = "AB3DE4"', "#"),
            ('ports = ["Parallel", "Serial", "RJ-45"]', "#"),
            ('lit = ["FRK"]', "#"),
            ('unlit = ["CAR"]', "#"),
            ('mode = "fixed"', 'mode = "random"\nseed = -1'),
        ),
        "seed",
    ),
    Broken("battery-holder", (('mode = "fixed"', 'mode = "fixed"\nbatteries = ["AAA"]'),), "batteries"),
    Broken("plates-disagree", (('mode = "fixed"', 'mode = "fixed"\nplates = [["Serial"]]'),), "plates"),
    # limits and timing
    Broken("limits-mode", (('mode = "random"', 'mode = "sometimes"'),), "mode"),
    Broken("limits-min-not-the-manuals", (('mode = "random"', 'mode = "fixed"\nmin = 7\nmax = 1000'),), "min"),
    Broken("limits-max-below-min", (('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 20'),), "max"),
    Broken("limits-min-missing", (('mode = "random"', 'mode = "fixed"\nmax = 1000'),), "min"),
    Broken("limits-min-with-random", (('mode = "random"', 'mode = "random"\nmin = 25'),), "min"),
    Broken("negative-seconds", (("card_seconds = 0.6", "card_seconds = -1"),), "card_seconds"),
    Broken("debounce-longer-than-hold", (("debounce_seconds = 0.02", "debounce_seconds = 0.6"),), "debounce_seconds"),
    Broken("deck-colour", (('first_color = "random"', 'first_color = "purple"'),), "first_color"),
    # outputs ([[outputs]], the reference build's lock)
    Broken("output-on-an-input-pin", (("pin = 15", "pin = 5"),), "lock"),
    Broken("output-pin-missing", (("pin = 15 ", "# pin = 15 "),), "pin"),
    Broken("output-name-not-a-word", (('name = "lock"', 'name = "front door"'),), "name"),
    Broken("output-event", (('on = "solved"', 'on = "win"'),), "on"),
    Broken("output-mode", (('mode = "hold"', 'mode = "latch"'),), "mode"),
    Broken("output-off-on-its-on-event", (('off_on = "reset"', 'off_on = "solved"'),), "off_on"),
    Broken("output-max-on-zero", (('off_on = "reset"', 'off_on = "reset"\nmax_on_seconds = 0'),), "max_on_seconds"),
    Broken(
        "output-pulse-longer-than-max-on",
        (('off_on = "reset"', 'off_on = "reset"\nmax_on_seconds = 2\npulse_seconds = 5'),),
        "pulse_seconds",
    ),
    Broken("output-unknown-key", (('off_on = "reset"', 'off_on = "reset"\nlocked = true'),), "locked"),
    Broken("output-twice", (), "name", append='\n[[outputs]]\nname = "lock"\npin = 14\non = "none"\n'),
    # the network
    Broken("mqtt-port", (), "port", append='\n[mqtt]\nhost = "broker.local"\nport = 70000\n'),
    Broken("mqtt-host-empty", (), "host", append='\n[mqtt]\nhost = " "\n'),
    # not TOML at all: the line and column stand in for the key
    Broken("not-toml", (('serial = "AB3DE4"', 'serial = "AB3DE4'),), "line 8"),
]


def _names(line: str, key: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", line) is not None


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *args], capture_output=True, text=True, timeout=30, cwd=ROOT
    )


def test_the_table_is_big_enough_and_every_case_is_distinct():
    assert len(CASES) >= 20
    assert len({case.name for case in CASES}) == len(CASES)
    assert len({case.text() for case in CASES}) == len(CASES)
    assert _run("check-config", str(DEFAULT_CONFIG)).returncode == 0  # the base itself is fine


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_broken_config_gives_one_line_naming_the_key(case: Broken, tmp_path: Path):
    path = tmp_path / f"{case.name}.toml"
    path.write_text(case.text(), encoding="utf-8")
    for args in (["check-config", str(path)], ["run", "--config", str(path)]):
        done = _run(*args)
        command = f"baccarat {args[0]}"
        assert done.returncode == 2, f"{command} exited {done.returncode}: {done.stderr}"
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1, f"{command} wrote {len(lines)} lines: {done.stderr}"
        line = lines[0]
        assert "Traceback" not in line
        assert line.startswith(f"{command}: error: "), line
        assert f"{path}: " in line, f"the line does not say which file: {line}"
        message = line.split(f"{path}: ", 1)[1]
        assert _names(message, case.key), f"the line does not name {case.key!r}: {line}"


@pytest.mark.parametrize(("line", "gpio"), [("MOSI", 10), ("MISO", 9), ("SCLK", 11), ("CE0", 8), ("CE1", 7)])
def test_check_config_reserves_every_line_of_an_enabled_spi_bus(tmp_path: Path, line: str, gpio: int):
    """The bets display is on SPI0: the kernel owns all five lines, chip selects and MISO included."""
    path = tmp_path / "spi.toml"
    path.write_text(BASE.replace("tie = 13", f"tie = {gpio}", 1), encoding="utf-8")
    done = _run("check-config", str(path))
    assert done.returncode == 2
    assert f"GPIO{gpio} is used twice: SPI0 {line} and [inputs] tie" in done.stderr, done.stderr
    # Without an SPI display the same pin is free.
    no_spi = BASE.replace("tie = 13", f"tie = {gpio}", 1)
    no_spi = no_spi[: no_spi.index('[[displays]]\nrole = "bets"')]
    path.write_text(no_spi, encoding="utf-8")
    assert _run("check-config", str(path)).returncode == 0


@pytest.mark.parametrize("value", ["12345678", '["hunter2-x"]', "true", '{a = "hunter2-y"}'])
@pytest.mark.parametrize("where", ["mqtt", "web"])
def test_a_bad_secret_is_named_but_never_printed(tmp_path: Path, value: str, where: str):
    section = '[mqtt]\nhost = "h"\nusername = "u"\npassword = ' if where == "mqtt" else "[web]\npassword = "
    path = tmp_path / "secret.toml"
    path.write_text(BASE + f"\n{section}{value}\n", encoding="utf-8")
    for args in (["check-config", str(path)], ["run", "--config", str(path)]):
        done = _run(*args)
        assert done.returncode == 2 and f"[{where}] password" in done.stderr, done.stderr
        for secret in ("12345678", "hunter2"):
            assert secret not in done.stderr + done.stdout
