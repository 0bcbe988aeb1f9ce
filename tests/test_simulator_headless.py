"""The simulator without a screen or a terminal (issue 41 item 13): ``--view headless`` under a pipe
(as a service manager or a container runs it) serves the console and the players' pages, and SIGTERM
is a clean stop in every view: the retained MQTT state ends with the outputs off and the prop
``offline`` (the terminal view left the lock "on" when SIGTERM killed it), against a real Mosquitto."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests import headless
from tests import test_simulator_terminal as terminal
from tests.conftest import ROOT
from tests.mosquitto import Broker, free_port

PREFIX = "bomb/baccarat"


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def config(tmp_path, short_dir, broker):
    """The reference build, fixed, with its own state file, socket, console port and broker."""
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    text = text.replace('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000')
    text = text.replace('first_color = "random"', 'first_color = "red"')
    port = free_port()
    text += f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
    text += f'\n[control]\nsocket = "{short_dir / "control.sock"}"\n'
    text += f"\n[web]\nport = {port}\n"
    text += f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
    path = tmp_path / "sim.toml"
    path.write_text(text)
    return path, port


class Retained:
    """The broker's retained state and status of the prop, as a controller sees them."""

    def __init__(self, broker: Broker) -> None:
        self.last: dict[str, str] = {}
        self.changed = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"watcher-{uuid.uuid4().hex[:6]}")
        self.client.on_connect = lambda c, *_: c.subscribe([(f"{PREFIX}/state", 1), (f"{PREFIX}/status", 1)])
        self.client.on_message = self._message
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _message(self, client, userdata, message) -> None:
        with self.changed:
            self.last[message.topic.rsplit("/", 1)[1]] = message.payload.decode()
            self.changed.notify_all()

    def wait(self, test, what: str, timeout: float = 30.0) -> dict[str, str]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not test(self.last):
                left = deadline - time.monotonic()
                assert left > 0, f"{what}: never; last seen {self.last}"
                self.changed.wait(left)
            return dict(self.last)

    def command(self, payload: dict) -> None:
        self.client.publish(f"{PREFIX}/command", json.dumps(payload), qos=1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _outputs(last: dict[str, str]) -> dict[str, bool] | None:
    """Each output's state in the retained state document, by name."""
    if "state" not in last:
        return None
    return {output["name"]: output["on"] for output in json.loads(last["state"]).get("outputs", [])}


def _solve_then_stop(broker: Broker, stop) -> dict[str, str]:
    """Force a solve (the lock output on), call ``stop``; the retained state and status after it."""
    watcher = Retained(broker)
    try:
        watcher.wait(lambda last: last.get("status") == "online" and _outputs(last), "the prop online")
        watcher.command({"id": "1", "command": "force_solve"})
        watcher.wait(lambda last: (_outputs(last) or {}).get("lock") is True, "the lock on once solved")
        stop()
        watcher.wait(lambda last: last.get("status") == "offline", "offline")
    finally:
        watcher.close()
    again = Retained(broker)  # a controller that connects afterwards: what the broker kept
    try:
        return again.wait(lambda last: "state" in last and "status" in last, "the retained messages")
    finally:
        again.close()


def test_headless_over_a_pipe_serves_the_console_and_stops_cleanly_on_sigterm(config, broker):
    path, port = config
    with headless.simulator(path) as (process, lines):  # --view auto
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert b"<title>Baccarat prop</title>" in page.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/play", timeout=10) as page:
            assert page.status == 200
        after = _solve_then_stop(broker, lambda: process.send_signal(signal.SIGTERM))
        assert process.wait(30) == 0
    text = "".join(lines)
    assert "the headless view" in text and "signal SIGTERM received" in text, text
    assert "Traceback" not in text, text
    assert _outputs(after) and not any(_outputs(after).values()), after
    assert after["status"] == "offline"


def test_sigterm_stops_the_terminal_view_cleanly(config, broker):
    path, _ = config
    name = f"baccarat-{uuid.uuid4().hex[:8]}"
    command = f"exec {sys.executable} -m firmware.cli run --simulate --view text --config {path}"
    terminal._tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(ROOT), command)
    try:
        terminal._wait_for(name, "ready: inputs armed")
        pid = int(terminal._tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip())
        after = _solve_then_stop(broker, lambda: os.kill(pid, signal.SIGTERM))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    assert _outputs(after) and not any(_outputs(after).values()), after
    assert after["status"] == "offline"


def test_a_terminal_view_without_a_terminal_says_so(config):
    path, _ = config
    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "run", "--simulate", "--view", "text", "--config", str(path)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "(--view headless runs without one)" in done.stderr and "Traceback" not in done.stderr


def test_sigterm_stops_the_window_view_cleanly(config, broker, tmp_path):
    """The window (SDL's dummy video driver: no screen needed) stops as cleanly, exit status 0. It
    did before too (SDL turns SIGTERM into a quit event, which the window takes as the user's quit):
    this keeps it so, whichever handler runs."""
    path, _ = config
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    log = tmp_path / "window.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "run", "--simulate", "--view", "window", "--config", str(path)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
        )
        try:
            after = _solve_then_stop(broker, lambda: process.send_signal(signal.SIGTERM))
            assert process.wait(30) == 0, log.read_text()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    assert _outputs(after) and not any(_outputs(after).values()), after
    assert after["status"] == "offline"
    assert "Traceback" not in log.read_text()
