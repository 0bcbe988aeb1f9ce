"""MQTT: the bomb's edgework and solved count in, events, state and replies out.

:class:`Link` is one paho-mqtt client run on paho's own network thread
(``loop_start``), so the game thread never waits on the network: publishing
only appends to paho's outgoing queue. QoS 1 messages published while the
broker is away stay in that queue (at most ``queue_limit``) and are sent when
the connection returns; the retained state document is not queued but
re-published, newest only, on every connect.

:class:`MqttService` speaks this project's topics (see docs/mqtt.md);
``room2.py`` speaks the Room 2.0 convention over a second :class:`Link`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from baccarat_core import BaccaratError, BaccaratModule, Edgework
from baccarat_core import events as ev
from baccarat_core.edgework import check_solved

from ..config import MqttConfig
from ..daemon import Daemon
from .commands import GameMaster, set_edgework, state_document

log = logging.getLogger("baccarat.mqtt")

Handler = Callable[[str, bytes], None]


class Link:
    """One connection to the broker: will, subscriptions, a bounded offline queue."""

    def __init__(
        self,
        cfg: MqttConfig,
        client_id: str,
        *,
        will: tuple[str, str],
        subscriptions: tuple[str, ...] = (),
        on_message: Handler | None = None,
        on_connect: Callable[[], None] | None = None,
        name: str = "mqtt",
    ) -> None:
        self.cfg = cfg
        self.name = name
        self.subscriptions = subscriptions
        self._handler = on_message
        #: Called on paho's thread after each connect (the service's presence, Home Assistant's discovery).
        self.connect_hooks: list[Callable[[], None]] = [on_connect] if on_connect is not None else []
        self.connected = threading.Event()
        self._queue_full_said = False
        self._outage_said = False
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
        if cfg.username is not None:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.tls:
            client.tls_set(ca_certs=cfg.ca_file, certfile=cfg.cert_file, keyfile=cfg.key_file)
        client.will_set(will[0], will[1], qos=1, retain=True)
        client.max_queued_messages_set(cfg.queue_limit)
        client.reconnect_delay_set(cfg.reconnect_min_seconds, cfg.reconnect_max_seconds)  # type: ignore[arg-type]
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client

    def start(self) -> None:
        """Connect in the background; a missing broker does not delay start-up."""
        self.client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self.client.loop_start()

    def stop(self, farewell: tuple[str, str] | None = None) -> None:
        """Say goodbye on ``farewell`` (the will is only sent on an unclean end) and close."""
        if farewell is not None and self.connected.is_set():
            info = self.client.publish(farewell[0], farewell[1], qos=1, retain=True)
            try:
                info.wait_for_publish(timeout=2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: str, *, qos: int = 1, retain: bool = False) -> None:
        """Queue a message; never blocks. A full offline queue drops it and says so once."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
            if not self._queue_full_said:
                log.warning(
                    "%s: offline queue full (%d messages); dropping new messages until the broker is back",
                    self.name,
                    self.cfg.queue_limit,
                )
            self._queue_full_said = True

    # -- paho callbacks (paho's network thread) -----------------------------------
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        if reason_code.is_failure:
            if not self._outage_said:
                log.warning(
                    "%s: broker %s:%d refused the connection: %s", self.name, self.cfg.host, self.cfg.port, reason_code
                )
            self._outage_said = True
            return
        log.info("%s: connected to %s:%d", self.name, self.cfg.host, self.cfg.port)
        self._outage_said = False
        self._queue_full_said = False
        for topic in self.subscriptions:
            client.subscribe(topic, qos=1)
        self.connected.set()
        for hook in self.connect_hooks:
            try:
                hook()
            except Exception:
                log.exception("%s: on-connect hook failed", self.name)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self._outage_said:
            log.warning(
                "%s: broker %s:%d unreachable; the game goes on offline and retries",
                self.name,
                self.cfg.host,
                self.cfg.port,
            )
        self._outage_said = True

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and reason_code.is_failure:
            log.warning(
                "%s: connection to the broker lost (%s); events are queued until it is back", self.name, reason_code
            )
            self._outage_said = True

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self._handler is None:
            return
        try:
            self._handler(message.topic, message.payload)
        except Exception:
            log.exception("%s: message on %s could not be handled", self.name, message.topic)


class MqttService:
    """The prop's own topics: events, state, presence, commands and the bomb's edgework."""

    def __init__(self, daemon: Daemon, commands: GameMaster, cfg: MqttConfig) -> None:
        self.daemon = daemon
        self.commands = commands
        self.cfg = cfg
        p, b = cfg.topic_prefix, cfg.bomb_prefix
        self.topics = {
            "events": f"{p}/events",
            "state": f"{p}/state",
            "status": f"{p}/status",
            "command": f"{p}/command",
            "reply": f"{p}/reply",
            "edgework": f"{b}/edgework",
            "solved": f"{b}/solved",
        }
        t = self.topics
        self.link = Link(
            cfg,
            cfg.client_id,
            will=(t["status"], "offline"),
            subscriptions=(t["command"], t["edgework"], t["solved"]),
            on_message=self._on_message,
            on_connect=self._on_connect,
            name="mqtt",
        )
        self._seq = 0
        self._state_lock = threading.Lock()
        self._state_text: str | None = None

    def start(self) -> None:
        """Listen to the daemon and connect in the background."""
        self.daemon.listeners.append(self.on_events)
        self.link.start()

    def stop(self) -> None:
        """Say ``offline`` and close."""
        self.link.stop(farewell=(self.topics["status"], "offline"))

    # -- out ------------------------------------------------------------------------
    def on_events(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon listener (game thread): every event, then the state if it changed."""
        for event in events:
            self._seq += 1
            self.link.publish(self.topics["events"], json.dumps({"seq": self._seq, **event.to_dict()}))
        if module.deck is None:
            return
        text = json.dumps(state_document(module), sort_keys=True)
        with self._state_lock:
            if text == self._state_text:
                return
            self._state_text = text
        if self.link.connected.is_set():  # offline: on_connect sends the newest one
            self.link.publish(self.topics["state"], text, retain=True)

    def _on_connect(self) -> None:
        self.link.publish(self.topics["status"], "online", retain=True)
        with self._state_lock:
            text = self._state_text
        if text is not None:
            self.link.publish(self.topics["state"], text, retain=True)

    def reply(self, reply: dict[str, Any]) -> None:
        """Publish a reply document."""
        self.link.publish(self.topics["reply"], json.dumps(reply))

    # -- in (paho's thread: nothing here may wait for the game) -----------------------
    def _on_message(self, topic: str, payload: bytes) -> None:
        if topic == self.topics["command"]:
            self.commands.handle(payload).add_done_callback(lambda f: self.reply(f.result()))
        elif topic == self.topics["edgework"] or topic == self.topics["solved"]:
            if not payload:  # a cleared retained message
                return
            try:
                if topic == self.topics["edgework"]:
                    edgework, keep = _parse_edgework(payload)
                    self.daemon.apply(lambda m: set_edgework(m, edgework, keep_solved=keep, only_if_changed=True))
                else:
                    self.daemon.set_solved(_parse_solved(payload), only_if_changed=True)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, BaccaratError) as error:
                problem = str(error) if isinstance(error, BaccaratError) else f"not valid JSON ({error})"
                log.warning("ignored the message on %s: %s", topic, problem)
                self.reply({"id": None, "ok": False, "topic": topic, "error": problem})


def _parse_edgework(payload: bytes) -> tuple[Edgework, bool]:
    """The bomb's edgework, and whether the module keeps its own solved count (none given)."""
    data = json.loads(payload)
    if isinstance(data, dict) and "solved" in data:
        return Edgework.from_dict(data), False
    return Edgework.from_dict({**data, "solved": 0} if isinstance(data, dict) else data), True


def _parse_solved(payload: bytes) -> int:
    """The bomb's solved count: ``3`` or ``{"solved": 3}``."""
    data = json.loads(payload)
    if isinstance(data, dict) and set(data) == {"solved"}:
        data = data["solved"]
    return check_solved(data)
