"""Outputs (``[[outputs]]``, issue 22 part 1) on the daemon: gpiozero's mock pins switched by the
game's events as they are shown, by the game master's commands, by their own timers (a pulse, the
``max_on_seconds`` cut-off, which holds even while the game thread is stuck), off at a stop, and
kept over a restart (held ones only, never a pulse)."""

from __future__ import annotations

import threading
import time

import pytest

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.devices.switching import OutputSwitched
from firmware.room.commands import GameMaster
from firmware.simulator.pins import ManualClock
from tests.conftest import Rig, make_config

LOCK = {"name": "lock", "pin": 15, "on": "solved"}  # the reference build's
HORN = {"name": "horn", "pin": 14, "on": "strike", "mode": "pulse", "pulse_seconds": 0.2}


def pin(rig: Rig, name: str):
    """The mock pin under output ``name``."""
    return rig.factory.pin(rig.daemon.board.outputs.wirings[name].pin)


def lit(rig: Rig, name: str) -> bool:
    return bool(pin(rig, name).state)


def levels(rig: Rig, name: str) -> list[bool]:
    """Every level the pin went through, from its first (gpiozero's MockPin records each change)."""
    return [bool(record.state) for record in pin(rig, name).states]


def switched(rig: Rig, name: str) -> list[tuple[bool, str]]:
    return [(e.on, e.cause) for e in rig.events if isinstance(e, OutputSwitched) and e.name == name]


def until(condition, timeout: float = 5.0, step: float = 0.005) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


def winning_side(rig: Rig) -> str:
    game = rig.daemon.module.next_round()
    assert game.winner != "tie", "pick a seed whose next round is not a tie"
    return game.winner


def losing_side(rig: Rig) -> str:
    return "banker" if winning_side(rig) == "player" else "player"


def start_deal(rig: Rig) -> None:
    """The deal gesture, without waiting for the round (``rig.deal()`` waits until it is over)."""
    rig.driver.tap("deal")
    assert until(lambda: rig.daemon.dealing), "no deal started"


# -- events, as they are shown ------------------------------------------------------------------------


def test_the_lock_opens_as_the_result_shows_before_any_hook_and_not_at_the_gesture(rig_factory):
    """The solving round's result: the pin is up before the first hook of that moment runs (sound, the
    console's log) and before its frame; during the cards it is still down."""
    rig = rig_factory(make_config(timing={"card_seconds": 0.05}))
    seen: list[tuple[str, bool]] = []
    rig.daemon.on_shown.append(lambda event: seen.append((event.kind, lit(rig, "lock"))))
    frames: list[bool] = []
    rig.daemon.on_frame.append(lambda role, image: frames.append(lit(rig, "lock")) if role == "table" else None)
    rig.chips(winning_side(rig), 25)
    frames.clear()
    rig.deal()
    rig.wait_for("solved")
    assert until(lambda: switched(rig, "lock") == [(True, "solved")])
    rig.daemon.wait_idle()
    kinds = [kind for kind, _ in seen]
    assert not any(up for kind, up in seen[: kinds.index("round")]), f"the lock opened before the result: {seen}"
    assert dict(seen)["deal"] is False and dict(seen)["card"] is False
    assert dict(seen)["round"] is True, "the result's first hook ran before the lock opened"
    assert frames[0] is False and frames[-1] is True  # the first card's frame: shut; the result's: open
    assert levels(rig, "lock") == [False, True]
    assert rig.daemon.held_outputs() == {"lock": None}
    # Reset (the default off_on) closes it again; a second solve opens it again.
    GameMaster(rig.daemon).handle({"command": "reset"}).result(5)
    assert not lit(rig, "lock") and rig.daemon.held_outputs() == {}
    assert switched(rig, "lock") == [(True, "solved"), (False, "reset")]


def test_with_the_originals_pacing_the_lock_opens_at_the_payout(rig_factory):
    """The deployed timeline (issue 25's original pacing, on the daemon's own clock): the red deck's
    first round wins on Banker and is paid 6.75 s after the gesture. The lock stays shut through
    every card landing and turning, and is open at the payout's first hook and frame."""
    from tests.test_pacing import TICK, Table

    table = Table(rig_factory)
    rig = table.rig
    seen: list[tuple[float, str, bool]] = []
    table.daemon.on_shown.append(lambda e: seen.append((table.clock() - table.gesture, e.kind, lit(rig, "lock"))))
    frames: list[tuple[float, bool]] = []
    table.daemon.on_frame.append(lambda role, image: frames.append((table.clock() - table.gesture, lit(rig, "lock"))))
    game = table.read(table.daemon.module.next_round)
    table.bet(game.winner, 25)
    frames.clear()
    table.deal()
    table.until(6.75 - TICK)
    assert not lit(rig, "lock"), "the lock opened before the result was paid"
    assert seen and not any(up for _, _, up in seen)
    table.until(6.75)
    assert lit(rig, "lock")
    paid = [(kind, up) for at, kind, up in seen if at == 6.75]
    assert paid[0] == ("round", True), f"the payout's first hook ran with the lock shut: {paid}"
    assert [up for at, up in frames if at == 6.75] and all(up for at, up in frames if at == 6.75)
    assert table.read(lambda: table.daemon.module.solved)


def test_a_deal_output_switches_at_the_gesture_before_the_cards(rig_factory):
    rig = rig_factory(
        make_config(
            timing={"card_seconds": 0.1},
            outputs=[LOCK, {"name": "light", "pin": 14, "on": "deal", "mode": "pulse", "pulse_seconds": 5}],
        )
    )
    seen: list[tuple[str, bool]] = []
    rig.daemon.on_shown.append(lambda event: seen.append((event.kind, lit(rig, "light"))))
    rig.chips(losing_side(rig), 25)
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert seen[[kind for kind, _ in seen].index("deal")] == ("deal", True)
    assert switched(rig, "light")[0] == (True, "deal")
    assert rig.daemon.held_outputs() == {}, "a pulse is never kept for a restart"


def test_a_strike_pulses_the_horn_and_gpiozero_ends_the_pulse(rig_factory):
    rig = rig_factory(make_config(outputs=[LOCK, HORN]))
    rig.deal()  # no bet: a strike
    rig.wait_for("strike")
    assert lit(rig, "horn")
    assert until(lambda: not lit(rig, "horn"))
    assert levels(rig, "horn") == [False, True, False]
    on_for = pin(rig, "horn").states[2].timestamp
    assert on_for >= 0.2 - 0.02, f"the pulse lasted {on_for:.3f} s, not its 0.2 s"
    assert until(lambda: switched(rig, "horn") == [(True, "strike"), (False, "ended")])
    assert not lit(rig, "lock"), "a strike does not open the lock"
    assert [e.seconds for e in rig.events if isinstance(e, OutputSwitched) and e.on] == [pytest.approx(0.2)]


def test_an_output_on_reset_has_no_off_event_by_default(rig_factory):
    rig = rig_factory(make_config(outputs=[{"name": "lights", "pin": 15, "on": "reset"}]))
    assert rig.daemon.board.outputs.wirings["lights"].off_on is None
    assert not lit(rig, "lights"), "the start is no reset"
    master = GameMaster(rig.daemon)
    for _ in range(2):
        assert master.handle({"command": "reset"}).result(5)["ok"]
        assert lit(rig, "lights")
    assert switched(rig, "lights") == [(True, "reset")], "held on already: nothing changes"


def test_an_explosion_switches_its_output(rig_factory):
    """With a [bomb] the explosion is an event like the others: a smoke machine on ``exploded``."""
    smoke = {"name": "smoke", "pin": 14, "on": "exploded", "mode": "pulse", "pulse_seconds": 5}
    rig = rig_factory(make_config(bomb={"strike_limit": 1}, outputs=[LOCK, smoke]))
    rig.deal()  # no bet: a strike, the limit's
    rig.wait_for("exploded")
    assert until(lambda: lit(rig, "smoke")) and not lit(rig, "lock")
    assert until(lambda: switched(rig, "smoke") == [(True, "exploded")])


# -- the cut-off ------------------------------------------------------------------------------------


def test_the_cut_off_holds_while_the_game_thread_is_stuck(rig_factory):
    """``max_on_seconds`` is timed by gpiozero's own thread: the pin goes off on time although the game
    thread is busy (here: held by a call); the game records it once it is free again."""
    rig = rig_factory(make_config(outputs=[{**LOCK, "max_on_seconds": 0.2}]))
    GameMaster(rig.daemon).handle({"command": "force_solve"}).result(5)
    assert lit(rig, "lock") and rig.daemon.held_outputs()["lock"] is not None
    stuck, free = threading.Event(), threading.Event()
    blocked = rig.daemon.call(lambda: (stuck.set(), free.wait(10)), during_round=True)
    assert stuck.wait(5)
    try:
        assert until(lambda: not lit(rig, "lock"), timeout=5), "the lock stayed on past its cut-off"
        assert not blocked.done(), "the game thread was not stuck after all"
        assert switched(rig, "lock") == [(True, "solved")]  # nothing recorded yet: the game thread is busy
    finally:
        free.set()
    blocked.result(5)
    assert until(lambda: switched(rig, "lock") == [(True, "solved"), (False, "cut-off")])
    assert rig.daemon.held_outputs() == {}
    assert levels(rig, "lock") == [False, True, False]


def outputs_on_a_manual_clock(rig: Rig) -> ManualClock:
    """The rig's outputs read a :class:`ManualClock` from now on, set an hour past real time (the
    daemon builds them on ``time.monotonic``, with no parameter to change it): a test moves it by
    hand instead of sleeping. gpiozero's thread still times each pulse and cut-off in real time, for
    the length the outputs worked out on this clock; the game thread, which waits for them in real
    time, sleeps until a command wakes it."""
    clock = ManualClock(time.monotonic() + 3600)
    outputs = rig.daemon.board.outputs
    outputs._clock = clock
    for output in outputs.outputs.values():
        output._clock = clock
    return clock


def test_a_command_cannot_keep_an_output_on_past_its_cut_off(rig_factory):
    """The cut-off counts from when the output went on: a pulse asked for 0.2 s later gets the 0.1 s
    left of it, not its own 0.25 s, and gpiozero's thread switches the pin off when that is over."""
    rig = rig_factory(make_config(outputs=[{**LOCK, "max_on_seconds": 0.3, "pulse_seconds": 0.25}]))
    clock = outputs_on_a_manual_clock(rig)
    master = GameMaster(rig.daemon)
    assert master.handle({"command": "output", "name": "lock", "state": "on"}).result(5)["ok"]
    clock.advance(0.2)
    reply = master.handle({"command": "output", "name": "lock", "state": "pulse"}).result(5)  # asks for 0.25 s more
    assert reply["result"]["events"] == [
        {"event": "output", "name": "lock", "on": True, "cause": "command", "seconds": pytest.approx(0.1)}
    ], reply
    assert rig.daemon.held_outputs() == {}, "a pulse is never held over a restart"
    assert until(lambda: not lit(rig, "lock"))
    assert levels(rig, "lock") == [False, True, False]


# -- the game master's commands ----------------------------------------------------------------------


def test_commands_switch_an_output_and_a_bad_one_changes_nothing(rig_factory):
    rig = rig_factory(make_config(outputs=[LOCK, HORN]))
    master = GameMaster(rig.daemon)

    def reply(payload, **kwargs):
        return master.handle(payload, **kwargs).result(5)

    assert reply({"command": "output", "name": "lock", "state": "on"})["result"]["events"] == [
        {"event": "output", "name": "lock", "on": True, "cause": "command", "seconds": None}
    ]
    assert lit(rig, "lock") and rig.daemon.held_outputs() == {"lock": None}
    assert reply("output lock on", words=True)["result"]["events"] == [], "on already: nothing changes"
    assert reply("OUTPUT Lock OFF", words=True)["ok"] and not lit(rig, "lock")
    assert reply("output:horn pulse", words=True)["result"]["events"][0]["seconds"] == pytest.approx(0.2)
    assert lit(rig, "horn") and rig.daemon.held_outputs() == {}
    assert until(lambda: not lit(rig, "horn"))
    rig.daemon.wait_idle()

    before = (levels(rig, "lock"), levels(rig, "horn"), len(rig.events))
    bad = {
        '{"command": "output", "name": "door", "state": "on"}': 'unknown output "door" (known: lock, horn)',
        '{"command": "output", "name": "lock", "state": "open"}': 'state "open" must be on, off or pulse',
        '{"command": "output", "state": "on"}': 'missing "name"',
        '{"command": "output", "name": "lock"}': 'missing "state"',
        '{"command": "output", "name": 7, "state": "on"}': '"name" must be a string, not 7',
        '{"command": "output", "name": "lock", "state": "on", "for": 9}': 'unknown argument "for"',
    }
    for payload, error in bad.items():
        answer = reply(payload)
        assert answer["ok"] is False and error in answer["error"], (payload, answer)
    for words, error in {"output lock on off": "more than one value", "output": 'missing "name"'}.items():
        answer = reply(words, words=True)
        assert answer["ok"] is False and error in answer["error"], (words, answer)
    rig.daemon.wait_idle()
    assert (levels(rig, "lock"), levels(rig, "horn"), len(rig.events)) == before, "a refused command changed something"


def test_a_prop_without_outputs_says_so(rig_factory):
    rig = rig_factory(make_config(outputs=[]))
    answer = GameMaster(rig.daemon).handle("output lock on", words=True).result(5)
    assert answer["error"] == 'output: unknown output "lock" (this prop has none: [[outputs]] in the config)'
    assert GameMaster(rig.daemon).document()["outputs"] == []


def test_a_command_runs_at_once_during_a_deal(rig_factory):
    rig = rig_factory(make_config(timing={"card_seconds": 0.4}))
    rig.chips(losing_side(rig), 25)
    start_deal(rig)
    reply = GameMaster(rig.daemon).handle({"command": "output", "name": "lock", "state": "on"}).result(5)
    assert reply["ok"] and lit(rig, "lock")
    assert rig.daemon.dealing, "the command waited for the deal to end"


def test_the_state_document_lists_each_output(rig_factory):
    rig = rig_factory(make_config(outputs=[LOCK, HORN]))
    master = GameMaster(rig.daemon)
    assert rig.daemon.call(master.document).result(5)["outputs"] == [
        {"name": "lock", "on": False},
        {"name": "horn", "on": False},
    ]
    master.handle({"command": "force_solve"}).result(5)
    status = master.handle({"command": "status"}).result(5)["result"]
    assert status["outputs"] == [{"name": "lock", "on": True}, {"name": "horn", "on": False}]


# -- stop and restart --------------------------------------------------------------------------------


def test_a_stop_turns_the_outputs_off_and_keeps_the_held_ones_for_the_next_start(rig_factory):
    rig = rig_factory(make_config(outputs=[LOCK, {**HORN, "pulse_seconds": 30}]))
    master = GameMaster(rig.daemon)
    master.handle({"command": "force_solve"}).result(5)
    master.handle("output horn pulse", words=True).result(5)
    assert lit(rig, "lock") and lit(rig, "horn")
    rig.daemon.stop()
    assert not lit(rig, "lock") and not lit(rig, "horn")
    assert rig.daemon.held_outputs() == {"lock": None}


def test_the_self_test_switches_a_named_output_and_leaves_a_held_one(mock_factory, short_dir):
    """The pre-game self-test gets the prop's real outputs from attach_services: one it names goes on
    and off again, pin and all; one the game holds on (a lock the solve opened) stays on."""
    from firmware.selftest import SelfTestSettings
    from firmware.services.control.socket import ControlServer

    light = {"name": "light", "pin": 18, "on": "none"}
    config = make_config(state={"file": ""}, control={"socket": str(short_dir / "c.sock")}, outputs=[LOCK, HORN, light])
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device)
    closers = attach_services(daemon, config)
    rig = Rig(daemon, mock_factory)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        # A started service's stop function is its Running's, whose value is what it started.
        started = [getattr(getattr(c, "__self__", None), "value", None) for c in closers]
        (server,) = [value for value in started if isinstance(value, ControlServer)]
        master = server.commands  # the one command path attach_services made
        assert master.self_test.outputs is daemon.board.outputs
        master.self_test.settings = SelfTestSettings(0.02, 0.02, 0.02, 0.1, button_seconds=0.02)
        master.handle({"command": "force_solve"}).result(5)
        assert lit(rig, "lock")
        reply = master.handle({"command": "self_test", "outputs": ["horn", "lock", "light"]}).result(30)
        parts = {(p["part"], p["name"]): p["result"] for p in reply["result"]["parts"]}
        assert parts[("output", "horn")] == parts[("output", "lock")] == parts[("output", "light")] == "ok"
        for name in ("horn", "light"):  # one after the other, each off again
            assert levels(rig, name) == [False, True, False], f"{name} was not switched on and off"
        assert levels(rig, "lock") == [False, True], "the test shut the open lock"
        assert daemon.held_outputs() == {"lock": None}
    finally:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)
