"""Clue Control (issue 31, part 1): the ``[clue_control]`` service on a running daemon.

The daemon runs on gpiozero's mock pins with the services attached as ``baccarat run``
attaches them; Clue Control's computer is pymodbus's own server on loopback
(tests/clue_control_peer.py) and Clue Control's switch writes are pymodbus's client. The
reference build's lock (``[[outputs]]`` lock, on at solved) is output 0.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import socket
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from pymodbus.client import ModbusTcpClient

from baccarat_core import events as ev
from firmware.app import attach_services, build_daemon, close_daemon
from firmware.config.findings import FAIL, OK, WARN
from firmware.devices.displays import open_dummy_device
from firmware.errors import ConfigError
from firmware.services.clue_control import link as link_module
from firmware.services.clue_control.service import ClueControlService, ClueControlSettings
from firmware.services.clue_control.trigger import LONGEST_RETRY
from firmware.services.registry import installed
from tests.clue_control_peer import PATIENCE, FakeClueControl, closed_port
from tests.conftest import make_config

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "firmware" / "baccarat.service"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ClueControlPC:
    """:class:`FakeClueControl` on a loop of its own thread, for tests that block."""

    def __init__(self, port: int = 0) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.clue = self._call(FakeClueControl(port).start())

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(PATIENCE)

    @property
    def port(self) -> int:
        return self.clue.port

    def wait_writes(self, count: int, patience: float = PATIENCE) -> list[tuple[int, bool]]:
        return asyncio.run_coroutine_threadsafe(self.clue.wait_writes(count, patience), self.loop).result(patience + 5)

    def stop(self) -> None:
        self._call(self.clue.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(PATIENCE)
        self.loop.close()


@contextmanager
def prop_with_clue_control(mock_factory, clue_port: int, **section):
    """A daemon with ``[clue_control]`` (the controller on loopback), started and ready, its link
    listening; yields (daemon, link, switch port)."""
    given = section.pop("port", None)
    for _ in range(5):  # a port found free can be taken before the switch listens: another one then
        port = given or free_port()
        config = make_config(  # its own state and socket: it runs beside a simulator
            clue_control={"port": port, "controller": f"127.0.0.1:{clue_port}", **section},
            state={"file": ""},
            control={"socket": ""},
        )
        daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(3))
        attached = attach_services(daemon, config)
        link = attached.prop.service("clue_control")
        try:
            daemon.start()
            assert daemon.ready.wait(PATIENCE), "the daemon did not get ready"
            assert link.ready.wait(PATIENCE), "the link did not start"
            if link.listening or given:
                yield daemon, link, port
                return
        finally:
            daemon.stop()
            for close in attached:
                close()
            close_daemon(daemon)
    raise AssertionError("no free port for the Clue Control switch in 5 tries")


@pytest.fixture
def clue():
    pc = ClueControlPC()
    yield pc
    pc.stop()


# -- the section ----------------------------------------------------------------------------
def test_the_service_is_found_through_its_entry_point() -> None:
    service = installed().get("clue_control")
    assert isinstance(service, ClueControlService)
    assert service.docs == "integrate/clue-control.md" and (ROOT / "docs" / service.docs).is_file()


def test_the_section_reads_the_issue_s_keys_and_the_outputs_in_config_order() -> None:
    config = make_config(clue_control={"port": 502, "controller": "192.168.1.10", "coil_base": 7})
    settings = config.settings["clue_control"]
    assert settings == ClueControlSettings(
        port=502, controller=("192.168.1.10", 502), coil_base=7, allow=(), outputs=("lock",), bind="0.0.0.0"
    )
    default = make_config(clue_control={"controller": "cc.local:1502"}).settings["clue_control"]
    assert (default.port, default.controller, default.coil_base) == (502, ("cc.local", 1502), None)
    assert "clue_control" not in make_config().settings  # off without its table


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({}, "[clue_control] controller is missing"),
        ({"controller": "10.0.0.1:0"}, '[clue_control] controller = "10.0.0.1:0": the port must be a number from 1'),
        ({"controller": "fe80::1"}, '[clue_control] controller = "fe80::1": is not host or host:port'),
        ({"controller": "two words"}, '[clue_control] controller = "two words": names no host'),
        ({"controller": 10}, "[clue_control] controller = 10: must be a string in quotes"),
        ({"controller": "10.0.0.1", "port": 0}, "[clue_control] port = 0: must be 1-65535"),
        ({"controller": "10.0.0.1", "port": "502"}, '[clue_control] port = "502": must be a whole number'),
        ({"controller": "10.0.0.1", "coil_base": 256}, "[clue_control] coil_base = 256: must be at least 0"),
        ({"controller": "10.0.0.1", "coil_base": -1}, "[clue_control] coil_base = -1: must be at least 0"),
        ({"controller": "10.0.0.1", "coil_base": 7.5}, "[clue_control] coil_base = 7.5: must be a whole number"),
        ({"controller": "10.0.0.1", "allow": ["cc.local"]}, "'cc.local' is not an IP address"),
        ({"controller": "10.0.0.1", "allow": "10.0.0.2"}, '[clue_control] allow = "10.0.0.2": must be a list'),
        ({"controller": "10.0.0.1", "prot": 502}, "[clue_control] prot: unknown key (did you mean port?)"),
        ({"controller": "10.0.0.1", "bind": "eth0"}, '[clue_control] bind = "eth0": must be an IP address'),
        (
            {"controller": "10.0.0.1", "bind": "127.0.0.1"},
            '[clue_control] bind = "127.0.0.1": 10.0.0.1 cannot reach a switch on loopback',
        ),
        (
            {"controller": "127.0.0.1", "allow": ["192.168.1.11"], "bind": "127.0.0.1"},
            '[clue_control] bind = "127.0.0.1": 192.168.1.11 cannot reach a switch on loopback',
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_it(section: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_config(clue_control=section)
    text = str(caught.value)
    assert message in text and "\n" not in text, text


def test_check_config_says_what_to_enter_in_clue_control() -> None:
    service = ClueControlService()
    settings = make_config(clue_control={"port": 502, "controller": "192.168.1.10"}).settings["clue_control"]
    switch, trigger = service.describe(settings)
    assert switch.startswith(
        "Clue Control switch: port 502 on 0.0.0.0 (the unit gets CAP_NET_BIND_SERVICE), commands from 192.168.1.10"
    )
    assert "1 solve, 2 reset, 3 enable, 4 disable, 5 reset+enable, 6 reset+disable, 100/101 lock off/on" in switch
    assert trigger.startswith("Clue Control trigger: coils on 192.168.1.10:502: 10N solved, 10N+1 enabled")
    based = make_config(clue_control={"port": 1502, "controller": "10.0.0.1", "coil_base": 7}).settings["clue_control"]
    switch, trigger = service.describe(based)
    assert "CAP_NET_BIND_SERVICE" not in switch
    assert trigger == "Clue Control trigger: coils on 10.0.0.1:502: 70 solved, 71 enabled, 710 lock"


@pytest.mark.parametrize(
    ("section", "bind"),
    [
        ({"controller": "127.0.0.1"}, "127.0.0.1"),  # Clue Control on this machine: loopback only
        ({"controller": "localhost:1502", "allow": ["127.0.0.2"]}, "127.0.0.1"),
        ({"controller": "127.0.0.1", "allow": ["192.168.1.11"]}, "0.0.0.0"),  # one away: every address
        ({"controller": "192.168.1.10"}, "0.0.0.0"),
        ({"controller": "cluecontrol.local"}, "0.0.0.0"),  # a name may be anywhere
        ({"controller": "127.0.0.1", "allow": ["::1"]}, "0.0.0.0"),
        ({"controller": "192.168.1.10", "bind": "192.168.1.123"}, "192.168.1.123"),  # as given
        ({"controller": "127.0.0.1", "bind": "0.0.0.0"}, "0.0.0.0"),
    ],
)
def test_the_switch_binds_where_the_controllers_are(section: dict, bind: str) -> None:
    """Issue 41 item 3: no port open to the room when only this machine may command the prop."""
    assert make_config(clue_control=section).settings["clue_control"].bind == bind


# -- the unit -------------------------------------------------------------------------------
def _unit_with(directives: dict[str, str]) -> str:
    """The repository's unit with a service's directives put in place of its own lines."""
    lines = []
    for line in UNIT.read_text().splitlines():
        key = line.partition("=")[0]
        lines.append(f"{key}={directives[key]}" if key in directives and not line.startswith("#") else line)
    return "\n".join(lines) + "\n"


def test_a_port_below_1024_asks_the_unit_for_the_capability_alone() -> None:
    service = ClueControlService()
    low = make_config(clue_control={"port": 502, "controller": "10.0.0.1"}).settings["clue_control"]
    high = make_config(clue_control={"port": 1502, "controller": "10.0.0.1"}).settings["clue_control"]
    assert service.unit(low) == {
        "CapabilityBoundingSet": "CAP_NET_BIND_SERVICE",
        "AmbientCapabilities": "CAP_NET_BIND_SERVICE",
    }
    assert service.unit(high) == {}


def test_the_unit_with_the_capability_still_rates_at_most_2_0(tmp_path) -> None:
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: scripts/test.sh installs the systemd package"
    low = make_config(clue_control={"port": 502, "controller": "10.0.0.1"}).settings["clue_control"]
    unit = tmp_path / "baccarat.service"
    unit.write_text(_unit_with(ClueControlService().unit(low)))
    assert "AmbientCapabilities=CAP_NET_BIND_SERVICE" in unit.read_text()
    run = subprocess.run(
        [tool, "security", "--offline=true", "--no-pager", str(unit)], capture_output=True, text=True, timeout=60
    )
    found = re.search(r"Overall exposure level for baccarat\.service: (\d+\.\d+)", run.stdout)
    assert found, run.stdout + run.stderr
    assert float(found.group(1)) <= 2.0, run.stdout
    assert re.search(r"✗ AmbientCapabilities=\s", run.stdout)  # the capability is what it costs


# -- doctor -----------------------------------------------------------------------------------
class FakeHost:
    """The doctor's host: ``systemctl show`` answers ``properties`` (None: no systemctl)."""

    def __init__(self, properties: str | None) -> None:
        self.properties = properties

    def command(self, *argv: str):
        return None if self.properties is None else (0, self.properties)


def test_doctor_says_whether_clue_control_answers_and_the_prop_s_number(clue: ClueControlPC) -> None:
    service = ClueControlService()
    up = make_config(clue_control={"port": 1502, "controller": f"127.0.0.1:{clue.port}"}).settings["clue_control"]
    answer, number = service.doctor(up, FakeHost(None))
    assert (answer.status, answer.text) == (OK, f"Clue Control at 127.0.0.1:{clue.port} answers")
    assert (
        number.status == OK and "this prop is number 1 (127.0.0.1): 10 solved, 11 enabled, 110+ outputs" in number.text
    )
    holder = closed_port()
    down = make_config(clue_control={"port": 1502, "controller": f"127.0.0.1:{holder.getsockname()[1]}"})
    answer, _ = service.doctor(down.settings["clue_control"], FakeHost(None))
    holder.close()
    assert answer.status == WARN and "does not answer (connection refused)" in answer.text
    assert answer.fix == "start Clue Control, or correct [clue_control] controller"


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ("LoadState=loaded\nAmbientCapabilities=cap_net_bind_service\n", OK),
        ("LoadState=loaded\nAmbientCapabilities=\n", FAIL),
        ("LoadState=not-found\nAmbientCapabilities=\n", None),  # not installed: nothing to say
        (None, None),  # no systemd
    ],
)
def test_doctor_checks_the_unit_gives_a_low_port_its_capability(clue, properties, expected) -> None:
    settings = make_config(clue_control={"port": 502, "controller": f"127.0.0.1:{clue.port}"}).settings["clue_control"]
    findings = ClueControlService().doctor(settings, FakeHost(properties))[2:]
    assert [f.status for f in findings] == ([] if expected is None else [expected])
    if expected == FAIL:
        assert "cannot listen on port 502" in findings[0].text and "install-service.sh" in findings[0].fix


# -- on a running daemon ----------------------------------------------------------------------
def test_clue_control_drives_the_prop_through_the_one_command_path(mock_factory, clue: ClueControlPC) -> None:
    lock = mock_factory.pin(15)
    seen: list[ev.Event] = []
    with prop_with_clue_control(mock_factory, clue.port) as (daemon, link, port):
        daemon.on_handled.append(lambda events, module: seen.extend(events))
        assert clue.wait_writes(3) == [(10, False), (11, True), (110, False)]  # the state at the start
        client = ModbusTcpClient("127.0.0.1", port=port, timeout=PATIENCE, retries=0)
        assert client.write_register(1, 1).registers == [1]  # force solve
        assert clue.wait_writes(5)[3:] == [(10, True), (110, True)]  # solved, and the lock it opened
        assert lock.state == 1
        assert client.write_register(1, 1).registers == [1]  # again: the module ignores it, as anywhere
        assert client.write_register(1, 4).registers == [4]  # disable
        assert clue.wait_writes(6)[5] == (11, False)
        assert client.write_register(1, 5).registers == [5]  # reset, then enable
        assert sorted(clue.wait_writes(9)[6:]) == [(10, False), (11, True), (110, False)]
        assert lock.state == 0 and daemon.module.enabled
        assert client.write_register(1, 101).registers == [101]  # the lock on, by hand
        assert clue.wait_writes(10)[9] == (110, True)
        assert lock.state == 1
        refused = client.write_register(1, 111)  # output 1: this prop has one
        assert refused.isError() and refused.exception_code == 3
        client.close()
        daemon.wait_idle()
    ignored = [e for e in seen if isinstance(e, ev.InputIgnored)]
    assert [(e.input, e.reason) for e in ignored] == [("force solve", "solved")]


def test_a_switch_for_a_controller_on_loopback_listens_on_loopback_alone(mock_factory, clue) -> None:
    with prop_with_clue_control(mock_factory, clue.port) as (daemon, link, port):
        assert link.switch.addresses == [("127.0.0.1", port)]
        assert link.outcome == f"listening on 127.0.0.1 port {port}"


def test_a_clean_stop_tells_clue_control_the_prop_stopped(mock_factory, clue: ClueControlPC, monkeypatch) -> None:
    """Issue 41 item 4: after a clean stop Clue Control's coils say stopped (solved, enabled and
    the lock off), as the retained MQTT state does; not the last game's solved."""
    monkeypatch.setattr(link_module, "FAREWELL_SECONDS", PATIENCE)  # a busy machine: the stop waits as long
    with prop_with_clue_control(mock_factory, clue.port) as (daemon, link, port):
        assert clue.wait_writes(3) == [(10, False), (11, True), (110, False)]
        client = ModbusTcpClient("127.0.0.1", port=port, timeout=PATIENCE, retries=0)
        assert client.write_register(1, 1).registers == [1]  # force solve: solved, the lock open
        client.close()
        assert clue.wait_writes(5)[3:] == [(10, True), (110, True)]
    writes = clue.wait_writes(8)
    assert sorted(writes[5:]) == [(10, False), (11, False), (110, False)]
    assert clue.clue.latest() == {10: False, 11: False, 110: False}


def test_only_the_controller_may_command(mock_factory, clue: ClueControlPC) -> None:
    with prop_with_clue_control(mock_factory, clue.port) as (daemon, link, port):
        stranger = socket.socket()
        stranger.settimeout(PATIENCE)
        stranger.bind(("127.0.0.2", 0))  # another address on loopback
        stranger.connect(("127.0.0.1", port))
        stranger.sendall(bytes.fromhex("0001 0000 0006 01 06 0001 0001"))
        try:
            assert stranger.recv(100) == b""
        except ConnectionResetError:
            pass
        stranger.close()
        daemon.wait_idle()
        assert not daemon.module.solved
        assert link.tally.totals["stranger"] == 1


def test_a_controller_that_is_down_gets_the_changes_when_it_returns(mock_factory) -> None:
    holder = closed_port()
    clue_port = holder.getsockname()[1]
    with prop_with_clue_control(mock_factory, clue_port) as (daemon, link, port):
        client = ModbusTcpClient("127.0.0.1", port=port, timeout=PATIENCE, retries=0)
        assert client.write_register(1, 1).registers == [1]  # solved while Clue Control is away
        assert client.write_register(1, 4).registers == [4]
        client.close()
        daemon.wait_idle()
        holder.close()
        pc = ClueControlPC(clue_port)  # Clue Control starts
        try:
            # The link retried while Clue Control was away, each wait twice the last (0.5 s first):
            # on a busy machine the next try may be as far off as the longest wait.
            writes = pc.wait_writes(6, patience=LONGEST_RETRY + PATIENCE)
        finally:
            pc.stop()
    assert writes[:3] == [(10, False), (11, True), (110, False)]  # the state at the start, then each change
    assert sorted(writes[3:]) == [(10, True), (11, False), (110, True)]


def test_a_port_that_cannot_be_opened_is_one_line_and_the_prop_plays_on(mock_factory, clue, caplog) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with prop_with_clue_control(mock_factory, clue.port, port=port) as (daemon, link, _):
            assert daemon.running()
            assert link.switch is None or link.switch.port == port
    lines = [r.getMessage() for r in caplog.records if "cannot listen" in r.getMessage()]
    assert lines == [
        f"Clue Control: cannot listen on 127.0.0.1 port {port}: the port is taken (another program, or another "
        "prop on this machine); the prop runs without Clue Control"
    ]
