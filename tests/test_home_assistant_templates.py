"""Home Assistant's templates on what the prop publishes, rendered as Home Assistant renders them.

Jinja2's sandbox renders each template (as homeassistant/helpers/template.py does), and then Home
Assistant's own rules apply: an event entity needs a known ``event_type``, and a JSON attribute
whose name Home Assistant reserves is dropped (``MQTT_ATTRIBUTES_BLOCKED``, below).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime

import firmware
from baccarat_core.limits import TableLimits
from baccarat_core.strict import MAX_SOLVED
from firmware.room import commands as gm_commands
from firmware.room.diagnostics import Diagnostics
from firmware.services.home_assistant.discovery import discovery_payload
from tests.conftest import make_config
from tests.test_home_assistant import TOPICS, check_device_discovery, template_paths

#: The attributes Home Assistant drops from an MQTT entity's JSON attributes: MQTT_ATTRIBUTES_BLOCKED
#: in home-assistant/core, homeassistant/components/mqtt/entity.py (mixins.py before 2024.6), every
#: name any release since 2023 has listed ("name" became "friendly_name"; "context_recent_time" came
#: and went), and for a sensor also MQTT_SENSOR_ATTRIBUTES_BLOCKED (sensor.py: last_reset, state_class).
MQTT_ATTRIBUTES_BLOCKED = {
    "assumed_state",
    "available",
    "context_recent_time",
    "device_class",
    "device_info",
    "entity_category",
    "entity_picture",
    "entity_registry_enabled_default",
    "extra_state_attributes",
    "force_update",
    "friendly_name",
    "icon",
    "name",
    "should_poll",
    "state",
    "supported_features",
    "unique_id",
    "unit_of_measurement",
}
MQTT_SENSOR_ATTRIBUTES_BLOCKED = {"last_reset", "state_class"}


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
    assert home_assistant_attributes(time_left, state())["timer_state"] == "waiting"
    assert render(exploded["value_template"], state()) == "OFF"
    rig.deal()  # no bet: strike 1, and the countdown started
    left = rig.daemon.call(lambda: rig.daemon.module.timer.left).result(5)  # as of the clock's reading now
    rig.clock.advance(10.0)
    rig.daemon.wait_idle()
    assert render(time_left["value_template"], state()) == str(round(left - 10.0 * 1.25, 1))
    attributes = home_assistant_attributes(time_left, state())  # as Home Assistant keeps them
    assert attributes["timer_state"] == "running" and attributes["running"] is True
    assert attributes["seconds"] == 300 and attributes["rate"] == 1.25
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


def home_assistant_attributes(config: dict, payload: str) -> dict:
    """An entity's attributes as Home Assistant keeps them: its ``json_attributes_template`` rendered on
    ``payload``, less the names it reserves (MqttAttributesMixin._attributes_message_received)."""
    blocked = MQTT_ATTRIBUTES_BLOCKED | (MQTT_SENSOR_ATTRIBUTES_BLOCKED if config["platform"] == "sensor" else set())
    rendered = json.loads(render(config["json_attributes_template"], payload))
    assert isinstance(rendered, dict), "Home Assistant: JSON result was not a dictionary"
    return {key: value for key, value in rendered.items() if key not in blocked}


def test_no_attribute_is_one_home_assistant_drops(rig_factory):
    """Every entity's JSON attributes, rendered from the documents the prop publishes, keep every key
    they render under Home Assistant's rules: none is a name it reserves (a timer's ``state`` was)."""
    rig = rig_factory(make_config(bomb={"timer_seconds": 300}), schedule_clock="rig")
    rig.deal()  # a strike, and the countdown runs
    state = json.dumps(rig.daemon.call(lambda: gm_commands.state_document(rig.daemon.module)).result(5))
    diagnostics = Diagnostics(lambda: None)
    diagnostics.emit(logging.makeLogRecord({"name": "baccarat.displays", "levelname": "ERROR", "msg": "bets: EIO"}))
    diagnostics.self_test_done(True, "all passed", at=0.0)
    payloads = {TOPICS["state"]: state, TOPICS["diagnostics"]: json.dumps(diagnostics.document())}
    checked = []
    for key, config in check_device_discovery(discovery_payload("baccarat", TOPICS)).items():
        if "json_attributes_template" not in config:
            continue
        rendered = json.loads(render(config["json_attributes_template"], payloads[config["json_attributes_topic"]]))
        assert rendered and home_assistant_attributes(config, payloads[config["json_attributes_topic"]]) == rendered, (
            key
        )
        checked.append(key)
    assert sorted(checked) == ["baccarat_last_error", "baccarat_self_test_result", "baccarat_time_left"]
