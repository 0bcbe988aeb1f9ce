"""The service manager's watchdog (issue 23, part 1): the real daemon over the recorded bus
(tests/fakeos.py: luma.oled, luma.core and smbus2 run unmodified) and a stand-in for systemd's
notify socket (tests/notify_listener.py).

What is checked: READY=1 comes once the first frames are on the panels, never before; the
game thread's pings keep coming while it is healthy and stop when the table display's I2C
write never returns; the status line follows the game and a display that does not answer;
and, in a process of its own started as the service starts it, that the datagrams come from
the main process (``NotifyAccess=main``), that SIGTERM says STOPPING=1, and that the SIGABRT
systemd sends a hung prop leaves every thread's stack in the log.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_luma_device
from firmware.system import sdnotify
from tests import fakeos
from tests.conftest import ROOT, make_config
from tests.notify_listener import NotifyListener, parse

# luma.oled 3.16's stock drivers read pixels with Image.getdata, which Pillow 13 deprecates (ours do not).
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

#: systemd's WATCHDOG_USEC for these tests: a ping every 0.2 s.
WATCHDOG_USEC = 400_000
PANELS = {"placard": ("ssd1306", (128, 32)), "table": ("ssd1306", (128, 64)), "bets": ("sh1106", (128, 64))}


class SendSpy:
    """The notifier's socket: at each datagram, before it leaves, it notes how many writes each
    display had received and whether the table's write was stuck, then sends it for real."""

    def __init__(self, real: socket.socket, ends: dict[str, fakeos.Recorder], table: fakeos.I2cTarget) -> None:
        self.real = real
        self.ends = ends
        self.table = table
        self.sent: list[tuple[dict[str, str], dict[str, int], bool]] = []

    def sendto(self, data: bytes, address: object) -> int:
        marks = {role: end.mark() for role, end in self.ends.items()}
        self.sent.append((parse(data), marks, self.table.hung.is_set()))
        return self.real.sendto(data, address)

    def close(self) -> None:
        self.real.close()


@pytest.fixture
def prop(monkeypatch, mock_factory, short_dir):
    """The reference build over the recorded bus, its notifier pointed at a listener; not started."""
    yield from _prop(monkeypatch, mock_factory, short_dir, {"WATCHDOG_USEC": str(WATCHDOG_USEC)})


@pytest.fixture
def prop_without_watchdog(monkeypatch, mock_factory, short_dir):
    """The same, under a unit without ``WatchdogSec=``."""
    yield from _prop(monkeypatch, mock_factory, short_dir, {})


def _prop(monkeypatch, mock_factory, short_dir, env):
    with fakeos.installed(monkeypatch) as linux:
        ends = {
            "placard": linux.i2c_display(1, 0x3C),
            "table": linux.i2c_display(1, 0x3D),
            "bets": linux.spi_device(0, 0, dc=24),
        }
        listener = NotifyListener(str(short_dir / "notify"))
        daemon = build_daemon(
            make_config(state={"file": ""}),
            pin_factory=mock_factory,
            device_factory=open_luma_device,
            rng=random.Random(3),
        )
        notifier = sdnotify.attach(daemon, {"NOTIFY_SOCKET": listener.address, **env})
        assert notifier is not None and notifier.watchdog == (0.2 if env else None)
        spy = SendSpy(notifier._socket, ends, ends["table"])
        notifier._socket = spy
        try:
            yield daemon, ends, listener, spy
        finally:
            ends["table"].release()
            daemon.stop()
            close_daemon(daemon)
            listener.close()


def test_ready_comes_once_the_first_frames_are_on_the_panels(prop):
    daemon, ends, listener, spy = prop
    assert not spy.sent
    daemon.start()
    (ready,) = listener.wait_for("READY")
    assert ready.fields["READY"] == "1" and ready.pid == os.getpid()
    assert ready.fields["STATUS"] == "armed, 0 strikes"
    daemon.wait_idle()
    fields, marks, _ = next(s for s in spy.sent if "READY" in s[0])
    for role, (driver, size) in PANELS.items():
        upto = fakeos.Recorder()
        upto.writes = ends[role].writes[: marks[role]]
        at_ready = fakeos.panel(upto, driver, *size)
        now = fakeos.panel(ends[role], driver, *size)
        assert at_ready.getbbox() is not None, f"{role} was blank when READY=1 was sent"
        assert at_ready.tobytes() == now.tobytes(), f"{role} was not yet showing its first frame at READY=1"
    assert sum("READY" in s[0] for s in spy.sent) == 1


def test_pings_keep_coming_from_a_healthy_daemon_and_stop_when_the_table_write_hangs(prop):
    daemon, ends, listener, spy = prop
    table = ends["table"]
    daemon.start()
    pings = listener.wait_for("WATCHDOG", count=5)
    assert all(m.fields["WATCHDOG"] == "1" and m.pid == os.getpid() for m in pings)

    table.hang()
    daemon.identify(0.3)  # inverts every display: the game thread writes to the table, and sticks
    assert table.hung.wait(10), "the table display was never written"
    time.sleep(8 * WATCHDOG_USEC / 2e6)  # eight ping periods: a healthy daemon sent eight meanwhile
    assert not [fields for fields, _, stuck in spy.sent if stuck], "pinged while the game thread was stuck"
    assert daemon.running()  # the thread is alive, just stuck: only the pings tell

    table.release()  # the stuck write fails (ETIMEDOUT), the game goes on: pings again
    listener.drain()
    count = len(listener.messages)
    listener.wait_for("WATCHDOG", count=len([m for m in listener.messages if "WATCHDOG" in m.fields]) + 3)
    # Pings again; a status line may come between them (the table failed, then answered again).
    assert sum("WATCHDOG" in m.fields for m in listener.messages[count:]) >= 3
    assert all("WATCHDOG" in m.fields or "STATUS" in m.fields for m in listener.messages[count:])


def test_the_status_line_names_a_display_that_does_not_answer(prop):
    daemon, ends, listener, _ = prop
    daemon.start()
    listener.wait_for("READY")
    ends["table"].unplug()  # EREMOTEIO from now on, as a loose wire on a Pi
    daemon.identify(0.3)
    listener.wait_for("STATUS", count=2)
    ends["table"].plug()  # retried every second: it answers again
    listener.wait_for("STATUS", count=3)
    statuses = [m.fields["STATUS"] for m in listener.messages if "STATUS" in m.fields]
    assert statuses == ["armed, 0 strikes", "armed, 0 strikes; display table not answering", "armed, 0 strikes"]


def test_the_status_line_follows_strikes_and_the_solve(prop):
    daemon, _, listener, _ = prop
    daemon.start()
    listener.wait_for("READY")
    # Chips on player and banker at once: the deal is refused with a strike.
    daemon.apply(lambda m: m.press("player") + m.press("banker") + m.deal()).result(5)
    daemon.wait_idle()
    daemon.apply(lambda m: m.force_solve()).result(5)
    deadline = time.monotonic() + 30
    while "solved" not in [m.fields.get("STATUS") for m in listener.messages]:
        assert time.monotonic() < deadline, listener.messages
        listener.receive(deadline - time.monotonic())
    statuses = [m.fields["STATUS"] for m in listener.messages if "STATUS" in m.fields]
    assert statuses == ["armed, 0 strikes", "armed, 1 strike", "solved"]


def test_without_a_watchdog_ready_and_the_status_still_come_and_no_pings(prop_without_watchdog):
    daemon, _, listener, spy = prop_without_watchdog
    daemon.start()
    listener.wait_for("READY")
    daemon.apply(lambda m: m.press("player") + m.press("banker") + m.deal()).result(5)
    daemon.wait_idle()
    listener.wait_for("STATUS", count=2)
    assert [m.fields.get("STATUS") for m in listener.messages] == ["armed, 0 strikes", "armed, 1 strike"]
    assert not [fields for fields, _, _ in spy.sent if "WATCHDOG" in fields]


def test_no_notify_socket_no_notifier_and_the_watchdog_needs_its_own_pid():
    assert sdnotify.Notifier.from_environment({}) is None
    assert sdnotify.watchdog_seconds({"WATCHDOG_USEC": "15000000"}, 42) == 7.5
    assert sdnotify.watchdog_seconds({"WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "42"}, 42) == 7.5
    assert sdnotify.watchdog_seconds({"WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "41"}, 42) is None
    assert sdnotify.watchdog_seconds({"WATCHDOG_USEC": "x"}, 42) is None
    assert sdnotify.watchdog_seconds({"WATCHDOG_USEC": "0"}, 42) is None
    assert sdnotify.socket_address("@sd-notify") == b"\0sd-notify"
    assert sdnotify.socket_address("/run/systemd/notify") == "/run/systemd/notify"


# -- the whole process, as the service starts it ------------------------------------------------


def _start(directory: Path, address: str) -> subprocess.Popen:
    config = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    config += f'\n[state]\nfile = "{directory / "state.json"}"\n\n[control]\nsocket = "{directory / "c.sock"}"\n'
    (directory / "config.toml").write_text(config)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPIOZERO_", "JOURNAL_STREAM", "WATCHDOG_"))}
    env |= {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
    env.pop("PYTHONFAULTHANDLER", None)  # the daemon turns faulthandler on itself
    return subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "watchdog_process.py"), str(directory / "config.toml")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _command(path: Path, command: str) -> None:
    """Send one control-socket command without waiting for its reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(path))
        client.sendall((json.dumps({"command": command}) + "\n").encode())


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_the_service_process_pings_from_its_main_pid_and_says_stopping_on_sigterm(short_dir, kind):
    address = str(short_dir / "notify") if kind == "path" else f"@baccarat-test-{uuid.uuid4().hex}"
    listener = NotifyListener(address)
    proc = _start(short_dir, address)
    try:
        (ready,) = listener.wait_for("READY")
        pings = listener.wait_for("WATCHDOG", count=3)
        assert {m.pid for m in [ready, *pings]} == {proc.pid}  # NotifyAccess=main accepts them
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err[-3000:]
        stopping = [m for m in listener.drain() + listener.messages if "STOPPING" in m.fields]
        assert stopping and stopping[0].pid == proc.pid
        assert "ready: inputs armed" in err and "watchdog pings every 0.2 s" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        listener.close()


def test_a_hung_table_write_stops_the_pings_and_systemds_sigabrt_shows_where(short_dir):
    listener = NotifyListener(str(short_dir / "notify"))
    proc = _start(short_dir, listener.address)
    assert proc.stdout is not None
    try:
        listener.wait_for("WATCHDOG", count=3)
        proc.send_signal(signal.SIGUSR2)  # the child arms the hang on the table's address
        assert proc.stdout.readline().strip() == "armed"
        _command(short_dir / "c.sock", "identify")  # every display inverted: the table is written
        assert proc.stdout.readline().strip() == "hung"
        listener.drain()  # what was sent before the write stuck
        time.sleep(8 * WATCHDOG_USEC / 2e6)
        late = [m for m in listener.drain() if "WATCHDOG" in m.fields]
        assert not late, f"{len(late)} pings after the game thread stuck"
        assert proc.poll() is None  # alive, and silent: systemd's watchdog kills it now
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGABRT
        assert "Fatal Python error: Aborted" in err
        stack = err[err.index("Fatal Python error") :]
        assert "smbus2" in stack and "in _transfer" in stack, stack[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        listener.close()
