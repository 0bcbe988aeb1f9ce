"""The pre-game self-test (issue 23, part 4): the real daemon on gpiozero's mock pins and the
recorded bus (tests/fakeos.py: luma.oled, luma.core and smbus2 run unmodified), with a display
that does not answer and a button nobody presses.

What is checked: each part's result is named (never a traceback); the inputs go to the test, not
the game, and the game is exactly as it was afterwards, displays and lights included; commands
wait for the test's end; the watchdog's beats go on; skip and cancel; outputs are never switched
unless named; and the one command on every surface (socket and shell, MQTT, Room 2.0 words, the
console's API).
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time

import pytest

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device, open_luma_device
from firmware.devices.wiring import INPUT_NAMES
from firmware.room.commands import GameMaster, parse_command, parse_words
from firmware.selftest import SelfTester, SelfTestSettings, SelfTestStep
from firmware.simulator.pins import ManualClock, PinDriver
from tests import fakeos
from tests.conftest import make_config

# luma.oled 3.16's stock drivers read pixels with Image.getdata, which Pillow 13 deprecates (ours do not).
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

FAST = SelfTestSettings(display_seconds=0.05, light_seconds=0.02, sound_seconds=0.02, output_seconds=0.02)


class Operator:
    """Watches the self-test's steps and presses the buttons it asks for, like a person at the prop."""

    def __init__(self, daemon, clock: ManualClock, *, skip: frozenset[str] = frozenset()) -> None:
        self.daemon = daemon
        self.driver = PinDriver(daemon.board, clock=clock)
        self.skip = skip
        self.steps: list[SelfTestStep] = []
        self.asked: list[str] = []
        self._cond = threading.Condition()
        daemon.on_shown.append(self._shown)

    def _shown(self, event) -> None:
        if isinstance(event, SelfTestStep):
            with self._cond:
                self.steps.append(event)
                if event.step == "button" and event.prompt.startswith("press "):
                    self.asked.append(event.name)
                self._cond.notify_all()

    def press_when_asked(self, count: int = len(INPUT_NAMES), timeout: float = 30.0) -> None:
        """Press each button as it is asked for, except those in ``skip``."""
        done = 0
        deadline = time.monotonic() + timeout
        while done < count:
            with self._cond:
                while len(self.asked) <= done:
                    assert self._cond.wait(deadline - time.monotonic()), f"asked for {self.asked} only"
                name = self.asked[done]
            done += 1
            if name not in self.skip:
                self.driver.tap(name)


@pytest.fixture
def prop(monkeypatch, mock_factory):
    """The reference build over the recorded bus; yields (daemon, ends, clock, master)."""
    with fakeos.installed(monkeypatch) as linux:
        ends = {
            "placard": linux.i2c_display(1, 0x3C),
            "table": linux.i2c_display(1, 0x3D),
            "bets": linux.spi_device(0, 0, dc=24),
        }
        clock = ManualClock()
        daemon = build_daemon(
            make_config(state={"file": ""}),
            pin_factory=mock_factory,
            device_factory=open_luma_device,
            rng=random.Random(3),
            clock=clock,
        )
        master = GameMaster(daemon, self_test=SelfTester(daemon, FAST))
        beats: list[float] = []
        daemon.heartbeat(0.05, lambda: beats.append(time.monotonic()))
        daemon.beats = beats
        daemon.start()
        assert daemon.ready.wait(10)
        try:
            yield daemon, ends, clock, master
        finally:
            daemon.stop()
            close_daemon(daemon)


def _parts(reply: dict) -> dict[tuple[str, str], str]:
    return {(p["part"], p["name"]): p["result"] for p in reply["result"]["parts"]}


def test_a_display_that_does_not_answer_and_a_button_never_pressed_are_named(prop, caplog):
    daemon, ends, clock, master = prop
    caplog.set_level(logging.INFO, logger="baccarat")
    daemon.apply(lambda m: m.press("player")).result(5)  # a chip on the table: the game in progress
    before = daemon.call(lambda: daemon.module.snapshot()).result(5)
    frames = {role: screen.last_frame.copy() for role, screen in daemon.screens.items()}
    leds = daemon.board.deck_light.led.value
    ends["table"].unplug()  # a loose wire: EREMOTEIO from now on
    tester = Operator(daemon, clock, skip=frozenset({"deal"}))
    reply = master.handle({"command": "self_test", "id": 4})
    beats_before = len(daemon.beats)
    tester.press_when_asked()
    result = reply.result(30)
    assert result["ok"] is True and result["id"] == 4 and result["command"] == "self_test"
    parts = _parts(result)
    assert parts[("display", "table")] == "not answering"
    assert parts[("display", "placard")] == "ok" and parts[("display", "bets")] == "ok"
    assert parts[("button", "deal")] == "not pressed"
    assert all(parts[("button", name)] == "ok" for name in INPUT_NAMES if name != "deal")
    assert all(result == "ok" for (part, _), result in parts.items() if part == "light")
    assert parts[("sound", "all")] == "off"
    assert result["result"]["ok"] is False
    assert result["result"]["summary"] == (
        "display table not answering (the frame did not go through (see the log)); "
        "button deal not pressed (not pressed within 10 s)"
    )
    # The buttons were asked for in the front panel's order, and one log line says it all.
    assert tester.asked == list(INPUT_NAMES)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("self-test found faults")]
    assert lines == [f"self-test found faults: {result['result']['summary']}"]
    assert "Traceback" not in caplog.text
    # The watchdog's beats went on while the test waited for buttons.
    assert len(daemon.beats) - beats_before >= 10
    # The game was not touched: the presses went to the test, and everything shows as before.
    daemon.wait_idle()
    assert daemon.call(lambda: daemon.module.snapshot()).result(5) == before
    for role in ("placard", "bets"):
        assert daemon.screens[role].last_frame.tobytes() == frames[role].tobytes(), role
    assert daemon.board.deck_light.led.value == leds
    # And the game goes on: a press reaches the module again.
    tester.driver.tap("player")
    daemon.wait_idle()
    assert daemon.module.bets()["player"] == 2


def test_the_patterns_and_prompts_are_on_the_panels(prop):
    daemon, ends, clock, master = prop
    seen: dict[str, list] = {role: [] for role in daemon.screens}
    daemon.on_frame.append(lambda role, image: seen[role].append(image.copy()))
    tester = Operator(daemon, clock)
    reply = master.handle({"command": "self_test"})
    tester.press_when_asked()
    assert reply.result(30)["result"]["ok"] is True
    pattern = seen["table"][0]
    # The checkerboard lights half the panel, and the frame goes round the edge.
    lit = sum(1 for value in pattern.getdata() if value)
    assert 0.35 < lit / (128 * 64) < 0.65
    assert all(pattern.getpixel((x, 0)) for x in range(128)) and all(pattern.getpixel((0, y)) for y in range(64))
    # What the panel received over the bus is what was drawn.
    on_panel = fakeos.panel(ends["table"], "ssd1306", 128, 64)
    assert on_panel.tobytes() == daemon.screens["table"].last_frame.convert("1").tobytes()


def test_commands_wait_for_the_end_and_skip_and_cancel(prop):
    daemon, ends, clock, master = prop
    tester = Operator(daemon, clock)
    reply = master.handle({"command": "self_test"})
    with tester._cond:
        assert tester._cond.wait_for(lambda: tester.asked, 10)
    reset = master.handle({"command": "reset"})  # waits for the test
    status = master.handle({"command": "status"}).result(5)  # reads: at once
    assert status["ok"] and not reset.done()
    again = master.handle({"command": "self_test"}).result(5)
    assert again == {"id": None, "ok": False, "command": "self_test", "error": "a self-test is running already"}
    # Remote play is the players' move: refused while the test has the buttons, the table untouched.
    bet = master.handle({"command": "bet", "bets": "25 on banker"}).result(5)
    assert bet["ok"] is False and "self-test is running" in bet["error"], bet
    assert daemon.call(lambda: daemon.module.bets(), during_round=True).result(5)["banker"] == 0
    skipped = master.handle("self-test-skip", words=True).result(5)
    assert skipped["result"] == {"skipped": "player"}
    with tester._cond:
        assert tester._cond.wait_for(lambda: len(tester.asked) == 2, 10)
    assert master.handle({"command": "self_test_cancel"}).result(5)["ok"]
    result = reply.result(10)["result"]
    parts = {(p["part"], p["name"]): (p["result"], p["detail"]) for p in result["parts"]}
    assert parts[("button", "player")] == ("skipped", "skipped by the game master")
    assert parts[("button", "banker")] == ("not tested", "cancelled")
    assert parts[("button", "deal")] == ("not tested", "cancelled")
    assert result["ok"] is False and result["summary"].endswith("(cancelled)")
    assert reset.result(10)["ok"]  # it ran once the test was over
    none = master.handle({"command": "self_test_skip"}).result(5)
    assert none["ok"] is False and none["error"] == "no self-test is running"


class Relays:
    """Two outputs that remember every switching."""

    def __init__(self) -> None:
        self.log: list[tuple[str, bool]] = []

    def output_names(self):
        return ("maglock", "fog")

    def set_output(self, name: str, on: bool) -> None:
        self.log.append((name, on))


def test_outputs_are_switched_only_when_named(mock_factory):
    daemon = build_daemon(make_config(state={"file": ""}), pin_factory=mock_factory, device_factory=open_dummy_device)
    relays = Relays()
    nobody = SelfTestSettings(0.02, 0.02, 0.02, 0.02, button_seconds=0.02)  # nobody at the buttons
    master = GameMaster(daemon, self_test=SelfTester(daemon, nobody, outputs=relays))
    daemon.start()
    try:
        plain = master.handle({"command": "self_test"}).result(30)["result"]
        assert relays.log == []
        assert {(p["name"], p["result"]) for p in plain["parts"] if p["part"] == "output"} == {
            ("maglock", "not switched"),
            ("fog", "not switched"),
        }
        with_fog = master.handle({"command": "self_test", "outputs": ["fog"]}).result(30)
        assert json.loads(json.dumps(with_fog)) == with_fog  # JSON-ready, as every front end sends it
        parts = {(p["part"], p["name"]): p["result"] for p in with_fog["result"]["parts"]}
        assert parts[("output", "maglock")] == "not switched"
        assert parts[("output", "fog")] == "ok"
        assert relays.log == [("fog", True), ("fog", False)]
        unknown = master.handle({"command": "self_test", "outputs": ["door"]}).result(5)
        assert unknown["error"] == "self_test: no output named door (outputs: maglock, fog)"
    finally:
        daemon.stop()
        close_daemon(daemon)


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"command": "self_test", "button_seconds": 0}, "self_test: button_seconds 0 is not a number of seconds"),
        ({"command": "self_test", "button_seconds": True}, "self_test: button_seconds true is not a number"),
        ({"command": "self_test", "outputs": "lock"}, 'self_test: outputs "lock" is not a list of output names'),
        ({"command": "self_test", "lights": 1}, 'self_test: unknown argument "lights"'),
    ],
)
def test_bad_self_test_arguments_are_one_line(payload, error):
    with pytest.raises(Exception) as caught:
        parse_command(payload)
    assert str(caught.value).startswith(error)


def test_words_start_a_self_test_as_room_2_sends_them():
    assert parse_words("self-test").name == "self_test"
    command = parse_words("self-test button_seconds=5 outputs=fog,maglock")
    assert command.button_seconds == 5.0 and command.outputs == ("fog", "maglock")


def test_the_self_test_reply_waits_as_long_as_the_test_may_last(mock_factory):
    daemon = build_daemon(make_config(state={"file": ""}), pin_factory=mock_factory, device_factory=open_dummy_device)
    master = GameMaster(daemon)
    assert master.handle({"command": "status"}).timeout == 30
    assert master.handle({"command": "self_test", "button_seconds": 20}).timeout >= 8 * 20
    close_daemon(daemon)


# -- every surface ---------------------------------------------------------------------------------------

NOBODY = SelfTestSettings(0.02, 0.02, 0.02, 0.02, button_seconds=0.05)  # nobody at the buttons


def test_baccarat_self_test_from_the_shell(served, capsys, monkeypatch):
    from firmware.cli import main

    rig, sock = served
    rig.daemon.apply(lambda m: m.press("banker")).result(5)
    monkeypatch.setattr(SelfTester, "default_settings", NOBODY)  # read at each start, not at attach
    assert main(["self-test", "--socket", str(sock)]) == 1  # nobody pressed anything: faults
    out = capsys.readouterr().out
    assert (
        "  display  table         OK" in out
        and "  button   deal          NOT PRESSED (not pressed within 0.05 s)" in out
    )
    assert out.strip().splitlines()[-1] == f"self-test found faults: buttons {', '.join(INPUT_NAMES)} not pressed"
    assert rig.daemon.module.bets()["banker"] == 1  # the game is as it was
    with pytest.raises(SystemExit) as exited:
        main(["self-test", "--socket", str(sock), "--button-seconds", "0.5"])
    assert exited.value.code == 2
    assert "is not a number of seconds from 1 to 120" in capsys.readouterr().err


def test_mqtt_and_room_2_run_it_and_the_result_is_published(mock_factory, tmp_path, monkeypatch):
    from tests.conftest import served_prop
    from tests.mosquitto import Broker
    from tests.test_mqtt import P, Watcher, connected, mqtt_section

    monkeypatch.setattr(SelfTester, "default_settings", NOBODY)
    broker = Broker(tmp_path)
    broker.start()
    config = make_config(mqtt=mqtt_section(broker, room="lab"), state={"file": ""}, control={"socket": ""})
    watcher = Watcher(broker)
    try:
        with served_prop(config, mock_factory) as rig:
            connected(rig)
            watcher.client.publish(f"{P}/command", json.dumps({"command": "self_test", "id": "pre-game"}), qos=1)
            reply = json.loads(watcher.wait_for(f"{P}/reply", lambda p: json.loads(p).get("id") == "pre-game", 30))
            assert reply["ok"] and reply["result"]["ok"] is False
            events = [json.loads(p) for p in watcher.on(f"{P}/events")]
            assert any(e["event"] == "self_test" and e["prompt"].startswith("press PLAYER") for e in events)
            result = next(e for e in events if e["event"] == "self_test_result")
            assert result["summary"] == reply["result"]["summary"]
            diagnostics = json.loads(
                watcher.wait_for(f"{P}/diagnostics", lambda p: json.loads(p).get("self_test") is not None, 10)
            )
            assert diagnostics["self_test"]["ok"] is False
            assert diagnostics["self_test"]["summary"] == reply["result"]["summary"]
            # Room 2.0's words: the same test, its verdict as a message, then DONE.
            outbox = "Room/lab/Props/baccarat/outbox"
            start = len(watcher.on(outbox))
            watcher.client.publish("Room/lab/Props/baccarat/inbox", "self-test", qos=1)
            watcher.wait_after(outbox, start, lambda p: p == "DONE self-test", 30)
            said = watcher.on(outbox)[start:]
            names = ", ".join(INPUT_NAMES)
            assert f"MESG self-test found faults: buttons {names} not pressed" in said
    finally:
        watcher.client.loop_stop()
        watcher.client.disconnect()
        broker.stop()
