"""node-redscape (``[redscape]``) against a real Mosquitto: its commands on ToDevice/<id> and
ToDevice/All through the one command path, the report on FromDevice/<id> (one for each command),
bad input in one line, and the config's checks. Node-RED itself: tests/test_redscape_nodered.py."""

from __future__ import annotations

import json
import time

import pytest

from firmware.config.findings import OK, WARN
from firmware.errors import ConfigError
from firmware.services.redscape import Redscape, RedscapeSettings
from firmware.services.redscape.device import RedscapeDevice
from tests import test_mqtt
from tests.conftest import make_config, served_prop
from tests.conventions import OUTPUTS, convention_of, convention_prop, count_line, lines, output_on, run_examples, until
from tests.test_mqtt import P, mqtt_section, settle

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory
__all__ = ["convention_prop"]

TO, FROM = "ToDevice/baccarat", "FromDevice/baccarat"
#: What node-redscape's flows send with a RESET: their whole description of the prop.
FLOW_RESET = {
    "id": "baccarat",
    "name": "Baccarat",
    "description": "Players must win a round of baccarat",
    "state": "UNSOLVED",
    "ip": "0.0.0.0",
    "port": "23",
    "command": "RESET",
}


@pytest.fixture
def redscape_prop(convention_prop):
    return lambda redscape=None, **sections: convention_prop(redscape=redscape or {"id": "baccarat"}, **sections)


def reports(w) -> list[dict]:
    return [json.loads(p) for p in w.on(FROM)]


def command(w, payload: dict, *, topic: str = TO) -> dict:
    """Send a command and wait for the one report that answers it."""
    start = len(w.on(FROM))
    w.publish(topic, json.dumps(payload))
    report = json.loads(w.wait_after(FROM, start, lambda p: True))
    time.sleep(0.3)  # a second report would come now
    assert len(w.on(FROM)) == start + 1, f"{payload}: {w.on(FROM)[start:]}"
    return report


def test_node_redscapes_commands_drive_the_prop_and_one_report_answers_each(redscape_prop, watcher_factory):
    w = watcher_factory(topics=(FROM, f"{P}/events"))
    rig = redscape_prop()
    first = json.loads(w.wait_for(FROM))
    assert first == {
        "id": "baccarat",
        "state": "UNSOLVED",
        "status": "armed",
        "enabled": True,
        "strikes": 0,
        "outputs": {"lock": False, "horn": False},
    }
    solved = command(w, {"id": "baccarat", "command": "SOLVE"})
    assert solved["state"] == "SOLVED" and solved["status"] == "solved" and solved["outputs"]["lock"] is True
    assert rig.daemon.module.solved and output_on(rig, "lock")
    forced = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "solved"))
    assert forced["forced"] is True  # the same event on the prop's own topic
    assert command(w, {"command": "solve"}) == solved  # nothing changed: the report again
    assert command(w, FLOW_RESET, topic="ToDevice/All")["state"] == "UNSOLVED"  # every device's RESET
    assert not rig.daemon.module.solved
    assert command(w, {"command": "DISABLE"})["enabled"] is False and not rig.daemon.module.enabled
    assert command(w, {"command": "ENABLE"})["enabled"] is True
    assert command(w, {"command": "OUTPUT", "output": 1, "state": "ON"})["outputs"]["horn"] is True
    assert output_on(rig, "horn")
    assert command(w, {"command": "OUTPUT", "output": "horn", "state": False})["outputs"]["horn"] is False
    assert command(w, {"command": "STATUS"})["state"] == "UNSOLVED"
    # Retained: a Node-RED started now has the report at once.
    late = watcher_factory(topics=(FROM,))
    assert json.loads(late.wait_for(FROM)) == reports(w)[-1] and late.messages[0][2] is True


def test_the_report_comes_again_after_10_seconds_of_the_props_clock_without_one(redscape_prop, watcher_factory):
    """For a Node-RED flow that started later and stored its own "UNSOLVED" over the retained
    report (node-redscape's flows do at start): the report again after ``refresh_seconds``."""
    w = watcher_factory(topics=(FROM,))
    rig = redscape_prop()
    device = convention_of(rig, RedscapeDevice)
    w.wait_for(FROM)
    now = [1000.0]
    device.clock = lambda: now[0]
    device._sent = now[0]  # as if one had just gone out
    time.sleep(1.5)  # the link ticks at least once a second: nothing is due
    before = len(w.on(FROM))
    now[0] += 9.9
    time.sleep(1.5)
    assert len(w.on(FROM)) == before
    now[0] += 0.1
    assert json.loads(w.wait_after(FROM, before, lambda p: True))["state"] == "UNSOLVED"
    command(w, {"command": "SOLVE"})  # a report resets the wait
    count = len(w.on(FROM))
    now[0] += 9.9
    time.sleep(1.5)
    assert len(w.on(FROM)) == count


def test_the_short_state_words(redscape_prop, watcher_factory):
    w = watcher_factory(topics=(FROM,))
    redscape_prop({"id": "baccarat", "states": ["S", "U"]})
    assert json.loads(w.wait_for(FROM))["state"] == "U"
    assert command(w, {"command": "SOLVE"})["state"] == "S"


def test_an_exploded_bomb_ignores_a_solve_as_from_every_surface(redscape_prop, watcher_factory):
    w = watcher_factory(topics=(FROM, f"{P}/events"))
    rig = redscape_prop(bomb={"strike_limit": 1})
    w.wait_for(FROM)
    rig.deal()  # no bet: a strike, the limit
    w.wait_for(FROM, lambda p: json.loads(p)["status"] == "exploded")
    report = command(w, {"command": "SOLVE"})
    assert report["state"] == "UNSOLVED" and report["status"] == "exploded" and not rig.daemon.module.solved
    assert "exploded" in w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "ignored")


def test_a_command_waits_for_the_self_test(redscape_prop, watcher_factory):
    w = watcher_factory(topics=(FROM,))
    rig = redscape_prop()
    w.wait_for(FROM)
    commands = convention_of(rig, RedscapeDevice).commands
    test = commands.handle({"command": "self_test"})
    rig.wait_for("self_test")
    w.publish(TO, json.dumps({"command": "SOLVE"}))
    time.sleep(0.5)  # (the game thread is not idle: the solve waits in its queue)
    assert not rig.daemon.module.solved, "a solve during the self-test"
    assert commands.handle({"command": "self_test_cancel"}).result(5)["ok"]
    test.result(10)
    w.wait_for(FROM, lambda p: json.loads(p)["state"] == "SOLVED")


BAD = [
    (b'{"command": "SOLVE", "pad": "' + b"x" * 20_000 + b'"}', "longer than 16384 bytes"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b"SOLVE", "not JSON"),
    (b'["SOLVE"]', "is not a JSON object"),
    (b'{"state": "S"}', 'has no "command"'),
    (b'{"command": "EXPLODE"}', 'unknown command "EXPLODE"'),
    (b'{"command": 7}', 'has no "command" (got 7)'),
    (b'{"command": "OUTPUT", "output": 2, "state": "on"}', "no output 2: this prop has 2 (0 = lock, 1 = horn)"),
    (b'{"command": "OUTPUT", "output": 0, "state": "dim"}', '"state" must be'),
    (b'{"command": "OUTPUT", "output": null, "state": "on"}', '"output" must be'),
    (b'{"a": ' * 20 + b"1" + b"}" * 20, "nested deeper"),
]


def test_bad_input_is_one_line_and_the_next_command_runs(redscape_prop, watcher_factory, caplog, monkeypatch):
    w = watcher_factory(topics=(FROM,))
    w.publish(TO, json.dumps({"command": "DISABLE"}), retain=True)  # left on the broker: reaches the prop retained
    with caplog.at_level("INFO"):
        rig = redscape_prop()
        w.wait_for(FROM)
        settle(rig)
        assert rig.daemon.module.enabled, "a retained command ran"
        w.publish(TO, "", retain=True)  # clearing it: an empty message runs nothing
        noise = convention_of(rig, RedscapeDevice).link.noise
        noted: list[str] = []
        note = noise.note
        monkeypatch.setattr(noise, "note", lambda kind, text, *level: (noted.append(text), note(kind, text, *level)))
        before = rig.daemon.module.snapshot()
        for payload, _ in BAD:
            w.client.publish(TO, payload, qos=1).wait_for_publish(5)
        w.client.publish("ToDevice/All", b"\x00" * 70_000, qos=1).wait_for_publish(5)
        settle(rig)
        assert rig.daemon.module.snapshot() == before and rig.kinds() == ["limits", "deck"]
        assert len(noted) == len(BAD) + 1, noted
        for text, (_, problem) in zip(noted, BAD, strict=False):
            assert text.startswith(f'redscape: "{TO}": ') and problem in text, (text, problem)
        warnings = lines(caplog)
        assert len(warnings) == 1 and warnings[0].startswith(f'redscape: ignored a retained message on "{TO}"')
        assert not any(r.exc_info for r in caplog.records)
        assert command(w, {"command": "SOLVE"})["state"] == "SOLVED"  # the connection lives on
        count = count_line(noise, caplog)
    assert count.startswith(f'{len(BAD) + 1} more like it in 60 s, the last: redscape: "ToDevice/All": ')


def test_a_clean_stop_leaves_the_outputs_off_in_the_retained_report(broker, mock_factory, watcher_factory):
    config = make_config(
        mqtt=mqtt_section(broker), redscape={}, outputs=OUTPUTS, state={"file": ""}, control={"socket": ""}
    )
    w = watcher_factory(topics=(FROM,))
    with served_prop(config, mock_factory):
        w.wait_for(FROM)  # the prop listens
        assert command(w, {"command": "SOLVE"})["outputs"]["lock"] is True
    until(lambda: json.loads(w.on(FROM)[-1])["outputs"] == {"lock": False, "horn": False}, what="all off")
    late = watcher_factory(topics=(FROM,))
    assert json.loads(late.wait_for(FROM))["outputs"]["lock"] is False


# -- config, check-config, doctor ---------------------------------------------------------------


def test_redscape_without_mqtt_is_a_config_error_naming_what_to_add():
    with pytest.raises(ConfigError, match=r"^\[redscape\] needs \[mqtt\] \(MQTT\): add an \[mqtt\] section with"):
        make_config(redscape={"id": "baccarat"})


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"id": "All"}, r'id = "All": is the topic every device hears \(ToDevice/All\)'),
        ({"id": "all"}, "is the topic every device hears"),
        ({"id": "a/b"}, "one topic level"),
        ({"id": "#"}, "wildcard"),
        ({"states": ["S"]}, "must be two words"),
        ({"states": ["S", "S"]}, "must be two different words"),
        ({"states": ["S", 1]}, "must be two words"),
        ({"states": "S"}, "must be a list"),
        ({"name": "x"}, r"name: unknown key"),
    ],
)
def test_bad_values_are_refused(values, problem):
    with pytest.raises(ConfigError, match=r"^\[redscape\] .*" + problem):
        make_config(mqtt={"host": "127.0.0.1"}, redscape=values)


def test_check_config_and_doctor_lines():
    config = make_config(mqtt={"host": "127.0.0.1"}, redscape={"id": "vault"}, outputs=OUTPUTS)
    settings = config.settings["redscape"]
    assert settings == RedscapeSettings("vault", ("SOLVED", "UNSOLVED"), ("lock", "horn"))
    assert Redscape().describe(settings) == [
        'node-redscape: commands on ToDevice/vault and ToDevice/All; reports on FromDevice/vault (state "SOLVED" '
        'or "UNSOLVED")'
    ]
    assert [f.status for f in Redscape().doctor(settings, None)] == [OK]
    short = make_config(mqtt={"host": "127.0.0.1"}, redscape={"states": ["S", "U"]}).settings["redscape"]
    findings = Redscape().doctor(short, None)
    assert [f.status for f in findings] == [OK, WARN] and 'look for "SOLVED"' in findings[1].text


@pytest.mark.parametrize("name", ["firmware.services.redscape.messages", "firmware.services.redscape.device"])
def test_the_examples_run(name):
    run_examples(name)
