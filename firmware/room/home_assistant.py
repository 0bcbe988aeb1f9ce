"""Home Assistant MQTT device discovery: the prop appears in Home Assistant by itself.

One retained message on ``homeassistant/device/<id>/config`` (Home Assistant's
device-based discovery) declares the prop and its entities; they all read the
prop's own retained state document and send the prop's own JSON commands, so
nothing new is published while the game runs:

- solved (binary sensor), strikes, deck colour, table limits (sensors),
- solved modules on the bomb (number: ``set_solved``),
- reset, force solve, identify (buttons), enabled (switch: ``enable``/``disable``),
- available while the prop's status topic says ``online`` (its last will says ``offline``).

The discovery message is published on every connect and again whenever Home
Assistant announces itself (``homeassistant/status`` = ``online``).
:class:`HomeAssistantService` rides on :class:`~firmware.room.mqtt.MqttService`'s
connection: no third client, and availability is that connection's will.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from baccarat_core.deck import COLORS
from baccarat_core.strict import MAX_SOLVED

log = logging.getLogger("baccarat.mqtt")

DEFAULT_PREFIX = "homeassistant"
ORIGIN = "baccarat-prop"


def device_id(client_id: str) -> str:
    """A discovery ID from the prop's MQTT client id (Home Assistant allows ``[a-zA-Z0-9_-]``)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", client_id) or "baccarat"


def discovery_topic(prop_id: str, prefix: str = DEFAULT_PREFIX) -> str:
    """``homeassistant/device/<id>/config``."""
    return f"{prefix}/device/{prop_id}/config"


def _command(name: str, **args: Any) -> str:
    return json.dumps({"command": name, **args})


def discovery_payload(
    prop_id: str, topics: dict[str, str], *, name: str = "Baccarat", sw_version: str | None = None
) -> dict[str, Any]:
    """The device discovery document for a prop whose topics are ``topics``.

    ``topics`` needs ``state`` (the retained state document), ``command`` (JSON
    commands, as in docs/mqtt.md) and ``status`` (``online``/``offline``).
    """
    state, command = topics["state"], topics["command"]

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
        ]
    )
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
        "qos": 1,
    }


class HomeAssistantService:
    """Publishes the discovery document over an :class:`~firmware.room.mqtt.MqttService`'s connection.

    Call :meth:`start` before the MQTT service starts (or after: a live
    connection gets the document at once).
    """

    def __init__(
        self,
        mqtt_service: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        name: str = "Baccarat",
        prop_id: str | None = None,
        sw_version: str | None = None,
    ) -> None:
        self.mqtt = mqtt_service
        self.link = mqtt_service.link
        self.prop_id = prop_id or device_id(mqtt_service.cfg.client_id)
        self.topic = discovery_topic(self.prop_id, prefix)
        self.birth_topic = f"{prefix}/status"
        self.document = discovery_payload(self.prop_id, mqtt_service.topics, name=name, sw_version=sw_version)
        self.text = json.dumps(self.document, sort_keys=True)
        self.published = 0

    def start(self) -> None:
        """Publish on every connect and on Home Assistant's ``online``."""
        self.link.connect_hooks.append(self.on_connect)
        self.link.on_topic(self.birth_topic, self._on_birth)
        if self.link.listening.is_set():
            self.on_connect()

    def stop(self) -> None:
        """Stop listening for Home Assistant's announcements (the discovery stays, retained)."""
        self.link.on_topic(self.birth_topic, None)

    def on_connect(self) -> None:
        """Connected: listen for Home Assistant's birth message, publish the document."""
        self.link.client.subscribe(self.birth_topic, qos=1)
        self.publish()

    def publish(self) -> None:
        """Queue the retained discovery message (paho's thread sends it)."""
        self.published += 1
        self.link.publish(self.topic, self.text, retain=True)

    def _on_birth(self, client: Any, userdata: Any, message: Any) -> None:
        if message.payload.strip().lower() == b"online":
            log.info("home assistant is online: discovery published again on %s", self.topic)
            self.publish()
