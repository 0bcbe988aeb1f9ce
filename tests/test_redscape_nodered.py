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


#: What node-redscape's prop flows do with each message about a prop (their "Store" and "Parse JSON
#: and update stored state" functions, written again here): merge it into the global named by the
#: prop's id. ``history`` keeps each state stored, for the failure message.
STORE = """var propid = flow.get("payload.id") || msg.payload.id;
var prop = global.get(propid) || {};
for (var key in msg.payload) { prop[key] = msg.payload[key]; }
global.set(propid, prop);
global.set("history", (global.get("history") || []).concat([prop.state]));
msg.payload = prop;
return msg;"""


def redscape_style_flow(broker: Broker, *, ask_status: bool) -> list[dict]:
    """A flow shaped as node-redscape's Button prop flow: its MQTT in node subscribes to
    FromDevice/baccarat when Node-RED connects, and at start ("On Initialisation", 2 s after the
    deploy here) "Configuration" stores the flow's own description of the prop, ``"state":
    "UNSOLVED"``, over whatever report came before. With ``ask_status`` it then asks the prop for
    its report, as the docs tell a room to add."""
    description = {"id": "baccarat", "name": "Baccarat", "description": "win a round", "state": "UNSOLVED"}
    tab, server = "c0ffee0000000001", "c0ffee0000000002"
    node = {"z": tab, "x": 100, "y": 100}
    flow = [
        {"id": tab, "type": "tab", "label": "node-redscape prop"},
        {"id": server, "type": "mqtt-broker", "name": "MQTT Server", "broker": broker.host,
         "port": str(broker.port), "clientid": "", "autoConnect": True, "usetls": False,
         "protocolVersion": "4", "keepalive": "60", "cleansession": True},
        {"id": "c0ffee0000000003", "type": "inject", "name": "On Initialisation", "props": [{"p": "payload"}],
         "repeat": "", "crontab": "", "once": True, "onceDelay": 2, "topic": "", "payload": "",
         "payloadType": "date", "wires": [["c0ffee0000000004"]], **node},
        {"id": "c0ffee0000000004", "type": "change", "name": "Configuration", "rules": [
            {"t": "set", "p": "payload", "pt": "flow", "to": json.dumps(description), "tot": "json"},
            {"t": "set", "p": "payload", "pt": "msg", "to": "payload", "tot": "flow"}],
         "wires": [["c0ffee0000000005"]], **node},
        {"id": "c0ffee0000000005", "type": "function", "name": "Store", "func": STORE, "outputs": 1,
         "wires": [["c0ffee0000000008"] if ask_status else []], **node},
        {"id": "c0ffee0000000006", "type": "mqtt in", "name": "MQTT FromDevice", "topic": "FromDevice/baccarat",
         "qos": "2", "datatype": "json", "broker": server, "nl": False, "rap": False, "inputs": 0,
         "wires": [["c0ffee0000000007"]], **node},
        {"id": "c0ffee0000000007", "type": "function", "name": "Parse and store", "func": STORE, "outputs": 1,
         "wires": [[]], **node},
        {"id": "c0ffee0000000008", "type": "change", "name": "Ask for the report", "rules": [
            {"t": "set", "p": "payload", "pt": "msg", "to": '{"command": "STATUS"}', "tot": "json"}],
         "wires": [["c0ffee0000000009"]], **node},
        {"id": "c0ffee0000000009", "type": "mqtt out", "name": "MQTT ToDevice", "topic": "ToDevice/baccarat",
         "qos": "1", "retain": "false", "broker": server, "wires": [], **node},
    ]  # fmt: skip
    return flow


def started_after_the_prop(rig, node_red, broker: Broker, *, ask_status: bool) -> None:
    """The prop solved before Node-RED's flow starts; the flow's stored copy ends up SOLVED."""
    rig.master.handle({"command": "force_solve"}).result(5)
    node_red.deploy(redscape_style_flow(broker, ask_status=ask_status))

    def solved_after_the_flows_own_start() -> bool:
        kept = node_red.kept("baccarat") or {}
        return kept.get("name") == "Baccarat" and kept.get("state") == "SOLVED"

    until(solved_after_the_flows_own_start, 30, "SOLVED in the flow after it stored its own UNSOLVED")


def test_a_node_redscape_flow_started_later_is_put_right_by_the_refresh(convention_prop, broker, node_red):
    """Issue 41 item 5: the flow's own "UNSOLVED" at start overwrote the retained report for good."""
    rig = convention_prop(redscape={"id": "baccarat", "refresh_seconds": 1.0})
    started_after_the_prop(rig, node_red, broker, ask_status=False)


def test_a_node_redscape_flow_that_asks_at_start_has_the_report_at_once(convention_prop, broker, node_red):
    rig = convention_prop(redscape={"id": "baccarat", "refresh_seconds": 0.0})  # no refresh: the answer does it
    started_after_the_prop(rig, node_red, broker, ask_status=True)
