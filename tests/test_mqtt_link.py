"""MQTT's connection against a real Mosquitto: the broker away at start or mid-game, the bounded
offline queue, and a link that connects only once the prop is ready."""

from __future__ import annotations

import json
import random
import threading
import time

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from tests import test_mqtt
from tests.conftest import Rig, make_config
from tests.test_mqtt import P, connected, settle

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory


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
    from firmware.services.mqtt.room import MqttService

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
    from firmware.broker.settings import MqttConfig
    from firmware.services.mqtt.room import Link

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


def test_a_link_sends_small_packets_at_once(broker):
    """TCP_NODELAY on the broker's socket: with Nagle's algorithm each event and reply waited ~40 ms
    for the broker's delayed acknowledgement (benchmarks/controller_mqtt_conventions.py measured it)."""
    import socket

    from firmware.broker.settings import MqttConfig
    from firmware.services.mqtt.room import Link

    cfg = MqttConfig(host=broker.host, port=broker.port, reconnect_min_seconds=0.1, reconnect_max_seconds=0.3)
    link = Link(cfg, f"nodelay-{random.randrange(10**9)}", will=("nodelay/status", "offline"))
    ready = threading.Event()
    ready.set()
    link.start(after=ready)
    try:
        assert link.listening.wait(5)
        assert link.client.socket().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        link.stop()


def test_a_link_stopped_before_the_prop_was_ready_never_connects(broker):
    from firmware.broker.settings import MqttConfig
    from firmware.services.mqtt.room import Link

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
