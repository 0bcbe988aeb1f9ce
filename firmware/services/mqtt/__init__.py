"""The MQTT service: the prop's topics on a broker (state, events, commands, the bomb's edgework).

Its ``[mqtt]`` keys are the connection's (:data:`~firmware.broker.settings.MQTT_KEYS`);
Home Assistant (:mod:`.home_assistant`) and Room 2.0 (:mod:`.room2`) add theirs to the same
table and ride on the broker it names. Docs: ``docs/integrate/mqtt.md``.
"""

from __future__ import annotations

from typing import Any

from firmware.plugin import MQTT_KEYS, OK, WARN, Finding, MqttConfig, Prop, Running, Service, mqtt_config


class Mqtt(Service):
    """The prop's own topics on an MQTT broker: ``<topic_prefix>/state``, ``/events``, ``/command``..."""

    name = "mqtt"
    title = "MQTT"
    keys = MQTT_KEYS
    order = 40
    docs = "integrate/mqtt.md"
    reader = mqtt_config

    def describe(self, settings: MqttConfig) -> list[str]:
        """``MQTT: broker:1883 as baccarat, topics bomb/baccarat/...``."""
        m = settings
        return [f"MQTT: {m.host}:{m.port} as {m.client_id}{' with TLS' if m.tls else ''}, topics {m.topic_prefix}/..."]

    def doctor(self, settings: MqttConfig, host: Any) -> list[Finding]:
        """Whether the broker answers on its port (a TCP connection, nothing sent)."""
        from firmware.plugin import tcp_reachable

        where = f"{settings.host}:{settings.port}"
        problem = tcp_reachable(settings.host, settings.port)
        if problem is None:
            return [Finding(OK, f"MQTT broker {where} answers")]
        return [
            Finding(
                WARN,
                f"MQTT broker {where} does not answer ({problem}): the prop runs and reconnects on its own",
                "start the broker, or correct [mqtt] host and port",
            )
        ]

    def start(self, prop: Prop, settings: MqttConfig) -> Running:
        """Listen to the daemon now; connect in the background once it is ready."""
        from firmware.plugin import state_path

        from .memory import FILE, Memory
        from .room import MqttService

        state = state_path(prop.config)
        memory = Memory(
            None if state is None else state.parent / FILE,
            client_id=settings.client_id,
            topic_prefix=settings.topic_prefix,
        )
        service = MqttService(prop.daemon, prop.commands, settings, memory=memory)
        service.start()
        return Running(service.stop, service)
