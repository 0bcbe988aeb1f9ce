"""The countdown and the explosion on the prop (issue 24 part 3): the daemon on gpiozero's mock pins
and luma's dummy displays, its clock the rig's manual clock (time moves only when a test says so)."""

from __future__ import annotations

import logging
import random
import threading
import time

import pytest

from baccarat_core import events as ev
from firmware.app import build_daemon, close_daemon, mock_pin_factory
from firmware.devices.displays import open_dummy_device
from firmware.room import saved_state
from firmware.room.commands import GameMaster
from firmware.simulator.pins import ManualClock
from tests import fakeos
from tests.conftest import config_data, make_config
from tests.pixels import find_text, lit_pixels

#: The optional casing display: a 128x32 SSD1306 on a second I2C bus (a mux channel, i2c-gpio).
CASING = {
    "role": "casing",
    "driver": "ssd1306",
    "interface": "i2c",
    "port": 3,
    "address": 0x3C,
    "width": 128,
    "height": 32,
}


def bomb_config(*, casing: bool = False, **bomb):
    displays = config_data()["displays"] + ([CASING] if casing else [])
    return make_config(bomb={"timer_seconds": 300, **bomb}, displays=displays)


def timer_of(daemon):
    """The countdown as the game thread has it now (the call brings it to the clock's reading)."""
    return daemon.call(lambda: (daemon.module.timer.left, daemon.module.timer.state)).result(5)


def command(daemon, name: str, **args) -> dict:
    reply = GameMaster(daemon).handle({"command": name, **args}).result(5)
    assert reply["ok"], reply
    return reply


def shows(rig, role: str, text: str, scale: int = 1) -> bool:
    return find_text(rig.frame(role), text, scale=scale) is not None


# -- the countdown on the clock ---------------------------------------------------------------------


def test_the_countdown_waits_for_the_first_input_then_counts_the_clock(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    rig.clock.advance(500.0)
    assert timer_of(rig.daemon) == (300.0, "waiting")
    before = len(rig.events)
    rig.tap("right")
    assert rig.events[before:] == [ev.TimerStarted(300.0), ev.DenominationChanged(5)]
    left, state = timer_of(rig.daemon)
    assert state == "running" and 299.9 < left <= 300.0  # the tap's own 40 ms may count
    rig.clock.advance(100.0)
    assert timer_of(rig.daemon) == (left - 100.0, "running")


def test_the_countdown_pauses_while_the_table_is_closed(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    rig.tap("right")
    left, _ = timer_of(rig.daemon)
    command(rig.daemon, "disable")
    rig.clock.advance(50.0)
    assert timer_of(rig.daemon) == (left, "paused")
    command(rig.daemon, "enable")
    rig.clock.advance(10.0)
    assert timer_of(rig.daemon) == (left - 10.0, "running")


def test_the_start_command_starts_the_countdown_without_an_input(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    reply = command(rig.daemon, "start")
    assert reply["result"]["events"] == [{"event": "timer_started", "seconds_left": 300.0, "forced": True}]
    rig.clock.advance(30.0)
    assert timer_of(rig.daemon) == (270.0, "running")
    assert command(rig.daemon, "start")["result"]["events"] == []  # it runs already
    reply = command(rig.daemon, "add_time", seconds=-20)
    assert reply["result"]["events"] == [{"event": "time_added", "seconds": -20.0, "seconds_left": 250.0}]


def test_at_zero_the_bomb_explodes_on_every_display_and_takes_no_input(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    shown = []
    rig.daemon.on_shown.append(shown.append)
    rig.tap("right")
    rig.tap("player")
    left, _ = timer_of(rig.daemon)
    rig.clock.advance(left - 0.5)
    assert timer_of(rig.daemon)[1] == "running"
    rig.clock.advance(0.5)
    rig.daemon.wait_idle()
    assert rig.wait_for("exploded") == ev.Exploded("timer", 0)
    assert [e for e in shown if isinstance(e, ev.Exploded)] == [ev.Exploded("timer", 0)]
    assert rig.led("red") and not rig.led("green")
    for role in ("placard", "table", "bets"):
        assert shows(rig, role, "EXPLODED", 2) and shows(rig, role, "TIME RAN OUT"), role
    bets = dict(rig.daemon.module.bets())
    before = len(rig.events)
    for name in ("player", "right", "deal"):
        rig.tap(name)
    ignored = rig.events[before:]
    assert [(e.kind, e.reason) for e in ignored] == [("ignored", "exploded")] * 3
    assert rig.daemon.module.bets() == bets
    rig.clock.advance(60.0)
    assert timer_of(rig.daemon) == (0.0, "stopped")
    command(rig.daemon, "reset")
    assert timer_of(rig.daemon) == (300.0, "waiting")
    assert not rig.led("red") and shows(rig, "table", "PLACE YOUR BETS")


def test_the_strike_limit_explodes_the_bomb_and_the_red_light_stays_on(rig_factory):
    rig = rig_factory(bomb_config(strike_limit=2), schedule_clock="rig")
    rig.deal()  # no bet: strike 1
    rig.deal()  # strike 2: the limit
    assert rig.wait_for("exploded") == ev.Exploded("strikes", 2)
    rig.daemon.wait_idle()
    time.sleep(0.5)  # longer than the strike's 0.3 s flash: a flash would be over
    assert rig.led("red") and not rig.led("green")
    assert shows(rig, "table", "EXPLODED", 2) and shows(rig, "table", "2 STRIKES")


def test_solving_stops_the_countdown_and_shows_the_time_left(rig_factory):
    rig = rig_factory(bomb_config(casing=True), schedule_clock="rig")
    rig.tap("right")
    rig.clock.advance(47.0)
    command(rig.daemon, "force_solve")
    left, state = timer_of(rig.daemon)
    rig.clock.advance(600.0)
    assert timer_of(rig.daemon) == (left, "stopped") and state == "stopped"
    assert shows(rig, "casing", "04", 3) and shows(rig, "casing", "13", 3), "04:13 left on the casing display"
    assert shows(rig, "casing", "DEFUSED")
    assert rig.led("green") and not rig.led("red")


# -- the casing display --------------------------------------------------------------------------------


def test_the_casing_display_shows_the_serial_the_countdown_and_the_strikes(rig_factory):
    rig = rig_factory(bomb_config(casing=True, strike_limit=3), schedule_clock="rig")
    assert shows(rig, "casing", "AB3DE4") and shows(rig, "casing", "05", 3) and shows(rig, "casing", "00", 3)
    inside = [(101 + 10 * k, 2, 105 + 10 * k, 6) for k in range(3)]  # the three strike boxes, top right
    assert [lit_pixels(rig.frame("casing"), box) for box in inside] == [0, 0, 0]
    rig.deal()  # a strike, and the countdown starts
    assert [bool(lit_pixels(rig.frame("casing"), box)) for box in inside] == [True, False, False]
    rig.clock.advance(47.0)
    rig.daemon.wait_idle()
    frame = rig.frame("casing")  # 300 - 47 x 1.25 = 241.25 s left, shown rounded up: 04:02
    assert find_text(frame, "04", scale=3) and find_text(frame, "02", scale=3) and find_text(frame, "AB3DE4")


def test_a_casing_display_shows_the_explosion(rig_factory):
    rig = rig_factory(bomb_config(casing=True, strike_limit=1), schedule_clock="rig")
    rig.deal()
    rig.wait_for("exploded")
    rig.daemon.wait_idle()
    assert shows(rig, "casing", "EXPLODED", 2) and shows(rig, "casing", "AB3DE4")


# -- what the countdown costs: the loop's wake-ups ------------------------------------------------------


class Waits:
    """Every timeout the game loop asks its queue for."""

    def __init__(self, daemon) -> None:
        self.seen: list[float | None] = []
        self._cond = threading.Condition()
        get = daemon._queue.get

        def recording(block=True, timeout=None):
            with self._cond:
                self.seen.append(timeout)
                self._cond.notify_all()
            return get(block, timeout)

        daemon._queue.get = recording

    def next(self, after: int) -> float | None:
        """The first timeout asked for after the first ``after`` (waits for the loop to come round)."""
        deadline = time.monotonic() + 5
        with self._cond:
            while len(self.seen) <= after:
                assert self._cond.wait(max(0.0, deadline - time.monotonic())), "the loop did not come round"
            return self.seen[after]


def idle_wait(rig, waits: Waits) -> float | None:
    """The timeout the loop sleeps with once everything queued is done."""
    mark = len(waits.seen)
    rig.daemon.wait_idle()
    return waits.next(mark)


def test_a_countdown_nobody_shows_wakes_the_game_only_at_zero(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    waits = Waits(rig.daemon)
    assert idle_wait(rig, waits) is None, "nothing runs: the loop sleeps until an input"
    rig.tap("right")
    left, _ = timer_of(rig.daemon)
    assert idle_wait(rig, waits) == pytest.approx(left), "one wake-up, at the explosion"
    rig.daemon.watch_timer("a page", True).result(5)
    assert idle_wait(rig, waits) <= 1.0, "watched: a wake-up for each second shown"
    rig.daemon.watch_timer("a page", False).result(5)
    assert idle_wait(rig, waits) == pytest.approx(left)
    command(rig.daemon, "disable")
    assert idle_wait(rig, waits) is None, "paused: nothing to wake for"


def test_a_casing_display_is_redrawn_once_a_second_shown_and_no_more(rig_factory):
    rig = rig_factory(bomb_config(casing=True), schedule_clock="rig")
    waits = Waits(rig.daemon)
    rig.tap("right")
    timeout = idle_wait(rig, waits)
    assert timeout is not None and 0 < timeout <= 1.0
    screen, table = rig.daemon.screens["casing"], rig.daemon.screens["table"]
    sent, table_sent = screen.frames_sent, table.frames_sent
    rig.clock.advance(0.2)  # within the same shown second: nothing to redraw
    rig.daemon.wait_idle()
    assert screen.frames_sent == sent
    rig.clock.advance(1.0)
    rig.daemon.wait_idle()
    assert screen.frames_sent == sent + 1
    assert table.frames_sent == table_sent, "only the casing display shows the countdown"


def test_watchers_get_a_settled_moment_each_second_shown(rig_factory):
    rig = rig_factory(bomb_config(), schedule_clock="rig")
    master = GameMaster(rig.daemon)
    seen: list[float] = []
    rig.daemon.on_settled.append(lambda events, module: seen.append(master.document()["timer"]["seconds_left"]))
    rig.tap("right")
    rig.clock.advance(1.0)
    rig.daemon.wait_idle()
    assert all(s > 299 for s in seen), "nobody watches: no settled moment for the countdown alone"
    rig.daemon.watch_timer("web", True).result(5)
    for _ in range(3):
        before = len(seen)
        rig.clock.advance(1.0)
        rig.daemon.wait_idle()
        assert len(seen) == before + 1 and seen[-1] < seen[before - 1]


# -- a restart ---------------------------------------------------------------------------------------------


def started_prop(config, clock: ManualClock, module=None):
    daemon = build_daemon(
        config,
        pin_factory=mock_pin_factory(),
        device_factory=open_dummy_device,
        rng=random.Random(1),
        clock=clock,
        schedule_clock=clock,
        module=module,
    )
    daemon.start()
    assert daemon.ready.wait(5)
    return daemon


def stopped(daemon) -> None:
    daemon.stop()
    close_daemon(daemon)


def test_a_restart_counts_the_time_the_prop_was_off_by_the_wall_clock(tmp_path, caplog):
    config = make_config(bomb={"timer_seconds": 300}, state={"file": str(tmp_path / "state.json")})
    path = tmp_path / "state.json"
    clock = ManualClock()
    daemon = started_prop(config, clock)
    keeper = saved_state.StateKeeper(path, config, wall_clock=lambda: 10_000.0)
    daemon.on_handled.append(keeper)
    command(daemon, "start")  # saved at 10,000 s: 300 s left, running
    clock.advance(20.0)  # 20 s pass with no batch: nothing is written ...
    daemon.wait_idle()
    stopped(daemon)
    assert '"left": 300' in path.read_text() and '"saved_at": 10000' in path.read_text()

    restored = saved_state.load_module(path, config, random.Random(1), wall_clock=lambda: 10_090.0)
    assert restored.timer is not None and restored.timer.left == 210.0  # ... the wall clock counts them
    assert restored.timer.running
    with caplog.at_level(logging.WARNING, logger="baccarat.state"):
        early = saved_state.load_module(path, config, random.Random(1), wall_clock=lambda: 9_000.0)
    assert early.timer is not None and early.timer.left == 300.0, "a clock set back takes nothing"
    assert "before the saved game's time" in caplog.text

    late = saved_state.load_module(path, config, random.Random(1), wall_clock=lambda: 20_000.0)
    daemon = started_prop(config, ManualClock(), module=late)
    try:
        assert daemon.module.exploded == "timer", "it ran out while the prop was off: it explodes at the start"
        assert daemon.board.status.red.value
    finally:
        stopped(daemon)


def test_a_paused_countdown_loses_nothing_while_the_prop_is_off(tmp_path):
    config = make_config(bomb={"timer_seconds": 300}, state={"file": str(tmp_path / "state.json")})
    path = tmp_path / "state.json"
    daemon = started_prop(config, ManualClock())
    daemon.on_handled.append(saved_state.StateKeeper(path, config, wall_clock=lambda: 10_000.0))
    command(daemon, "start")
    command(daemon, "disable")
    stopped(daemon)
    restored = saved_state.load_module(path, config, random.Random(1), wall_clock=lambda: 99_000.0)
    assert restored.timer is not None and (restored.timer.left, restored.timer.state) == (300.0, "paused")


def test_a_saved_countdown_needs_the_moment_it_was_saved(tmp_path):
    config = make_config(bomb={"timer_seconds": 300}, state={"file": str(tmp_path / "state.json")})
    path = tmp_path / "state.json"
    daemon = started_prop(config, ManualClock())
    daemon.on_handled.append(saved_state.StateKeeper(path, config, wall_clock=lambda: 10_000.0))
    command(daemon, "start")
    stopped(daemon)
    for bad in ('"saved_at": "10000"', '"saved_at": true', '"saved_at": null'):
        path.write_text(path.read_text().replace('"saved_at": 10000.0', bad).replace('"saved_at": 10000', bad))
        assert bad in path.read_text()
        with pytest.raises(Exception, match="saved_at"):
            saved_state.load_module(path, config, random.Random(1))
        assert saved_state.restore(config, random.Random(1)) is None  # a fresh game, one log line
        path.write_text(path.read_text().replace(bad, '"saved_at": 10000.0'))


def test_another_bomb_in_the_config_starts_a_fresh_game(tmp_path, caplog):
    path = tmp_path / "state.json"
    config = make_config(bomb={"timer_seconds": 300}, state={"file": str(path)})
    daemon = started_prop(config, ManualClock())
    daemon.on_handled.append(saved_state.StateKeeper(path, config))
    command(daemon, "start")
    stopped(daemon)
    other = make_config(bomb={"timer_seconds": 600}, state={"file": str(path)})
    with caplog.at_level(logging.WARNING, logger="baccarat.state"):
        assert saved_state.restore(other, random.Random(1)) is None
    assert "[bomb] (timer, strike limit) changed" in caplog.text


# -- the casing display on the recorded bus ------------------------------------------------------------


def test_each_second_on_a_real_ssd1306_sends_only_the_digits_that_changed(monkeypatch, rig_factory):
    """luma.oled's own device on smbus2 over the fake kernel: after each second the panel, replayed
    from the bytes on the wire, shows the casing display's picture, and a second costs a fraction
    of a full frame."""
    from firmware.devices.displays import open_luma_device
    from tests.test_recorded_bus import same_pixels

    with fakeos.installed(monkeypatch) as linux:
        linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D), linux.spi_device(0, 0, dc=24)
        casing = linux.i2c_display(3, 0x3C)
        rig = rig_factory(bomb_config(casing=True), device_factory=open_luma_device, schedule_clock="rig")
        daemon = rig.daemon
        rig.tap("right")
        full = 2 + 6 + 2 + 128 * 32 // 8
        for _ in range(12):
            mark = casing.mark()
            rig.clock.advance(1.0)
            daemon.wait_idle()
            picture = daemon.call(lambda: daemon.picture("casing")).result(5)
            assert same_pixels(fakeos.panel(casing, "ssd1306", 128, 32), picture)
            assert 0 < casing.bytes_since(mark) < full // 2
