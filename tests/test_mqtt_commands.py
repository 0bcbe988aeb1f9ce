"""Game-master commands over MQTT against a real Mosquitto: each command's reply, and bad
commands and bomb messages answered, changing nothing, and counted in the log rather than repeated."""

from __future__ import annotations

import json
import time

from baccarat_core import Edgework, TableLimits, build_deck
from tests import test_mqtt
from tests.test_mqtt import P, connected, service_of, settle

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory


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


def test_a_flood_of_commands_that_fail_as_they_run_is_counted_too(prop_factory, watcher_factory, caplog):
    """A command that parses but fails on the game thread (``add_time`` on a bomb without a timer) is
    answered each time; its log line is counted like a refused one's, not written 50 times."""
    rig = prop_factory()
    connected(rig)
    w = watcher_factory(topics=(f"{P}/reply",))
    with caplog.at_level("WARNING"):
        for n in range(50):
            start = len(w.on(f"{P}/reply"))
            w.publish(f"{P}/command", json.dumps({"command": "add_time", "seconds": 5, "id": n}))
            reply = json.loads(w.wait_after(f"{P}/reply", start, lambda p: True))
            assert reply["id"] == n and not reply["ok"] and "no timer" in reply["error"], reply
        settle(rig)
    failed = [r.getMessage() for r in caplog.records if "add_time failed" in r.getMessage()]
    assert failed == ["mqtt: command add_time failed: this bomb has no timer (set [bomb] timer_seconds)"], failed
