"""The outputs on every network surface, through the one command path (issue 22 part 1): MQTT's JSON
commands and events against a real Mosquitto, Room 2.0's words, Home Assistant's switch and button
(and the removal of an output no longer configured), and the controllers' ``GET /output/<name>/<state>``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from firmware.room.commands import parse_command
from firmware.services.home_assistant.discovery import HomeAssistantService
from firmware.services.mqtt.room import MqttService
from tests import browser as web_helpers
from tests import test_home_assistant, test_home_assistant_templates, test_mqtt
from tests.browser import TOKEN
from tests.conftest import make_config, start_served
from tests.test_outputs import HORN, LOCK, lit, until

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory
web_factory = web_helpers.web_factory
chromium, page = web_helpers.chromium, web_helpers.page  # a real Chromium

P = "bomb/baccarat"


def test_mqtt_switches_an_output_and_publishes_what_it_did(prop_factory, watcher_factory):
    w = watcher_factory()
    rig = prop_factory(outputs=[LOCK, HORN])
    w.wait_for(f"{P}/state")
    reply = w.command({"command": "output", "name": "lock", "state": "on"})
    assert reply["ok"] and reply["result"]["events"][0]["on"] is True
    assert lit(rig, "lock")
    event = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "output"))
    assert {k: event[k] for k in ("name", "on", "cause", "seconds")} == {
        "name": "lock",
        "on": True,
        "cause": "command",
        "seconds": None,
    }
    state = w.wait_for(f"{P}/state", lambda p: json.loads(p)["outputs"][0]["on"])
    assert json.loads(state)["outputs"] == [{"name": "lock", "on": True}, {"name": "horn", "on": False}]
    # A pulse ends by itself, and says so.
    assert w.command({"command": "output", "name": "horn", "state": "pulse"})["ok"]
    w.wait_for(f"{P}/events", lambda p: json.loads(p).get("cause") == "ended")
    assert not lit(rig, "horn")
    # A bad name: one clear error on the reply topic, nothing switched.
    before = rig.factory.pin(15).states[:]
    bad = w.command({"command": "output", "name": "door", "state": "off"})
    assert bad == {"id": bad["id"], "ok": False, "command": "output", "error": bad["error"]}
    assert bad["error"] == 'output: unknown output "door" (known: lock, horn)'
    assert rig.factory.pin(15).states == before and lit(rig, "lock")


def test_room_2_0_words_switch_an_output(prop_factory, watcher_factory):
    w = watcher_factory()
    rig = prop_factory(mqtt_extra={"room": "Casino"})
    inbox, outbox = "Room/Casino/Props/baccarat/inbox", "Room/Casino/Props/baccarat/outbox"
    data = w.wait_for(outbox, lambda p: p.startswith("DATA "))
    assert data.endswith(" output_lock=off"), data

    def ask(text: str, *answers: str) -> None:
        start = len(w.on(outbox))
        w.publish(inbox, text)
        for answer in answers:
            w.wait_after(outbox, start, lambda p, a=answer: p.startswith(a))

    ask("output lock on", "DATA ", "DONE output lock on")
    assert lit(rig, "lock")
    assert [p for p in w.on(outbox) if p.startswith("DATA ")][-1].endswith(" output_lock=on")
    ask("output door on", "OMIT output door on", 'MESG output: unknown output "door" (known: lock)')
    ask("output lock shut", "OMIT output lock shut", 'MESG output: state "shut" must be on, off or pulse')
    assert lit(rig, "lock")
    ask("output lock off", "DONE output lock off")
    assert not lit(rig, "lock")


def _home_prop(mock_factory, broker, outputs):
    config = make_config(
        mqtt=test_mqtt.mqtt_section(broker, client_id="casino-baccarat", home_assistant=True),
        state={"file": ""},
        control={"socket": ""},
        outputs=outputs,
    )
    return start_served(config, mock_factory)


def test_home_assistant_gets_a_switch_or_a_pulse_button_per_output(mock_factory, broker, watcher_factory):
    """Schema-checked as Home Assistant reads it; the switch's state renders from what the prop publishes
    and its payloads are the prop's own command; an output taken out of the config is removed."""
    topic = "homeassistant/device/casino-baccarat/config"
    w = watcher_factory(topics=(topic, f"{P}/#"))
    rig, stop = _home_prop(mock_factory, broker, [LOCK, HORN])
    try:
        components = test_home_assistant.check_device_discovery(json.loads(w.wait_for(topic)))
        switch, button = components["casino-baccarat_output_lock"], components["casino-baccarat_pulse_horn"]
        assert (switch["platform"], switch["name"], button["platform"], button["name"]) == (
            "switch",
            "Output lock",
            "button",
            "Pulse horn",
        )
        for payload in (switch["payload_on"], switch["payload_off"], button["payload_press"]):
            assert parse_command(json.loads(payload)).name == "output"
        render = test_home_assistant_templates.render
        state = w.wait_for(f"{P}/state")
        assert render(switch["value_template"], state) == "OFF"
        w.publish(switch["command_topic"], switch["payload_on"])  # Home Assistant turns the switch on
        state = w.wait_for(f"{P}/state", lambda p: render(switch["value_template"], p) == "ON")
        assert lit(rig, "lock") and json.loads(state)["outputs"][0] == {"name": "lock", "on": True}
        w.publish(button["command_topic"], button["payload_press"])
        w.wait_for(f"{P}/events", lambda p: json.loads(p).get("name") == "horn" and json.loads(p)["on"])
        w.publish(switch["command_topic"], switch["payload_off"])
        assert until(lambda: not lit(rig, "lock"))
    finally:
        stop()

    # The horn taken out of the config: the next start removes its button from Home Assistant.
    count = len(w.on(topic))
    rig, stop = _home_prop(mock_factory, broker, [LOCK])
    try:
        removal = w.wait_after(topic, count, lambda p: "casino-baccarat_pulse_horn" in json.loads(p)["cmps"])
        assert json.loads(removal)["cmps"]["casino-baccarat_pulse_horn"] == {"p": "button"}
        home = next(
            hook.__self__
            for listener in rig.daemon.on_settled
            if isinstance(getattr(listener, "__self__", None), MqttService)
            for hook in listener.__self__.link.connect_hooks
            if isinstance(getattr(hook, "__self__", None), HomeAssistantService)
        )
        assert home.removed == ["casino-baccarat_pulse_horn"]
        assert "casino-baccarat_output_lock" in home.document["cmps"]
    finally:
        stop()


# -- the controllers' endpoints --------------------------------------------------------------------------


def get(web, path: str, token: str | None = TOKEN) -> tuple[int, str, dict[str, str]]:
    url = f"{web.url}{path}" + (f"?token={token}" if token is not None else "")
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def test_the_controllers_switch_an_output_with_the_token(web_factory):
    web = web_factory(outputs=[LOCK, HORN])
    status, body, headers = get(web, "/output/lock/on")
    assert (status, body) == (200, "ok") and headers["Access-Control-Allow-Origin"] == "*"
    assert lit(web.rig, "lock")
    assert json.loads(get(web, "/json")[1])["outputs"] == [{"name": "lock", "on": 1}, {"name": "horn", "on": 0}]
    assert get(web, "/output/horn/pulse")[:2] == (200, "ok") and lit(web.rig, "horn")
    assert get(web, "/output/lock/off")[:2] == (200, "ok") and not lit(web.rig, "lock")

    before = web.rig.factory.pin(15).states[:]
    for path, token, answer in (
        ("/output/door/on", TOKEN, (400, 'error: output: unknown output "door" (known: lock, horn)')),
        ("/output/lock/open", TOKEN, (400, 'error: output: state "open" must be on, off or pulse')),
        ("/output/lock/on", None, (403, "forbidden: missing or wrong token\n")),
        ("/output/lock/on", "wrong-token-0123456789", (403, "forbidden: missing or wrong token\n")),
    ):
        status, body, headers = get(web, path, token)
        assert (status, body) == answer, path
        assert headers["Access-Control-Allow-Origin"] == "*", "a browser's controller cannot read the refusal"
    assert web.rig.factory.pin(15).states == before, "a refused request switched the lock"
    status, headers, _ = web.request(
        "OPTIONS", "/output/lock/on", headers={"Origin": "http://erm.local", "Access-Control-Request-Method": "GET"}
    )
    assert status == 204 and headers["access-control-allow-origin"] == "*"


# -- the console in a real browser, and the simulator's text view ------------------------------------


def test_the_console_shows_each_output_with_its_state_and_buttons(web_factory, page):
    web = web_factory(outputs=[LOCK, {**HORN, "pulse_seconds": 1.0}])  # longer than the page's polling of pins
    page.goto(web.url + "/")
    page.wait_for_selector("#outputs:not([hidden])")
    shows = (
        "([name, text]) => document.querySelector(`#output-list li[data-output=${name}] .output-state`)"
        ".textContent === text"
    )

    def badge(name: str, text: str) -> None:
        page.wait_for_function(shows, arg=[name, text])

    lock = page.locator('#output-list li[data-output="lock"]')
    assert page.locator("#output-list li").count() == 2
    assert "GPIO15: on at solved (hold), off at reset" in lock.inner_text()
    badge("lock", "off")
    lock.locator("button[data-output-state=on]").click()
    badge("lock", "ON")
    assert lit(web.rig, "lock")
    assert "Output lock on: done." in page.inner_text("#message")
    page.wait_for_function("() => document.getElementById('log-list').textContent.includes('output lock on')")
    # Switched from elsewhere (the game's own reset): the badge follows the pin.
    web.rig.daemon.apply(lambda module: module.reset()).result(5)
    badge("lock", "off")
    page.locator('#output-list li[data-output="horn"] button[data-output-state=pulse]').click()
    badge("horn", "ON")
    badge("horn", "off")


def test_a_console_without_outputs_shows_no_outputs_panel(web_factory, page):
    web = web_factory(outputs=[])
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    assert page.is_hidden("#outputs")


def test_the_simulator_text_view_shows_the_outputs(rig_factory):
    from firmware.room.commands import GameMaster
    from firmware.simulator.textview import take_snapshot, text_lines

    rig = rig_factory(make_config(outputs=[LOCK, HORN]))
    lines = text_lines(take_snapshot(rig.daemon), [], 80, 24)
    assert lines[1].endswith("Outputs: lock off, horn off"), lines[1]
    GameMaster(rig.daemon).handle({"command": "force_solve"}).result(5)
    text = "\n".join(text_lines(take_snapshot(rig.daemon), [], 80, 24))
    assert "Outputs: lock ON, horn off" in text
    narrow = text_lines(take_snapshot(rig.daemon), [], 60, 18)
    assert any(line.startswith("Outputs: lock ON") for line in narrow), narrow  # its own line when short of room
    assert all(len(line) < 60 for line in narrow) and len(narrow) <= 18


# -- the control socket: ``baccarat output`` -----------------------------------------------------------


def test_baccarat_output_switches_through_the_control_socket(served, capsys):
    import pytest

    from firmware.cli import main

    rig, sock = served  # the reference build: the lock

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([*argv, "--socket", str(sock)])
        out = capsys.readouterr()
        return code, out.out, out.err

    assert run("output", "lock", "on") == (0, "output lock on\n", "")
    assert lit(rig, "lock")
    assert run("output", "lock", "on") == (0, "output lock was on already\n", "")
    code, out, _ = run("status")
    assert code == 0 and out.splitlines()[2] == "outputs: lock on"
    assert run("output", "lock", "pulse") == (0, "output lock on for 1 s\n", "")
    assert run("output", "lock", "off")[:2] == (0, "output lock off\n")
    code, out, err = run("output", "door", "on")
    assert (code, out) == (2, "") and err == 'baccarat output: error: output: unknown output "door" (known: lock)\n'
    with pytest.raises(SystemExit) as exit_info:  # argparse's own check: on, off or pulse
        main(["output", "lock", "open", "--socket", str(sock)])
    assert exit_info.value.code == 2 and "invalid choice: 'open'" in capsys.readouterr().err
    assert not lit(rig, "lock")
