"""Room 2.0 as its consoles expect it, against a real Mosquitto: ``REQU``/``PROG`` on events from the
config (validated with one-line errors), and the full ``DATA`` line resent when 30 s pass without one."""

from __future__ import annotations

import threading
import time
import tomllib

import pytest

from firmware.config import ConfigError, parse_config
from firmware.services.room2.link import DATA_SECONDS, RoomService
from tests import test_mqtt
from tests.conftest import config_data

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory

OUTBOX = "Room/Casino/Props/baccarat/outbox"
INBOX = "Room/Casino/Props/baccarat/inbox"
REQUESTS = {
    "solved": ["REQU Arduino Relay -> door:open", "PROG audio-final:start"],
    "strike": ["PROG alarm:start"],
    "reset": ["REQU Lights -> lights:on"],
}


def room_of(rig) -> RoomService:
    return next(
        listener.__self__
        for listener in rig.daemon.on_settled
        if isinstance(getattr(listener, "__self__", None), RoomService)
    )


def parse(text: str):
    return parse_config(config_data(**tomllib.loads(text)))


# -- the config -----------------------------------------------------------------------------------


def test_the_config_keeps_the_requests_in_order():
    config = parse(
        '[mqtt]\nhost = "h"\nroom = "Casino"\n[mqtt.room_requests]\n'
        'solved = ["REQU Arduino Relay -> door:open", "PROG audio-final:start"]\nstrike = ["PROG alarm:start"]\n'
    )
    assert config.settings["room2"].requests == (
        ("solved", ("REQU Arduino Relay -> door:open", "PROG audio-final:start")),
        ("strike", ("PROG alarm:start",)),
    )
    assert parse('[mqtt]\nhost = "h"\n').settings["room2"].requests == ()


@pytest.mark.parametrize(
    "text, named",
    [
        ('[mqtt.room_requests]\nsolved = ["PROG x"]', "[mqtt.room_requests] is only read with room set"),
        ('room = "R"\n[mqtt.room_requests]\nwin = ["PROG x"]', "[mqtt.room_requests] win: not an event (use solved"),
        ('room = "R"\n[mqtt.room_requests]\nsolved = "PROG x"', "[mqtt.room_requests] solved = "),
        ('room = "R"\n[mqtt.room_requests]\nsolved = [3]', "solved = 3: must be a string in quotes"),
        ('room = "R"\nroom_requests = 3', "[mqtt] room_requests = 3: must be a table"),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["REQU Relay door:open"]', '"REQU Relay door:open": must be'),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["OVER baccarat"]', '"OVER baccarat": must be "REQU <prop>'),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["PROG a\\nDONE b"]', "PROG a\\nDONE b"),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["PROG "]', '"PROG ": must be'),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["REQU  -> x"]', '"REQU  -> x": must be'),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["REQU a -> "]', '"REQU a -> ": must be'),
        ('room = "R"\n[mqtt.room_requests]\nsolved = ["PROG ' + "x" * 300 + '"]', "at most 200 characters"),
        ('room = "R"\n[mqtt.room_requests]\nsolved = [' + '"PROG x", ' * 17 + "]", "at most 16 requests"),
    ],
)
def test_a_bad_request_is_one_line_naming_it(text, named):
    with pytest.raises(ConfigError) as caught:
        parse(f'[mqtt]\nhost = "h"\n{text}\n')
    message = str(caught.value)
    assert "\n" not in message and named in message, message


# -- on the broker --------------------------------------------------------------------------------


def test_requests_go_out_on_their_events_in_order(prop_factory, watcher_factory):
    w = watcher_factory(topics=(OUTBOX,))
    rig = prop_factory(mqtt_extra={"room": "Casino", "room_requests": REQUESTS})
    w.wait_for(OUTBOX, lambda p: p == "CONNECTED")
    w.wait_for(OUTBOX, lambda p: p.startswith("DATA "))
    assert not [p for p in w.on(OUTBOX) if p.startswith(("REQU", "PROG"))], "a request before any event"

    rig.deal()  # no bet: a strike
    w.wait_for(OUTBOX, lambda p: p == "PROG alarm:start")
    start = len(w.on(OUTBOX))
    w.publish(INBOX, "force-solve")
    w.wait_after(OUTBOX, start, lambda p: p == "DONE force-solve")
    after = w.on(OUTBOX)[start:]
    solved = [p for p in after if p.startswith(("OVER", "REQU", "PROG"))]
    assert solved == ["OVER baccarat", "REQU Arduino Relay -> door:open", "PROG audio-final:start"], after

    start = len(w.on(OUTBOX))
    w.publish(INBOX, "reset")
    w.wait_after(OUTBOX, start, lambda p: p == "DONE reset")
    assert [p for p in w.on(OUTBOX)[start:] if p.startswith(("REQU", "PROG"))] == ["REQU Lights -> lights:on"]
    assert w.on(OUTBOX).count("PROG alarm:start") == 1, "the strike's request went out twice"


def test_data_is_resent_when_nothing_changes(prop_factory, watcher_factory):
    """The convention's periodic resend (30 s; 0.3 s here): the same full line, with no change in between,
    from paho's own loop (no thread of its own)."""
    assert DATA_SECONDS == 30.0
    w = watcher_factory(topics=(OUTBOX,))
    rig = prop_factory(mqtt_extra={"room": "Casino"})
    room = room_of(rig)
    first = w.wait_for(OUTBOX, lambda p: p.startswith("DATA "))
    threads = {t.name for t in threading.enumerate()}
    start = len(w.on(OUTBOX))
    room.data_seconds = 0.3
    deadline = time.monotonic() + 10
    while w.on(OUTBOX)[start:].count(first) < 2:
        assert time.monotonic() < deadline, f"DATA was not resent: {w.on(OUTBOX)[start:]}"
        time.sleep(0.05)
    room.data_seconds = DATA_SECONDS
    assert set(w.on(OUTBOX)[start:]) == {first}, "something else was sent"
    assert {t.name for t in threading.enumerate()} <= threads, "the resend started a thread"
    assert rig.daemon.module.deck is not None
