"""The countdown and the explosion over MQTT against a real Mosquitto (issue 24 part 3): the
``start`` and ``add_time`` commands, the ``exploded`` event with its cause, the state document's
``timer``, and a Room 2.0 request on the explosion. The prop's clock is a manual one."""

from __future__ import annotations

import json

import pytest

from firmware.simulator.pins import ManualClock
from tests import browser
from tests.conftest import Rig, make_config, start_served
from tests.test_mqtt import P, broker, connected, mqtt_section, settle, watcher_factory  # noqa: F401 - fixtures
from tests.test_web_webhooks import receiver, until  # noqa: F401 - a fixture

web_factory = browser.web_factory  # the fixture


@pytest.fixture
def bomb_prop(mock_factory, broker):  # noqa: F811 - the fixture imported above
    stops: list = []

    def make(*, mqtt_extra: dict | None = None, **bomb) -> Rig:
        clock = ManualClock()
        config = make_config(
            mqtt=mqtt_section(broker, **(mqtt_extra or {})),
            state={"file": ""},
            control={"socket": ""},
            bomb={"timer_seconds": 300, **bomb},
        )
        rig, stop = start_served(config, mock_factory, clock=clock, schedule_clock=clock)
        stops.append(stop)
        connected(rig)
        return rig

    yield make
    for stop in stops:
        stop()


def state_of(watcher, start: int, test) -> dict:
    return json.loads(watcher.wait_after(f"{P}/state", start, lambda p: test(json.loads(p))))


def test_the_countdown_is_commanded_published_and_explodes_over_mqtt(bomb_prop, watcher_factory):  # noqa: F811
    w = watcher_factory(topics=(f"{P}/#",))
    rig = bomb_prop(strike_limit=3)
    doc = state_of(w, 0, lambda d: d.get("timer") is not None)
    assert doc["timer"] == {"seconds": 300.0, "seconds_left": 300.0, "state": "waiting", "running": False, "rate": 1.0}
    assert doc["status"] == "armed" and doc["strike_limit"] == 3 and doc["exploded"] is None

    reply = w.command({"command": "start"})
    assert reply["ok"] and reply["result"]["events"] == [
        {"event": "timer_started", "seconds_left": 300.0, "forced": True}
    ]
    reply = w.command({"command": "add_time", "seconds": 60})
    assert reply["result"]["events"] == [{"event": "time_added", "seconds": 60.0, "seconds_left": 360.0}]
    refused = w.command({"command": "add_time", "seconds": "a minute"})
    assert not refused["ok"] and 'seconds "a minute" is not a number of seconds' in refused["error"]
    mark = len(w.on(f"{P}/state"))
    rig.deal()  # no bet: a strike, and the countdown runs faster
    doc = state_of(w, mark, lambda d: d["strikes"] == 1)
    assert doc["timer"]["rate"] == 1.25 and doc["timer"]["state"] == "running"

    events = len(w.on(f"{P}/events"))
    rig.clock.advance(360.0 / 1.25)  # the rest of the time, at 1.25x
    rig.daemon.wait_idle()
    exploded = json.loads(w.wait_after(f"{P}/events", events, lambda p: json.loads(p)["event"] == "exploded"))
    assert {k: exploded[k] for k in ("event", "cause", "strikes")} == {
        "event": "exploded",
        "cause": "timer",
        "strikes": 1,
    }
    doc = state_of(w, mark, lambda d: d["status"] == "exploded")
    assert doc["exploded"] == "timer" and doc["timer"]["seconds_left"] == 0.0 and doc["timer"]["state"] == "stopped"
    settle(rig)
    assert sum(json.loads(p)["event"] == "exploded" for p in w.on(f"{P}/events")) == 1, "one exploded event"

    mark = len(w.on(f"{P}/state"))
    assert w.command({"command": "reset"})["ok"]
    doc = state_of(w, mark, lambda d: d["status"] == "armed")
    assert doc["timer"]["state"] == "waiting" and doc["timer"]["seconds_left"] == 300.0 and doc["exploded"] is None


def test_the_strike_limit_explodes_over_mqtt_with_its_cause(bomb_prop, watcher_factory):  # noqa: F811
    w = watcher_factory(topics=(f"{P}/#",))
    rig = bomb_prop(strike_limit=2)
    rig.deal()
    rig.deal()
    exploded = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "exploded"))
    assert (exploded["cause"], exploded["strikes"]) == ("strikes", 2)
    kinds = [json.loads(p)["event"] for p in w.on(f"{P}/events")]
    assert kinds.index("exploded") == len(kinds) - 1 - kinds[::-1].index("exploded")  # once
    assert kinds[kinds.index("exploded") - 1] == "strike", "the strike, then the explosion"
    doc = json.loads(w.wait_for(f"{P}/state", lambda p: json.loads(p)["status"] == "exploded"))
    assert doc["exploded"] == "strikes" and doc["strikes"] == 2
    before = rig.daemon.module.stacks
    refused = w.command({"command": "bet", "bets": "25 on banker"})
    assert refused["ok"] and "ignored" in [e["event"] for e in refused["result"]["events"]]
    assert rig.daemon.module.stacks == before


def test_a_room_asks_for_its_requests_when_the_bomb_explodes(bomb_prop, watcher_factory):  # noqa: F811
    outbox = "Room/escape/Props/baccarat/outbox"
    w = watcher_factory(topics=(outbox,))
    rig = bomb_prop(
        strike_limit=1,
        mqtt_extra={"room": "escape", "room_requests": {"exploded": ["REQU Lights -> red:flash", "PROG boom:start"]}},
    )
    rig.deal()
    w.wait_for(outbox, lambda p: p == "PROG boom:start")
    requests = [p for p in w.on(outbox) if p.startswith(("REQU", "PROG"))]
    assert requests == ["REQU Lights -> red:flash", "PROG boom:start"]
    data = w.wait_for(outbox, lambda p: p.startswith("DATA ") and "status=exploded" in p)
    assert " timer=stopped" in data and " time_left=300" in data  # the countdown started at the deal


def test_a_webhook_is_called_once_when_the_bomb_explodes(web_factory, receiver):  # noqa: F811
    """A webhook on ``exploded`` (a real local HTTP server): one POST with the cause."""
    from firmware.services.webhooks.settings import Webhook

    hook = Webhook("exploded", receiver.url("/boom"), "POST")
    web = web_factory(settings={"webhooks": (hook,)}, bomb={"timer_seconds": 300, "strike_limit": 1})
    web.rig.deal()  # no bet: a strike, the limit
    requests = receiver.wait_for(1)
    method, path, body = requests[0]
    delivery = body.pop("id")  # at-least-once: the id a receiver drops repeats by (docs/integrate/webhooks.md)
    assert len(delivery) == 32 and int(delivery, 16) >= 0
    assert (method, path, body) == (
        "POST",
        "/boom",
        {"prop": "test-prop", "event": "exploded", "cause": "strikes", "strikes": 1},
    )
    until(lambda: web.webhooks.delivered == 1)
