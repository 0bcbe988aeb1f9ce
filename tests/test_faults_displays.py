"""Displays that fail: a loose I2C wire mid-game, and a display missing at start.

The displays are luma.oled's real drivers on the recorded bus (tests/fakeos.py): a
loose wire is a chip that no longer acknowledges (EREMOTEIO), which luma turns into
DeviceNotFoundError, or passes on as OSError when it happens during the data.
"""

from __future__ import annotations

import errno
import logging
import time
from typing import Any

import pytest

from firmware.devices.displays import DisplaySpec, open_dummy_device, open_luma_device
from firmware.simulator.pins import ManualClock
from tests import fakeos
from tests.conftest import make_config
from tests.pixels import find_text

#: The reference build's displays, with the bets display on a second I2C bus (a TCA9548A
#: channel) instead of SPI: SPI has no acknowledge, so a loose SPI wire cannot be noticed.
ALL_I2C = [
    {
        "role": "placard",
        "driver": "ssd1306",
        "interface": "i2c",
        "port": 1,
        "address": 0x3C,
        "width": 128,
        "height": 32,
    },
    {"role": "table", "driver": "ssd1306", "interface": "i2c", "port": 1, "address": 0x3D, "width": 128, "height": 64},
    {"role": "bets", "driver": "sh1106", "interface": "i2c", "port": 3, "address": 0x3C, "width": 128, "height": 64},
]
WHERE = {"placard": (1, 0x3C), "table": (1, 0x3D), "bets": (3, 0x3C)}


@pytest.fixture
def wired(monkeypatch, rig_factory):
    """A rig whose displays are real luma devices on the recorded bus; returns (rig, chips by role)."""
    with fakeos.installed(monkeypatch) as linux:
        chips = {role: linux.i2c_display(*where) for role, where in WHERE.items()}
        yield rig_factory(make_config(displays=ALL_I2C), device_factory=open_luma_device), chips


def _messages(caplog, role: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if f"display {role}" in r.getMessage()]


def _shows_current_state(rig, role: str, chip: fakeos.I2cTarget) -> bool:
    spec = rig.daemon.screens[role].spec
    picture = rig.daemon.call(lambda: rig.daemon.picture(role)).result(5)
    shown = fakeos.panel(chip, spec.driver, spec.width, spec.height)
    return shown.tobytes() == picture.convert("1").tobytes()


def _failed_writes(chip: fakeos.I2cTarget) -> int:
    return sum(1 for w in chip.writes if w.error is not None)


def test_a_display_that_fails_mid_game_comes_back_redrawn_and_nothing_is_lost(wired, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    bets = chips["bets"]
    rig.chips("player", 25)
    assert find_text(rig.frame("bets"), "$25") is not None
    assert _shows_current_state(rig, "bets", bets)

    bets.unplug()
    # Play on while the bets display does not answer: chips, arrows, a whole round.
    rig.chips("player", 25, 100)
    rig.chips("tie", 5)
    failed_at = _failed_writes(bets)
    assert failed_at > 0
    assert rig.daemon.module.bets()["player"] == 150 and rig.daemon.module.bets()["tie"] == 5
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["player"] == [] or rig.daemon.module.solved  # the round was played
    assert find_text(rig.frame("table"), "PLAYER") is not None  # the other displays go on
    assert _shows_current_state(rig, "table", chips["table"])
    assert _failed_writes(bets) > failed_at  # it was retried...
    stopped = [r for r in _messages(caplog, "bets") if "stopped answering" in r.getMessage()]
    assert len(stopped) == 1, "the failure is logged once, not once per frame"
    assert stopped[0].levelno == logging.ERROR
    assert "DeviceNotFoundError" not in stopped[0].getMessage() and "EREMOTEIO" in stopped[0].getMessage()

    # The wire is pushed back: the next input redraws the whole current picture.
    bets.plug()
    mark = bets.mark()
    rig.tap("left")
    assert bets.bytes_since(mark) > 0
    assert _shows_current_state(rig, "bets", bets)
    back = [r for r in _messages(caplog, "bets") if "answers again" in r.getMessage()]
    assert len(back) == 1
    assert len(_messages(caplog, "bets")) == 2  # one line for the failure, one for the return


def test_a_failed_display_is_redrawn_even_by_an_input_that_does_not_change_it(wired, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    bets = chips["bets"]
    bets.unplug()
    rig.chips("player", 1)
    rig.chips("banker", 1)
    assert not _shows_current_state(rig, "bets", bets)
    bets.plug()
    rig.deal()  # both sides bet: an exclusive strike, the chips stay, the bets picture is unchanged
    rig.wait_for("strike")
    rig.daemon.wait_idle()
    assert _shows_current_state(rig, "bets", bets)


def test_a_glitch_between_command_and_data_is_survived_too(wired, caplog):
    """luma passes a NACK during the data transfer on as a bare OSError, not DeviceNotFoundError."""
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    bets = chips["bets"]
    bets.fail_next(1, errno.EREMOTEIO, after=1)  # SH1106: the page command goes through, its data does not
    rig.chips("player", 5)
    assert _failed_writes(bets) == 1
    rig.chips("player", 5)  # the next frame, and the retry, draw it all
    assert _shows_current_state(rig, "bets", bets)
    assert len(_messages(caplog, "bets")) == 2


def test_a_display_that_comes_back_while_nobody_touches_anything_is_redrawn(wired, caplog):
    """A glitch on the last frame of a round (the result, SOLVED) must not leave the
    table stale until somebody presses something: the daemon retries on its own."""
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    table = chips["table"]
    rig.chips("player", 25)
    table.unplug()
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert not _shows_current_state(rig, "table", table)
    table.plug()
    deadline = time.monotonic() + 3
    while not _shows_current_state(rig, "table", table):
        assert time.monotonic() < deadline, "the table display was not redrawn after it came back"
        time.sleep(0.05)
    assert len([r for r in _messages(caplog, "table") if "stopped answering" in r.getMessage()]) == 1


def test_a_display_failing_for_good_costs_one_log_line(wired, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    chips["bets"].unplug()
    chips["table"].unplug()
    for _ in range(20):
        rig.tap("player")
    rig.deal()
    rig.daemon.wait_idle()
    assert rig.daemon.module.strikes == 1  # $20 under the $25 minimum: the game went on
    rig.chips("player", 5)
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert _failed_writes(chips["bets"]) >= 20 and _failed_writes(chips["table"]) >= 4
    for role in ("bets", "table"):
        assert len(_messages(caplog, role)) == 1, [r.getMessage() for r in _messages(caplog, role)]


def test_sigterm_blanks_every_display_that_answers(wired, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    rig, chips = wired
    rig.chips("player", 25)
    chips["table"].unplug()
    rig.daemon.stop()
    for role in ("placard", "bets"):
        spec = rig.daemon.screens[role].spec
        assert fakeos.panel(chips[role], spec.driver, spec.width, spec.height).getbbox() is None, role
    assert [r.getMessage().split(":")[0] for r in caplog.records if "did not blank" in r.getMessage()] == [
        "display table did not blank"
    ]


# -- a display missing at start -------------------------------------------------------------


def _absent_i2c(cfg: DisplaySpec) -> Any:
    """The real luma driver on an I2C bus that is not there (DeviceNotFoundError from ENOENT)."""
    return open_luma_device(
        DisplaySpec(cfg.role, cfg.driver, "i2c", cfg.width, cfg.height, cfg.rotate, port=99, address=cfg.address)
    )


def _no_ack(cfg: DisplaySpec) -> Any:
    """A bus that is there, but nothing answers at the address (EREMOTEIO: luma's DeviceNotFoundError)."""
    return open_luma_device(
        DisplaySpec(cfg.role, cfg.driver, "i2c", cfg.width, cfg.height, cfg.rotate, port=1, address=0x3E)
    )


def _driver_missing(cfg: DisplaySpec) -> Any:
    """The real luma SPI path on a PC: the GPIO library for DC/RST is not installed."""
    return open_luma_device(
        DisplaySpec(cfg.role, cfg.driver, "spi", cfg.width, cfg.height, cfg.rotate, port=0, device=0, dc=24, reset=25)
    )


@pytest.fixture
def bare_machine(monkeypatch):
    """I2C bus 1 enabled with nothing at 0x3E, no bus 99, /dev/spidev0.0, no GPIO library (a PC)."""
    with fakeos.installed(monkeypatch, gpio="missing") as linux:
        linux.i2c_bus(1)
        linux.spi_device(0, 0)
        yield linux


@pytest.mark.parametrize("role", ["placard", "table", "bets"])
@pytest.mark.parametrize("fail", [_absent_i2c, _no_ack, _driver_missing], ids=["no-bus", "no-ack", "no-driver"])
def test_the_daemon_starts_without_a_missing_display_and_says_which(bare_machine, rig_factory, caplog, role, fail):
    caplog.set_level(logging.INFO, logger="baccarat")

    def factory(cfg: DisplaySpec):
        return fail(cfg) if cfg.role == role else open_dummy_device(cfg)

    rig = rig_factory(make_config(), device_factory=factory)
    missing = [r for r in caplog.records if "missing" in r.getMessage()]
    assert len(missing) == 1 and missing[0].levelno == logging.ERROR
    assert f"display {role} is missing" in missing[0].getMessage()
    assert any("ready" in r.getMessage() for r in caplog.records)
    others = [r for r in ("placard", "table", "bets") if r != role]
    for other in others:
        assert rig.frame(other) is not None, f"{other} was not drawn"
    # A whole round, with the missing display's role in play.
    rig.chips("player", 25)
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert rig.daemon.module.cards_left < 52
    if "table" in others:
        assert find_text(rig.frame("table"), "PLAYER") is not None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r not in missing]
    assert len([r for r in caplog.records if f"display {role}" in r.getMessage()]) == 1


@pytest.mark.parametrize("role", ["placard", "bets"])
def test_a_display_without_power_at_start_is_drawn_once_it_answers(monkeypatch, rig_factory, caplog, role):
    """Powered later, or its wire pushed in after the start: no acknowledge at first
    (EREMOTEIO), so the daemon keeps trying every second and draws it in full when it answers."""
    caplog.set_level(logging.INFO, logger="baccarat")
    with fakeos.installed(monkeypatch) as linux:
        chips = {r: linux.i2c_display(*where) for r, where in WHERE.items()}
        chips[role].unplug()
        rig = rig_factory(make_config(displays=ALL_I2C), device_factory=open_luma_device)
        missing = _messages(caplog, role)
        assert len(missing) == 1 and "is missing" in missing[0].getMessage()
        assert "trying again every second" in missing[0].getMessage()
        assert "EREMOTEIO" in missing[0].getMessage()
        rig.chips("player", 5)  # the game goes on meanwhile
        assert rig.daemon.screens[role].failing
        chips[role].plug()
        deadline = time.monotonic() + 3
        while not _shows_current_state(rig, role, chips[role]):
            assert time.monotonic() < deadline, f"the {role} display was not drawn once it answered"
            time.sleep(0.05)
        assert not rig.daemon.screens[role].failing
        said = [r.getMessage() for r in _messages(caplog, role)]
        assert len(said) == 2 and said[1] == f"display {role} answers now; drawn in full", said
        if role == "bets":
            assert find_text(rig.frame("bets"), "$5") is not None
        rig.daemon.stop()  # and SIGTERM blanks it like the others
        spec = rig.daemon.screens[role].spec
        assert fakeos.panel(chips[role], spec.driver, spec.width, spec.height).getbbox() is None


def test_a_display_that_does_not_answer_is_tried_every_second_while_nothing_happens(monkeypatch, rig_factory, caplog):
    """What the log line and the docs promise: every second, on the daemon's own, with nobody
    pressing anything; not more often (a stuck bus is not hammered) and not only on inputs.

    The daemon's schedule reads a clock that stands still, so each wait of its game thread while
    nothing happens is exactly what it plans: a retry interval, which the test reads off the loop
    (no assertion on how long a busy machine took to wake it)."""
    from firmware.game.daemon import RETRY_SECONDS

    caplog.set_level(logging.INFO, logger="baccarat")
    tries: list[float] = []

    def factory(cfg: DisplaySpec) -> Any:
        if cfg.role == "placard":
            tries.append(time.monotonic())
        return open_luma_device(cfg)

    with fakeos.installed(monkeypatch) as linux:
        chips = {r: linux.i2c_display(*where) for r, where in WHERE.items()}
        chips["placard"].unplug()
        rig = rig_factory(make_config(displays=ALL_I2C), device_factory=factory, schedule_clock=ManualClock())
        assert "trying again every second" in _messages(caplog, "placard")[0].getMessage()
        assert RETRY_SECONDS == rig.daemon.retry_seconds == 1.0
        waits: list[float | None] = []
        planned = rig.daemon._timeout  # what the game thread waits for next (None: for ever)
        monkeypatch.setattr(rig.daemon, "_timeout", lambda: waits.append(planned()) or waits[-1])
        seen = len(tries)
        deadline = time.monotonic() + 30
        while len(tries) < seen + 4:
            assert time.monotonic() < deadline, f"{len(tries) - seen} tries in 30 s"
            time.sleep(0.05)
        idle = [b - a for a, b in zip(tries[seen:], tries[seen + 1 :], strict=False)]
        assert all(gap >= 0.99 for gap in idle), idle  # a wait of a second is never cut short
        assert waits and set(waits) == {RETRY_SECONDS}, waits  # and never longer: tried every second
        assert len(_messages(caplog, "placard")) == 1  # each try is silent
        chips["placard"].plug()
        deadline = time.monotonic() + 10
        while not _shows_current_state(rig, "placard", chips["placard"]):
            assert time.monotonic() < deadline, "the placard was not drawn once it answered"
            time.sleep(0.05)


def test_a_display_whose_bus_is_missing_is_not_tried_again(bare_machine, rig_factory, caplog):
    """No /dev/i2c-99 (ENOENT) does not change while the prop runs: one line, no retries."""
    caplog.set_level(logging.INFO, logger="baccarat")

    def factory(cfg: DisplaySpec):
        calls.append(cfg.role)
        return _absent_i2c(cfg) if cfg.role == "table" else open_dummy_device(cfg)

    calls: list[str] = []
    rig = rig_factory(make_config(), device_factory=factory)
    said = _messages(caplog, "table")
    assert len(said) == 1 and said[0].getMessage().endswith("running without it until the prop restarts")
    assert not rig.daemon.screens["table"].failing
    time.sleep(1.3)  # past the daemon's retry interval
    rig.daemon.wait_idle()
    assert calls.count("table") == 1
