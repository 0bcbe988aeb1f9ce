"""Behaviour no other test held (issue 35 item 3): ``doctor`` reads config.txt as the firmware does.

A Raspberry Pi's config.txt takes ``#`` to the end of the line as a comment: a commented-out
``dtparam=i2c_arm=on`` (Raspberry Pi OS ships it so) leaves I2C off, and a setting followed by a
comment is set. doctor tells "I2C is off" (enable it) from "on in config.txt but the bus is
missing" (reboot) by that. The Pi is tests/fakehost.py's, over the fake kernel."""

from __future__ import annotations

import pytest

from firmware.config import DEFAULT_CONFIG
from firmware.doctor import examine
from tests import test_doctor
from tests.test_doctor import line

pi = test_doctor.pi  # the fixture


@pytest.mark.parametrize(
    "text", ["#dtparam=i2c_arm=on", "# dtparam=i2c_arm=on", "   #dtparam=i2c_arm=on", "#  dtparam=i2c=on"]
)
def test_a_commented_out_i2c_line_leaves_i2c_off(pi, text):
    pi.remove("/dev/i2c-1")
    pi.write("/boot/firmware/config.txt", f"[all]\ndtparam=spi=on\n{text}\n")
    bus = line(examine(pi.host(), DEFAULT_CONFIG), "I2C is")
    assert bus.text == "I2C is off: /dev/i2c-1 is missing (placard, table)"
    assert bus.fix.startswith("sudo raspi-config nonint do_i2c 0")


@pytest.mark.parametrize("text", ["dtparam=i2c_arm=on # the displays", "dtparam=i2c_arm=on#displays"])
def test_an_i2c_line_with_a_comment_after_it_is_set(pi, text):
    pi.remove("/dev/i2c-1")
    pi.write("/boot/firmware/config.txt", f"[all]\ndtparam=spi=on\n{text}\n")
    bus = line(examine(pi.host(), DEFAULT_CONFIG), "I2C is")
    assert (bus.text, bus.fix) == ("I2C is on in config.txt but /dev/i2c-1 is missing", "sudo reboot")
