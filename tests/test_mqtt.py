"""MQTT against a real Mosquitto: edgework in, events and state out, commands, Room 2.0, outages."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from baccarat_core import Edgework, TableLimits, build_deck
from tests.conftest import Rig, make_config, served_prop, start_served
from tests.mosquitto import Broker

P = "bomb/baccarat"


class Watcher:
    """A console on the broker: records every message, publishes like a game master."""

    def __init__(
        self, broker: Broker, *, topics: tuple[str, ...] = ("#",), client_id: str = "", persistent: bool = False
    ) -> None:
        self.messages: list[tuple[str, str, bool]] = []
        self._seen = threading.Condition()
        self.topics = topics
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id or f"watch-{id(self)}", clean_session=not persistent
        )
        self.client.reconnect_delay_set(0.1, 0.3)  # type: ignore[arg-type]
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.connect(broker.host, broker.port, keepalive=5)
        self.client.loop_start()
        assert self.subscribed.wait(5), "watcher did not subscribe"

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        for topic in self.topics:
            client.subscribe(topic, qos=1)

    def _on_message(self, client, userdata, message) -> None:
        with self._seen:
            self.messages.append((message.topic, message.payload.decode(errors="replace"), message.retain))
            self._seen.notify_all()

    def wait_after(self, topic: str, start: int, test: Callable[[str], bool], timeout: float = 5.0) -> str:
        """Like :meth:`wait_for`, among the messages on ``topic`` from index ``start`` on."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while True:
                for payload in self.on(topic)[start:]:
                    if test(payload):
                        return payload
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"nothing matching on {topic} within {timeout} s; got {self.on(topic)[start:]}"
                    )
                self._seen.wait(left)

    def on(self, topic: str) -> list[str]:
        with self._seen:
            return [payload for t, payload, _ in self.messages if t == topic]

    def wait_for(self, topic: str, test: Callable[[str], bool] = lambda p: True, timeout: float = 5.0) -> str:
        deadline = time.monotonic() + timeout
        with self._seen:
            while True:
                for t, payload, _ in self.messages:
                    if t == topic and test(payload):
                        return payload
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"nothing matching on {topic} within {timeout} s; "
                        f"got {[m for m in self.messages if m[0] == topic][-5:]}"
                    )
                self._seen.wait(left)

    def publish(self, topic: str, payload: str, *, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def command(self, payload: dict, timeout: float = 5.0) -> dict:
        """Send a command with a fresh id and wait for its reply."""
        request_id = f"r{random.randrange(10**9)}"
        self.publish(f"{P}/command", json.dumps({"id": request_id, **payload}))
        text = self.wait_for(f"{P}/reply", lambda p: json.loads(p).get("id") == request_id, timeout)
        return json.loads(text)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def mqtt_section(broker: Broker, **extra) -> dict:
    return {
        "host": broker.host,
        "port": broker.port,
        "client_id": f"prop-{random.randrange(10**9)}",
        "keepalive": 5,
        "reconnect_min_seconds": 0.1,
        "reconnect_max_seconds": 0.3,
        **extra,
    }


@pytest.fixture
def broker(tmp_path, request):
    """A Mosquitto of the test's own; ``@pytest.mark.mosquitto_conf("line\\n")`` adds to its config."""
    marker = request.node.get_closest_marker("mosquitto_conf")
    b = Broker(tmp_path, extra=marker.args[0]) if marker else Broker(tmp_path)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def watcher_factory(broker):
    made: list[Watcher] = []

    def make(**kwargs) -> Watcher:
        made.append(Watcher(broker, **kwargs))
        return made[-1]

    yield make
    for w in made:
        w.close()


@pytest.fixture
def prop_factory(mock_factory, broker):
    """A running daemon on mock pins with its services attached before it starts."""
    stops: list = []

    def make(*, seed: int = 1, mqtt_extra: dict | None = None, schedule_clock=time.monotonic, **sections) -> Rig:
        sections.setdefault("state", {"file": ""})
        sections.setdefault("control", {"socket": ""})
        config = make_config(mqtt=mqtt_section(broker, **(mqtt_extra or {})), **sections)
        rig, stop = start_served(config, mock_factory, seed=seed, schedule_clock=schedule_clock)
        stops.append(stop)
        return rig

    yield make
    for stop in stops:
        stop()


def service_of(rig: Rig):
    """The prop's :class:`~firmware.services.mqtt.room.MqttService`."""
    from firmware.services.mqtt.room import MqttService

    for listener in rig.daemon.on_settled:
        owner = getattr(listener, "__self__", None)
        if isinstance(owner, MqttService):
            return owner
    raise AssertionError("no MQTT service attached")


def connected(rig: Rig, timeout: float = 5.0) -> None:
    # Listening: the broker acknowledged every subscription, so a command sent now is heard.
    assert service_of(rig).link.listening.wait(timeout), "the prop did not connect and subscribe"


def settle(rig: Rig, seconds: float = 0.3) -> None:
    """Let messages in flight arrive and be handled on the game thread."""
    time.sleep(seconds)
    rig.daemon.wait_idle()


# -- edgework and solved count ----------------------------------------------------------


def test_retained_edgework_and_solved_count_arrive_at_start_and_shape_the_decks(prop_factory, watcher_factory):
    w = watcher_factory()
    w.publish(
        "bomb/edgework",
        json.dumps({"serial": "Z9Y8X7", "ports": ["DVI-D", "PS/2"], "lit": ["BOB"], "unlit": []}),
        retain=True,
    )
    w.publish("bomb/solved", "5", retain=True)
    rig = prop_factory()
    connected(rig)
    rig.wait_for("solved_count")
    settle(rig)
    module = rig.daemon.module
    assert module.edgework == Edgework("Z9Y8X7", ("DVI-D", "PS/2"), ("BOB",), (), 5)
    limits = TableLimits(25, 1000)
    # The deck in play was re-dealt from the new serial and ports with the count it appeared with (0) ...
    assert module.deck.cards == build_deck(Edgework("Z9Y8X7", ("DVI-D", "PS/2"), ("BOB",)), limits, "red", 0).cards
    # ... and the next deck uses the bomb's solved count at the moment it appears.
    reply = w.command({"command": "reset"})
    assert reply["ok"]
    assert module.deck.solved == 5
    assert module.deck.cards == build_deck(module.edgework, limits, module.deck.color, 5).cards
    state = json.loads(w.wait_for(f"{P}/state", lambda p: json.loads(p)["deck_solved"] == 5))
    assert state["edgework"]["serial"] == "Z9Y8X7" and state["edgework"]["solved"] == 5


def test_solved_count_during_play_changes_only_the_next_deck(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    cards = rig.daemon.module.deck.cards
    w.publish("bomb/solved", "3", retain=True)
    rig.wait_for("solved_count")
    settle(rig)
    assert rig.daemon.module.edgework.solved == 3
    assert rig.daemon.module.deck.cards == cards  # the deck in play keeps its order
    # The same retained value arriving again (a reconnect) changes nothing and says nothing.
    before = len(rig.events)
    w.publish("bomb/solved", "3", retain=True)
    settle(rig)
    assert len(rig.events) == before


def test_same_edgework_again_does_not_redeal_the_deck_in_play(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    rig.chips("player", 25)
    rig.deal()
    position = rig.daemon.module.position
    w = watcher_factory()
    e = rig.daemon.module.edgework
    w.publish(
        "bomb/edgework",
        json.dumps({"serial": e.serial, "ports": list(e.ports), "lit": list(e.lit), "unlit": list(e.unlit)}),
    )
    settle(rig)
    assert rig.daemon.module.position == position


# -- events, state, presence ---------------------------------------------------------------


def test_events_state_and_presence_are_published(prop_factory, watcher_factory):
    w = watcher_factory()
    rig = prop_factory()
    connected(rig)
    w.wait_for(f"{P}/status", lambda p: p == "online")
    rig.chips("player", 25)
    rig.deal()
    w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "round")
    settle(rig)
    published = [json.loads(p) for p in w.on(f"{P}/events")]
    assert [p["event"] for p in published] == rig.kinds()
    assert [p["seq"] for p in published] == list(range(1, len(published) + 1))
    assert published[0] == {"seq": 1, **rig.events[0].to_dict()}
    module = rig.daemon.module
    state = json.loads(w.on(f"{P}/state")[-1])
    assert state["strikes"] == module.strikes and state["cards_left"] == module.cards_left
    assert state["status"] == ("solved" if module.solved else "armed")
    assert state["limits"] == {"min": 25, "max": 1000, "placard": "$25 - $1000"} and state["deck"] == module.deck.color
    # Retained: a console that connects now gets the state and presence at once.
    late = watcher_factory(topics=(f"{P}/state", f"{P}/status"))
    assert json.loads(late.wait_for(f"{P}/state")) == state
    assert late.wait_for(f"{P}/status") == "online"


def test_last_will_says_offline_when_the_connection_dies(prop_factory, watcher_factory):
    from firmware.services.mqtt.room import MqttService

    rig = prop_factory()
    connected(rig)
    w = watcher_factory(topics=(f"{P}/status",))
    w.wait_for(f"{P}/status", lambda p: p == "online")
    service = next(
        listener.__self__
        for listener in rig.daemon.on_settled
        if isinstance(getattr(listener, "__self__", None), MqttService)
    )
    service.link.client.socket().shutdown(socket.SHUT_RDWR)  # no DISCONNECT packet: like a power cut
    w.wait_for(f"{P}/status", lambda p: p == "offline")
    # ... and the prop comes back by itself.
    deadline = time.monotonic() + 5
    while w.on(f"{P}/status")[-1] != "online":
        assert time.monotonic() < deadline, "the prop did not come back online"
        time.sleep(0.05)


def test_clean_stop_publishes_offline(broker, mock_factory, watcher_factory):
    config = make_config(mqtt=mqtt_section(broker), state={"file": ""}, control={"socket": ""})
    with served_prop(config, mock_factory):
        w = watcher_factory(topics=(f"{P}/status",))
        w.wait_for(f"{P}/status", lambda p: p == "online")
    w.wait_for(f"{P}/status", lambda p: p == "offline")


# -- game-master commands ---------------------------------------------------------------------


def test_edgework_published_without_a_solved_count_keeps_the_modules(prop_factory, watcher_factory):
    """The bomb's edgework topic may leave the count to bomb/solved: edgework without
    ``solved`` keeps the module's count; edgework with one sets it."""
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    w.publish("bomb/solved", "5")
    assert rig.wait_for("solved_count").solved == 5
    w.publish("bomb/edgework", json.dumps({"serial": "Z9Y8X7", "ports": ["PS/2"], "lit": [], "unlit": ["BOB"]}))
    changed = rig.wait_for("edgework")
    assert changed.solved == 5
    rig.daemon.wait_idle()
    assert rig.daemon.module.edgework == Edgework("Z9Y8X7", ("PS/2",), (), ("BOB",), 5)
    # The re-dealt deck keeps the count it appeared with (0); 5 is the next deck's (README, "Game-master changes").
    assert rig.daemon.module.deck.solved == 0
    rig.events.clear()
    w.publish("bomb/edgework", json.dumps({"serial": "Z9Y8X7", "ports": [], "lit": [], "unlit": [], "solved": 2}))
    assert rig.wait_for("edgework").solved == 2
    rig.daemon.wait_idle()
    assert rig.daemon.module.edgework == Edgework("Z9Y8X7", (), (), (), 2)


def test_hint_command_names_the_winning_bet(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    reply = w.command({"command": "hint"})
    assert reply["ok"]
    hint = reply["result"]
    # The prop's seed (1) is fixed: its first round is no tie (a bet on the winner solves).
    assert hint["winner"] in ("player", "banker"), hint
    rig.chips(hint["winner"], 25)
    rig.deal()
    rig.wait_for("round")
    assert rig.daemon.module.solved
    round_event = next(e for e in rig.events if e.kind == "round")
    assert list(round_event.player) == hint["player"] and list(round_event.banker) == hint["banker"]


# -- Room 2.0 -----------------------------------------------------------------------------------


def test_room_2_0_messages(prop_factory, watcher_factory):
    w = watcher_factory()
    rig = prop_factory(mqtt_extra={"room": "Casino", "prop": "Baccarat Table"})
    inbox, outbox = "Room/Casino/Props/Baccarat Table/inbox", "Room/Casino/Props/Baccarat Table/outbox"
    w.wait_for(outbox, lambda p: p == "CONNECTED")
    data = w.wait_for(outbox, lambda p: p.startswith("DATA "))
    assert "status=armed" in data and "limits=25-1000" in data and "serial=AB3DE4" in data

    def ask(text: str, *answers: str) -> None:
        start = len(w.on(outbox))
        w.publish(inbox, text)
        for answer in answers:
            w.wait_after(outbox, start, lambda p, a=answer: p.startswith(a))

    ask("@PING", "PONG")
    ask("set-solved 4", "DONE set-solved 4")
    assert rig.daemon.module.edgework.solved == 4
    ask("reset min=50 max=3000", "DATA ", "DONE reset min=50 max=3000")
    assert (rig.daemon.module.limits.minimum, rig.daemon.module.limits.maximum) == (50, 3000)
    assert "limits=50-3000" in [p for p in w.on(outbox) if p.startswith("DATA ")][-1]
    ask("hint", "MESG hint: ", "DONE hint")
    ask("dance", "OMIT dance", "MESG unknown command")
    ask("set-limits min=7 max=100", "OMIT set-limits min=7 max=100", "MESG set_limits: minimum $7")
    ask("app:startup", "DATA ", "DONE app:startup")
    ask("force-solve", "OVER baccarat", "DONE force-solve")
    assert "status=solved" in [p for p in w.on(outbox) if p.startswith("DATA ")][-1]
    # CONNECTED is retained, DISCONNECTED is the will and the farewell.
    late = watcher_factory(topics=(outbox,))
    assert late.wait_for(outbox) == "CONNECTED"


def test_a_commands_events_reach_the_broker_before_its_reply_every_time(prop_factory, watcher_factory):
    """A console that acts on a reply finds the events and the state it reports already
    published, on the prop's topics and on the Room 2.0 outbox alike. By construction: the
    events are handed over before the reply, on the game thread (no timing involved), so
    twenty commands in a row all keep the order."""
    w = watcher_factory(topics=(f"{P}/events", f"{P}/reply", "Room/lab/Props/baccarat/outbox"))
    rig = prop_factory(mqtt_extra={"room": "lab"})
    connected(rig)
    outbox = "Room/lab/Props/baccarat/outbox"
    w.wait_for(outbox, lambda p: p.startswith("DATA "))
    limits = [(25, 1000), (50, 3000)]
    for round_trip in range(20):
        low, high = limits[round_trip % 2]
        start = len(w.messages)
        reply = w.command({"command": "reset", "min": low, "max": high})
        assert reply["ok"], reply
        later = w.messages[start:]
        topics = [t for t, _, _ in later]
        reply_at = topics.index(f"{P}/reply")
        kinds = [json.loads(payload)["event"] for t, payload, _ in later[:reply_at] if t == f"{P}/events"]
        assert "reset" in kinds and "limits" in kinds, (round_trip, later)

        low, high = limits[(round_trip + 1) % 2]
        start = len(w.on(outbox))
        w.publish("Room/lab/Props/baccarat/inbox", f"reset min={low} max={high}")
        done = w.wait_after(outbox, start, lambda p: p.startswith("DONE "))
        lines = w.on(outbox)[start:]
        data = [line for line in lines[: lines.index(done)] if line.startswith("DATA ")]
        assert data and f"limits={low}-{high}" in data[-1], (round_trip, lines)


def test_room_disconnected_will(prop_factory, watcher_factory):
    from firmware.services.room2.link import RoomService

    rig = prop_factory(mqtt_extra={"room": "R1"})
    outbox = "Room/R1/Props/baccarat/outbox"
    w = watcher_factory(topics=(outbox,))
    w.wait_for(outbox, lambda p: p == "CONNECTED")
    room = next(
        listener.__self__
        for listener in rig.daemon.on_settled
        if isinstance(getattr(listener, "__self__", None), RoomService)
    )
    room.link.client.socket().shutdown(socket.SHUT_RDWR)
    w.wait_for(outbox, lambda p: p == "DISCONNECTED")
