"""The ``[obus]`` section, its ``check-config`` and ``doctor`` lines, and the ``obus_sync`` command."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.config.findings import FAIL, OK, WARN
from firmware.devices.displays import open_dummy_device
from firmware.errors import ConfigError
from firmware.services.obus import Obus, ObusSettings
from firmware.services.obus import protocol as p
from firmware.services.obus.checks import bus_findings
from firmware.services.registry import installed
from tests.conftest import make_config
from tests.obus_model.harness import Proc, new_group

ROOT = Path(__file__).resolve().parent.parent


def test_the_service_is_found_through_its_entry_point() -> None:
    service = installed().get("obus")
    assert isinstance(service, Obus)
    assert (ROOT / "docs" / service.docs).is_file()


def test_the_section_s_defaults_as_the_issue_gives_them() -> None:
    settings = make_config(obus={}).settings["obus"]
    assert isinstance(settings, ObusSettings)
    assert (settings.role, settings.interface, settings.channel, settings.id) == ("module", "socketcan", "can0", 1)
    assert settings.options == {}  # SocketCAN's speed comes from ip link
    assert make_config(obus={"interface": "pcan", "channel": "PCAN_USBBUS1"}).settings["obus"].options == {
        "bitrate": 50_000
    }


@pytest.mark.parametrize(
    ("sections", "words"),
    [
        ({"obus": {"role": "controller"}}, "[obus] role"),  # no [bomb]
        ({"obus": {"role": "controller"}, "bomb": {"timer_seconds": 300}}, "strike_limit"),
        ({"obus": {}, "bomb": {"timer_seconds": 300, "strike_limit": 3}}, "remove [bomb] strike_limit"),
        ({"obus": {"port": 43113}}, "[obus] port"),
        ({"obus": {"interface": "udp_multicast", "channel": "can0"}}, "multicast group"),
        ({"obus": {"id": 256}}, "[obus] id"),
        ({"obus": {"role": "needy"}}, "[obus] role"),
        ({"obus": {"count": "done"}}, "[obus] count"),
        ({"obus": {"channel": "can0; reboot"}}, "[obus] channel"),
        # an MCP2515 board's interrupt pin is checked against the build's: the reference build's bets display
        ({"obus": {"interrupt": 25}}, "GPIO25 is used twice: [obus] interrupt"),
    ],
)
def test_bad_sections_name_the_key(sections: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_config(**sections)
    assert words in str(caught.value)


def test_an_mcp2515_board_takes_spi0_and_its_interrupt_pin() -> None:
    obus = Obus()
    board = make_config(obus={"interrupt": 14}).settings["obus"]
    assert {(use.gpio, use.kind) for use in obus.gpios(board)} >= {(14, "input"), (8, "bus"), (10, "bus")}
    assert obus.gpios(make_config(obus={}).settings["obus"]) == []  # a USB adapter takes no GPIO


def test_check_config_lines_for_both_roles() -> None:
    obus = Obus()
    module = make_config(obus={"id": 7}, bomb={"timer_seconds": 300}).settings["obus"]
    assert obus.describe(module)[0] == (
        "OBUS: puzzle module 7 of an OBUS bomb on socketcan can0 "
        "(50 kbit/s: ip link set can0 up type can bitrate 50000)"
    )
    controller = make_config(
        obus={"role": "controller", "count": "solved"}, bomb={"timer_seconds": 300, "strike_limit": 3}
    ).settings["obus"]
    lines = obus.describe(controller)
    assert lines[0].startswith("OBUS: the prop runs an OBUS bomb on socketcan can0") and "05:00" in lines[0]
    assert lines[1] == "OBUS: STATE's byte 7 written as puzzle modules solved (OBUS's Arduino controller)"


class FakeHost:
    """The doctor's view of a machine: files under /sys and ``ip``'s answer."""

    def __init__(self, files: dict[str, str], ip: str = "") -> None:
        self.files = files
        self.ip = ip

    def read(self, name: str) -> str | None:
        return self.files.get(name)

    def command(self, *argv: str) -> tuple[int, str] | None:
        return (0, self.ip) if argv[0] == "ip" else None


def quiet(settings: Any, seconds: float) -> tuple[list[p.Message], int]:
    return [], 0


def test_doctor_on_socketcan() -> None:
    settings = make_config(obus={}).settings["obus"]
    missing = bus_findings(settings, FakeHost({}), quiet)
    assert [f.status for f in missing] == [FAIL] and "no CAN interface can0" in missing[0].text
    down = bus_findings(settings, FakeHost({"/sys/class/net/can0/operstate": "down\n"}), quiet)
    assert [f.status for f in down] == [FAIL] and "ip link set can0 up type can bitrate 50000" in down[0].fix
    fast = FakeHost({"/sys/class/net/can0/operstate": "up\n"}, "can state ERROR-ACTIVE\n bitrate 500000 sample-point")
    assert [f.status for f in bus_findings(settings, fast, quiet)] == [FAIL]
    off = FakeHost({"/sys/class/net/can0/operstate": "up\n"}, "can state BUS-OFF restart-ms 0\n bitrate 50000 sample")
    assert [f.status for f in bus_findings(settings, off, quiet)] == [FAIL]
    passive = FakeHost({"/sys/class/net/can0/operstate": "up\n"}, "can state ERROR-PASSIVE\n bitrate 50000 sample")
    assert [f.status for f in bus_findings(settings, passive, quiet)] == [WARN, WARN]
    right = FakeHost({"/sys/class/net/can0/operstate": "up\n"}, "can state ERROR-ACTIVE\n bitrate 50000 sample-point")
    findings = bus_findings(settings, right, quiet)
    assert [f.status for f in findings] == [OK, WARN]
    assert "the OBUS controller is silent" in findings[1].text


def test_doctor_hears_the_controller_of_a_running_game_or_says_it_is_silent() -> None:
    group, port = new_group()
    settings = make_config(obus={"interface": "udp_multicast", "channel": group, "port": port}).settings["obus"]
    controller = Proc("controller", 0, group, port, info_seconds=0.2)
    module = Proc("puzzle", 2, group, port)  # a bomb without a puzzle module is solved at once
    try:
        silent = Obus().doctor(settings, FakeHost({}))
        assert [f.status for f in silent] == [WARN] and "silent" in silent[0].text
        controller.tell(info=1)
        controller.wait(lambda line: line.get("registered") == [1, 2])
        controller.tell(start={"ms": 60_000, "max": 3})
        controller.wait(lambda line: line.get("game") == "start")
        heard = Obus().doctor(settings, FakeHost({}))
        assert [f.status for f in heard] == [OK] and "a game with" in heard[0].text
    finally:
        controller.stop()
        module.stop()


def test_obus_sync_checks_its_arguments(mock_factory: Any) -> None:
    group, port = new_group()
    config = make_config(
        obus={"interface": "udp_multicast", "channel": group, "port": port},
        bomb={"timer_seconds": 300},
        state={"file": ""},
        control={"socket": ""},
    )
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    attached = attach_services(daemon, config)
    commands = attached.prop.commands
    try:
        daemon.start()
        assert daemon.ready.wait(30)
        for bad in (
            {"left": -1},
            {"left": "soon"},
            {"strikes": 256},
            {"end": "boom"},
            {"rate": 9},
            {"forget": {"batteries": 3}},
            {"forget": {"serial": "!!"}},
            {"forget": {"lit": ["FRK"], "unlit": ["FRK"]}},
            {"edgework": {"ports": ["Paralel"]}},  # a typo of a vanilla port
        ):
            reply = commands.handle({"command": "obus_sync", **bad}).result(30)
            assert not reply["ok"] and "obus_sync" in reply["error"], (bad, reply)
        status = commands.handle({"command": "status"}).result(30)["result"]
        assert status["game"] == 1 and status["edgework"]["serial"] == "AB3DE4"  # the refusals changed nothing
        reply = commands.handle({"command": "obus_sync", "left": 120.5, "strikes": 2, "start": True}).result(30)
        assert reply["ok"], reply
        status = commands.handle({"command": "status"}).result(30)["result"]
        assert status["strikes"] == 2 and status["timer"]["running"] and status["timer"]["seconds_left"] <= 120.5
        words = commands.handle("obus-sync end=strikes", words=True).result(30)
        assert words["ok"] and words["result"]["events"][0]["event"] == "exploded"
    finally:
        daemon.stop()
        for close in attached:
            close()
        close_daemon(daemon)
