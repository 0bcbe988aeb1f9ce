"""Home Assistant device discovery: the payload against the documented schema, and on a real Mosquitto.

The schema below is Home Assistant's documentation of MQTT device discovery
(integrations/mqtt, "Device discovery payload", and each platform's page) and
its discovery code (homeassistant/components/mqtt: abbreviations.py,
schemas.py): the root needs ``device`` (``dev``) with an identifier and
``origin`` (``o``) with a name; ``components`` (``cmps``) maps IDs to
component configs, each with a ``platform`` (``p``) and a ``unique_id``;
``availability``, ``state_topic``, ``command_topic``, ``qos`` and ``encoding``
may be shared at the root. Unknown keys are silently ignored by Home Assistant,
so the test refuses them here: a typo would otherwise never show.
"""

from __future__ import annotations

import json
import logging
import random
import re
from datetime import datetime

import firmware
from baccarat_core.deck import COLORS
from baccarat_core.limits import TableLimits
from baccarat_core.strict import MAX_SOLVED
from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room import commands as gm_commands
from firmware.room.commands import GameMaster
from firmware.room.diagnostics import Diagnostics
from firmware.room.home_assistant import HomeAssistantService, device_id, discovery_payload, discovery_topic
from firmware.room.mqtt import MqttService
from tests import test_mqtt
from tests.conftest import Rig, make_config, start_served

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory

# Documented abbreviations (only those a payload may use at each level).
ABBREVIATIONS = {
    "avty": "availability",
    "avty_mode": "availability_mode",
    "avty_t": "availability_topic",
    "avty_tpl": "availability_template",
    "cmd_t": "command_topic",
    "cmd_tpl": "command_template",
    "cmps": "components",
    "dev": "device",
    "dev_cla": "device_class",
    "e": "encoding",
    "ent_cat": "entity_category",
    "ic": "icon",
    "o": "origin",
    "ops": "options",
    "p": "platform",
    "pl_avail": "payload_available",
    "pl_not_avail": "payload_not_available",
    "pl_off": "payload_off",
    "pl_on": "payload_on",
    "pl_prs": "payload_press",
    "stat_cla": "state_class",
    "stat_off": "state_off",
    "stat_on": "state_on",
    "stat_t": "state_topic",
    "t": "topic",
    "uniq_id": "unique_id",
    "unit_of_meas": "unit_of_measurement",
    "val_tpl": "value_template",
}
DEVICE_ABBREVIATIONS = {
    "cns": "connections",
    "cu": "configuration_url",
    "ids": "identifiers",
    "name": "name",
    "mf": "manufacturer",
    "mdl": "model",
    "sw": "sw_version",
    "hw": "hw_version",
    "sn": "serial_number",
    "sa": "suggested_area",
}
ORIGIN_ABBREVIATIONS = {"name": "name", "sw": "sw_version", "url": "support_url"}

ROOT_OPTIONS = {
    "device",
    "origin",
    "components",
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "payload_available",
    "payload_not_available",
    "state_topic",
    "command_topic",
    "qos",
    "encoding",
    "~",
}
SHARED_OPTIONS = {
    "availability",
    "availability_mode",
    "availability_template",
    "availability_topic",
    "command_topic",
    "payload_available",
    "payload_not_available",
    "state_topic",
}
DEVICE_OPTIONS = set(DEVICE_ABBREVIATIONS.values()) | {"via_device"}
ORIGIN_OPTIONS = {"name", "sw_version", "support_url"}

COMMON = {
    "platform",
    "name",
    "unique_id",
    "icon",
    "entity_category",
    "enabled_by_default",
    "object_id",
    "qos",
    "encoding",
    "json_attributes_topic",
    "json_attributes_template",
    "availability",
    "availability_mode",
    "availability_topic",
    "availability_template",
    "payload_available",
    "payload_not_available",
}
# Per platform: (required after the shared options are merged, allowed).
PLATFORMS = {
    "binary_sensor": (
        {"state_topic"},
        {
            "state_topic",
            "value_template",
            "payload_on",
            "payload_off",
            "device_class",
            "expire_after",
            "force_update",
            "off_delay",
        },
    ),
    "sensor": (
        {"state_topic"},
        {
            "state_topic",
            "value_template",
            "device_class",
            "state_class",
            "unit_of_measurement",
            "options",
            "expire_after",
            "force_update",
            "suggested_display_precision",
            "last_reset_value_template",
        },
    ),
    "number": (
        {"command_topic"},
        {
            "command_topic",
            "command_template",
            "state_topic",
            "value_template",
            "min",
            "max",
            "step",
            "mode",
            "device_class",
            "unit_of_measurement",
            "optimistic",
            "retain",
            "payload_reset",
        },
    ),
    "button": ({"command_topic"}, {"command_topic", "command_template", "payload_press", "device_class", "retain"}),
    "event": ({"state_topic", "event_types"}, {"state_topic", "value_template", "event_types", "device_class"}),
    # homeassistant/components/mqtt/update.py: MQTT_RO_SCHEMA (state_topic, value_template) and its own
    "update": (
        {"state_topic"},
        {
            "state_topic",
            "value_template",
            "command_topic",
            "device_class",
            "entity_picture",
            "latest_version_template",
            "latest_version_topic",
            "payload_install",
            "release_summary",
            "release_url",
            "retain",
            "title",
        },
    ),
    "switch": (
        {"command_topic"},
        {
            "command_topic",
            "command_template",
            "state_topic",
            "value_template",
            "payload_on",
            "payload_off",
            "state_on",
            "state_off",
            "device_class",
            "optimistic",
            "retain",
        },
    ),
}
SUPPORTED_PLATFORMS = {
    "alarm_control_panel",
    "binary_sensor",
    "button",
    "camera",
    "climate",
    "cover",
    "device_tracker",
    "device_automation",
    "event",
    "fan",
    "humidifier",
    "image",
    "lawn_mower",
    "light",
    "lock",
    "notify",
    "number",
    "scene",
    "select",
    "sensor",
    "siren",
    "switch",
    "tag",
    "text",
    "update",
    "vacuum",
    "valve",
    "water_heater",
}
ENTITY_CATEGORIES = {"config", "diagnostic"}
TOPICS = {
    "state": "bomb/baccarat/state",
    "command": "bomb/baccarat/command",
    "status": "bomb/baccarat/status",
    "events": "bomb/baccarat/events",
    "reply": "bomb/baccarat/reply",
    "diagnostics": "bomb/baccarat/diagnostics",
}


def expand(data: dict, table: dict[str, str]) -> dict:
    return {table.get(key, key): value for key, value in data.items()}


def check_device_discovery(payload: dict) -> dict[str, dict]:
    """Validate ``payload`` as Home Assistant documents it; returns the expanded component configs."""
    root = expand(payload, ABBREVIATIONS)
    assert set(root) <= ROOT_OPTIONS, f"unknown root options {set(root) - ROOT_OPTIONS}"
    device = expand(root["device"], DEVICE_ABBREVIATIONS)
    assert set(device) <= DEVICE_OPTIONS, set(device) - DEVICE_OPTIONS
    ids = device.get("identifiers")
    assert (isinstance(ids, list) and ids and all(isinstance(i, str) for i in ids)) or device.get("connections")
    origin = expand(root["origin"], ORIGIN_ABBREVIATIONS)
    assert set(origin) <= ORIGIN_OPTIONS and isinstance(origin["name"], str) and origin["name"]
    for entry in root.get("availability", []):
        entry = expand(entry, ABBREVIATIONS)
        assert set(entry) <= {"topic", "payload_available", "payload_not_available", "value_template"}
        assert isinstance(entry["topic"], str) and entry["topic"] and not set(entry["topic"]) & {"#", "+"}
    assert root.get("qos", 0) in (0, 1, 2)
    components = root["components"]
    assert isinstance(components, dict) and components
    out = {}
    unique_ids = set()
    for component_id, raw in components.items():
        assert re.fullmatch(r"[a-zA-Z0-9_-]+", component_id), component_id
        config = expand(raw, ABBREVIATIONS)
        platform = config["platform"]
        assert platform in SUPPORTED_PLATFORMS, platform
        assert isinstance(config.get("unique_id"), str) and config["unique_id"], f"{component_id}: no unique_id"
        assert config["unique_id"] not in unique_ids
        unique_ids.add(config["unique_id"])
        required, allowed = PLATFORMS[platform]
        unknown = set(config) - allowed - COMMON
        assert not unknown, f"{component_id}: options {unknown} are not documented for {platform}"
        merged = {**{k: v for k, v in root.items() if k in SHARED_OPTIONS}, **config}
        missing = required - set(merged)
        assert not missing, f"{component_id}: {platform} needs {missing}"
        for key, value in merged.items():
            if key.endswith("_topic"):
                assert isinstance(value, str) and value and not set(value) & {"#", "+"}, (component_id, key)
        if "entity_category" in config:
            assert config["entity_category"] in ENTITY_CATEGORIES
        if config.get("device_class") == "enum":
            assert platform == "sensor" and config["options"], component_id
        if platform == "event":
            types = config["event_types"]
            assert isinstance(types, list) and types and all(isinstance(t, str) for t in types), component_id
        if platform == "switch" and "payload_on" in config:
            # state_on defaults to payload_on: a JSON command would never match the state.
            assert {"state_on", "state_off"} <= set(config), component_id
        if platform == "number":
            assert config.get("min", 1) <= config.get("max", 100) and config.get("step", 1) > 0
        out[component_id] = merged
    return out


def template_paths(template: str) -> list[list[str]]:
    return [match.split(".") for match in re.findall(r"value_json\.([a-z_]+(?:\.[a-z_]+)*)", template)]


def test_payload_matches_the_documented_schema():
    payload = discovery_payload("baccarat", TOPICS, sw_version="0.1.0")
    components = check_device_discovery(json.loads(json.dumps(payload)))
    platforms = sorted((c["platform"], c["name"]) for c in components.values())
    assert platforms == [
        ("binary_sensor", "Exploded"),
        ("binary_sensor", "Solved"),
        ("button", "Force solve"),
        ("button", "Identify"),
        ("button", "Reset"),
        ("button", "Self-test"),
        ("button", "Start the timer"),
        ("event", "Explosion"),
        ("event", "Solve"),
        ("event", "Strike"),
        ("number", "Solved modules on the bomb"),
        ("sensor", "Deck colour"),
        ("sensor", "Last error"),
        ("sensor", "Self-test result"),
        ("sensor", "Started"),
        ("sensor", "Strikes"),
        ("sensor", "Table limits"),
        ("sensor", "Time left"),
        ("switch", "Enabled"),
        ("update", "Firmware"),
    ]
    diagnostic = sorted(c["name"] for c in components.values() if c.get("entity_category") == "diagnostic")
    assert diagnostic == ["Firmware", "Last error", "Self-test", "Self-test result", "Started"]
    assert payload["o"] == {"name": "baccarat-prop", "sw": "0.1.0"} and payload["dev"]["sw"] == "0.1.0"
    assert payload["avty"] == [{"t": TOPICS["status"], "pl_avail": "online", "pl_not_avail": "offline"}]
    assert components["baccarat_deck"]["options"] == list(COLORS)


def test_commands_are_the_props_own():
    payload = discovery_payload("baccarat", TOPICS)
    components = check_device_discovery(payload)
    sent = []
    for config in components.values():
        if "command_topic" not in config:
            continue
        assert config["command_topic"] == TOPICS["command"]
        for key in ("payload_press", "payload_on", "payload_off"):
            if key in config:
                sent.append(json.loads(config[key]))
    number = components["baccarat_solved_count"]["command_template"]
    sent.append(json.loads(number.replace("{{ value | int }}", "3")))
    assert sorted(c["command"] for c in sent) == [
        "disable",
        "enable",
        "force_solve",
        "identify",
        "reset",
        "self_test",
        "set_solved",
        "start",
    ]
    for command in sent:  # every payload Home Assistant sends is a command the prop takes
        assert gm_commands.parse_command(command).name == command["command"]


def test_templates_read_the_state_document(rig):
    doc = rig.daemon.call(lambda: gm_commands.state_document(rig.daemon.module)).result(5)
    for config in check_device_discovery(discovery_payload("baccarat", TOPICS)).values():
        if config.get("state_topic") != TOPICS["state"]:
            continue
        template = config.get("value_template", "")
        for path in template_paths(template):
            if path == ["enabled"]:
                assert "value_json.enabled is defined" in template  # present once the integrator adds it
                continue
            value = doc
            for depth, key in enumerate(path):
                if value is None and f"if value_json.{'.'.join(path[:depth])} " in template:
                    break  # null in this document (a bomb without a timer), and the template asks first
                assert isinstance(value, dict) and key in value, f"{template}: no {'.'.join(path)} in the state"
                value = value[key]


def render(template: str, payload: str) -> str:
    """A template as Home Assistant renders one: Jinja2's sandbox, the payload as ``value`` and, when it
    is JSON, as ``value_json``. Undefined names fail here (Home Assistant would render them empty)."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined)
    return env.from_string(template).render(value=payload, value_json=json.loads(payload)).strip()


def home_assistant_event(config: dict, payload: str) -> tuple[str, dict] | None:
    """What Home Assistant's MQTT event entity makes of a message: None (ignored) or its type and attributes."""
    rendered = render(config["value_template"], payload)
    if not rendered:
        return None
    attributes = json.loads(rendered)
    event_type = attributes.pop("event_type")
    assert event_type in config["event_types"], f"Home Assistant refuses event type {event_type!r}"
    return event_type, attributes


def test_every_template_renders_from_what_the_prop_publishes(rig):
    """Each entity's template against the payloads of its topic: the state document, every event of a
    strike and a forced solve, and the diagnostics document (rendered with Jinja2, as Home Assistant does)."""
    rig.deal()  # no bet: a strike
    rig.daemon.apply(lambda module: module.force_solve()).result(5)
    rig.daemon.wait_idle()
    events = [json.dumps({"seq": n, **event.to_dict()}) for n, event in enumerate(rig.events, 1)]
    kinds = [json.loads(e)["event"] for e in events]
    assert "strike" in kinds and "solved" in kinds and len(set(kinds)) > 3, kinds
    state = json.dumps(rig.daemon.call(lambda: gm_commands.state_document(rig.daemon.module)).result(5))
    diagnostics = Diagnostics(lambda: None)
    quiet = json.dumps(diagnostics.document())
    diagnostics.emit(logging.makeLogRecord({"name": "baccarat.displays", "levelname": "ERROR", "msg": "bets: EIO"}))
    troubled = json.dumps(diagnostics.document())
    diagnostics.self_test_done(False, "button deal not pressed", at=0.0)
    tested = json.dumps(diagnostics.document())

    components = check_device_discovery(discovery_payload("baccarat", TOPICS, sw_version="0.1.0"))
    fired: dict[str, list] = {}
    for key, config in components.items():
        topic = config.get("state_topic")
        if topic == TOPICS["state"]:
            shown = render(config["value_template"], state)
            if key == "baccarat_time_left":  # no timer on this bomb: Home Assistant's "unknown"
                assert shown == "None"
                assert json.loads(render(config["json_attributes_template"], state)) == {}
            else:
                assert shown not in ("", "None"), key
        elif topic == TOPICS["events"]:
            fired[config["name"]] = [home_assistant_event(config, e) for e in events]
        elif topic == TOPICS["diagnostics"]:
            shown = render(config["value_template"], quiet)
            if config["name"] == "Firmware":  # what homeassistant/components/mqtt/update.py reads of it
                update = json.loads(shown)
                assert update["installed_version"] == update["latest_version"] == firmware.__version__
            elif config["name"] == "Self-test result":
                assert shown == "not run" and render(config["json_attributes_template"], quiet) == "{}"
                assert render(config["value_template"], tested) == "button deal not pressed"
                attributes = json.loads(render(config["json_attributes_template"], tested))
                at = "1970-01-01T00:00:00+00:00"
                assert attributes == {"ok": False, "summary": "button deal not pressed", "at": at}
            elif config["name"] == "Started":
                assert config["device_class"] == "timestamp"
                assert datetime.fromisoformat(shown).tzinfo is not None, shown
            else:
                assert shown == "none"
                assert render(config["value_template"], troubled) == "ERROR baccarat.displays: bets: EIO"
                at = json.loads(render(config["json_attributes_template"], troubled))["at"]
                assert datetime.fromisoformat(at).tzinfo is not None
                assert json.loads(render(config["json_attributes_template"], quiet)) == {"at": None}
        else:
            assert "state_topic" not in config, key
    strike = [e for e in fired["Strike"] if e is not None]
    assert strike == [("strike", {"strikes": 1, "reason": "exclusive", "detail": strike[0][1]["detail"]})]
    assert fired["Solve"].count(None) == len(events) - 1
    assert [e for e in fired["Solve"] if e is not None] == [("solved", {"forced": True})]


def test_the_timer_and_the_explosion_read_as_the_prop_publishes_them(rig_factory):
    """A bomb with a countdown and three strikes: the time left (and its state as attributes), the
    exploded sensor and the explosion event, rendered as Home Assistant renders them."""
    rig = rig_factory(make_config(bomb={"timer_seconds": 300, "strike_limit": 2}), schedule_clock="rig")
    components = check_device_discovery(discovery_payload("baccarat", TOPICS))

    def state() -> str:
        return json.dumps(rig.daemon.call(lambda: gm_commands.state_document(rig.daemon.module)).result(5))

    time_left, exploded = components["baccarat_time_left"], components["baccarat_exploded"]
    assert render(time_left["value_template"], state()) == "300.0"
    assert render(exploded["value_template"], state()) == "OFF"
    rig.deal()  # no bet: strike 1, and the countdown started
    left = rig.daemon.call(lambda: rig.daemon.module.timer.left).result(5)  # as of the clock's reading now
    rig.clock.advance(10.0)
    rig.daemon.wait_idle()
    assert render(time_left["value_template"], state()) == str(round(left - 10.0 * 1.25, 1))
    assert json.loads(render(time_left["json_attributes_template"], state()))["state"] == "running"
    rig.deal()  # strike 2: the limit
    rig.daemon.wait_idle()
    assert render(exploded["value_template"], state()) == "ON"
    events = [json.dumps({"seq": n, **event.to_dict()}) for n, event in enumerate(rig.events, 1)]
    fired = [home_assistant_event(components["baccarat_exploded_event"], e) for e in events]
    assert [f for f in fired if f is not None] == [("exploded", {"cause": "strikes", "strikes": 2})]


def test_limits_and_solved_count_read_as_the_prop_shows_and_takes_them(rig):
    """The limits sensor shows the placard's own line (separators from $10,000 up), and the
    solved-count box takes what the prop takes (up to 9,999), not Home Assistant's default 100."""
    components = check_device_discovery(discovery_payload("baccarat", TOPICS))
    limits = components["baccarat_limits"]
    assert limits["value_template"] == "{{ value_json.limits.placard }}"
    rig.daemon.apply(lambda module: module.set_limits(TableLimits(100, 10_000))).result(5)
    doc = rig.daemon.call(lambda: gm_commands.state_document(rig.daemon.module)).result(5)
    assert doc["limits"] == {"min": 100, "max": 10_000, "placard": "$100 - $10,000"}
    solved = components["baccarat_solved_count"]
    assert (solved["min"], solved["max"]) == (0, MAX_SOLVED) == (0, 9_999)


def test_device_id():
    assert device_id("baccarat") == "baccarat"
    assert device_id("room 2/baccarat#1") == "room_2_baccarat_1"
    assert discovery_topic("baccarat") == "homeassistant/device/baccarat/config"


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
