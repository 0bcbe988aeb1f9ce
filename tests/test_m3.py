"""M3 and Escape Room Techs (BAC) panels (``[m3]``) against a real Mosquitto: a panel's commands
through the one command path, the Yes/No topics, the BAC's events and the heartbeat, bad input
in one line, and the config's checks."""

from __future__ import annotations

import json
import time

import pytest

from firmware.config.findings import OK, WARN
from firmware.errors import ConfigError
from firmware.services.m3 import M3, M3Settings
from firmware.services.m3.convention import M3Convention
from tests import test_mqtt
from tests.conftest import make_config, served_prop
from tests.conventions import OUTPUTS, convention_of, convention_prop, count_line, lines, output_on, run_examples, until
from tests.test_mqtt import P, mqtt_section, settle

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory
__all__ = ["convention_prop"]

N = "baccarat"


@pytest.fixture
def m3_prop(convention_prop):
    return lambda **sections: convention_prop(m3={"name": N}, **sections)


def test_a_panel_solves_resets_enables_and_switches_outputs(m3_prop, watcher_factory):
    w = watcher_factory(topics=(f"{N}/#", f"{P}/events"))
    rig = m3_prop()
    w.wait_for(f"{N}/solve", lambda p: p == "No")
    assert w.wait_for(f"{N}/output0", bool) == "No" and w.wait_for(f"{N}/output1", bool) == "No"

    w.publish(f"{N}/set/solve", "1")
    w.wait_for(f"{N}/solve", lambda p: p == "Yes")
    assert rig.daemon.module.solved and output_on(rig, "lock")
    w.wait_for(f"{N}/output0", lambda p: p == "Yes")  # the lock, on at a solve
    w.wait_for(f"{N}/get/Solve")
    # The same events on every surface: the prop's own topic says who solved it.
    solved = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "solved"))
    assert solved["forced"] is True

    w.publish(f"{N}/set/Game_Reset", "1")  # the BAC's name, in its own case
    w.wait_for(f"{N}/get/Game_Reset")
    w.wait_for(f"{N}/get/Unsolve")
    assert w.on(f"{N}/solve")[-1] == "No" and not rig.daemon.module.solved and not output_on(rig, "lock")

    w.publish(f"{N}/set/output1", "HIGH")  # output1: the second [[outputs]] (counted from 0)
    w.wait_for(f"{N}/output1", lambda p: p == "Yes")
    assert output_on(rig, "horn")
    w.publish(f"{N}/set/relay1", "off")  # relays are outputs too
    until(lambda: w.on(f"{N}/output1")[-1] == "No", what="output1 No")
    assert not output_on(rig, "horn")
    w.publish(f"{N}/set/Output_0/On", "")  # the BAC's older form: the state as one more level
    until(lambda: output_on(rig, "lock"), what="the lock on")

    w.publish(f"{N}/set/disable", "1")
    w.wait_for(f"{N}/get/Disable")
    assert w.wait_for(f"{N}/enable", lambda p: p == "No") and not rig.daemon.module.enabled
    w.publish(f"{N}/set/ENABLE", "1")
    w.wait_for(f"{N}/get/Enable")
    assert rig.daemon.module.enabled

    w.publish(f"{N}/set/Room_Reset", "1")
    w.wait_for(f"{N}/get/Room_Reset")
    assert w.on(f"{N}/get/Game_Reset") == ["", ""]  # the room's reset is the game's too
    w.publish(f"{N}/set/relay1", "on")
    until(lambda: w.on(f"{N}/output1")[-1] == "Yes", what="output1 Yes again")
    # Every state topic is retained, as it is now: a panel started now has them at once.
    late = watcher_factory(topics=(f"{N}/solve", f"{N}/output0", f"{N}/output1", f"{N}/enable"))
    assert late.wait_for(f"{N}/solve") == "No" and late.wait_for(f"{N}/output0") == "No"
    assert late.wait_for(f"{N}/output1") == "Yes" and late.wait_for(f"{N}/enable") == "Yes"
    assert all(retained for topic, _, retained in late.messages)


ON = ["high", "HIGH", "yes", "Yes", "on", "ON", "one", "One", "1", "true", "TRUE", " on\n"]
OFF = ["0", "off", "no", "false", "low", "banana", "2", "ones"]


def test_payload_words_switch_an_output_on_and_anything_else_off(m3_prop, watcher_factory):
    w = watcher_factory(topics=(f"{N}/output1",))
    rig = m3_prop()
    for on, off in zip(ON, OFF + OFF[: len(ON) - len(OFF)], strict=True):
        w.publish(f"{N}/set/output1", on)
        until(lambda: output_on(rig, "horn"), what=f"{on!r} switches it on")
        w.publish(f"{N}/set/output1", off)
        until(lambda: not output_on(rig, "horn"), what=f"{off!r} switches it off")


def test_a_strike_is_a_miss_an_explosion_a_fail_and_an_exploded_bomb_ignores_a_solve(m3_prop, watcher_factory):
    w = watcher_factory(topics=(f"{N}/#", f"{P}/events"))
    rig = m3_prop(bomb={"strike_limit": 1})
    w.wait_for(f"{N}/solve")
    rig.deal()  # no bet: a strike, the limit
    w.wait_for(f"{N}/get/Fail")
    assert w.on(f"{N}/get/Miss") == [""]
    w.publish(f"{N}/set/solve", "1")
    # Refused as from every surface: the bomb is gone (the prop's own topic says so) ...
    ignored = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "ignored"))
    assert "exploded" in json.dumps(ignored)
    settle(rig)
    assert not rig.daemon.module.solved and w.on(f"{N}/solve")[-1] == "No" and not w.on(f"{N}/get/Solve")
    # ... until a reset.
    w.publish(f"{N}/set/reset", "1")
    w.publish(f"{N}/set/solve", "1")
    w.wait_for(f"{N}/solve", lambda p: p == "Yes")


def test_a_panels_command_waits_for_the_self_test_as_every_surfaces(m3_prop, watcher_factory):
    w = watcher_factory(topics=(f"{N}/solve",))
    rig = m3_prop()
    commands = convention_of(rig, M3Convention).commands
    test = commands.handle({"command": "self_test"})
    rig.wait_for("self_test")
    w.publish(f"{N}/set/solve", "1")
    time.sleep(0.5)  # (the game thread is not idle: the solve waits in its queue)
    assert not rig.daemon.module.solved, "a solve during the self-test"
    assert commands.handle({"command": "self_test_cancel"}).result(5)["ok"]
    test.result(10)
    w.wait_for(f"{N}/solve", lambda p: p == "Yes")  # it ran once the test was over


def test_the_heartbeat_comes_every_10_seconds_of_the_props_clock(m3_prop, watcher_factory):
    w = watcher_factory(topics=(f"{N}/heartbeat", f"{N}/get/heartbeat"))
    rig = m3_prop()
    convention = convention_of(rig, M3Convention)
    now = [1000.0]
    convention.clock = lambda: now[0]
    convention._beat = now[0]  # as if one had just gone out
    time.sleep(1.5)  # the link ticks at least once a second: nothing is due
    before = len(w.on(f"{N}/heartbeat"))
    now[0] += 9.9
    time.sleep(1.5)
    assert len(w.on(f"{N}/heartbeat")) == before
    now[0] += 0.1
    w.wait_after(f"{N}/heartbeat", before, lambda p: p == "")
    w.wait_after(f"{N}/get/heartbeat", before, lambda p: p == "")


def test_each_connect_sends_the_frameworks_empty_announcements_first(m3_prop, watcher_factory, broker, caplog):
    """As the Anidea framework's ``reconnect`` (network_mqtt_M3.cpp): each command topic and its
    state topic published empty, not retained, in its order, before the retained states; they run
    nothing on the prop (its own ``set/#`` hears them), and a reconnect sends them again."""
    # a session the broker keeps across its restart: what the prop sends before the panel is back waits for it
    w = watcher_factory(topics=(f"{N}/#",), client_id="panel", persistent=True)
    with caplog.at_level("INFO"):
        rig = m3_prop()
        w.wait_for(f"{N}/output1", bool)
        announced = [
            f"{N}/set/enable", f"{N}/enable", f"{N}/set/solve", f"{N}/solve", f"{N}/set/reset", f"{N}/reset",
            f"{N}/set/output0", f"{N}/output0", f"{N}/set/output1", f"{N}/output1",
        ]  # fmt: skip
        first = [(t, p, r) for t, p, r in w.messages if t != f"{N}/heartbeat" and t != f"{N}/get/heartbeat"]
        assert first[: len(announced)] == [(topic, "", False) for topic in announced]
        assert [t for t, p, _ in first[len(announced) :] if p == ""] == []  # then the states, Yes/No
        settle(rig)
        assert rig.kinds() == ["limits", "deck"] and lines(caplog) == []  # nothing ran, nothing refused

        count = len(w.messages)
        broker.stop()
        broker.start()
        until(lambda: w.on(f"{N}/output1").count("") == 2, 20, "the announcements again")
    again = [(t, p) for t, p, _ in w.messages[count:] if t in announced and p == ""]  # not the retained states
    assert again[: len(announced)] == [(topic, "") for topic in announced]
    # A late panel sees only the retained states: the announcements were never retained.
    late = watcher_factory(topics=(f"{N}/solve",))
    assert late.wait_for(f"{N}/solve") == "No"


BAD = [
    ("set/solve", b"x" * 100_000, "longer than 256 bytes"),
    ("set/solve", b"\xff\xfe", "not UTF-8"),
    ("set/explode", b"1", 'unknown command "explode"'),
    ("set/solve/now", b"1", "unknown command"),
    ("set/hit", b"1", "the BAC's Hit has nothing to do"),
    ("set/Fail", b"1", "the BAC's Fail has nothing to do"),
    ("set/output2", b"on", "no output 2: this prop has 2 (0 = lock, 1 = horn)"),
    ("set/output99999", b"on", "unknown command"),
    ("set/input0", b"1", "inputs are the players' buttons"),
]


def test_bad_input_is_one_line_and_the_next_command_runs(m3_prop, watcher_factory, caplog, monkeypatch):
    w = watcher_factory(topics=(f"{N}/#",))
    w.publish(f"{N}/set/disable", "1", retain=True)  # left on the broker: it reaches the prop as retained
    with caplog.at_level("INFO"):
        rig = m3_prop()
        w.wait_for(f"{N}/solve")
        settle(rig)
        assert rig.daemon.module.enabled, "a retained command ran"
        w.publish(f"{N}/set/disable", "", retain=True)  # clearing it: an empty message runs nothing
        noise = convention_of(rig, M3Convention).link.noise
        noted: list[str] = []
        note = noise.note
        monkeypatch.setattr(noise, "note", lambda kind, text, *level: (noted.append(text), note(kind, text, *level)))
        before = rig.daemon.module.snapshot()
        for topic, payload, _ in BAD:
            w.client.publish(f"{N}/{topic}", payload, qos=1).wait_for_publish(5)
        settle(rig)
        assert rig.daemon.module.snapshot() == before and rig.kinds() == ["limits", "deck"]
        # Each was read and refused for its own reason ...
        assert len(noted) == len(BAD), noted
        for text, (topic, _, problem) in zip(noted, BAD, strict=True):
            assert text.startswith(f'm3: "{N}/{topic[:60]}') and problem in text, (text, problem)
        # ... and the log has one line for them all, after the retained command's: no traceback.
        warnings = lines(caplog)
        assert len(warnings) == 1 and warnings[0].startswith(f'm3: ignored a retained message on "{N}/set/disable"')
        assert not any(r.exc_info for r in caplog.records)
        # The connection lives on: the next command runs.
        w.publish(f"{N}/set/solve", "1")
        w.wait_for(f"{N}/solve", lambda p: p == "Yes")
        # The rest are counted, and said once the quiet time has passed, with the last one's text.
        count = count_line(noise, caplog)
    assert count.startswith(f'{len(BAD)} more like it in 60 s, the last: m3: "{N}/set/input0"')


def test_a_clean_stop_leaves_the_outputs_off_in_the_retained_topics(broker, mock_factory, watcher_factory):
    config = make_config(
        mqtt=mqtt_section(broker), m3={"name": N}, outputs=OUTPUTS, state={"file": ""}, control={"socket": ""}
    )
    w = watcher_factory(topics=(f"{N}/output0",))
    with served_prop(config, mock_factory):
        w.wait_for(f"{N}/output0", lambda p: p == "No")  # the prop listens
        w.publish(f"{N}/set/solve", "1")  # the lock goes on
        w.wait_for(f"{N}/output0", lambda p: p == "Yes")
    until(lambda: w.on(f"{N}/output0")[-1] == "No", what="output0 No after the stop")
    late = watcher_factory(topics=(f"{N}/output0",))
    assert late.wait_for(f"{N}/output0") == "No"


# -- config, check-config, doctor ---------------------------------------------------------------


def test_m3_without_mqtt_is_a_config_error_naming_what_to_add():
    with pytest.raises(ConfigError, match=r"^\[m3\] needs \[mqtt\] \(MQTT\): add an \[mqtt\] section with host = "):
        make_config(m3={"name": N})


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("room/baccarat", "one topic level"),
        ("bac+", "wildcard"),
        ("", "must not be empty"),
        ("$SYS", "must not start with $"),
        ("x" * 65, "at most 64 bytes"),
        ("a\x01", "control character"),
    ],
)
def test_a_name_brokers_would_refuse_is_refused(name, problem):
    with pytest.raises(ConfigError, match=r"^\[m3\] name = .*" + problem.replace("$", r"\$").replace("+", r"\+")):
        make_config(mqtt={"host": "127.0.0.1"}, m3={"name": name})


def test_check_config_and_doctor_lines():
    config = make_config(mqtt={"host": "127.0.0.1"}, m3={"name": "vault"}, outputs=OUTPUTS)
    settings = config.settings["m3"]
    assert settings == M3Settings("vault", ("lock", "horn"))
    assert M3().describe(settings) == [
        "M3/BAC: commands on vault/set/...; vault/solve, vault/output<N>, vault/get/<event> and vault/heartbeat "
        "(every 10 s) out (output0 = lock, output1 = horn)"
    ]
    assert [f.status for f in M3().doctor(settings, None)] == [OK]
    bare = make_config(mqtt={"host": "127.0.0.1"}, m3={}, outputs=[]).settings["m3"]
    assert bare == M3Settings("baccarat", ())
    findings = M3().doctor(bare, None)
    assert [f.status for f in findings] == [OK, WARN] and "no [[outputs]]" in findings[1].text


@pytest.mark.parametrize(
    "name", ["firmware.services.m3.topics", "firmware.services.m3.convention", "firmware.broker.conventions"]
)
def test_the_examples_run(name):
    run_examples(name)
