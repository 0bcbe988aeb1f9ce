"""Home Assistant MQTT device discovery: the prop appears in Home Assistant by itself.

One retained message on ``homeassistant/device/<id>/config`` (Home Assistant's
device-based discovery) declares the prop and its entities; they all read the
prop's own topics (the retained state document, the events, the retained
diagnostics) and send the prop's own JSON commands, so nothing new is published
while the game runs:

(the entities: docs/integrate/home-assistant.md). Home Assistant 2024.11 or newer reads it.

The discovery message is published on every connect and again when Home Assistant
announces itself (``homeassistant/status`` = ``online``), at most once in :data:`BIRTH_SECONDS`.

**Entities no longer configured are removed.** On connect the prop reads its
own retained discovery message back from the broker before publishing the new
one; an entity of this prop's the old one declares and the new one does not (an
upgrade that renamed it, an output taken out of the config) is published once as
Home Assistant's removal form (``{"p": "<platform>"}``), then the document without
it. Only the retained copy counts (read strictly, at most :data:`MAX_REMOVALS` entities).
With ``home_assistant`` off the prop clears its retained discovery message (an empty
retained payload): Home Assistant removes the device.

:class:`HomeAssistantService` rides on :class:`~firmware.services.mqtt.room.MqttService`'s
connection: no third client, and availability is that connection's will.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from baccarat_core import BaccaratError, strict
from baccarat_core.deck import COLORS
from baccarat_core.strict import MAX_SOLVED

from .removal import stale_components

log = logging.getLogger("baccarat.mqtt")

DEFAULT_PREFIX = "homeassistant"
ORIGIN = "baccarat-prop"

#: Home Assistant's birth message (``online``) republishes the discovery at most once in this many seconds.
BIRTH_SECONDS = 30.0
#: Each entity's QoS for what it reads and sends: the prop's own topics are QoS 1.
QOS = 1
#: Most entities one retained discovery document of an earlier run can have removed.
MAX_REMOVALS = 100


def device_id(client_id: str) -> str:
    """A discovery ID from the prop's MQTT client id (Home Assistant allows ``[a-zA-Z0-9_-]``)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", client_id) or "baccarat"


def discovery_topic(prop_id: str, prefix: str = DEFAULT_PREFIX) -> str:
    """``homeassistant/device/<id>/config``."""
    return f"{prefix}/device/{prop_id}/config"


def _command(command: str, /, **args: Any) -> str:
    return json.dumps({"command": command, **args})


def output_components(prop_id: str, topics: dict[str, str], outputs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Each output's entity, by ``(name, mode)``: a switch for a ``hold`` output (its state from
    the state document's ``outputs``), a button that pulses a ``pulse`` output. The key names the
    platform, so an output whose mode changed is removed as the old platform and made anew."""
    components: dict[str, Any] = {}
    for name, mode in outputs:
        if mode == "pulse":
            key = f"{prop_id}_pulse_{name}"
            components[key] = {
                "p": "button",
                "name": f"Pulse {name}",
                "unique_id": key,
                "command_topic": topics["command"],
                "payload_press": _command("output", name=name, state="pulse"),
                "icon": "mdi:flash",
            }
            continue
        key = f"{prop_id}_output_{name}"
        components[key] = {
            "p": "switch",
            "name": f"Output {name}",
            "unique_id": key,
            "state_topic": topics["state"],
            "value_template": (
                "{% for o in value_json.outputs | default([]) if o.name == '" + name + "' %}"
                "{{ 'ON' if o.on else 'OFF' }}{% endfor %}"
            ),
            "state_on": "ON",
            "state_off": "OFF",
            "command_topic": topics["command"],
            "payload_on": _command("output", name=name, state="on"),
            "payload_off": _command("output", name=name, state="off"),
            "icon": "mdi:electric-switch",
        }
    return components


def discovery_payload(
    prop_id: str,
    topics: dict[str, str],
    *,
    name: str = "Baccarat",
    sw_version: str | None = None,
    outputs: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The device discovery document for a prop whose topics are ``topics`` and whose outputs are
    ``outputs`` (``(name, mode)`` pairs, :func:`output_components`).

    ``topics`` needs ``state`` (the retained state document), ``command`` (JSON
    commands, as in docs/integrate/mqtt.md), ``status`` (``online``/``offline``), ``events``
    (every game event) and ``diagnostics`` (the retained diagnostics document).
    """
    from firmware.services.home_assistant import templates  # made on paho's thread at the first publish, not at start

    state, command, events, diagnostics = topics["state"], topics["command"], topics["events"], topics["diagnostics"]

    def entity(key: str, platform: str, label: str, **options: Any) -> tuple[str, dict[str, Any]]:
        return f"{prop_id}_{key}", {"p": platform, "name": label, "unique_id": f"{prop_id}_{key}", **options}

    components = dict(
        [
            entity(
                "solved",
                "binary_sensor",
                "Solved",
                state_topic=state,
                value_template="{{ 'ON' if value_json.solved else 'OFF' }}",
                payload_on="ON",
                payload_off="OFF",
                icon="mdi:check-decagram",
            ),
            entity(
                "exploded",
                "binary_sensor",
                "Exploded",
                state_topic=state,
                value_template="{{ 'ON' if value_json.exploded else 'OFF' }}",
                payload_on="ON",
                payload_off="OFF",
                icon="mdi:bomb-off",
            ),
            entity(
                "time_left",
                "sensor",
                "Time left",
                state_topic=state,
                value_template=templates.TIME_LEFT_TEMPLATE,
                device_class="duration",
                unit_of_measurement="s",
                json_attributes_topic=state,
                json_attributes_template=templates.TIME_LEFT_ATTRIBUTES,
                icon="mdi:timer-sand",
            ),
            entity(
                "strikes",
                "sensor",
                "Strikes",
                state_topic=state,
                value_template="{{ value_json.strikes }}",
                state_class="measurement",
                icon="mdi:alert-octagon",
            ),
            entity(
                "deck",
                "sensor",
                "Deck colour",
                state_topic=state,
                value_template="{{ value_json.deck }}",
                device_class="enum",
                options=list(COLORS),
                icon="mdi:cards-playing",
            ),
            entity(
                "limits",
                "sensor",
                "Table limits",
                state_topic=state,
                value_template="{{ value_json.limits.placard }}",
                icon="mdi:cash",
            ),
            entity(
                "solved_count",
                "number",
                "Solved modules on the bomb",
                state_topic=state,
                value_template="{{ value_json.edgework.solved }}",
                command_topic=command,
                command_template='{"command": "set_solved", "solved": {{ value | int }}}',
                min=0,
                max=MAX_SOLVED,
                step=1,
                mode="box",
                icon="mdi:bomb",
            ),
            entity(
                "reset", "button", "Reset", command_topic=command, payload_press=_command("reset"), icon="mdi:restart"
            ),
            entity(
                "force_solve",
                "button",
                "Force solve",
                command_topic=command,
                payload_press=_command("force_solve"),
                icon="mdi:check-bold",
            ),
            entity(
                "start_timer",
                "button",
                "Start the timer",
                command_topic=command,
                payload_press=_command("start"),
                icon="mdi:timer-play",
            ),
            entity(
                "identify",
                "button",
                "Identify",
                command_topic=command,
                payload_press=_command("identify"),
                device_class="identify",
                entity_category="config",
            ),
            entity(
                "enabled",
                "switch",
                "Enabled",
                state_topic=state,
                value_template="{{ 'OFF' if value_json.enabled is defined and not value_json.enabled else 'ON' }}",
                state_on="ON",
                state_off="OFF",
                command_topic=command,
                payload_on=_command("enable"),
                payload_off=_command("disable"),
                icon="mdi:power",
            ),
            *(
                entity(
                    f"{kind}_event",
                    "event",
                    title,
                    state_topic=events,
                    event_types=[kind],
                    value_template=template,
                    icon=icon,
                )
                for kind, title, template, icon in (
                    ("strike", "Strike", templates.STRIKE_TEMPLATE, "mdi:alert-octagon"),
                    ("solved", "Solve", templates.SOLVED_TEMPLATE, "mdi:check-decagram"),
                    ("exploded", "Explosion", templates.EXPLODED_TEMPLATE, "mdi:bomb-off"),
                )
            ),
            entity(
                "firmware",
                "update",
                "Firmware",
                state_topic=diagnostics,
                value_template=templates.UPDATE_TEMPLATE,
                device_class="firmware",
                entity_category="diagnostic",
            ),
            entity(
                "self_test",
                "button",
                "Self-test",
                command_topic=command,
                payload_press=_command("self_test"),
                entity_category="diagnostic",
                icon="mdi:clipboard-check-outline",
            ),
            entity(
                "self_test_result",
                "sensor",
                "Self-test result",
                state_topic=diagnostics,
                value_template="{{ value_json.self_test.summary if value_json.self_test else 'not run' }}",
                json_attributes_topic=diagnostics,
                json_attributes_template="{{ (value_json.self_test or {}) | tojson }}",
                entity_category="diagnostic",
                icon="mdi:clipboard-check-outline",
            ),
            entity(
                "started",
                "sensor",
                "Started",
                state_topic=diagnostics,
                value_template="{{ value_json.started }}",
                device_class="timestamp",
                entity_category="diagnostic",
            ),
            entity(
                "last_error",
                "sensor",
                "Last error",
                state_topic=diagnostics,
                value_template="{{ value_json.last_error }}",
                json_attributes_topic=diagnostics,
                json_attributes_template="{{ {'at': value_json.last_error_at} | tojson }}",
                entity_category="diagnostic",
                icon="mdi:alert-circle-outline",
            ),
        ]
    )
    components.update(output_components(prop_id, topics, outputs))
    for component in components.values():  # Home Assistant reads qos per component, not at the root
        component["qos"] = QOS
    device: dict[str, Any] = {
        "ids": [prop_id],
        "name": name,
        "mf": "Baccarat prop",
        "mdl": "Baccarat module (Keep Talking and Nobody Explodes)",
    }
    origin: dict[str, Any] = {"name": ORIGIN}
    if sw_version:
        device["sw"] = sw_version
        origin["sw"] = sw_version
    return {
        "dev": device,
        "o": origin,
        "avty": [{"t": topics["status"], "pl_avail": "online", "pl_not_avail": "offline"}],
        "cmps": components,
    }


class HomeAssistantService:
    """Publishes the discovery document over an :class:`~firmware.services.mqtt.room.MqttService`'s connection.

    Call :meth:`start` before the MQTT service starts (or after: a live
    connection gets the document at once). With ``enabled=False`` (``home_assistant =
    false``) it publishes nothing, and clears a discovery message an earlier config left.
    ``clock`` measures :data:`BIRTH_SECONDS` (a test's own clock).
    """

    def __init__(
        self,
        mqtt_service: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        name: str = "Baccarat",
        prop_id: str | None = None,
        sw_version: str | None = None,
        enabled: bool = True,
        outputs: Sequence[tuple[str, str]] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.mqtt = mqtt_service
        self.outputs = tuple(outputs)
        self.link = mqtt_service.link
        self.enabled = enabled
        # the client id the prop first ran with on these topics, not today's: a renamed client id
        # leaves the device where it was (firmware/services/mqtt/memory.py)
        self.prop_id = prop_id or device_id(getattr(mqtt_service, "identity", mqtt_service.cfg.client_id))
        self.topic = discovery_topic(self.prop_id, prefix)
        self.birth_topic = f"{prefix}/status"
        self.name = name
        self.clock = clock
        self._sw_version = sw_version
        self._document: dict[str, Any] | None = None
        self._text: str | None = None
        self.published = 0
        #: Components removed from Home Assistant since the start (their IDs, the last :data:`MAX_REMOVALS`).
        self.removed: list[str] = []
        self._births = 0  # births heard since the last republish
        self._birth_published = float("-inf")  # clock() of the last republish for a birth

    @property
    def document(self) -> dict[str, Any]:
        """The discovery document, made at its first use (the version is read then, on paho's thread)."""
        if self._document is None:
            version = self._sw_version or self.mqtt.diagnostics.version
            self._document = discovery_payload(
                self.prop_id, self.mqtt.topics, name=self.name, sw_version=version, outputs=self.outputs
            )
        return self._document

    @property
    def text(self) -> str:
        """The document as published."""
        if self._text is None:
            self._text = json.dumps(self.document, sort_keys=True)
        return self._text

    def start(self) -> None:
        """Publish on every connect and on Home Assistant's ``online``; read the retained document back.

        The link subscribes to the prop's own discovery topic at each connect, before its connect
        hooks run: the broker answers with the retained document of the last run before it
        handles the new one published then."""
        self.link.connect_hooks.append(self.on_connect)
        self.link.on_topic(self.topic, self._on_discovery)
        if self.enabled:
            # QoS 0 (Home Assistant's own for its birth): a storm of births is never queued at the
            # broker for the prop, where it would fill the queue ahead of a command and drop it
            self.link.on_topic(self.birth_topic, self._on_birth, qos=0)
            self.link.tick_hooks.append(self._tick)
        if self.link.listening.is_set():
            self.on_connect()

    def stop(self) -> None:
        """Stop listening for Home Assistant's announcements (the discovery stays, retained)."""
        self.link.on_topic(self.birth_topic, None)
        self.link.on_topic(self.topic, None)

    def on_connect(self) -> None:
        """Connected and listening: publish the document."""
        if self.enabled:
            self.publish()

    def publish(self) -> None:
        """Queue the retained discovery message (paho's thread sends it)."""
        self.published += 1
        self.link.publish(self.topic, self.text, retain=True)

    def _on_discovery(self, topic: str, payload: bytes, retained: bool) -> None:
        """A message on the prop's own discovery topic. Only the retained one the broker hands back
        at the subscription counts (the last run's document): a live one is our own, or a stranger's."""
        if not payload or not retained:
            return
        if not self.enabled:
            log.info("home assistant: home_assistant = false: removing this prop from it (%s)", self.topic)
            self.link.publish(self.topic, "", retain=True)
            return
        try:
            stale = stale_components(payload, self.document["cmps"], self.prop_id)
        except BaccaratError as error:
            self.link.noise.note("discovery", f"home assistant: the retained {self.topic} is ignored: {error}")
            return
        if not stale:
            return
        keys = sorted(stale)
        if len(keys) > MAX_REMOVALS:
            log.warning(
                "home assistant: the retained %s names %d entities no longer configured; removing the first %d",
                self.topic,
                len(keys),
                MAX_REMOVALS,
            )
            keys = keys[:MAX_REMOVALS]
        self.removed = (self.removed + keys)[-MAX_REMOVALS:]
        shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
        log.info("home assistant: removing entities no longer configured: %s", strict.one_line(shown, 400))
        removal = {**self.document, "cmps": {**self.document["cmps"], **{key: stale[key] for key in keys}}}
        self.link.publish(self.topic, json.dumps(removal, sort_keys=True), retain=True)
        self.publish()  # then the document without them, as Home Assistant's documentation asks

    def _on_birth(self, topic: str, payload: bytes, retained: bool) -> None:
        """Home Assistant says ``online``: the discovery again, at most once in :data:`BIRTH_SECONDS`."""
        if payload.strip().lower() == b"online":
            self._births += 1
            self._tick()

    def _tick(self) -> None:
        """A birth heard, or paho's loop passing by (about once a second): republish when one is due."""
        if not self._births or self.clock() - self._birth_published < BIRTH_SECONDS:
            return
        births, self._births = self._births, 0
        self._birth_published = self.clock()
        more = f" ({births} births since the last)" if births > 1 else ""
        log.info("home assistant is online: discovery published again on %s%s", self.topic, more)
        self.publish()
