"""The game master's table controls on the daemon: close and open the table, identify the prop."""

from __future__ import annotations

import random
import time

import pytest

from baccarat_core import BaccaratModule
from firmware.app import build_daemon, close_daemon, restore_module
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster, state_document
from firmware.simulator.pins import ManualClock
from tests.conftest import Rig, make_config, served_prop
from tests.pixels import find_text


def command(rig, payload: dict) -> dict:
    return GameMaster(rig.daemon).handle(payload).result(5)


def test_a_closed_table_ignores_the_players_and_says_so(rig):
    rig.chips("player", 25)
    reply = command(rig, {"command": "disable"})
    assert reply["ok"] and [e["event"] for e in reply["result"]["events"]] == ["enabled"]
    rig.daemon.wait_idle()
    assert find_text(rig.frame("table"), "TABLE CLOSED") is not None
    rig.tap("player")
    rig.tap("right")
    rig.deal()
    assert rig.daemon.module.stacks["player"] == [25] and rig.daemon.module.denomination == 25
    assert rig.daemon.module.strikes == 0 and "card" not in rig.kinds()
    ignored = [e for e in rig.events if e.kind == "ignored"]
    assert len(ignored) == 3 and all(e.reason == "disabled" for e in ignored)
    assert "the table is closed" in ignored[0].describe()
    assert rig.daemon.call(lambda: state_document(rig.daemon.module)).result(5)["enabled"] is False
    assert command(rig, {"command": "disable"})["result"]["events"] == []  # already closed
    command(rig, {"command": "enable"})
    rig.daemon.wait_idle()
    assert find_text(rig.frame("table"), "PLACE YOUR BETS") is not None
    rig.tap("player")
    assert rig.daemon.module.stacks["player"] == [25, 25]


def test_a_reset_keeps_the_table_closed(rig):
    command(rig, {"command": "disable"})
    command(rig, {"command": "reset"})
    assert rig.daemon.module.enabled is False


def test_a_closed_table_stays_closed_after_a_restart(tmp_path, mock_factory):
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)}, control={"socket": ""})
    with served_prop(config, mock_factory, seed=2) as rig:
        assert GameMaster(rig.daemon).handle({"command": "disable"}).result(5)["ok"]
        rig.daemon.wait_idle()
    module = restore_module(config, random.Random(3))
    assert isinstance(module, BaccaratModule) and module.enabled is False


def test_identify_blinks_both_lights_and_inverts_every_display_then_goes_back(rig_factory):
    """Identify lasts its 3 s on the daemon's schedule clock, which the test moves by hand: the
    lights are watched for as long as a busy machine needs, and the end comes when the clock says."""
    clock = ManualClock(0.0)
    rig = rig_factory(schedule_clock=clock)
    before = {role: rig.frame(role).copy() for role in rig.daemon.screens}
    reply = GameMaster(rig.daemon).handle({"command": "identify"}).result(5)
    assert reply["ok"] and reply["result"] == {"identify_seconds": 3.0}
    rig.daemon.wait_idle()
    for role, frame in before.items():
        inverted = rig.frame(role).convert("L")
        original = frame.convert("L")
        assert all(a != b for a, b in zip(inverted.tobytes(), original.tobytes(), strict=True)), role
    status = rig.daemon.board.status
    seen = set()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(seen) < 4:
        seen |= {("red", bool(status.red.value)), ("green", bool(status.green.value))}
        time.sleep(0.02)
    assert seen == {("red", True), ("red", False), ("green", True), ("green", False)}, "both lights blink"
    clock.advance(2.99)
    rig.daemon.catch_up()
    assert rig.daemon.identifying, "identify ended before its 3 s"
    clock.advance(0.01)
    rig.daemon.catch_up()
    rig.daemon.wait_idle()
    for role, frame in before.items():
        assert rig.frame(role).tobytes() == frame.tobytes(), f"{role} is not back to normal"
    assert not status.red.value and not status.green.value
    assert rig.daemon.board.deck_light.color == "red"


@pytest.mark.parametrize("words", ["disable", "enable", "identify"])
def test_the_room_words_reach_the_same_commands(rig, words):
    reply = GameMaster(rig.daemon).handle(words, words=True).result(5)
    assert reply["ok"] and reply["command"] == words


def test_a_mock_rig_without_a_manual_clock_still_works(mock_factory):
    """Rig() as the network tests build it (real time taps) on a closed table."""
    config = make_config(state={"file": ""}, control={"socket": ""})
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(4))
    rig = Rig(daemon, mock_factory)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        GameMaster(daemon).handle({"command": "disable"}).result(5)
        rig.tap("player")
        assert daemon.module.stacks["player"] == []
    finally:
        daemon.stop()
        close_daemon(daemon)
