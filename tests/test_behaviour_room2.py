"""Behaviour no other test held (issue 35 item 3): Room 2.0's periodic ``DATA`` counts from the last one.

Against a real Mosquitto (tests/test_mqtt.py's fixtures). The convention's periodic ``DATA`` goes out
when ``data_seconds`` passed without one: every ``DATA`` that goes out (at the connection, on a
change) starts that time again, so a prop whose state changes never repeats itself on top. The
test counts paho's own loop passes (``Link.tick_hooks``: where the resend is decided), not seconds."""

from __future__ import annotations

import threading

from tests import test_mqtt
from tests.test_room2_requests import INBOX, OUTBOX, room_of

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory


def test_a_data_line_sent_on_a_change_starts_the_periodic_time_again(prop_factory, watcher_factory):
    w = watcher_factory(topics=(OUTBOX,))
    rig = prop_factory(mqtt_extra={"room": "Casino"})
    room = room_of(rig)
    w.wait_for(OUTBOX, lambda p: p.startswith("DATA "))
    room.data_seconds = 3600.0  # an hour: nothing is due within this test
    ticks = threading.Semaphore(0)
    room.link.tick_hooks.append(ticks.release)
    start = len(w.on(OUTBOX))
    rig.daemon.apply(lambda m: m.press("player")).result(5)  # a chip: the state changed, DATA goes out
    changed = w.wait_after(OUTBOX, start, lambda p: p.startswith("DATA ") and "bet_player=1 " in p + " ")
    for _ in range(3):  # three passes of paho's loop after it: each decided whether DATA is due
        assert ticks.acquire(timeout=10), "paho's loop did not pass"
    mark = len(w.on(OUTBOX))
    w.publish(INBOX, "@PING")  # its PONG goes out after whatever those passes sent, on the same link
    w.wait_after(OUTBOX, mark, lambda p: p == "PONG")
    sent = w.on(OUTBOX)
    after = sent[sent.index(changed, start) + 1 :]
    assert [p for p in after if p.startswith("DATA ")] == [], f"DATA went out again before its time: {after}"
