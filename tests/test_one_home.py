"""Each concept in one place (issue 26, part 4): what sharing it changed, held by tests.

- The ``Deal`` input is the gesture alone, whoever sends it (the daemon, ``baccarat play``).
- The state document is built once a batch, for MQTT, Room 2.0 and the console together.
- The daemon's hooks fire at the moments their names say; ``on_settled`` also after a frame alone.
- Side-bet limits read the same on the console as in the module's messages.
- The console is served the prop's display roles, inputs and area names (never a copy).
"""

from __future__ import annotations

import json
import random
import socket

from baccarat_core import BaccaratModule, Edgework, TableLimits
from baccarat_core import events as ev
from baccarat_core.events import AREA_NAMES
from baccarat_core.inputs import Arrow, Deal, Press
from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.devices.wiring import INPUT_NAMES, OPTIONAL_ROLES, ROLES
from firmware.room import commands
from firmware.room.commands import GameMaster, state_document
from firmware.services.mqtt.room import MqttService
from firmware.services.room2.link import RoomService
from firmware.web.backend import DaemonBackend
from firmware.web.live import words
from tests import browser
from tests.conftest import Rig, make_config

web_factory = browser.web_factory  # the fixture

EDGEWORK = Edgework("AB3DE4", ("Parallel", "Serial", "RJ-45"), ("FRK",), ("CAR",), 0)


def test_a_deal_input_is_the_gesture_alone_whoever_sends_it():
    """``handle(Deal())`` stops at the result, as the daemon shows it; the round's end is its own step."""
    module = BaccaratModule(EDGEWORK, TableLimits(25, 1000), first_color="red")
    module.start()
    for action in (Arrow("right"), Arrow("right"), Press("player")):
        module.handle(action)
    events = module.handle(Deal())
    assert [e.kind for e in events if not isinstance(e, ev.CardDealt)] == ["deal", "round", "strike"]
    assert module.round_pending and module.stacks["player"] == [25], "the chips stay until the round ends"
    assert [e.kind for e in module.finish_round()] == ["chips_cleared"]
    assert not module.round_pending and module.stacks["player"] == []


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_state_document_is_built_once_a_batch(mock_factory, monkeypatch):
    """MQTT, Room 2.0 and the console each need the state after a batch: one build serves all three."""
    config = make_config(
        mqtt={"host": "127.0.0.1", "port": _closed_port(), "room": "Casino", "reconnect_max_seconds": 30.0},
        state={"file": ""},
        control={"socket": ""},
    )
    built: list[int] = []
    build = commands.state_document

    def counting(module, shown=None, outputs=None):
        built.append(1)
        return build(module, shown, outputs)

    monkeypatch.setattr(commands, "state_document", counting)
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    rig = Rig(daemon, mock_factory)
    game_master = GameMaster(daemon, default_limits=config.limits)
    backend = DaemonBackend(daemon, game_master, name="test-prop")
    mqtt = config.settings["mqtt"]
    services = [
        MqttService(daemon, game_master, mqtt),
        RoomService(daemon, game_master, mqtt, config.settings["room2"]),
    ]
    for service in services:
        service.start()  # no broker at that port: the prop plays on offline, and still publishes its state
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        daemon.wait_idle()
        before = len(built)
        for name in ("right", "player", "player"):
            rig.tap(name)
        assert len(built) - before == 3, "one state document a batch, shared"
        now = build(daemon.module, None, daemon.board.outputs.states())  # between deals: what is shown
        assert backend.controller_state() == now  # ... and it is the state now
    finally:
        daemon.stop()
        for service in services:
            service.stop()
        close_daemon(daemon)


def test_the_hooks_fire_at_their_moments(rig_factory):
    """A press: handled, shown, its frame, settled. A deal: handled at once, then each event shown with
    its frame, and settled with exactly the events shown since the last settled call."""
    rig = rig_factory(make_config(timing={"card_seconds": 0.2, "result_seconds": 0.05}))
    daemon = rig.daemon
    rig.chips("player", 25)
    moments: list[str] = []
    daemon.on_handled.append(lambda events, module: moments.append("handled " + ",".join(e.kind for e in events)))
    daemon.on_shown.append(lambda event: moments.append(f"shown {event.kind}"))
    daemon.on_frame.append(lambda role, image: moments.append(f"frame {role}"))
    daemon.on_settled.append(lambda events, module: moments.append("settled " + ",".join(e.kind for e in events)))
    rig.tap("player")
    assert moments == ["handled chip", "shown chip", "frame bets", "settled chip"]
    moments.clear()
    rig.deal()  # waits for the round's end
    assert moments[0].startswith("handled deal,card")
    assert moments[1:5] == ["shown deal", "shown card", "frame table", "settled deal,card"]
    assert "shown round" in moments and moments.index("shown round") > moments.index("settled deal,card")
    shown: list[str] = []
    for moment in moments[1:]:  # each settled call carries the events shown since the last one
        kind, _, what = moment.partition(" ")
        if kind == "shown":
            shown.append(what)
        elif kind == "settled":
            assert (what.split(",") if what else []) == shown, moments
            shown = []


def test_side_bet_limits_read_as_everywhere_else():
    """One money formatter: the console's words say what the module's strike says."""
    module = BaccaratModule(EDGEWORK, TableLimits(100, 15000), first_color="red")
    module.start()
    text = words(state_document(module))["limits"]
    assert text == "$100 - $15,000 on Player and Banker; side bets (Tie and the pairs) $10.00 - $1500.00"
    module.handle(Press("tie"))  # $1: below the side bets' $10
    for _ in range(4):
        module.handle(Arrow("right"))  # $100 chips
    module.handle(Press("player"))
    strike = next(e for e in module.handle(Deal()) if isinstance(e, ev.Strike))
    assert strike.detail == "Tie bet $1 is outside the side-bet limits $10.00 - $1500.00"


def test_the_console_is_served_the_props_names(web_factory):
    web = web_factory(front_panel=True)
    status, _, body = web.request("GET", "/api/session")
    session = json.loads(body)
    assert status == 200
    built = [role for role in ROLES if role not in OPTIONAL_ROLES]  # the reference build: no casing display
    assert session["roles"] == built and session["inputs"] == list(INPUT_NAMES)
    assert session["areas"] == AREA_NAMES
    _, _, page = web.request("GET", "/")
    for name in ("Player Pair", "placard display", 'data-role="table"'):  # built from the session by console.js
        assert name.encode() not in page, f"the page copies {name!r} instead of asking the prop"
