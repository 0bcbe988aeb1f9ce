"""Behaviour no other test held (issue 35 item 3): after a failed write, no frame counts as shown.

luma.oled's real device classes over smbus2, over the recording fake kernel of tests/fakeos.py
(it fails as Linux does). When a frame's transfer fails, what reached the panel is unknown: the
next frame must go out, in full, even when it is the very picture the display showed before the
failure (a chip added, then the area cleared, while the wire was loose)."""

from __future__ import annotations

import errno

import pytest

from firmware.devices.oled import Screen, open_device
from firmware.render import BetsView, render_bets
from tests import fakeos

EMPTY = {"player": (), "banker": (), "tie": (), "player_pair": (), "banker_pair": ()}


@pytest.fixture
def linux(monkeypatch):
    with fakeos.installed(monkeypatch) as kernel:
        yield kernel


def _bets(**stacks) -> BetsView:
    return BetsView({**EMPTY, **stacks}, 1, False, True)


def _same(a, b) -> bool:
    return a.convert("1").tobytes() == b.convert("1").tobytes()


@pytest.mark.parametrize("reopen", [True, False], ids=["reopened", "invalidated"])
def test_the_picture_from_before_a_failed_write_is_sent_again_in_full(linux, reopen):
    chip = linux.i2c_display()

    def factory():
        return open_device("ssd1306", "i2c", width=128, height=64)

    screen = Screen("bets", factory(), reopen=factory if reopen else None)
    before = render_bets(_bets(), (128, 64), "1")
    chip_added = render_bets(_bets(player=(1,)), (128, 64), "1")
    assert screen.show(before)
    chip.fail_next(1, errno.EREMOTEIO, after=1)  # the window command went through, the data did not
    assert not screen.show(chip_added)
    assert screen.failing
    mark = chip.mark()
    assert screen.show(before), "the display's last good picture was taken as still shown"
    assert chip.bytes_since(mark) > 0
    assert not screen.failing
    assert _same(fakeos.panel(chip, "ssd1306", 128, 64), before)
