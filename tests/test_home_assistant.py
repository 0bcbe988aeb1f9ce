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
import re

from baccarat_core.deck import COLORS
from firmware.room import commands as gm_commands
from firmware.services.home_assistant.discovery import device_id, discovery_payload, discovery_topic
from tests import test_mqtt
from tests.conftest import ROOT

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


def test_device_id():
    assert device_id("baccarat") == "baccarat"
    assert device_id("room 2/baccarat#1") == "room_2_baccarat_1"
    assert discovery_topic("baccarat") == "homeassistant/device/baccarat/config"


def test_qos_1_is_on_each_component_where_home_assistant_reads_it():
    """Home Assistant 2026.2 and 2024.11 read ``qos`` from each component of a device discovery,
    not from its root (issue 41 item 8): each entity subscribes and publishes at QoS 1."""
    payload = discovery_payload("baccarat", TOPICS, outputs=[("lock", "hold"), ("horn", "pulse")])
    assert "qos" not in payload
    assert {key: component["qos"] for key, component in payload["cmps"].items()} == dict.fromkeys(payload["cmps"], 1)


PAGE = ROOT / "docs" / "integrate" / "home-assistant.md"


def yaml_blocks(text: str) -> list:
    import yaml  # Home Assistant's own format; PyYAML reads it as Home Assistant's loader does here

    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def test_the_automation_is_given_in_the_form_each_file_needs():
    """Issue 41 item 9: ``automations.yaml`` holds a list; ``configuration.yaml`` a key of its own
    beside the default ``automation: !include automations.yaml`` (a second ``automation:`` is a
    duplicate key)."""
    blocks = yaml_blocks(PAGE.read_text())
    lists = [b for b in blocks if isinstance(b, list)]
    keyed = [b for b in blocks if isinstance(b, dict) and any(k.startswith("automation") for k in b)]
    assert lists and keyed, "the page gives both forms"
    (automations,) = lists
    (configuration,) = keyed
    (key,) = configuration
    assert re.fullmatch(r"automation \w+", key), f"{key!r} would clash with automation: !include automations.yaml"
    assert configuration[key] == automations
    for automation in automations:
        assert {"alias", "triggers", "actions"} <= set(automation)
        (trigger,) = automation["triggers"]
        assert trigger["trigger"] == "state" and trigger["entity_id"] == "event.baccarat_strike"


def test_the_page_says_strikes_of_a_broker_outage_miss_the_event_entities_and_how_to_get_them():
    """Issue 41 item 11: said on the page, with the retained state and the history as the way."""
    text = PAGE.read_text()
    section = text[text.index("### Strikes during a broker outage") :]
    section = " ".join(section[: section.index("\n## ")].split())
    assert "never reaches the event entities" in section
    for way in ("**Strikes** shows the count", "`baccarat history`", "**History** view"):
        assert way in section, way
