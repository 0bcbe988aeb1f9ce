"""One connection to the broker, shared by the services that speak on it.

:class:`Link` is one paho-mqtt client run on paho's own network thread
(``loop_start``), so the game thread never waits on the network: publishing
only appends to paho's outgoing queue. A service rides on a link with:

- :meth:`Link.on_topic` ``(topic, handler)``: the link subscribes to ``topic`` (wildcards
  allowed) at every connect and calls ``handler(topic, payload, retained)`` on paho's
  thread for each message. Every handler is **guarded**: an exception is one log line
  (counted, not repeated, in a flood: :mod:`.noise`) and the next message is handled as
  ever; a command refused by the one command path inside a handler is counted the same way;
- :meth:`~.link_queues.Queues.publish` ``(topic, payload, kind=..., retain=...)`` and
  :meth:`~.link_queues.Queues.publish_latest` for a retained document (:mod:`.link_queues`);
- :attr:`Link.connect_hooks` (once listening after each connect) and :attr:`Link.tick_hooks`
  (at each pass of paho's loop), guarded too; :attr:`Link.noise` for a warning strangers can repeat.

- **Listening**: the prop counts as listening (:attr:`Link.listening`) only once
  the broker has acknowledged every subscription (SUBACK): paho sends the
  SUBSCRIBE after the connect callback returns, so a command published at the
  moment of the CONNACK would be lost. The connect hooks run at that moment.
- **A failed network thread is started afresh**: paho re-raises an exception from a
  callback and its thread ends, and the prop would never hear from the broker again. The
  link guards what it gives paho, and should anything else end the thread (a bug, in
  paho or here) it logs why, drops that client and connects a new one.
- **Ticks**: paho's network thread wakes at least once a second while
  connected (its ``select`` timeout, for the keepalive); :attr:`Link.tick_hooks`
  run at each of those wakeups, so a periodic job (Room 2.0's ``DATA`` every
  30 s) needs no timer and no thread, and wakes nothing that was not awake.
- **After the first frame**: a service's link connects once the daemon is
  ready. paho-mqtt (with ``ssl``, ``hashlib`` and ``urllib``) takes 15-25 ms to
  import here, ten times that on a Pi Zero 2 W; it is imported on the link's
  own thread then, so the prop draws and takes presses without waiting for it.
  What is published before is held in order and sent when the client exists.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import strict
from baccarat_core.numbers import show_value
from firmware.broker.client import Trouble, failure_reason, new_client
from firmware.broker.queues import Queues
from firmware.broker.settings import MqttConfig
from firmware.errors import PropError
from firmware.system.noise import Noise

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt
    from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger("baccarat.mqtt")

#: ``handler(topic, payload, retained)``, on paho's network thread.
Handler = Callable[[str, bytes, bool], None]


class Link(Queues, Trouble):
    """One connection to the broker: will, guarded handlers on acknowledged subscriptions, bounded queues.

    >>> from firmware.broker.settings import MqttConfig
    >>> link = Link(MqttConfig(host="127.0.0.1"), "doc", will=("doc/status", "offline"), name="doc")
    >>> link.on_topic("doc/command", lambda topic, payload, retained: print(payload.decode()))
    >>> link.deliver("doc/command", b"hello")
    hello
    >>> link.on_topic("doc/boom", lambda topic, payload, retained: [][1])
    >>> link.deliver("doc/boom", b"x")  # one log line (IndexError), and the link goes on
    >>> link.publish("doc/events", '{"event": "strike"}', kind="event")  # held until the link connects
    True
    """

    def __init__(self, cfg: MqttConfig, client_id: str, *, will: tuple[str, str], name: str = "mqtt") -> None:
        self.cfg = cfg
        self.name = name
        self._init_queues(cfg.queue_limit)
        #: Called on paho's thread once the broker acknowledged every subscription after a connect
        #: (the service's presence, Home Assistant's discovery).
        self.connect_hooks: list[Callable[[], None]] = []
        #: Called on paho's thread at each pass of its network loop while connected: at least once a
        #: second (paho's ``select`` timeout) and after each packet. Each must be quick and check
        #: for itself whether it is due (``time.monotonic()``); none may block.
        self.tick_hooks: list[Callable[[], None]] = []
        #: The broker accepted the connection.
        self.connected = threading.Event()
        #: ... and acknowledged every subscription: a command published now is heard.
        self.listening = threading.Event()
        #: Warnings a stranger can repeat (bad messages, failing handlers): one line, then a count.
        self.noise = Noise(log)
        self._said: set[str] = set()  # reasons already logged in this outage
        self._unanswered = 0  # CONNECTs the broker dropped unanswered, in a row
        self._awaiting: dict[int | None, str] = {}  # SUBSCRIBE mid -> topic, until its SUBACK (None: not sent)
        self._will = will
        self._client_id = client_id
        self.client: Any = None
        self._handlers: dict[str, tuple[Handler, int]] = {}  # topic filter -> (handler, qos)
        self._stopped = threading.Event()
        self._crashes = 0  # network threads that failed in a row, for the delay before the next

    @property
    def subscriptions(self) -> tuple[str, ...]:
        """The topics the link subscribes to at each connect."""
        return tuple(self._handlers)

    def on_topic(self, topic: str, handler: Handler | None, *, qos: int = 1) -> None:
        """Call ``handler(topic, payload, retained)`` for each message on ``topic`` (``None``: stop).

        The link subscribes at each connect, and at once when it is connected now; the handler
        runs on paho's thread, guarded (see the module)."""
        with self._order:  # a new dict each time: paho's thread reads the one it finds, without a lock
            handlers = {t: h for t, h in self._handlers.items() if t != topic}
            if handler is not None:
                handlers[topic] = (handler, qos)
            self._handlers = handlers
            client = self.client
        if client is None or not self.connected.is_set():
            return
        if handler is None:
            client.unsubscribe(topic)
        else:
            client.subscribe(topic, qos=qos)  # the connect hooks have run: its SUBACK changes nothing

    def deliver(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """Hand one message to each handler whose topic filter matches, guarded (paho's thread)."""
        from paho.mqtt.client import topic_matches_sub

        handlers = [h for sub, (h, _) in self._handlers.items() if sub == topic or topic_matches_sub(sub, topic)]
        for handler in handlers:
            try:
                with self.noise.capturing(self.name):
                    handler(topic, payload, retained)
            except Exception as error:
                problem = strict.one_line(f"{type(error).__name__}: {error}", 160)
                self.noise.note(
                    f"failed {topic}",
                    f"{self.name}: a message on {show_value(topic)} could not be handled ({problem}); it is ignored",
                    logging.ERROR,
                )
                log.debug("%s: the handler's traceback", self.name, exc_info=True)

    def stale_command(self, topic: str, payload: bytes, retained: bool, logger: logging.Logger, who: str = "") -> bool:
        """True, with one line, for a message on a command topic that must not run: a retained one
        (a command runs once, never again at each start or reconnect) or an empty one (a retained
        command being cleared). ``who`` starts the line (``"room: "``)."""
        if retained:
            logger.warning(
                "%signored a retained message on %s: a command runs once, never again at each start or "
                "reconnect (clear it with: mosquitto_pub -r -n -t '%s')",
                who,
                topic,
                topic,
            )
            return True
        if not payload:
            text = f"{who}ignored an empty message on {topic} (a retained command being cleared)"
            self.noise.note("empty", text, logging.INFO)
            return True
        return False

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
        if self._stopped.is_set() or self.client is not None:
            return
        # paho's import and the client are made outside the lock: a publish meanwhile (the game
        # thread's Room 2.0 line after a frame) is held, never kept waiting for them.
        client = self._build()
        with self._order:
            if self._stopped.is_set() or self.client is not None:
                return
            self.client = client
            self._send_held(client)
            # Under the lock: a stop() that comes now finds the loop running, and stops it.
            client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
            client.loop_start()

    def _build(self) -> Any:
        cfg = self.cfg
        client = new_client(self._client_id)
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
        # paho re-raises what a callback raises, and its thread ends: each is guarded.
        client.on_connect = self._guard(self._on_connect)
        client.on_connect_fail = self._guard(self._on_connect_fail)
        client.on_disconnect = self._guard(self._on_disconnect)
        client.on_subscribe = self._guard(self._on_subscribe)
        client.on_publish = self._guard(self._on_publish)
        client.on_message = self._guard(self._on_message)
        client.tick = self._guard(self._tick)
        client.crashed = self._crashed
        return client

    def _guard(self, callback: Callable[..., None]) -> Callable[..., None]:
        """``callback`` as paho may call it: what it raises is logged (counted in a flood), never re-raised."""
        what = callback.__name__.strip("_").replace("_", " ")

        def guarded(*args: Any) -> None:
            try:
                callback(*args)
            except Exception as error:
                problem = strict.one_line(f"{type(error).__name__}: {error}", 160)
                self.noise.note(f"callback {what}", f"{self.name}: {what} failed ({problem})", logging.ERROR)
                log.debug("%s: the callback's traceback", self.name, exc_info=True)

        guarded.__name__ = callback.__name__
        return guarded

    def _tick(self) -> None:
        self.noise.tick()
        for hook in self.tick_hooks:
            try:
                hook()
            except Exception:  # paho's thread must go on: its loop would end with the exception
                log.exception("%s: a periodic job failed", self.name)

    def _crashed(self, error: BaseException) -> None:
        """paho's network thread ends with ``error`` (on that thread): drop its client, connect a new one."""
        problem = strict.one_line(f"{type(error).__name__}: {error}", 160)
        self._crashes += 1
        delay = min(self.cfg.reconnect_min_seconds * 2 ** (self._crashes - 1), self.cfg.reconnect_max_seconds)
        self.noise.note(
            "crashed",
            f"{self.name}: the MQTT network thread failed ({problem}); connecting afresh in {delay:g} s",
            logging.ERROR,
        )
        log.debug("%s: the network thread's traceback", self.name, exc_info=error)
        with self._order:
            if self._stopped.is_set():
                return
            old, self.client = self.client, None
        self.connected.clear()
        self.listening.clear()
        self._forget_in_flight()
        sock = old.socket() if old is not None else None
        if sock is not None:
            sock.close()  # no DISCONNECT: the broker sends the will, as for a power cut
        if self._stopped.wait(delay):
            return
        try:
            self._connect()
        except Exception:
            log.exception("%s: the MQTT client could not start again; the game goes on offline", self.name)

    def stop(self, farewell: tuple[str, str] | None = None) -> None:
        """Say goodbye on ``farewell`` (the will is only sent on an unclean end) and close."""
        with self._order:
            self._stopped.set()  # a link still waiting for the daemon's ready never connects
            client = self.client
        self.noise.close_all()
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

    # -- paho callbacks (paho's network thread) -----------------------------------
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
        self._crashes = 0
        self.connected.set()
        topics = [(topic, qos) for topic, (_, qos) in self._handlers.items()]
        with self._lock:
            self._awaiting.clear()
        if not topics:
            self._now_listening()
            return
        for topic, qos in topics:
            _, mid = client.subscribe(topic, qos=qos)  # sent when this callback returns
            with self._lock:
                self._awaiting[mid] = topic

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reason_codes: list[ReasonCode], properties: Any
    ) -> None:
        with self._lock:
            topic = self._awaiting.pop(mid, None)
            done = topic is not None and not self._awaiting
        refused = [code for code in reason_codes if code.is_failure]
        if refused:
            log.warning("%s: the broker refused the subscription to %s: %s", self.name, topic, refused[0])
        if done:
            self._now_listening()

    def _now_listening(self) -> None:
        self.listening.set()
        log.info("%s: listening (the broker acknowledged %d subscriptions)", self.name, len(self._handlers))
        for hook in list(self.connect_hooks):
            try:
                hook()
            except Exception:
                log.exception("%s: on-connect hook failed", self.name)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # paho types a payload bytes | bytearray; a received one is bytes, which bytes() returns as it is
        self.deliver(message.topic, bytes(message.payload), bool(message.retain))
