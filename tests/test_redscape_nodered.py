"""The shipped Node-RED flow (examples/node-red/baccarat-flow.json) in a real Node-RED from npm,
against the prop and a real Mosquitto on loopback: imported through Node-RED's admin API as the
editor's import and deploy do, its buttons pressed as the editor presses them, and the prop's
reports read back from the flow's context.

Slow (Node-RED takes seconds to start); skipped, saying why, when node or the Node-RED that
scripts/_nodered.sh installs into .nodered/ is missing (bash scripts/test.sh installs both).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests import test_mqtt
from tests.conftest import ROOT
from tests.conventions import convention_prop, output_on, until
from tests.mosquitto import Broker, free_port

broker = test_mqtt.broker  # the fixtures
prop_factory = test_mqtt.prop_factory
__all__ = ["convention_prop"]

pytestmark = pytest.mark.install  # Node-RED, which scripts/test.sh installs from npm: not in the fast tier

FLOW = ROOT / "examples" / "node-red" / "baccarat-flow.json"
RED = ROOT / ".nodered" / "node_modules" / "node-red" / "red.js"

SETTINGS = """module.exports = {
    uiHost: "127.0.0.1",
    uiPort: %d,
    flowFile: "flows.json",
    credentialSecret: false,
    telemetry: { enabled: false },
    editorTheme: { tours: false },
    logging: { console: { level: "warn" } },
};
"""


class NodeRed:
    """A Node-RED of its own: its user directory, a free loopback port, its admin API."""

    def __init__(self, home: Path) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed (bash scripts/test.sh installs nodejs and Node-RED)")
        if not RED.is_file():
            pytest.skip("Node-RED is not in .nodered/ (bash scripts/_nodered.sh installs it)")
        self.port = free_port()
        self.home = home
        home.mkdir()
        (home / "settings.js").write_text(SETTINGS % self.port)
        self.log = (home / "node-red.log").open("w")
        self.process = subprocess.Popen(
            [node, str(RED), "--userDir", str(home), "--settings", str(home / "settings.js")],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"Node-RED did not start: {(home / 'node-red.log').read_text()[-2000:]}")
            time.sleep(0.2)

    def _answers(self) -> bool:
        try:
            return self.request("GET", "/settings")[0] == 200
        except OSError:
            return False

    def request(self, method: str, path: str, body: object = None, headers: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def deploy(self, flow: list[dict]) -> None:
        """As the editor's import and full deploy."""
        status, body = self.request("POST", "/flows", flow, {"Node-RED-Deployment-Type": "full"})
        assert status in (200, 204), (status, body)

    def press(self, node_id: str) -> None:
        """The inject node's button in the editor."""
        status, body = self.request("POST", f"/inject/{node_id}")
        assert status == 200, (status, body)

    def kept(self, key: str) -> dict | None:
        """A global in the flows' context, as the editor's context sidebar reads it."""
        status, body = self.request("GET", f"/context/global/{key}")
        if status != 200 or not body:
            return None
        found = json.loads(body)
        if not (isinstance(found, dict) and found.get("format") == "Object"):  # "(undefined)" before it is set
            return None
        value = json.loads(found["msg"])  # {"msg": "<the value, encoded>", "format": "Object"}
        return value if isinstance(value, dict) else None

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


@pytest.fixture
def node_red(tmp_path):
    red = NodeRed(tmp_path / "node-red")
    yield red
    red.stop()


def shipped_flow(broker: Broker) -> tuple[list[dict], dict[str, str]]:
    """The shipped flow with its broker node set to the test's broker (what a room does in the
    editor), and its buttons by name."""
    flow = json.loads(FLOW.read_text())
    for node in flow:
        if node["type"] == "mqtt-broker":
            node["broker"], node["port"] = broker.host, str(broker.port)
    return flow, {node["name"]: node["id"] for node in flow if node["type"] == "inject"}


def test_the_shipped_flow_drives_the_prop_in_a_real_node_red(convention_prop, broker, node_red):
    rig = convention_prop(redscape={"id": "baccarat"})
    flow, buttons = shipped_flow(broker)
    node_red.deploy(flow)
    # The retained report reaches the flow as soon as it subscribes.
    until(lambda: (node_red.kept("baccarat") or {}).get("state") == "UNSOLVED", 30, "the first report in the flow")
    assert node_red.kept("baccarat")["outputs"] == {"lock": False, "horn": False}

    node_red.press(buttons["Solve"])
    until(lambda: rig.daemon.module.solved, 10, "the prop solved by the flow's button")
    until(lambda: (node_red.kept("baccarat") or {}).get("state") == "SOLVED", 10, "SOLVED in the flow")
    assert node_red.kept("baccarat")["outputs"]["lock"] is True and output_on(rig, "lock")

    node_red.press(buttons["Disable (inputs ignored)"])
    until(lambda: (node_red.kept("baccarat") or {}).get("enabled") is False, 10, "disabled in the flow")
    assert not rig.daemon.module.enabled
    node_red.press(buttons["Reset every device"])  # ToDevice/All
    until(lambda: (node_red.kept("baccarat") or {}).get("state") == "UNSOLVED", 10, "UNSOLVED after the reset")
    assert not rig.daemon.module.solved and not output_on(rig, "lock")
    node_red.press(buttons["Enable"])
    node_red.press(buttons["Lock on (output 0)"])
    until(lambda: output_on(rig, "lock"), 10, "the lock on from the flow")
    until(lambda: (node_red.kept("baccarat") or {}).get("outputs", {}).get("lock") is True, 10, "lock on in the flow")
    assert rig.daemon.module.enabled
    node_red.press(buttons["Lock off"])
    until(lambda: not output_on(rig, "lock"), 10, "the lock off from the flow")
