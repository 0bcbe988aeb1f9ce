"""Behaviour no other test held (issue 35 item 3): the self-test's verdicts.

The real daemon on gpiozero's mock pins and the recorded bus (tests/fakeos.py), as in
tests/test_selftest.py, whose fixture and operator these tests share. A button the game master
skipped is a part nobody checked: the test did not pass. A button pressed before its turn is
ticked off then and never asked for. A display that did not open at start (its bus missing) is
named, not taken as fine."""

from __future__ import annotations

import random

import pytest

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_luma_device
from firmware.devices.wiring import INPUT_NAMES
from firmware.room.commands import GameMaster
from firmware.selftest import SelfTester
from firmware.simulator.pins import ManualClock
from tests import fakeos, test_selftest
from tests.conftest import make_config
from tests.test_selftest import FAST, Operator, _parts

prop = test_selftest.prop  # the fixture

pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")


def test_a_skipped_button_fails_the_self_test(prop):
    daemon, _, clock, master = prop
    tester = Operator(daemon, clock, skip=frozenset({"banker"}))
    reply = master.handle({"command": "self_test"})
    tester.press_when_asked(count=INPUT_NAMES.index("banker") + 1)  # the ones before it, and banker asked
    assert master.handle("self-test-skip", words=True).result(5)["result"] == {"skipped": "banker"}
    tester.press_when_asked()
    result = reply.result(30)["result"]
    parts = {(p["part"], p["name"]): p["result"] for p in result["parts"]}
    assert parts[("button", "banker")] == "skipped"
    assert all(parts[("button", name)] == "ok" for name in INPUT_NAMES if name != "banker")
    assert result["ok"] is False, "a skipped button counted as fine"
    assert "button banker skipped" in result["summary"]


def test_a_button_pressed_before_its_turn_is_ticked_off_and_never_asked_for(prop):
    daemon, _, clock, master = prop
    tester = Operator(daemon, clock, skip=frozenset({"deal"}))
    reply = master.handle({"command": "self_test"})
    with tester._cond:
        assert tester._cond.wait_for(lambda: tester.steps, 10)  # the test runs: the patterns are up
    assert "deal" not in tester.asked  # the last button: asked for only once every other was pressed
    tester.driver.tap("deal")
    tester.press_when_asked(count=len(INPUT_NAMES) - 1)
    result = reply.result(30)
    assert "deal" not in tester.asked
    assert _parts(result)[("button", "deal")] == "ok"
    assert result["result"]["ok"] is True, result["result"]["summary"]


def test_a_display_that_did_not_open_at_start_is_named(monkeypatch, mock_factory):
    with fakeos.installed(monkeypatch) as linux:
        linux.i2c_display(1, 0x3C)
        linux.i2c_display(1, 0x3D)
        linux.spi_device(0, 0, dc=24)
        linux.deny("/dev/i2c-1")  # the service may not open the I2C bus: never retried
        clock = ManualClock()
        daemon = build_daemon(
            make_config(state={"file": ""}),
            pin_factory=mock_factory,
            device_factory=open_luma_device,
            rng=random.Random(3),
            clock=clock,
        )
        master = GameMaster(daemon, self_test=SelfTester(daemon, FAST))
        daemon.start()
        try:
            assert daemon.ready.wait(10)
            assert daemon.screens["placard"].device is None and not daemon.screens["placard"].failing
            tester = Operator(daemon, clock)
            reply = master.handle({"command": "self_test"})
            tester.press_when_asked()
            result = reply.result(30)
        finally:
            daemon.stop()
            close_daemon(daemon)
    parts = {(p["part"], p["name"]): (p["result"], p["detail"]) for p in result["result"]["parts"]}
    for role in ("placard", "table"):
        assert parts[("display", role)][0] == "not answering", role
        assert "not opened at start" in parts[("display", role)][1]
    assert parts[("display", "bets")] == ("ok", "")
    assert result["result"]["ok"] is False
