"""MQTT: the bomb's edgework and solved count in, events, state and replies out.

:class:`Link` is one paho-mqtt client run on paho's own network thread
(``loop_start``), so the game thread never waits on the network: publishing
only appends to paho's outgoing queue.

- **Listening**: the prop counts as listening (:attr:`Link.listening`) only once
  the broker has acknowledged every subscription (SUBACK): paho sends the
  SUBSCRIBE after the connect callback returns, so a command published at the
  moment of the CONNACK would be lost. Presence (``online``) and the state
  document are published at that moment, whatever the outgoing queue holds.
- **Limits**: events and replies each have their own limit (``queue_limit``) on
  messages waiting for the broker's acknowledgement, while the broker is away
  or while it is slower than a burst. A message over the limit is dropped and
  the log says which kind and why, once per spell. The retained state
  document is never queued twice: one copy in flight, the newest waiting.
- **Retained commands**: a retained message on the command topic (or the Room
  inbox) is a command that would run again at every start and reconnect; it is
  ignored with one log line.
- **Failures** are logged with their reason: refused (not authorised),
  certificate verify failed, TLS handshake failed, connection refused; a broker
  that hangs up on the CONNECT unanswered is asked whether its port speaks TLS,
  and the log says which it was, a TLS port or a CONNECT the broker refused.
- **Ticks**: paho's network thread wakes at least once a second while
  connected (its ``select`` timeout, for the keepalive); :attr:`Link.tick_hooks`
  run at each of those wakeups, so a periodic job (Room 2.0's ``DATA`` every
  30 s) needs no timer and no thread, and wakes nothing that was not awake.
- **After the first frame**: a service's link connects once the daemon is
  ready. paho-mqtt (with ``ssl``, ``hashlib`` and ``urllib``) takes 15-25 ms to
  import here, ten times that on a Pi Zero 2 W; it is imported on the link's
  own thread then, so the prop draws and takes presses without waiting for it.
  What is published before is held in order and sent when the client exists.

:class:`MqttService` speaks this project's topics (see docs/mqtt.md);
``room2.py`` speaks the Room 2.0 convention over a second :class:`Link`.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import BaccaratError, BaccaratModule, Edgework, strict
from baccarat_core import events as ev
from baccarat_core.edgework import check_solved
from baccarat_core.errors import EdgeworkError
from baccarat_core.numbers import show_value

from ..daemon import Daemon
from ..errors import PropError
from .commands import GameMaster, set_edgework
from .diagnostics import Diagnostics
from .mqtt_settings import MqttConfig

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt
    from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger("baccarat.mqtt")

#: ``handler(topic, payload, retained)``, on paho's network thread.
Handler = Callable[[str, bytes, bool], None]

#: What the game or a log line hands the out thread to publish the diagnostics document again.
DIAGNOSTICS = "diagnostics"

#: Kinds of message with a limit of their own; anything else (presence) is never dropped.
LIMITED = ("event", "reply")
#: While the broker is connected, a kind may hold this many times ``queue_limit``: a burst.
CONNECTED_FACTOR = 10
_PLURAL = {"event": "events", "reply": "replies"}


def failure_reason(error: BaseException | None, *, tls: bool = False) -> str:
    """Why a connection attempt failed, in words: the TLS verdict, "connection refused", ..."""
    import ssl  # loaded already by paho, which tried the connection

    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate verify failed: {error.verify_message or error.reason}"
    if isinstance(error, ssl.SSLError):
        return f"TLS handshake failed: {error.reason or error} (is the port a TLS listener?)"
    if tls and isinstance(error, ConnectionResetError | BrokenPipeError):  # after the TCP connect: the handshake
        return f"TLS handshake failed: {error.strerror or 'connection reset'} (is the port a TLS listener?)"
    if isinstance(error, socket.gaierror):
        return f"unknown host ({error.strerror})"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    if error is not None:
        return strict.one_line(str(error) or type(error).__name__, 120)
    return "no reason given"


def speaks_tls(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether ``host:port`` answers a TLS handshake: a TLS listener does at once, an MQTT one hangs up.

    Only asked after a broker closed a plain connection without a CONNACK, to say why."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only whether it speaks TLS, not whom it is
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with context.wrap_socket(raw, server_hostname=host):
                return True
    except ssl.SSLError as error:
        return "ALERT" in str(error.reason or "").upper()  # a TLS alert is TLS too (e.g. a certificate wanted)
    except OSError:  # hung up, reset, silent or gone: not a TLS listener
        return False


_client_class: type | None = None
_client_class_lock = threading.Lock()


def _new_client(client_id: str) -> Any:
    """paho's client, keeping why the last connection attempt failed (paho's loop drops the reason).

    paho is imported here, on the thread that connects, not when the prop starts."""
    global _client_class
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

    with _client_class_lock:
        if _client_class is None:

            class Client(paho.Client):
                last_error: BaseException | None = None
                #: Called at each pass of paho's network loop (see :attr:`Link.tick_hooks`).
                tick: Callable[[], None] | None = None

                def loop_misc(self) -> MQTTErrorCode:
                    """As paho's (the keepalive, at each pass of its loop), then :attr:`tick`."""
                    result = super().loop_misc()
                    if self.tick is not None and result == MQTTErrorCode.MQTT_ERR_SUCCESS:
                        self.tick()
                    return result

                def reconnect(self) -> MQTTErrorCode:
                    """As paho's, remembering the error of a failed attempt in :attr:`last_error`."""
                    try:
                        result = super().reconnect()
                    except OSError as error:
                        self.last_error = error
                        raise
                    self.last_error = None
                    return result

            _client_class = Client
    return _client_class(CallbackAPIVersion.VERSION2, client_id=client_id)


class Link:
    """One connection to the broker: will, acknowledged subscriptions, bounded queues per kind."""

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
        #: Called on paho's thread once the broker acknowledged every subscription after a connect
        #: (the service's presence, Home Assistant's discovery).
        self.connect_hooks: list[Callable[[], None]] = [on_connect] if on_connect is not None else []
        #: Called on paho's thread at each pass of its network loop while connected: at least once a
        #: second (paho's ``select`` timeout) and after each packet. Each must be quick and check
        #: for itself whether it is due (``time.monotonic()``); none may block.
        self.tick_hooks: list[Callable[[], None]] = []
        #: The broker accepted the connection.
        self.connected = threading.Event()
        #: ... and acknowledged every subscription: a command published now is heard.
        self.listening = threading.Event()
        self.limits = {kind: cfg.queue_limit for kind in LIMITED}
        self._said: set[str] = set()  # reasons already logged in this outage
        self._unanswered = 0  # CONNECTs the broker dropped unanswered, in a row
        self._lock = threading.Lock()
        self._awaiting: dict[int | None, str] = {}  # SUBSCRIBE mid -> topic, until its SUBACK (None: not sent)
        self._pending: dict[int, str] = {}  # PUBLISH mid -> kind, until its PUBACK
        self._early: set[int] = set()  # PUBACKs that came before publish() returned the mid
        self._waiting: Counter[str] = Counter()
        #: The most messages of each kind that waited at once (for the burst benchmark).
        self.most_waiting: Counter[str] = Counter()
        self._dropped: Counter[str] = Counter()
        self._latest: dict[str, tuple[str, bool] | None] = {}  # topic in flight -> (payload, retain) waiting
        self._latest_mid: dict[int, str] = {}  # mid of the copy in flight -> topic
        self._will = will
        self._client_id = client_id
        #: paho's client, from :meth:`start` on (``None`` before: see the module's "After the first frame").
        self.client: Any = None
        self._order = threading.Lock()  # a publish and the sending of what was held wait for each other
        self._held: list[tuple[str, str, str, bool] | tuple[str, str, None, bool]] = []
        self._topic_handlers: dict[str, Callable[[Any, Any, Any], None]] = {}
        self._stopped = False

    def start(self, after: threading.Event | None = None) -> None:
        """Connect in the background; a missing broker does not delay start-up.

        With ``after`` (the daemon's ``ready``), paho is imported and the client built on a
        thread of the link's own once it is set, so the first frame never waits for them.
        """
        if after is None:
            self._connect()
            return
        threading.Thread(
            target=self._connect_after, args=(after,), name=f"baccarat-{self.name}-connect", daemon=True
        ).start()

    def _connect_after(self, after: threading.Event) -> None:
        after.wait()
        try:
            self._connect()
        except PropError as error:
            log.error("%s: %s; the game goes on offline", self.name, error)
        except Exception:
            log.exception("%s: the MQTT client could not start; the game goes on offline", self.name)

    def _connect(self) -> None:
        if self._stopped or self.client is not None:
            return
        # paho's import and the client are made outside the lock: a publish meanwhile (the game
        # thread's Room 2.0 line after a frame) is held, never kept waiting for them.
        client = self._build()
        with self._order:
            if self._stopped or self.client is not None:
                return
            for topic, handler in self._topic_handlers.items():
                client.message_callback_add(topic, handler)
            self.client = client
            held, self._held = self._held, []
            for topic, payload, kind, retain in held:  # in order, before anything newer
                if kind is None:
                    self._send_latest(topic, payload, retain)
                else:
                    self._send(client, topic, payload, kind, retain)
            # Under the lock: a stop() that comes now finds the loop running, and stops it.
            client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
            client.loop_start()

    def _build(self) -> Any:
        cfg = self.cfg
        client = _new_client(self._client_id)
        if cfg.username is not None:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.tls:
            try:
                client.tls_set(ca_certs=cfg.ca_file, certfile=cfg.cert_file, keyfile=cfg.key_file)
            except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
                raise PropError(f"[mqtt] TLS files cannot be loaded ({failure_reason(error)})") from None
        client.will_set(self._will[0], self._will[1], qos=1, retain=True)
        client.max_queued_messages_set(0)  # paho's one queue for everything: the limits per kind are ours
        client.reconnect_delay_set(cfg.reconnect_min_seconds, cfg.reconnect_max_seconds)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.tick = self._tick
        return client

    def _tick(self) -> None:
        for hook in self.tick_hooks:
            try:
                hook()
            except Exception:  # paho's thread must go on: its loop would end with the exception
                log.exception("%s: a periodic job failed", self.name)

    def on_topic(self, topic: str, handler: Callable[[Any, Any, Any], None] | None) -> None:
        """paho's ``handler(client, userdata, message)`` for messages on ``topic`` (``None``: none)."""
        with self._order:
            if handler is None:
                self._topic_handlers.pop(topic, None)
            else:
                self._topic_handlers[topic] = handler
            if self.client is not None:
                if handler is None:
                    self.client.message_callback_remove(topic)
                else:
                    self.client.message_callback_add(topic, handler)

    def stop(self, farewell: tuple[str, str] | None = None) -> None:
        """Say goodbye on ``farewell`` (the will is only sent on an unclean end) and close."""
        with self._order:
            self._stopped = True  # a link still waiting for the daemon's ready never connects
            client = self.client
        if client is None:
            return
        if farewell is not None and self.connected.is_set():
            info = client.publish(farewell[0], farewell[1], qos=1, retain=True)
            try:
                info.wait_for_publish(timeout=2)
            except (RuntimeError, ValueError):
                pass
        client.disconnect()
        client.loop_stop()

    def waiting(self, kind: str) -> int:
        """Messages of ``kind`` published and not yet acknowledged by the broker."""
        with self._lock:
            return self._waiting[kind]

    def publish(self, topic: str, payload: str, *, kind: str = "presence", retain: bool = False) -> bool:
        """Queue a QoS 1 message; never blocks. Returns whether it was queued.

        Events and replies each have a limit on messages waiting for the broker's
        acknowledgement: ``queue_limit`` while the broker is away, ten times that while
        it is connected (a burst in transit). Over it a message is dropped, and the log
        says which kind and why, once per spell; presence is never dropped.
        """
        limit = self.limits.get(kind)
        connected = self.connected.is_set()
        if limit is not None and connected:
            limit *= CONNECTED_FACTOR
        with self._lock:
            self.most_waiting[kind] = max(self.most_waiting[kind], self._waiting[kind] + 1)
            over = limit is not None and self._waiting[kind] >= limit
            if over:
                self._dropped[kind] += 1
                first = self._dropped[kind] == 1
            else:
                self._waiting[kind] += 1
        if over:
            if first:
                if connected:
                    why = (
                        f"{limit} are waiting for the broker's acknowledgement ({CONNECTED_FACTOR} x queue_limit "
                        "while connected): it acknowledges more slowly than they come"
                    )
                else:
                    why = f"{limit} are kept for the broker, which is away (queue_limit)"
                log.warning("%s: dropping %s: %s", self.name, _PLURAL[kind], why)
            return False
        with self._order:
            if self.client is None:  # held until the client exists (see the module's "After the first frame")
                self._held.append((topic, payload, kind, retain))
                return True
            return self._send(self.client, topic, payload, kind, retain)

    def _send(self, client: Any, topic: str, payload: str, kind: str, retain: bool) -> bool:
        from paho.mqtt.enums import MQTTErrorCode  # loaded with the client

        try:
            info = client.publish(topic, payload, qos=1, retain=retain)
        except BaseException:
            self._settle(kind)
            raise
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:  # paho's message ids all in use: as full
            self._settle(kind)
            return False
        with self._lock:
            if info.mid in self._early:
                self._early.discard(info.mid)
                settled = True
            else:
                self._pending[info.mid] = kind
                settled = False
        if settled:
            self._settle(kind)
        return True

    def publish_latest(self, topic: str, payload: str, *, retain: bool = True) -> None:
        """Publish ``payload`` keeping at most one copy in flight on ``topic``: while one waits for
        the broker, newer payloads replace each other and the newest follows the acknowledgement."""
        with self._lock:
            busy = topic in self._latest
            self._latest[topic] = (payload, retain) if busy else None
        if not busy:
            self._send_latest(topic, payload, retain)

    def _send_latest(self, topic: str, payload: str, retain: bool) -> None:
        if self.client is None:
            with self._order:
                if self.client is None:  # held, in order with the rest
                    self._held.append((topic, payload, None, retain))
                    return
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        with self._lock:
            if info.mid in self._early:  # acknowledged already
                self._early.discard(info.mid)
                follow = self._latest.pop(topic, None)
            else:
                self._latest_mid[info.mid] = topic
                follow = None
        if follow is not None:
            self.publish_latest(topic, follow[0], retain=follow[1])

    def _settle(self, kind: str) -> None:
        """One message of ``kind`` acknowledged (or never sent): the spell of drops may end."""
        with self._lock:
            self._waiting[kind] -= 1
            limit = self.limits.get(kind)
            dropped = self._dropped[kind]
            if not dropped or limit is None or self._waiting[kind] > limit // 2:
                return
            self._dropped[kind] = 0
        log.warning("%s: the broker caught up; %d %s were dropped", self.name, dropped, _PLURAL[kind])

    # -- paho callbacks (paho's network thread) -----------------------------------
    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any, properties: Any) -> None:
        with self._lock:
            kind = self._pending.pop(mid, None)
            latest = self._latest_mid.pop(mid, None)
            follow = None
            if latest is not None:
                follow = self._latest.pop(latest, None)
            elif kind is None:
                self._early.add(mid)
        if kind is not None:
            self._settle(kind)
        if follow is not None and latest is not None:
            self.publish_latest(latest, follow[0], retain=follow[1])

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        if reason_code.is_failure:
            self._say_once(
                f"refused {reason_code}",
                "%s: broker %s:%d refused the connection: %s",
                self.name,
                self.cfg.host,
                self.cfg.port,
                reason_code,
            )
            return
        log.info("%s: connected to %s:%d", self.name, self.cfg.host, self.cfg.port)
        self._said.clear()
        self._unanswered = 0
        self.connected.set()
        with self._lock:
            self._awaiting.clear()
        if not self.subscriptions:
            self._now_listening()
            return
        for topic in self.subscriptions:
            _, mid = client.subscribe(topic, qos=1)  # sent when this callback returns
            with self._lock:
                self._awaiting[mid] = topic

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reason_codes: list[ReasonCode], properties: Any
    ) -> None:
        with self._lock:
            topic = self._awaiting.pop(mid, None)
            done = topic is not None and not self._awaiting
        refused = [code for code in reason_codes if code.is_failure]
        if topic is not None and refused:
            log.warning("%s: the broker refused the subscription to %s: %s", self.name, topic, refused[0])
        if done:
            self._now_listening()

    def _now_listening(self) -> None:
        self.listening.set()
        log.info("%s: listening (the broker acknowledged %d subscriptions)", self.name, len(self.subscriptions))
        for hook in list(self.connect_hooks):
            try:
                hook()
            except Exception:
                log.exception("%s: on-connect hook failed", self.name)

    def _say_once(self, key: str, message: str, *args: Any) -> None:
        """A warning said once per outage for each reason (a broker that stays away is one line)."""
        if key in self._said:
            return
        self._said.add(key)
        log.warning(message, *args)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        reason = failure_reason(getattr(client, "last_error", None), tls=self.cfg.tls)
        self._say_once(
            f"failed {reason}",
            "%s: cannot connect to broker %s:%d: %s; the game goes on offline and retries",
            self.name,
            self.cfg.host,
            self.cfg.port,
            reason,
        )

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: ReasonCode, properties: Any
    ) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        self.listening.clear()
        if not reason_code.is_failure:
            return
        if was:
            self._said.add("lost")
            log.warning(
                "%s: connection to the broker lost (%s); events are queued until it is back", self.name, reason_code
            )
        elif not any(key.startswith("refused") for key in self._said) and "closed" not in self._said:
            # A refusal explains the close. Without one, the broker dropped the CONNECT unanswered: a
            # plain connection to a TLS port, or a CONNECT it will not read (Mosquitto sends no CONNACK
            # for a client id, user name or will topic it refuses): ask the port which. Said when it
            # happens twice in a row: a broker that is starting up may drop one.
            self._unanswered += 1
            if self._unanswered < 2:
                return
            if not self.cfg.tls and speaks_tls(self.cfg.host, self.cfg.port):
                why = "the port speaks TLS: set tls = true (and ca_file)"
            else:
                why = (
                    "it refused what the prop sent (a client id, user name or will topic it does not accept; "
                    "baccarat check-config checks them), or it is full or stopping; the broker's log says which"
                )
            self._say_once(
                "closed",
                "%s: broker %s:%d closed the connection without answering the prop's CONNECT (%s): %s",
                self.name,
                self.cfg.host,
                self.cfg.port,
                reason_code,
                why,
            )

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self._handler is None:
            return
        try:
            # paho types a payload bytes | bytearray; a received one is bytes, which bytes() returns as it is
            self._handler(message.topic, bytes(message.payload), bool(message.retain))
        except Exception:
            log.exception("%s: message on %s could not be handled", self.name, show_value(message.topic))


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
            "diagnostics": f"{p}/diagnostics",
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
        # What the game thread hands over once its frame is sent (``settled``); the out thread
        # formats and sends it, so that a press's frame never waits for JSON or a socket, nor
        # shares the interpreter with them (benchmarks/README.md).
        # Items: (events, state document or None), a reply document, or DIAGNOSTICS; None ends the thread.
        self._out: queue.SimpleQueue[tuple[list[ev.Event], dict[str, Any] | None] | dict[str, Any] | str | None] = (
            queue.SimpleQueue()
        )
        self._out_thread: threading.Thread | None = None
        #: The version, start time and last warning or error, retained on ``P/diagnostics``.
        self.diagnostics = Diagnostics(self._diagnostics_changed)
        self._diagnostics_queued = threading.Event()  # one request in the queue at most, whatever floods the log

    def start(self) -> None:
        """Listen to the daemon now; connect in the background once it is ready (after its first frame)."""
        self._out_thread = threading.Thread(target=self._send_out, name="baccarat-mqtt-out", daemon=True)
        self._out_thread.start()
        self.diagnostics.attach()
        self.daemon.on_settled.append(self.on_events)
        self.link.start(after=self.daemon.ready)

    def stop(self) -> None:
        """Send what the game handed over, say ``offline`` and close."""
        self.diagnostics.detach()
        if self._out_thread is not None:
            self._out.put(None)
            self._out_thread.join(5.0)
            self._out_thread = None
        self.link.stop(farewell=(self.topics["status"], "offline"))

    # -- out ------------------------------------------------------------------------
    def on_events(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread, after the frame): hand the events and the state as it
        is now (the document shared with the console) to the out thread."""
        if not events:  # only frames changed (a card turned): the state did not
            return
        for event in events:
            if event.kind == "self_test_result":  # kept, retained, in the diagnostics document
                result = event.to_dict()
                self.diagnostics.self_test_done(result["ok"], result["summary"])
                self._diagnostics_changed()
        self._out.put((events, self.commands.document() if module.deck is not None else None))

    def _send_out(self) -> None:
        while (item := self._out.get()) is not None:
            if item == DIAGNOSTICS:
                self._diagnostics_queued.clear()  # a warning from now on asks again
                with self.diagnostics.quiet():  # a failure here is no new last problem: no loop
                    try:
                        self.publish_diagnostics()
                    except Exception:
                        log.exception("mqtt: publishing the diagnostics failed; the game goes on")
                continue
            try:
                if isinstance(item, dict):
                    self._send_reply(item)
                elif isinstance(item, tuple):
                    self._publish(*item)
            except Exception:
                log.exception("mqtt: publishing failed; the game goes on")

    def _publish(self, events: list[ev.Event], document: dict[str, Any] | None) -> None:
        """Every event, then the state if it changed (the out thread)."""
        for event in events:
            self._seq += 1
            self.link.publish(self.topics["events"], strict.dumps({"seq": self._seq, **event.to_dict()}), kind="event")
        if document is None:
            return
        text = strict.dumps(document)
        with self._state_lock:
            if text == self._state_text:
                return
            self._state_text = text
        if self.link.listening.is_set():  # otherwise the connect sends the newest one
            self.link.publish_latest(self.topics["state"], text)

    def _on_connect(self) -> None:
        """Listening (every subscription acknowledged): presence and the newest state, whatever is queued."""
        self.link.publish(self.topics["status"], "online", retain=True)
        with self._state_lock:
            text = self._state_text
        if text is not None:
            self.link.publish_latest(self.topics["state"], text)
        self.publish_diagnostics()

    def _diagnostics_changed(self) -> None:
        """A new warning or error (any thread): the out thread publishes the document, once for a burst."""
        if not self._diagnostics_queued.is_set():
            self._diagnostics_queued.set()
            self._out.put(DIAGNOSTICS)

    def publish_diagnostics(self) -> None:
        """The diagnostics document, retained, if the broker is listening (every connect sends it)."""
        if self.link.listening.is_set():
            self.link.publish_latest(self.topics["diagnostics"], strict.dumps(self.diagnostics.document()))

    def reply(self, reply: dict[str, Any]) -> None:
        """Publish a reply document: after the events of its command, which the out thread sends
        first (from the game thread, a command's reply is handed over just after them)."""
        if self._out_thread is None:
            self._send_reply(reply)
        else:
            self._out.put(reply)

    def _send_reply(self, reply: dict[str, Any]) -> None:
        self.link.publish(self.topics["reply"], strict.dumps(reply), kind="reply")

    # -- in (paho's thread: nothing here may wait for the game) -----------------------
    def _on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if topic == self.topics["command"]:
            if retained:
                log.warning(
                    "ignored a retained message on %s: a command runs once, never again at each start or "
                    "reconnect (clear it with: mosquitto_pub -r -n -t '%s')",
                    topic,
                    topic,
                )
                return
            if not payload:
                log.info("ignored an empty message on %s (a retained command being cleared)", topic)
                return
            self.commands.handle(payload).add_done_callback(lambda f: self.reply(f.result()))
        elif topic == self.topics["edgework"] or topic == self.topics["solved"]:
            if not payload:  # a cleared retained message
                return
            try:
                if topic == self.topics["edgework"]:
                    edgework, keep = parse_edgework(payload)
                    self.daemon.apply(lambda m: set_edgework(m, edgework, keep_solved=keep, only_if_changed=True))
                else:
                    self.daemon.set_solved(parse_solved(payload), only_if_changed=True)
            except BaccaratError as error:
                problem = strict.one_line(str(error))
                log.warning("ignored the message on %s: %s", topic, problem)
                self.reply({"id": None, "ok": False, "topic": topic, "error": problem})


def parse_edgework(payload: bytes | str) -> tuple[Edgework, bool]:
    """The bomb's edgework (strict JSON), and whether the module keeps its own solved count (none given)."""
    data = strict.loads(payload, "edgework")
    if not isinstance(data, dict):
        raise EdgeworkError(f"edgework {show_value(data)} is not an object")
    if "solved" in data:
        return Edgework.from_dict(data), False
    return Edgework.from_dict({**data, "solved": 0}), True


def parse_solved(payload: bytes | str) -> int:
    """The bomb's solved count (strict JSON): ``3`` or ``{"solved": 3}``."""
    data = strict.loads(payload, "solved count")
    if isinstance(data, dict) and set(data) == {"solved"}:
        data = data["solved"]
    return check_solved(data)
