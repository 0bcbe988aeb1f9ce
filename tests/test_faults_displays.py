"""Displays that fail: a loose I2C wire mid-game, and a display missing at start."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from luma.core.device import dummy

from firmware.devices.displays import DisplaySpec, open_dummy_device, open_luma_device
from tests.conftest import make_config
from tests.pixels import find_text


class LooseWire(dummy):
    """A luma dummy device whose bus can fail: ``display()`` raises OSError while
    ``broken`` (as smbus2 does on a NACK), and works again afterwards."""

    def __init__(self, cfg: DisplaySpec) -> None:
        super().__init__(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=cfg.mode)
        self.broken = False
        self.attempts = 0
        self.frames: list[Any] = []

    def display(self, image) -> None:
        self.attempts += 1
        if self.broken:
            raise OSError(121, "Remote I/O error")
        super().display(image)
        self.frames.append(self.image)


def loose_wire_factory(*roles: str):
    devices: dict[str, LooseWire] = {}

    def factory(cfg: DisplaySpec):
        if cfg.role in roles:
            devices[cfg.role] = LooseWire(cfg)
            return devices[cfg.role]
        return open_dummy_device(cfg)

    return factory, devices


def _messages(caplog, role: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if f"display {role}" in r.getMessage()]


def _shows_current_state(rig, role: str) -> bool:
    screen = rig.daemon.screens[role]
    picture = rig.daemon.call(lambda: rig.daemon.picture(role)).result(5)
    return screen.device.image.tobytes() == picture.convert(screen.device.mode).tobytes()


def test_a_display_that_fails_mid_game_comes_back_redrawn_and_nothing_is_lost(rig_factory, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    factory, devices = loose_wire_factory("bets")
    rig = rig_factory(device_factory=factory)
    bets = devices["bets"]
    rig.chips("player", 25)
    assert find_text(rig.frame("bets"), "$25") is not None

    bets.broken = True
    # Play on while the bets display does not answer: chips, arrows, a whole round.
    rig.chips("player", 25, 100)
    rig.chips("tie", 5)
    failed_at = bets.attempts
    assert failed_at > 0 and bets.frames[-1] is not None
    assert rig.daemon.module.bets()["player"] == 150 and rig.daemon.module.bets()["tie"] == 5
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["player"] == [] or rig.daemon.module.solved  # the round was played
    assert find_text(rig.frame("table"), "PLAYER") is not None  # the other displays go on
    assert bets.attempts > failed_at  # it was retried...
    stopped = [r for r in _messages(caplog, "bets") if "stopped answering" in r.getMessage()]
    assert len(stopped) == 1, "the failure is logged once, not once per frame"
    assert stopped[0].levelno == logging.ERROR

    # The wire is pushed back: the next input redraws the whole current picture.
    bets.broken = False
    frames_before = len(bets.frames)
    rig.tap("left")
    assert len(bets.frames) > frames_before
    assert _shows_current_state(rig, "bets")
    back = [r for r in _messages(caplog, "bets") if "answers again" in r.getMessage()]
    assert len(back) == 1
    assert len(_messages(caplog, "bets")) == 2  # one line for the failure, one for the return


def test_a_failed_display_is_redrawn_even_by_an_input_that_does_not_change_it(rig_factory, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    factory, devices = loose_wire_factory("bets")
    rig = rig_factory(device_factory=factory)
    bets = devices["bets"]
    bets.broken = True
    rig.chips("player", 1)
    rig.chips("banker", 1)
    stale = bets.frames[-1]
    bets.broken = False
    rig.deal()  # both sides bet: an exclusive strike, the chips stay, the bets picture is unchanged
    rig.wait_for("strike")
    rig.daemon.wait_idle()
    assert bets.frames[-1] is not stale
    assert _shows_current_state(rig, "bets")
    assert find_text(bets.image, "$1") is not None


def test_a_display_that_comes_back_while_nobody_touches_anything_is_redrawn(rig_factory, caplog):
    """A glitch on the last frame of a round (the result, SOLVED) must not leave the
    table stale until somebody presses something: the daemon retries on its own."""
    caplog.set_level(logging.INFO, logger="baccarat")
    factory, devices = loose_wire_factory("table")
    rig = rig_factory(device_factory=factory)
    table = devices["table"]
    rig.chips("player", 25)
    table.broken = True
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert not _shows_current_state(rig, "table")
    picture = rig.daemon.call(lambda: rig.daemon.picture("table")).result(5).tobytes()
    table.broken = False
    deadline = time.monotonic() + 3
    while table.image is None or table.image.tobytes() != picture:
        assert time.monotonic() < deadline, "the table display was not redrawn after it came back"
        time.sleep(0.05)
    assert len([r for r in _messages(caplog, "table") if "stopped answering" in r.getMessage()]) == 1


def test_a_display_failing_for_good_costs_one_log_line(rig_factory, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    factory, devices = loose_wire_factory("bets", "table")
    rig = rig_factory(device_factory=factory)
    devices["bets"].broken = devices["table"].broken = True
    for _ in range(20):
        rig.tap("player")
    rig.deal()
    rig.daemon.wait_idle()
    assert rig.daemon.module.strikes == 1  # $20 under the $25 minimum: the game went on
    rig.chips("player", 5)
    rig.deal()
    rig.wait_for("round")
    rig.daemon.wait_idle()
    assert devices["bets"].attempts >= 20 and devices["table"].attempts >= 4
    for role in ("bets", "table"):
        assert len(_messages(caplog, role)) == 1, [r.getMessage() for r in _messages(caplog, role)]


# -- a display missing at start -------------------------------------------------------------


def _absent_i2c(cfg: DisplaySpec) -> Any:
    """The real luma driver on an I2C bus that is not there (DeviceNotFoundError)."""
    return open_luma_device(
        DisplaySpec(cfg.role, cfg.driver, "i2c", cfg.width, cfg.height, cfg.rotate, port=99, address=cfg.address)
    )


def _no_ack(cfg: DisplaySpec) -> Any:
    """A bus that is there, but nothing answers at the address (smbus2's OSError 121)."""
    raise OSError(121, "Remote I/O error")


def _driver_missing(cfg: DisplaySpec) -> Any:
    """The real luma SPI path on a PC: the GPIO library for DC/RST is not installed."""
    return open_luma_device(
        DisplaySpec(cfg.role, cfg.driver, "spi", cfg.width, cfg.height, cfg.rotate, port=0, device=0, dc=24, reset=25)
    )


@pytest.mark.parametrize("role", ["placard", "table", "bets"])
@pytest.mark.parametrize("fail", [_absent_i2c, _no_ack, _driver_missing], ids=["no-bus", "no-ack", "no-driver"])
def test_the_daemon_starts_without_a_missing_display_and_says_which(rig_factory, caplog, role, fail):
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
