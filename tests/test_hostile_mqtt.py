"""Issue 11 over MQTT: hostile messages, retained commands, the queues, TLS and auth, the subscribe race.

The generated inputs go through the very function paho's network thread calls
(:meth:`Link.deliver`, which hands them to ``MqttService._on_message`` /
``RoomService._on_message``), on a running daemon, 1,000 and more per surface; a smaller
sample goes through a real Mosquitto. TLS and authentication: tests/test_mqtt_tls.py.
"""

from __future__ import annotations

import json
import logging
import socket
import time

import pytest

from firmware.room.commands import GameMaster
from tests import test_mqtt
from tests.conftest import Rig, make_config, served_prop
from tests.hostile import DEEP, Hostile
from tests.mosquitto import Broker, free_port
from tests.test_mqtt import P, Watcher, connected, mqtt_section, settle

# The fixtures of the MQTT tests: a broker, a console on it, and a running prop.
broker = test_mqtt.broker
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory

INBOX = "Room/lab/Props/baccarat/inbox"
BURST = 10_000
OUTBOX = "Room/lab/Props/baccarat/outbox"


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} in {text[:80]}")

    return json.loads(text, parse_constant=refuse)


def services_of(rig: Rig):
    from firmware.services.mqtt.room import MqttService
    from firmware.services.room2.link import RoomService

    found = {}
    for listener in rig.daemon.on_settled:
        owner = getattr(listener, "__self__", None)
        if isinstance(owner, MqttService | RoomService):
            found[type(owner).__name__] = owner
    return found


# -- in-process: 1,000+ per surface through the network thread's own entry -------------------------


@pytest.fixture
def unplugged(rig_factory):
    """A running daemon with MQTT and Room 2.0 services built but never connected; every
    publish is recorded (and still handed to paho, which queues it)."""
    from firmware.services.mqtt.room import MqttService
    from firmware.services.room2.link import RoomService

    config = make_config(
        mqtt={"host": "127.0.0.1", "port": free_port(), "room": "lab", "queue_limit": 100_000},
        state={"file": ""},
        control={"socket": ""},
    )
    rig = rig_factory(config)
    commands = GameMaster(rig.daemon, default_limits=config.limits)
    service = MqttService(rig.daemon, commands, config.settings["mqtt"])
    room = RoomService(rig.daemon, commands, config.settings["mqtt"], config.settings["room2"])
    sent: list[tuple[str, str]] = []
    for link in (service.link, room.link):

        def spy(topic, payload, *args, _real=link.publish, **kwargs):
            sent.append((topic, payload))
            return _real(topic, payload, *args, **kwargs)

        link.publish = spy
    yield rig, service, room, sent
    for link in (service.link, room.link):
        link.stop()


def check_refused(rig: Rig, before: dict, events_before: int, caplog, count: int) -> None:
    """Nothing changed; each of ``count`` refusals handed to a service directly is one short warning line."""
    rig.daemon.wait_idle()
    assert rig.daemon.module.snapshot() == before
    assert len(rig.events) == events_before
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == count, [r.getMessage()[:100] for r in warnings[:3]]
    for record in caplog.records:
        message = record.getMessage()
        assert record.exc_info is None, message[:200]
        assert len(message) <= 300 and "\n" not in message, message[:400]


def check_refused_by_link(rig: Rig, link, before: dict, events_before: int, caplog, count: int) -> None:
    """Nothing changed; ``count`` refusals through the link are one warning line, then one that counts the rest."""
    rig.daemon.wait_idle()
    assert rig.daemon.module.snapshot() == before
    assert len(rig.events) == events_before
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage()[:100] for r in warnings[:3]]
    link.noise.close_all()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2 and warnings[1].startswith(f"{count - 1} more like it in 60 s, the last: "), warnings
    for record in caplog.records:
        message = record.getMessage()
        assert record.exc_info is None, message[:200]
        assert len(message) <= 400 and "\n" not in message, message[:400]


@pytest.mark.parametrize("surface", ["command", "edgework", "solved"])
def test_1000_hostile_messages_on_each_topic_get_one_reply_each_and_change_nothing(unplugged, caplog, surface):
    rig, service, _, sent = unplugged
    hostile = Hostile({"command": 1, "edgework": 2, "solved": 3}[surface])
    make = {"command": hostile.command, "edgework": hostile.edgework, "solved": hostile.solved}[surface]
    topic = {"command": f"{P}/command", "edgework": "bomb/edgework", "solved": "bomb/solved"}[surface]
    payloads = [make() for _ in range(1100)]
    assert len(set(payloads)) > (100 if surface == "solved" else 200)
    before, events_before = rig.daemon.module.snapshot(), len(rig.events)
    with caplog.at_level(logging.INFO, logger="baccarat"):
        for payload in payloads:
            service.link.deliver(topic, payload)
        check_refused_by_link(rig, service.link, before, events_before, caplog, len(payloads))
    replies = [strict_json(text) for t, text in sent if t == f"{P}/reply"]
    assert len(replies) == len(payloads)
    for reply in replies:
        assert reply["ok"] is False
        assert len(reply["error"]) <= 300 and "\n" not in reply["error"]
        if surface != "command":
            assert reply["topic"] == topic


def test_1000_hostile_room_words_get_one_omit_each_and_change_nothing(unplugged, caplog):
    rig, _, room, sent = unplugged
    hostile = Hostile(4)
    payloads = [hostile.words() for _ in range(1100)]
    assert len(set(payloads)) > 100
    before, events_before = rig.daemon.module.snapshot(), len(rig.events)
    with caplog.at_level(logging.INFO, logger="baccarat"):
        for payload in payloads:
            room.link.deliver(INBOX, payload)
        check_refused_by_link(rig, room.link, before, events_before, caplog, len(payloads))
    said = [text for topic, text in sent if topic == OUTBOX]
    omits = [text for text in said if text.startswith("OMIT ")]
    assert len(omits) == len(payloads)
    assert len([t for t in said if t.startswith("MESG ")]) == len(payloads)
    assert not [t for t in said if t.startswith("DONE ")]
    for text in said:  # one printable line: no control or bidi characters echoed back to a console
        assert len(text) <= 300 and text.isprintable(), text[:300]


def test_a_bad_id_refuses_the_command_and_nan_never_comes_back(unplugged, caplog):
    rig, service, _, sent = unplugged
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        for payload in (b'{"id": NaN, "command": "force_solve"}', b'{"id": [1], "command": "force_solve"}'):
            service.link.deliver(f"{P}/command", payload)
        check_refused_by_link(rig, service.link, rig.daemon.module.snapshot(), len(rig.events), caplog, 2)
    replies = [text for t, text in sent if t == f"{P}/reply"]
    assert len(replies) == 2  # strict_json below refuses a bare NaN
    assert all(strict_json(r)["ok"] is False and strict_json(r)["id"] is None for r in replies)
    assert not rig.daemon.module.solved


# -- item 3: deep JSON, end to end -------------------------------------------------------------------


def test_deep_json_on_every_topic_gets_one_short_answer_and_no_traceback(prop_factory, watcher_factory, caplog):
    rig = prop_factory(mqtt_extra={"room": "lab"})
    connected(rig)
    w = watcher_factory(topics=(f"{P}/reply", OUTBOX))
    w.wait_for(OUTBOX, lambda p: p == "CONNECTED")
    deep990 = "[" * 990 + "]" * 990
    commands = [
        DEEP[:2000] + DEEP[-2000:],  # "[" * 1000 + "]" * 1000
        '{"id": ' + deep990 + ', "command": "hint"}',  # a deep id used to be echoed back
        '{"id": 1, "command": "set_solved", "solved": ' + deep990 + "}",
    ]
    before = rig.daemon.module.snapshot()
    with caplog.at_level(logging.INFO, logger="baccarat"):
        for payload in commands:
            w.publish(f"{P}/command", payload)
        for topic in ("bomb/edgework", "bomb/solved"):
            w.publish(topic, deep990)
            w.publish(topic, DEEP)
        w.publish(INBOX, DEEP)
        w.wait_after(f"{P}/reply", 0, lambda p: False if len(w.on(f"{P}/reply")) < 7 else True, timeout=10)
        w.wait_for(OUTBOX, lambda p: p.startswith("OMIT "))
        settle(rig, 0.5)
    replies = [strict_json(r) for r in w.on(f"{P}/reply")]
    assert len(replies) == 7 and all(r["ok"] is False for r in replies)
    assert all(len(r["error"]) <= 300 for r in replies)
    assert len([p for p in w.on(OUTBOX) if p.startswith("OMIT ")]) == 1
    assert rig.daemon.module.snapshot() == before
    assert not [r for r in caplog.records if r.exc_info or len(r.getMessage()) > 300]


# -- a sample through the real broker ----------------------------------------------------------------


def test_200_hostile_messages_through_mosquitto(prop_factory, watcher_factory, caplog):
    rig = prop_factory(mqtt_extra={"room": "lab"})
    connected(rig)
    w = watcher_factory(topics=(f"{P}/reply", OUTBOX))
    w.wait_for(OUTBOX, lambda p: p == "CONNECTED")
    hostile = Hostile(21)
    sample = []
    for _ in range(50):
        sample += [
            (f"{P}/command", hostile.command()),
            ("bomb/edgework", hostile.edgework()),
            ("bomb/solved", hostile.solved()),
            (INBOX, hostile.words()),
        ]
    before = rig.daemon.module.snapshot()
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        for topic, payload in sample:
            w.client.publish(topic, payload, qos=1)
        deadline = time.monotonic() + 20
        while len(w.on(f"{P}/reply")) < 150 or len([p for p in w.on(OUTBOX) if p.startswith("OMIT ")]) < 50:
            assert time.monotonic() < deadline, (len(w.on(f"{P}/reply")), len(w.on(OUTBOX)))
            time.sleep(0.05)
        settle(rig, 0.5)
    assert len(w.on(f"{P}/reply")) == 150
    assert all(strict_json(r)["ok"] is False for r in w.on(f"{P}/reply"))
    assert len([p for p in w.on(OUTBOX) if p.startswith("OMIT ")]) == 50
    assert not [p for p in w.on(OUTBOX) if p.startswith("DONE ")]
    assert rig.daemon.module.snapshot() == before
    # 200 refusals: the first of each kind (a command, a bomb message, Room 2.0 words) is a line.
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 3, said
    assert not [r for r in caplog.records if r.exc_info or len(r.getMessage()) > 300]


# -- item 4: a retained command never runs again --------------------------------------------------------


def test_retained_commands_are_ignored_at_start(prop_factory, watcher_factory, caplog):
    w = watcher_factory()
    w.publish(f"{P}/command", '{"command": "force_solve"}', retain=True)
    w.publish(INBOX, "force-solve", retain=True)
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        rig = prop_factory(mqtt_extra={"room": "lab"})
        connected(rig)
        w.wait_for(OUTBOX, lambda p: p == "CONNECTED")
        settle(rig, 0.5)
    assert not rig.daemon.module.solved
    ignored = [r.getMessage() for r in caplog.records if "retained" in r.getMessage()]
    assert len(ignored) == 2 and all("mosquitto_pub -r -n -t" in m for m in ignored)
    assert not [p for p in w.on(f"{P}/reply")]


def test_a_retained_reset_does_not_run_again_when_the_broker_restarts(prop_factory, watcher_factory, broker):
    rig = prop_factory()
    connected(rig)
    w = watcher_factory()
    w.publish(f"{P}/command", '{"id": "once", "command": "reset"}', retain=True)  # runs once, live
    w.wait_for(f"{P}/reply", lambda p: json.loads(p)["id"] == "once")
    rig.chips("player", 5)  # below the minimum: a strike
    rig.deal()
    assert rig.daemon.module.strikes == 1
    service = services_of(rig)["MqttService"]
    broker.stop()
    while service.link.listening.is_set():
        time.sleep(0.02)
    broker.start()
    assert service.link.listening.wait(10)
    settle(rig, 0.5)
    assert rig.daemon.module.strikes == 1


# -- item 5: the queue limits -----------------------------------------------------------------------------


def test_after_an_outage_that_overflowed_the_queue_presence_and_state_are_published(
    prop_factory, watcher_factory, broker, caplog
):
    rig = prop_factory(mqtt_extra={"queue_limit": 3})
    connected(rig)
    service = services_of(rig)["MqttService"]
    broker.stop()
    while service.link.listening.is_set():
        time.sleep(0.02)
    with caplog.at_level(logging.WARNING, logger="baccarat.mqtt"):
        for _ in range(4):  # 8 events: 5 over the limit
            rig.tap("right")
        for _ in range(2):
            rig.tap("left")
    broker.start()
    assert service.link.listening.wait(10)
    late = watcher_factory(topics=(f"{P}/status", f"{P}/state"))
    # The restarted broker kept what was retained when it stopped (persistence), and the prop
    # counts as listening once its subscriptions are acknowledged, just before it says "online":
    # a console that subscribes in between gets the old retained presence first.
    assert late.wait_for(f"{P}/status", lambda p: p == "online") == "online"
    state = late.wait_for(f"{P}/state", lambda p: json.loads(p)["denomination"] == rig.daemon.module.denomination)
    assert json.loads(state)["denomination"] == 25
    drops = [r.getMessage() for r in caplog.records if "dropping" in r.getMessage()]
    assert len(drops) == 1 and "dropping events" in drops[0] and "which is away" in drops[0]


def test_events_and_replies_have_limits_of_their_own(caplog):
    from firmware.broker.settings import MqttConfig
    from firmware.services.mqtt.room import Link

    link = Link(MqttConfig(host="127.0.0.1", port=free_port(), queue_limit=3), "limits", will=("t/s", "offline"))
    with caplog.at_level(logging.WARNING, logger="baccarat.mqtt"):
        assert [link.publish("t/e", str(i), kind="event") for i in range(5)] == [True] * 3 + [False] * 2
        assert [link.publish("t/r", str(i), kind="reply") for i in range(4)] == [True] * 3 + [False]
        assert link.publish("t/s", "online", kind="presence", retain=True)  # presence is never dropped
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "dropping events" in said[0] and "dropping replies" in said[1]
    assert link.waiting("event") == 3 and link.waiting("reply") == 3


def test_a_burst_of_10000_commands_gets_every_reply_with_the_broker_setting(tmp_path, mock_factory, caplog):
    """The burst the README documents: with Mosquitto's max_queued_messages above it, every reply comes back
    (benchmarks/burst.py measures the default setting too)."""
    broker = Broker(tmp_path, extra="max_queued_messages 20000\n")
    broker.start()
    w = None
    config = make_config(mqtt=mqtt_section(broker), state={"file": ""}, control={"socket": ""})
    try:
        with served_prop(config, mock_factory) as rig:
            connected(rig)
            w = Watcher(broker, topics=(f"{P}/reply",))
            with caplog.at_level(logging.WARNING, logger="baccarat.mqtt"):
                for i in range(BURST):
                    w.client.publish(f"{P}/command", json.dumps({"id": i, "command": "status"}), qos=1)
                deadline = time.monotonic() + 60
                while len(w.on(f"{P}/reply")) < BURST and time.monotonic() < deadline:
                    time.sleep(0.1)
            ids = {json.loads(p)["id"] for p in w.on(f"{P}/reply")}
            assert ids == set(range(BURST))
            assert not [r for r in caplog.records if "dropping" in r.getMessage()]
    finally:
        if w is not None:
            w.close()
        broker.stop()


# -- item 13: listening only once the broker acknowledged the subscriptions ------------------------------


def test_a_command_sent_the_moment_the_prop_listens_is_heard(prop_factory, watcher_factory, monkeypatch):
    from firmware.services.mqtt import room as mqtt_module

    real = mqtt_module.Link._on_connect

    def slow_network(self, *args, **kwargs):  # paho sends the SUBSCRIBE only after this returns
        real(self, *args, **kwargs)
        time.sleep(0.3)

    monkeypatch.setattr(mqtt_module.Link, "_on_connect", slow_network)
    w = watcher_factory(topics=(f"{P}/reply",))
    rig = prop_factory()
    connected(rig)  # waits for Link.listening: every subscription acknowledged
    reply = w.command({"command": "set_solved", "solved": 1}, timeout=5)
    assert reply["ok"] and rig.daemon.module.edgework.solved == 1
    # ... and again at once after a reconnect.
    link = services_of(rig)["MqttService"].link
    link.client.socket().shutdown(socket.SHUT_RDWR)
    deadline = time.monotonic() + 5
    while link.listening.is_set():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    connected(rig)
    reply = w.command({"command": "set_solved", "solved": 2}, timeout=5)
    assert reply["ok"] and rig.daemon.module.edgework.solved == 2
