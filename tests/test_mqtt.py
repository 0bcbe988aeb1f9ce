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
from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
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
def broker(tmp_path):
    b = Broker(tmp_path)
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
    """The prop's :class:`~firmware.room.mqtt.MqttService`."""
    from firmware.room.mqtt import MqttService

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
    from firmware.room.mqtt import MqttService

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


def test_reset_command(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    rig.chips("tie", 5)
    rig.tap("left")
    w = watcher_factory()
    old_color = rig.daemon.module.deck.color
    reply = w.command({"command": "reset", "min": 100, "max": 10000})
    assert reply["ok"] and reply["command"] == "reset"
    assert [e["event"] for e in reply["result"]["events"]] == ["reset", "limits", "deck"]
    m = rig.daemon.module
    assert (m.limits.minimum, m.limits.maximum) == (100, 10000)
    assert m.deck.color != old_color and m.position == 0 and m.strikes == 0
    assert all(not stack for stack in m.stacks.values()) and m.denomination == 1
    assert not rig.led("green") and not rig.led("red")
    # Without limits: the config's fixed limits (25-1000 in the tests).
    reply = w.command({"command": "reset"})
    assert reply["ok"] and (m.limits.minimum, m.limits.maximum) == (25, 1000)


def test_force_solve_command(prop_factory, watcher_factory):
    rig = prop_factory(mqtt_extra={"room": "lab"})
    connected(rig)
    w = watcher_factory()
    reply = w.command({"command": "force-solve"})
    assert reply["ok"] and reply["result"]["events"] == [{"event": "solved", "forced": True}]
    assert rig.daemon.module.solved and rig.led("green")
    w.wait_for("Room/lab/Props/baccarat/outbox", lambda p: p == "OVER baccarat")
    again = w.command({"command": "force_solve"})
    assert again["ok"] and again["result"]["events"][0]["event"] == "ignored"


def test_set_limits_command(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    reply = w.command({"command": "set_limits", "min": 5, "max": 200})
    assert reply["ok"]
    m = rig.daemon.module
    assert (m.limits.minimum, m.limits.maximum) == (5, 200)
    assert m.deck.cards == build_deck(m.edgework, TableLimits(5, 200), m.deck.color, 0).cards


def test_set_edgework_command_keeps_the_solved_count_unless_given(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    assert w.command({"command": "set_solved", "solved": 2})["ok"]
    reply = w.command(
        {"command": "set_edgework", "serial": "q1w2e3", "ports": ["serial", "rj45"], "lit": ["frk"], "unlit": []}
    )
    assert reply["ok"], reply
    assert rig.daemon.module.edgework == Edgework("Q1W2E3", ("Serial", "RJ-45"), ("FRK",), (), 2)
    assert w.command({"command": "set_edgework", "serial": "A1", "solved": 7})["ok"]
    assert rig.daemon.module.edgework == Edgework("A1", (), (), (), 7)


def test_set_solved_command(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    reply = w.command({"command": "set_solved", "solved": 4})
    assert reply == {
        "id": reply["id"],
        "ok": True,
        "command": "set_solved",
        "result": {"events": [{"event": "solved_count", "solved": 4}]},
    }
    assert rig.daemon.module.edgework.solved == 4


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


def test_status_command(prop_factory, watcher_factory):
    rig = prop_factory()
    connected(rig)
    rig.chips("banker", 25)
    w = watcher_factory()
    reply = w.command({"command": "status"})
    assert reply["ok"] and reply["result"]["bets"]["banker"] == 25


BAD_COMMANDS = [
    ("not json", "not JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"id": "x"}', 'no "command"'),
    ('{"id": "x", "command": "explode"}', "unknown command"),
    ('{"id": "x", "command": "set_limits", "min": 7, "max": 100}', "minimum $7"),
    ('{"id": "x", "command": "set_limits", "min": 25}', "both"),
    ('{"id": "x", "command": "set_solved", "solved": -1}', "solved count -1"),
    ('{"id": "x", "command": "set_solved", "solved": "3"}', 'solved count "3"'),
    ('{"id": "x", "command": "set_edgework", "serial": "TOO-LONG!"}', "serial"),
    ('{"id": "x", "command": "reset", "colour": "red"}', "unknown argument"),
]

BAD_BOMB_MESSAGES = [
    ("bomb/solved", "three"),
    ("bomb/solved", "-2"),
    ("bomb/edgework", '{"serial": 42}'),
    ("bomb/edgework", '{"serial": "AB1", "ports": "Parallel", "colour": 1}'),
    ("bomb/edgework", "\xff"),
]


def test_bad_messages_are_answered_and_change_nothing(prop_factory, watcher_factory, caplog):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory(topics=(f"{P}/reply",))
    before = rig.daemon.module.snapshot()
    with caplog.at_level("WARNING"):
        for payload, error in BAD_COMMANDS:
            start = len(w.on(f"{P}/reply"))
            w.publish(f"{P}/command", payload)
            reply = json.loads(w.wait_after(f"{P}/reply", start, lambda p: True))
            assert reply["ok"] is False and error in reply["error"], (payload, reply)
        for topic, payload in BAD_BOMB_MESSAGES:
            start = len(w.on(f"{P}/reply"))
            w.publish(topic, payload)
            reply = json.loads(w.wait_after(f"{P}/reply", start, lambda p: True))
            assert reply["ok"] is False and reply["topic"] == topic, (payload, reply)
        settle(rig)
    assert rig.daemon.module.snapshot() == before
    assert rig.kinds() == ["limits", "deck"]
    # The first bad command and the first bad bomb message are a log line each, not a traceback;
    # the others are counted (a flood of them is not a flood of lines) ...
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("mqtt: command rejected: command is not JSON")
    assert warnings[1].startswith("ignored the message on bomb/solved: solved count is not JSON")
    assert not any(r.exc_info for r in caplog.records)
    # ... and said once the quiet time has passed (paho's loop ticks at least once a second).
    noise = service_of(rig).link.noise
    noise.clock = lambda: time.monotonic() + noise.quiet
    with caplog.at_level("WARNING"):
        deadline = time.monotonic() + 5
        while len([r for r in caplog.records if "more like it" in r.getMessage()]) < 2:
            assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
            time.sleep(0.05)
    counts = sorted(r.getMessage() for r in caplog.records if "more like it" in r.getMessage())
    assert counts[0].startswith(f"{len(BAD_BOMB_MESSAGES) - 1} more like it in 60 s, the last: ignored the message")
    assert counts[1].startswith(f"{len(BAD_COMMANDS) - 1} more like it in 60 s, the last: mqtt: command rejected: ")


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
    from firmware.room.room2 import RoomService

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


# -- the broker going away ------------------------------------------------------------------------


def test_no_broker_at_start_does_not_delay_the_game(mock_factory, tmp_path):
    from tests.mosquitto import free_port

    config = make_config(
        mqtt={"host": "127.0.0.1", "port": free_port(), "reconnect_min_seconds": 0.1, "reconnect_max_seconds": 0.2},
        state={"file": ""},
        control={"socket": ""},
    )
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    rig = Rig(daemon, mock_factory)
    closers = attach_services(daemon, config)
    started = time.monotonic()
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        rig.chips("player", 25)
        assert time.monotonic() - started < 3
        assert daemon.module.bets()["player"] == 25
    finally:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)


def test_broker_restart_mid_game_loses_no_event(prop_factory, watcher_factory, broker):
    w = watcher_factory(topics=(f"{P}/events",), client_id="console", persistent=True)
    rig = prop_factory()
    connected(rig)
    rig.chips("player", 5, 1)
    w.wait_for(f"{P}/events", lambda p: json.loads(p)["seq"] == len(rig.events))

    broker.stop()
    from firmware.room.mqtt import MqttService

    service = next(
        listener.__self__
        for listener in rig.daemon.on_settled
        if isinstance(getattr(listener, "__self__", None), MqttService)
    )
    deadline = time.monotonic() + 5
    while service.link.connected.is_set():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    # Offline: the buttons, the displays and the rules go on at full speed.
    started = time.monotonic()
    rig.tap("player", 0.6)  # held: clears the stack
    rig.chips("banker", 25)
    rig.deal()
    rig.wait_for("round")
    assert time.monotonic() - started < 5
    assert rig.frame("bets") is not None
    offline_count = len(rig.events)

    broker.start()
    assert service.link.listening.wait(10), "the prop did not reconnect"
    w.wait_for(f"{P}/events", lambda p: json.loads(p)["seq"] == offline_count, timeout=10)
    settle(rig)
    received = {}
    for payload in w.on(f"{P}/events"):
        event = json.loads(payload)
        received.setdefault(event["seq"], event)  # QoS 1: a duplicate is possible, a gap is not
    assert sorted(received) == list(range(1, len(rig.events) + 1))
    assert [received[s]["event"] for s in sorted(received)] == rig.kinds()
    assert [{k: v for k, v in received[s].items() if k != "seq"} for s in sorted(received)] == [
        json.loads(json.dumps(e.to_dict())) for e in rig.events
    ]


def test_offline_queue_is_bounded_and_the_game_goes_on(prop_factory, broker, caplog):
    rig = prop_factory(mqtt_extra={"queue_limit": 3})
    connected(rig)
    broker.stop()
    time.sleep(0.3)
    with caplog.at_level("WARNING", logger="baccarat.mqtt"):
        for _ in range(3):
            rig.tap("right")
            rig.tap("left")
    full = [r for r in caplog.records if "dropping events" in r.getMessage()]
    assert len(full) == 1 and "which is away" in full[0].getMessage()
    assert rig.daemon.module.denomination == 1


def test_a_link_connects_only_once_the_prop_is_ready_and_sends_what_it_held_in_order(broker, watcher_factory):
    """paho is imported and the client built after the daemon's first frame (``after``): what was
    published before is held, in order, and sent once the client exists."""
    from firmware.config import MqttConfig
    from firmware.room.mqtt import Link

    w = watcher_factory(topics=("held/#",))
    cfg = MqttConfig(host=broker.host, port=broker.port, reconnect_min_seconds=0.1, reconnect_max_seconds=0.3)
    ready = threading.Event()
    link = Link(cfg, f"held-{random.randrange(10**9)}", will=("held/status", "offline"))
    for i in range(3):
        assert link.publish("held/events", str(i), kind="event")
    link.publish_latest("held/state", "first")
    link.publish_latest("held/state", "newest")
    link.start(after=ready)
    time.sleep(0.3)
    assert link.client is None and not link.connected.is_set() and w.messages == []
    ready.set()
    try:
        assert link.listening.wait(5)
        w.wait_after("held/events", 0, lambda p: p == "2")
        assert w.on("held/events") == ["0", "1", "2"]
        w.wait_for("held/state", lambda p: p == "newest")
        assert w.on("held/state") == ["first", "newest"]  # the copy in flight, then only the newest
        assert link.waiting("event") == 0
    finally:
        link.stop()


def test_a_link_stopped_before_the_prop_was_ready_never_connects(broker):
    from firmware.config import MqttConfig
    from firmware.room.mqtt import Link

    cfg = MqttConfig(host=broker.host, port=broker.port)
    ready = threading.Event()
    link = Link(cfg, "never", will=("never/status", "offline"))
    link.publish("never/events", "x", kind="event")
    link.start(after=ready)
    link.stop()
    ready.set()
    time.sleep(0.3)
    assert link.client is None and not link.connected.is_set()
    assert not [t for t in threading.enumerate() if t.name == "baccarat-mqtt-connect" and t.is_alive()]
