"""A link's outgoing side: a limit per kind of message, one copy in flight of a retained document.

- **Limits**: events and replies each have their own limit (``queue_limit``) on
  messages waiting for the broker's acknowledgement, while the broker is away
  or while it is slower than a burst. A message over the limit is dropped and
  the log says which kind and why, once per spell. Anything else (presence) is
  never dropped.
- **Latest only**: a retained document (the state, the diagnostics) is never
  queued twice: one copy in flight, the newest waiting (:meth:`Queues.publish_latest`).
- **Held**: what is published before paho's client exists (see :mod:`.link`'s
  "After the first frame") is held in order and sent once it does.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

log = logging.getLogger("baccarat.mqtt")

#: Kinds of message with a limit of their own; anything else (presence) is never dropped.
LIMITED = ("event", "reply")
#: While the broker is connected, a kind may hold this many times ``queue_limit``: a burst.
CONNECTED_FACTOR = 10
_PLURAL = {"event": "events", "reply": "replies"}


class Queues:
    """The publishing half of :class:`~.link.Link` (a mixin: the link makes the client and connects it)."""

    name: str
    connected: threading.Event
    #: paho's client, from the link's start on (``None`` before).
    client: Any

    def _init_queues(self, queue_limit: int) -> None:
        self.limits = {kind: queue_limit for kind in LIMITED}
        self._lock = threading.Lock()
        self._pending: dict[int, str] = {}  # PUBLISH mid -> kind, until its PUBACK
        self._early: set[int] = set()  # PUBACKs that came before publish() returned the mid
        self._waiting: Counter[str] = Counter()
        #: The most messages of each kind that waited at once (for the burst benchmark).
        self.most_waiting: Counter[str] = Counter()
        self._dropped: Counter[str] = Counter()
        self._latest: dict[str, tuple[str, bool] | None] = {}  # topic in flight -> (payload, retain) waiting
        self._latest_mid: dict[int, str] = {}  # mid of the copy in flight -> topic
        self._order = threading.Lock()  # a publish and the sending of what was held wait for each other
        self._held: list[tuple[str, str, str, bool] | tuple[str, str, None, bool]] = []

    def _send_held(self, client: Any) -> None:
        """Send what was held, in order, before anything newer (under ``_order``, the client just made)."""
        held, self._held = self._held, []
        for topic, payload, kind, retain in held:
            if kind is None:
                self._send_latest(topic, payload, retain)
            else:
                self._send(client, topic, payload, kind, retain)

    def _forget_in_flight(self) -> None:
        """A client was dropped with what it had in flight (its network thread failed): none of it
        waits any longer, and the next retained document goes out at once."""
        with self._lock:
            kinds = list(self._pending.values())
            self._pending.clear()
            self._early.clear()
            self._latest.clear()
            self._latest_mid.clear()
        for kind in kinds:
            self._settle(kind)

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
        client = self.client
        if client is None:
            with self._order:
                client = self.client
                if client is None:  # held, in order with the rest
                    self._held.append((topic, payload, None, retain))
                    return
        info = client.publish(topic, payload, qos=1, retain=retain)
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

    # -- paho callback (paho's network thread) ----------------------------------
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
