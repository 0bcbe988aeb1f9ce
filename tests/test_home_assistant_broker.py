"""Home Assistant's discovery on a real Mosquitto: published, retained, republished for Home
Assistant's birth (at most once in ``BIRTH_SECONDS``), stale entities removed (only the prop's own,
from the retained copy, at most ``MAX_REMOVALS``), and hostile documents on the discovery topic."""

from __future__ import annotations

import json
import random
from datetime import datetime

import firmware
from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster
from firmware.services.home_assistant.discovery import HomeAssistantService, discovery_payload
from firmware.services.mqtt.room import MqttService
from tests import test_mqtt
from tests.conftest import Rig, make_config, start_served
from tests.test_home_assistant import TOPICS, check_device_discovery
from tests.test_home_assistant_templates import home_assistant_event

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory


def test_discovery_on_the_broker(mock_factory, broker, watcher_factory):
    watcher = watcher_factory(topics=("homeassistant/#", "bomb/baccarat/#"))
    config = make_config(
        mqtt=test_mqtt.mqtt_section(broker, client_id="casino-baccarat"), state={"file": ""}, control={"socket": ""}
    )
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    rig = Rig(daemon, mock_factory)
    service = MqttService(daemon, GameMaster(daemon), config.settings["mqtt"])
    home = HomeAssistantService(service)
    home.start()
    service.start()
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        topic = "homeassistant/device/casino-baccarat/config"
        document = json.loads(watcher.wait_for(topic))
        components = check_device_discovery(document)
        assert document == json.loads(json.dumps(home.document))
        state = json.loads(watcher.wait_for("bomb/baccarat/state"))
        assert state["deck"] in components["casino-baccarat_deck"]["options"]

        # Retained: a Home Assistant that starts later gets it at once.
        late = watcher_factory(topics=(topic,))
        late.wait_for(topic)
        assert any(retained for t, _, retained in late.messages if t == topic)

        # Home Assistant announces itself: the document comes again.
        count = len(watcher.on(topic))
        watcher.publish("homeassistant/status", "online")
        watcher.wait_after(topic, count, lambda p: json.loads(p) == document)
        watcher.publish("homeassistant/status", "offline")

        # A button as Home Assistant presses it: its payload on the command topic.
        watcher.publish("bomb/baccarat/command", components["casino-baccarat_force_solve"]["payload_press"])
        solved = watcher.wait_for("bomb/baccarat/state", lambda p: json.loads(p)["solved"])
        assert json.loads(solved)["status"] == "solved"
        number = components["casino-baccarat_solved_count"]["command_template"].replace("{{ value | int }}", "4")
        watcher.publish("bomb/baccarat/command", number)
        watcher.wait_for("bomb/baccarat/state", lambda p: json.loads(p)["edgework"]["solved"] == 4)
        assert len(watcher.on(topic)) == count + 1, "discovery sent again without a reason"
        assert rig.events
    finally:
        daemon.stop()
        home.stop()
        service.stop()
        close_daemon(daemon)


def start_prop(mock_factory, broker, *, client_id: str = "casino-baccarat", **mqtt):
    """A daemon with its MQTT service and Home Assistant's discovery, as ``attach_services`` makes them."""
    config = make_config(
        mqtt=test_mqtt.mqtt_section(broker, client_id=client_id, **mqtt), state={"file": ""}, control={"socket": ""}
    )
    return start_served(config, mock_factory)


def home_of(rig) -> HomeAssistantService:
    service = next(
        listener.__self__
        for listener in rig.daemon.on_settled
        if isinstance(getattr(listener, "__self__", None), MqttService)
    )
    (hook,) = [h for h in service.link.connect_hooks if isinstance(getattr(h, "__self__", None), HomeAssistantService)]
    return hook.__self__


def test_events_and_diagnostics_reach_home_assistant(mock_factory, broker, watcher_factory):
    """A strike and a solve on ``P/events`` fire the event entities; the diagnostics are retained and
    follow the prop's last warning."""
    watcher = watcher_factory(topics=("homeassistant/#", "bomb/baccarat/#"))
    rig, stop = start_prop(mock_factory, broker, home_assistant=True)
    try:
        topic = "homeassistant/device/casino-baccarat/config"
        components = check_device_discovery(json.loads(watcher.wait_for(topic)))
        diagnostics = json.loads(watcher.wait_for("bomb/baccarat/diagnostics"))
        assert diagnostics["version"] == firmware.__version__ and diagnostics["last_error"] == "none"
        assert datetime.fromisoformat(diagnostics["started"]).tzinfo is not None
        late = watcher_factory(topics=("bomb/baccarat/diagnostics",))
        assert json.loads(late.wait_for("bomb/baccarat/diagnostics")) == diagnostics, "not retained"

        rig.deal()  # no bet: a strike
        watcher.command({"command": "force_solve"})
        strike, solve = components["casino-baccarat_strike_event"], components["casino-baccarat_solved_event"]
        watcher.wait_for("bomb/baccarat/events", lambda p: json.loads(p)["event"] == "solved")
        fired = [
            fired
            for payload in watcher.on("bomb/baccarat/events")
            for fired in (home_assistant_event(strike, payload), home_assistant_event(solve, payload))
            if fired is not None
        ]
        assert [name for name, _ in fired] == ["strike", "solved"]

        # A warning becomes the last error, retained (a bad solved count is refused with one).
        watcher.publish("bomb/solved", "-3")
        text = watcher.wait_for("bomb/baccarat/diagnostics", lambda p: json.loads(p)["last_error"] != "none")
        last = json.loads(text)
        assert last["last_error"].startswith("WARNING baccarat.mqtt: ignored the message on bomb/solved: "), last
        assert datetime.fromisoformat(last["last_error_at"]) >= datetime.fromisoformat(last["started"])
        late = watcher_factory(topics=("bomb/baccarat/diagnostics",))
        assert json.loads(late.wait_for("bomb/baccarat/diagnostics")) == last, "not retained"
    finally:
        stop()


def test_an_entity_no_longer_configured_is_removed(mock_factory, broker, watcher_factory):
    """The retained document of an earlier run declares an entity this one does not: it is published once
    in Home Assistant's removal form, then the document without it, which stays retained."""
    topic = "homeassistant/device/casino-baccarat/config"
    old = discovery_payload("casino-baccarat", TOPICS, sw_version="0.0.9")
    old["cmps"]["casino-baccarat_bomb_timer"] = {
        "p": "sensor",
        "name": "Bomb timer",
        "unique_id": "casino-baccarat_bomb_timer",
        "state_topic": TOPICS["state"],
        "value_template": "{{ value_json.timer }}",
    }
    watcher = watcher_factory(topics=(topic,))
    watcher.publish(topic, json.dumps(old), retain=True)
    watcher.wait_for(topic)

    rig, stop = start_prop(mock_factory, broker, home_assistant=True)
    try:
        home = home_of(rig)
        removal = watcher.wait_for(
            topic, lambda p: "casino-baccarat_bomb_timer" in json.loads(p)["cmps"] and p != json.dumps(old)
        )
        assert json.loads(removal)["cmps"]["casino-baccarat_bomb_timer"] == {"p": "sensor"}
        assert set(json.loads(removal)["cmps"]) == set(home.document["cmps"]) | {"casino-baccarat_bomb_timer"}
        start = watcher.on(topic).index(removal)
        watcher.wait_after(topic, start + 1, lambda p: json.loads(p) == home.document)
        assert home.removed == ["casino-baccarat_bomb_timer"]
        late = watcher_factory(topics=(topic,))
        assert json.loads(late.wait_for(topic)) == home.document, "the removal form stayed retained"

        # Home Assistant comes back: the document again, no removal (nothing stale is retained now).
        count = len(watcher.on(topic))
        watcher.publish("homeassistant/status", "online")
        watcher.wait_after(topic, count, lambda p: json.loads(p) == home.document)
        assert home.removed == ["casino-baccarat_bomb_timer"]
    finally:
        stop()


def test_home_assistant_turned_off_removes_the_device(mock_factory, broker, watcher_factory):
    topic = "homeassistant/device/casino-baccarat/config"
    watcher = watcher_factory(topics=(topic,))
    watcher.publish(topic, json.dumps(discovery_payload("casino-baccarat", TOPICS)), retain=True)
    watcher.wait_for(topic)
    rig, stop = start_prop(mock_factory, broker, home_assistant=False)
    try:
        watcher.wait_for(topic, lambda p: p == "")
        late = watcher_factory(topics=(topic, "bomb/baccarat/status"))
        late.wait_for("bomb/baccarat/status")
        assert late.on(topic) == [], "a discovery message is still retained"
        assert not home_of(rig).enabled
    finally:
        stop()


def test_home_assistant_off_and_never_on_publishes_nothing_there(mock_factory, broker, watcher_factory):
    watcher = watcher_factory(topics=("homeassistant/#",))
    rig, stop = start_prop(mock_factory, broker)
    try:
        test_mqtt.connected(rig)
        watcher.publish("homeassistant/status", "online")
        test_mqtt.settle(rig)
        assert [t for t, _, _ in watcher.messages if t != "homeassistant/status"] == []
    finally:
        stop()
