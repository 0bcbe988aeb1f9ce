"""The M3 / BAC convention on the prop's MQTT link (the topics: :mod:`.topics`).

- in: ``<name>/set/#`` (paho's thread), each message one request to the one command path;
- out: at each connect, first the empty announcements the Anidea framework sends (M3's panels
  learn the prop's topics from them), then ``<name>/solve``, ``<name>/enable`` and
  ``<name>/output<N>`` (``Yes``/``No``, retained), and again when they change; the BAC events
  on ``<name>/get/<Event>`` as they happen;
  ``<name>/heartbeat`` and ``<name>/get/heartbeat`` every 10 s while connected (the link's ticks,
  on :attr:`M3Convention.clock`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import events as ev
from firmware.plugin import Convention

from .topics import (
    HEARTBEAT_SECONDS,
    MAX_PAYLOAD,
    announcements,
    bac_events,
    parse_set,
    state_in_topic,
    state_topics,
)

if TYPE_CHECKING:
    from firmware.plugin import Link, Prop

    from . import M3Settings


class M3Convention(Convention):
    """M3's and the BAC's topics under ``<name>/`` (see the module).

    A panel's solve, handed over as the broker hands it (the link needs no broker for that):

    >>> from firmware.app import build_daemon, close_daemon, mock_pin_factory
    >>> from firmware.config import load_config
    >>> from firmware.devices.displays import open_dummy_device
    >>> from firmware.room.commands import GameMaster
    >>> from firmware.broker.link import Link
    >>> from firmware.broker.settings import MqttConfig
    >>> from firmware.plugin import Prop
    >>> from firmware.services.m3 import M3Settings
    >>> config = load_config()
    >>> daemon = build_daemon(config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device)
    >>> link = Link(MqttConfig(host="127.0.0.1"), "doc", will=("doc/status", "offline"))
    >>> panel = M3Convention(Prop(daemon, GameMaster(daemon), config), link, M3Settings("baccarat", ("lock",)))
    >>> panel.start()
    >>> daemon.start()
    >>> link.deliver("baccarat/set/solve", b"1")
    >>> daemon.wait_idle()
    >>> daemon.module.solved, daemon.board.outputs.pins()["lock"]
    (True, True)
    >>> daemon.stop()
    >>> panel.stop()
    >>> close_daemon(daemon)
    """

    what = "m3"

    def __init__(
        self, prop: Prop, link: Link, settings: M3Settings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(prop, link)
        self.name = settings.name
        self.outputs = settings.outputs
        #: What the heartbeat is timed on (a test's own clock).
        self.clock = clock
        self._set = f"{self.name}/set/"
        self.listen(f"{self._set}#")
        self._state: dict[str, str] = {}  # retained topic -> its newest "Yes"/"No"
        self._beat = float("-inf")  # clock() of the last heartbeat

    # -- in (paho's thread) -----------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> None:
        """One ``set`` message: its command through the one command path."""
        action = parse_set(topic[len(self._set) :], self.text(payload, "payload", MAX_PAYLOAD), self.outputs)
        then = action.then
        self.run(action.request, None if then is None else lambda reply: self._then_event(then, reply))

    def complete(self, topic: str) -> bool:
        """An output's state as one more level (``<name>/set/output5/Off``) needs no payload."""
        return state_in_topic(topic[len(self._set) :])

    def _then_event(self, event: str, reply: dict[str, Any]) -> None:
        if reply["ok"]:
            self.link.publish(self.get(event), "", kind="event")

    # -- out ---------------------------------------------------------------------------
    def get(self, event: str) -> str:
        """The BAC topic of ``event``: ``<name>/get/<event>``."""
        return f"{self.name}/get/{event}"

    def settled(self, events: list[ev.Event], document: dict[str, Any] | None) -> None:
        """Publish what changed (the game thread: only hands strings to the link)."""
        out = bac_events(events)
        if document is not None:
            state = state_topics(self.name, document, self.outputs)
            solve = f"{self.name}/solve"
            with self.lock:  # held while handing over: an older state never overtakes a newer one
                changed = {topic: value for topic, value in state.items() if self._state.get(topic) != value}
                unsolved = self._state.get(solve) == "Yes" and state[solve] == "No"
                self._state.update(state)
                if self.link.listening.is_set():  # otherwise the connect publishes the newest
                    for topic, value in changed.items():
                        self.link.publish_latest(topic, value, retain=True)
            if unsolved:
                out.append("Unsolve")
        for event in out:
            self.link.publish(self.get(event), "", kind="event")

    def connected(self) -> None:
        """After each connect: the empty announcements (:func:`.topics.announcements`), then every
        state topic (retained) and a heartbeat."""
        for topic in announcements(self.name, self.outputs):
            self.link.publish(topic, "", kind="presence")
        with self.lock:
            for topic, value in self._state.items():
                self.link.publish_latest(topic, value, retain=True)
        self._heartbeat()

    def tick(self) -> None:
        """The heartbeat, when 10 s have passed since the last one."""
        if self.clock() - self._beat >= HEARTBEAT_SECONDS and self.link.listening.is_set():
            self._heartbeat()

    def _heartbeat(self) -> None:
        self._beat = self.clock()
        self.link.publish(f"{self.name}/heartbeat", "", kind="presence")
        self.link.publish(self.get("heartbeat"), "", kind="presence")
