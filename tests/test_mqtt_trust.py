"""Issue 33 over MQTT, against a real Mosquitto: one message must not kill MQTT, fake discovery
components and floods are bounded, late consumers, retained commands, and the state after a stop."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware.services.home_assistant.discovery import MAX_REMOVALS, HomeAssistantService, discovery_payload
from tests import test_mqtt
from tests.conftest import ROOT, make_config, served_prop
from tests.test_home_assistant import TOPICS
from tests.test_mqtt import P, connected, mqtt_section, service_of, settle
from tests.test_outputs import LOCK

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory

PROP = "casino-baccarat"
DISCOVERY = f"homeassistant/device/{PROP}/config"


def home_prop(prop_factory, **extra):
    rig = prop_factory(mqtt_extra={"client_id": PROP, "home_assistant": True, **extra})
    connected(rig)
    return rig


def home_of(rig) -> HomeAssistantService:
    hooks = service_of(rig).link.connect_hooks
    return next(h.__self__ for h in hooks if isinstance(getattr(h, "__self__", None), HomeAssistantService))


def drop_connection(link) -> None:
    """Cut the link's socket (no DISCONNECT, like a power cut); it connects again by itself."""
    link.client.socket().shutdown(socket.SHUT_RDWR)
    deadline = time.monotonic() + 5
    while link.listening.is_set():
        assert time.monotonic() < deadline
        time.sleep(0.01)


# -- item 1: one message must not kill MQTT ---------------------------------------------------------


def test_a_deep_discovery_document_live_and_retained_leaves_mqtt_working(prop_factory, watcher_factory, caplog):
    """5 KB of ``[`` on the prop's discovery topic, live and then read back retained at a reconnect: one
    log line, no traceback, and the prop still answers commands and puts its own document back."""
    w = watcher_factory(topics=(f"{P}/reply", DISCOVERY))
    rig = home_prop(prop_factory)
    document = json.loads(w.wait_for(DISCOVERY))
    with caplog.at_level(logging.INFO, logger="baccarat"):
        w.publish(DISCOVERY, "[" * 5000, retain=True)
        assert w.command({"command": "status"})["ok"]
        drop_connection(service_of(rig).link)
        connected(rig)
        assert w.command({"command": "set_solved", "solved": 3})["ok"]
        w.wait_after(DISCOVERY, 2, lambda p: p.startswith("{") and json.loads(p) == document)
    said = [r.getMessage() for r in caplog.records if "is ignored" in r.getMessage()]
    assert said == [
        f"home assistant: the retained {DISCOVERY} is ignored: discovery document is nested deeper than 8 levels"
    ]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    late = watcher_factory(topics=(DISCOVERY,))
    assert json.loads(late.wait_for(DISCOVERY)) == document, "the garbage stayed retained"


def test_a_retained_deep_discovery_document_does_not_kill_the_next_start(prop_factory, watcher_factory):
    w = watcher_factory(topics=(f"{P}/reply",))
    w.publish(DISCOVERY, "[" * 5000, retain=True)
    rig = home_prop(prop_factory)
    settle(rig)
    assert w.command({"command": "set_solved", "solved": 2})["ok"]
    assert rig.daemon.module.edgework.solved == 2


def test_a_failing_handler_is_one_line_and_a_failed_network_thread_is_started_afresh(
    prop_factory, watcher_factory, caplog
):
    """A service's handler that raises is guarded by the link; should paho's thread still end with an
    exception (here a callback given to paho behind the link's back), the link connects a new client."""
    w = watcher_factory(topics=(f"{P}/reply", f"{P}/status"))
    rig = home_prop(prop_factory)
    link = service_of(rig).link

    reached = threading.Event()

    def broken(topic: str, payload: bytes, retained: bool) -> None:
        reached.set()
        raise RecursionError("maximum recursion depth exceeded")

    link.on_topic("test/broken", broken)
    with caplog.at_level(logging.INFO, logger="baccarat"):
        # Sent again until one arrives: one sent before the SUBACK is lost (however long that takes).
        deadline = time.monotonic() + 10
        while not reached.is_set():
            assert time.monotonic() < deadline, "the handler's subscription never took effect"
            w.publish("test/broken", "x")
            reached.wait(0.2)
        for _ in range(2):
            w.publish("test/broken", "x")
        assert w.command({"command": "status"})["ok"]
        failed = [r.getMessage() for r in caplog.records if "could not be handled" in r.getMessage()]
        assert failed == [
            'mqtt: a message on "test/broken" could not be handled (RecursionError: maximum recursion depth '
            "exceeded); it is ignored"
        ]

        def unguarded(client, userdata, message):
            raise RecursionError("behind the link's back")

        old = link.client
        old.message_callback_add("test/unguarded", unguarded)
        old.subscribe("test/unguarded", qos=1)
        deadline = time.monotonic() + 10
        while link.client is old:  # sent again until one arrives after the SUBACK
            assert time.monotonic() < deadline, "the network thread was not started afresh"
            w.publish("test/unguarded", "x")
            time.sleep(0.2)
        while not link.listening.is_set():
            assert time.monotonic() < deadline, "the new network thread does not listen"
            time.sleep(0.02)
        assert w.command({"command": "set_solved", "solved": 5}, timeout=10)["ok"]
    crashed = [r.getMessage() for r in caplog.records if "network thread failed" in r.getMessage()]
    assert len(crashed) == 1 and "RecursionError: behind the link's back" in crashed[0], crashed
    assert w.on(f"{P}/status")[-2:] == ["offline", "online"]  # a crash looks like a power cut, then back
    assert rig.daemon.module.edgework.solved == 5


# -- item 2: fake Home Assistant components ---------------------------------------------------------------


def fake_document(count: int, others: int = 0) -> str:
    """The prop's own document with ``count`` fake components of this prop's, ``others`` of another prop's."""
    document = discovery_payload(PROP, TOPICS)
    document["cmps"].update({f"{PROP}_fake{n}": {"p": "sensor", "x": 1} for n in range(count)})
    document["cmps"].update({f"other_fake{n}": {"p": "sensor", "x": 1} for n in range(others)})
    return json.dumps(document)


def test_fake_components_are_bounded(prop_factory, watcher_factory, caplog):
    """A retained document with 900 fake components of this prop's (and 50 of another's): at most
    MAX_REMOVALS are removed, in two short lines; a live one is ignored; a retained one of 50,000
    (2 MB) is refused by its size, in one line."""
    w = watcher_factory(topics=(DISCOVERY,))
    w.publish(DISCOVERY, fake_document(900, others=50), retain=True)
    with caplog.at_level(logging.INFO, logger="baccarat"):
        rig = home_prop(prop_factory)
        home = home_of(rig)
        removal = json.loads(
            w.wait_for(DISCOVERY, lambda p: json.loads(p)["cmps"].get(f"{PROP}_fake0") == {"p": "sensor"})
        )
        removed = [key for key, config in removal["cmps"].items() if config == {"p": "sensor"}]
        assert len(removed) == MAX_REMOVALS and all(key.startswith(f"{PROP}_fake") for key in removed)
        assert home.removed == sorted(removed)
        w.wait_for(DISCOVERY, lambda p: json.loads(p) == home.document)
        w.publish(DISCOVERY, fake_document(900))  # live: a stranger's, not the last run's
        w.publish(DISCOVERY, fake_document(50_000), retain=True)  # live to the prop: ignored too
        start = len(w.on(DISCOVERY))
        drop_connection(service_of(rig).link)
        connected(rig)  # ... and read back at the subscription: refused
        w.wait_after(DISCOVERY, start, lambda p: json.loads(p) == home.document)
        settle(rig)
    lines = [r.getMessage() for r in caplog.records if r.name == "baccarat.mqtt"]
    assert max(len(line) for line in lines) < 600
    removing = [line for line in lines if "removing" in line]
    assert len(removing) == 2 and "names 900 entities no longer configured" in removing[0], removing
    assert removing[1].endswith(f"and {MAX_REMOVALS - 10} more"), removing
    refused = [line for line in lines if "is ignored" in line]
    assert len(refused) == 1 and "longer than 65536 bytes" in refused[0], refused
    assert home.removed == sorted(removed)


# -- item 3: floods ---------------------------------------------------------------------------------------


# Mosquitto keeps max_queued_messages (1,000 by default) QoS 1 messages per client beyond those in flight
# and drops the rest: births taken at QoS 1 would fill the prop's queue ahead of the command and drop it
# whenever the prop reads them slower than they come (a busy CI machine did). A queue of 10 makes that
# certain; births at QoS 0 are never queued for the prop.
@pytest.mark.mosquitto_conf("max_queued_messages 10\n")
def test_2000_home_assistant_births_republish_the_discovery_at_most_once_in_30_s(prop_factory, watcher_factory):
    w = watcher_factory(topics=(DISCOVERY, f"{P}/reply"))
    rig = home_prop(prop_factory)
    home = home_of(rig)
    now = [1000.0]
    home.clock = lambda: now[0]
    w.wait_for(DISCOVERY)
    first = home.published
    for _ in range(2000):
        w.client.publish("homeassistant/status", "online", qos=1)
    assert w.command({"command": "status"}, timeout=20)["ok"]  # after the births, on the same connection
    settle(rig)
    assert home.published == first + 1  # the first birth, at once
    now[0] += 30.0  # the quiet time passes: one more for the 1,999 others, at paho's next tick
    deadline = time.monotonic() + 5
    while home.published < first + 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    settle(rig, 1.5)
    assert home.published == first + 2


# -- item 15: a retained command --------------------------------------------------------------------------


def test_a_retained_command_runs_once_for_the_prop_listening_and_never_again(prop_factory, watcher_factory):
    """MQTT 3.1.1 delivers a retained publish to the subscribers already there as a live message (the
    flag cleared): it runs that once, as docs/integrate/mqtt.md says, and never again at a reconnect."""
    w = watcher_factory(topics=(f"{P}/reply",))
    rig = prop_factory()
    connected(rig)
    w.publish(f"{P}/command", '{"id": "once", "command": "set_solved", "solved": 7}', retain=True)
    reply = w.wait_for(f"{P}/reply", lambda p: json.loads(p)["id"] == "once")
    assert rig.daemon.module.edgework.solved == 7
    rig.daemon.set_solved(1).result(5)
    drop_connection(service_of(rig).link)
    connected(rig)
    settle(rig, 0.5)
    assert rig.daemon.module.edgework.solved == 1
    assert set(w.on(f"{P}/reply")) == {reply}  # (QoS 1 may deliver the one reply twice)
    docs = (ROOT / "docs" / "integrate" / "mqtt.md").read_text()
    assert "runs nothing" not in docs and "runs once, for the prop listening at that moment" in docs


# -- item 16: events during an outage ---------------------------------------------------------------------


def test_events_of_an_outage_reach_a_consumer_with_a_persistent_session_later(prop_factory, broker):
    """The prop sends what it queued during an outage as soon as the broker is back; a consumer that
    is not there yet gets it from its persistent session (clean_session false, QoS 1), as its docs page says."""

    subscribed = threading.Event()

    def consumer():
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="late-console", clean_session=False)
        got: list[dict] = []
        client.on_message = lambda c, u, m: got.append(json.loads(m.payload))
        client.on_subscribe = lambda *_: subscribed.set()
        client.connect(broker.host, broker.port)
        client.subscribe(f"{P}/events", qos=1)
        client.loop_start()
        return client, got

    client, _ = consumer()
    assert subscribed.wait(10), "no SUBACK: the session has no subscription to keep"
    client.disconnect()
    client.loop_stop()
    rig = prop_factory()
    connected(rig)
    link = service_of(rig).link
    broker.stop()
    while link.connected.is_set():
        time.sleep(0.02)
    rig.chips("player", 25)
    rig.deal()
    rig.wait_for("round")
    sent = len(rig.events)
    broker.start()
    assert link.listening.wait(10)
    while link.waiting("event"):
        time.sleep(0.02)
    client, got = consumer()  # later than the prop
    try:
        deadline = time.monotonic() + 20
        while {e["seq"] for e in got} != set(range(1, sent + 1)):
            assert time.monotonic() < deadline, got
            time.sleep(0.05)
    finally:
        client.disconnect()
        client.loop_stop()
    docs = (ROOT / "docs" / "integrate" / "mqtt.md").read_text()
    assert "clean_session" in docs and "before any consumer is back" in docs


# -- item 17: the state after a clean stop ----------------------------------------------------------------


def test_a_clean_stop_leaves_the_outputs_off_in_the_retained_state(broker, mock_factory, watcher_factory):
    config = make_config(mqtt=mqtt_section(broker), state={"file": ""}, control={"socket": ""}, outputs=[LOCK])
    w = watcher_factory(topics=(f"{P}/state", f"{P}/reply"))
    with served_prop(config, mock_factory) as rig:
        connected(rig)
        assert w.command({"command": "output", "name": "lock", "state": "on"})["ok"]
        w.wait_for(f"{P}/state", lambda p: json.loads(p)["outputs"] == [{"name": "lock", "on": True}])
    late = watcher_factory(topics=(f"{P}/state", f"{P}/status"))
    assert late.wait_for(f"{P}/status") == "offline"
    assert json.loads(late.wait_for(f"{P}/state"))["outputs"] == [{"name": "lock", "on": False}]


@pytest.mark.parametrize("needle", ["not_from: [unavailable]", "not_to: [unavailable, unknown]", "2024.11"])
def test_the_docs_give_a_working_automation_and_the_oldest_home_assistant(needle):
    """Items 13 and 14: an event entity's automation that neither fires when the prop goes away nor misses
    the first event, and the oldest Home Assistant that reads device discovery."""
    assert needle in (ROOT / "docs" / "integrate" / "home-assistant.md").read_text()
