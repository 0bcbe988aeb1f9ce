"""Bad input on the OBUS bus (issue 43, part 4): random frames, error frames, a bus that fails.

One log line a kind (then a count), never a traceback, the game goes on, the link opens the bus
again. The frames come from a bus of their own on the prop's multicast group (python-can's
udp_multicast), as another node's would.
"""

from __future__ import annotations

import errno
import json
import logging
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import can
import pytest

from firmware.plugin import Noise
from firmware.services.obus import protocol as p
from firmware.services.obus.link import Link
from firmware.services.obus.module_role import ModuleRole
from tests.obus_model.harness import PATIENCE, new_group
from tests.test_obus_module import prop_on

ROOT = Path(__file__).resolve().parent.parent
FRAMES = 100_000


def random_frame(rng: random.Random) -> can.Message:
    """Any frame a broken or hostile node could send: any 11-bit id (29-bit ones too), 0-8 bytes,
    now and then an error or remote frame."""
    roll = rng.random()
    if roll < 0.01:
        return can.Message(arbitration_id=rng.randrange(0x800), is_error_frame=True, is_extended_id=False)
    if roll < 0.02:
        return can.Message(arbitration_id=rng.randrange(0x800), is_remote_frame=True, is_extended_id=False)
    if roll < 0.03:
        return can.Message(arbitration_id=rng.randrange(1 << 29), data=rng.randbytes(rng.randrange(9)))
    return can.Message(arbitration_id=rng.randrange(0x800), data=rng.randbytes(rng.randrange(9)), is_extended_id=False)


def test_100000_random_frames_cost_a_few_log_lines_and_the_prop_plays_on(
    mock_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    group, port = new_group()
    caplog.set_level(logging.INFO)
    with prop_on(group, port, mock_factory) as prop:
        sender = can.Bus(interface="udp_multicast", channel=group, port=port)
        rng = random.Random(43)
        done = threading.Event()

        def spray() -> None:
            try:
                for n in range(FRAMES):
                    sender.send(random_frame(rng))
                    if n % 500 == 0:
                        threading.Event().wait(0.001)  # the socket's buffer: let the prop read
            finally:
                done.set()

        thread = threading.Thread(target=spray)
        thread.start()
        answered = 0
        while not done.is_set():
            assert prop.status()["version"]  # answered within the command path's timeout, mid-flood
            answered += 1
        thread.join()
        sender.shutdown()
        # the prop reads its frames in order: once it answers a HELLO sent after them, it has read
        # (or its socket has dropped) every one of them. A bus opened now hears none of the flood.
        # A full socket buffer drops a datagram, the HELLO too: it is sent again until answered.
        probe = can.Bus(interface="udp_multicast", channel=group, port=port)
        deadline = time.monotonic() + 4 * PATIENCE
        registered = False
        while not registered:
            assert time.monotonic() < deadline, "the prop did not answer the HELLO after the flood"
            probe.send(can.Message(arbitration_id=0x400, data=b"\x01", is_extended_id=False))
            while (frame := probe.recv(3.0)) is not None:
                if frame.arbitration_id == 0x501 and bytes(frame.data) == b"\x00":
                    registered = True
                    break
        probe.shutdown()
        service = prop.service
        # the flood is over: the game master starts afresh and a round is played
        prop.run(command="reset")
        prop.run(command="enable")
        hint = prop.run(command="hint")
        winner = hint["winner"] if hint["winner"] != "tie" else "tie"
        result = prop.run(command="bet", bets={winner: 25})
        assert result, "no round"
        assert prop.until(lambda s: s["solved"])["exploded"] is None
        assert answered >= 1
    obus = [r for r in caplog.records if r.name == "baccarat.obus"]
    assert not [r for r in caplog.records if r.exc_info], "a traceback"
    kinds = service.noise.totals
    assert kinds["short"] and kinds["unknown"] and kinds["reserved"] and kinds["error frame"], kinds
    assert sum(kinds.values()) > 1000  # the prop read most of them ...
    assert len(obus) < 60, [r.getMessage() for r in obus]  # ... and logged a line a kind, then counts


class FailingBus(can.BusABC):
    """python-can's virtual bus that fails as SocketCAN does when the link goes down (ENETDOWN on
    read and write) while ``down`` is set."""

    def __init__(self, channel: str, down: threading.Event) -> None:
        self.inner = can.Bus(interface="virtual", channel=channel)
        self.down = down
        super().__init__(channel=channel)

    def _recv_internal(self, timeout: float | None) -> tuple[can.Message | None, bool]:
        if self.down.is_set():
            raise can.CanOperationError("Failed to receive", error_code=errno.ENETDOWN)
        return self.inner.recv(timeout), False

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        if self.down.is_set():
            raise can.CanOperationError("Failed to transmit", error_code=errno.ENETDOWN)
        self.inner.send(msg, timeout)

    def shutdown(self) -> None:
        self.inner.shutdown()
        super().shutdown()


class Recorder:
    """A :class:`~firmware.services.obus.roles.Game` that keeps the calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.changed_event = threading.Event()

    def forget(self, edgework: dict[str, Any]) -> None:
        self.calls.append(("forget", edgework))

    def begin(self, left: float, strikes: int, solved: int) -> None:
        self.calls.append(("begin", left))

    def sync(self, left: Any, strikes: Any, solved: Any, rate: Any = None, *, start: bool = False) -> None:
        self.calls.append(("sync", left))

    def end(self, how: str) -> None:
        self.calls.append(("end", how))

    def edgework(self, edgework: dict[str, Any]) -> None:
        self.calls.append(("edgework", edgework))

    def changed(self) -> None:
        self.changed_event.set()


def test_a_bus_that_goes_down_is_opened_again(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    channel = f"obus-down-{random.randrange(1 << 30)}"
    down = threading.Event()
    opened: list[FailingBus] = []
    refuse = threading.Event()

    def opener(interface: str, channel: str, options: dict[str, Any]) -> can.BusABC:
        if refuse.is_set():  # the USB adapter is gone: no such device
            raise can.CanInitializationError(f"No such device: {channel}", error_code=errno.ENODEV)
        bus = FailingBus(channel, down)
        opened.append(bus)
        return bus

    node = p.Node(p.PUZZLE, 1)
    noise = Noise(logging.getLogger("baccarat.obus"))
    link = Link(node, noise, interface="virtual", channel=channel, opener=opener)
    game = Recorder()
    link.start(ModuleRole(node, link.send, game))
    controller = can.Bus(interface="virtual", channel=channel)
    try:

        def hello_and_wait_register() -> None:
            controller.send(can.Message(arbitration_id=0x400, data=b"\x01", is_extended_id=False))
            while True:
                frame = controller.recv(PATIENCE)
                assert frame is not None, "no REGISTER"
                if frame.arbitration_id == 0x501 and bytes(frame.data) == b"\x00":
                    return

        wait_for(lambda: link.up)
        hello_and_wait_register()
        down.set()  # the link goes down
        refuse.set()  # ... and the adapter is pulled
        wait_for(lambda: not link.up)
        wait_for(lambda: noise.totals["down"] >= 3)  # tried again, each time one note
        refuse.clear()
        down.clear()  # plugged in again, the link up
        wait_for(lambda: link.up and len(opened) >= 2)
        threading.Event().wait(0.2)  # the new bus is read (a virtual bus hears only what is sent after it opened)
        hello_and_wait_register()  # the role goes on on the new bus
    finally:
        controller.shutdown()
        link.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "baccarat.obus"]
    down_lines = [line for line in lines if "failed to read" in line or "cannot be opened" in line]
    assert 1 <= len(down_lines) <= 3, lines  # the first of each kind, then a count at the end
    assert [line for line in lines if "is open again" in line] == [
        "obus: the bus virtual " + channel + " is open again"
    ]
    assert not [r for r in caplog.records if r.exc_info]
    assert [call[0] for call in game.calls].count("forget") == 2


def wait_for(check: Any, patience: float = PATIENCE) -> None:
    done = threading.Event()
    end = threading.Event()
    timer = threading.Timer(patience, end.set)
    timer.start()
    try:
        while not check():
            assert not end.is_set(), "not reached"
            done.wait(0.02)
    finally:
        timer.cancel()


START = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from firmware.app import attach_services, build_daemon, close_daemon, mock_pin_factory
from firmware.config import parse_config
from firmware.devices.displays import open_dummy_device
from tests.conftest import config_data
sections = json.loads(sys.argv[2])
config = parse_config(config_data(state={"file": ""}, control={"socket": ""}, **sections))
daemon = build_daemon(config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=random.Random(1))
attached = attach_services(daemon, config)
daemon.start()
daemon.ready.wait(30)
obus = attached.prop.service("obus")
for _ in range(600):  # with [obus]: until its thread opened the bus
    if obus is None or obus.link.up:
        break
    time.sleep(0.05)
names = ("can", "msgpack", "firmware.services.obus")
print(json.dumps({name: name in sys.modules for name in names}))
daemon.stop()
for close in attached:
    close()
close_daemon(daemon)
"""


@pytest.mark.parametrize("with_obus", [False, True])
def test_python_can_is_imported_only_with_the_section(with_obus: bool) -> None:
    group, port = new_group()
    sections = {"obus": {"interface": "udp_multicast", "channel": group, "port": port}} if with_obus else {}
    run = subprocess.run(
        [sys.executable, "-c", START, str(ROOT), json.dumps(sections)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert loaded == {"can": with_obus, "msgpack": with_obus, "firmware.services.obus": with_obus}
