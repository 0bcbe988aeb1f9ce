"""The fakes' records are bounded (issue 35, item 4): the fake kernel's writes, the fake RPi.GPIO's
history and gpiozero's mock pins' ``states`` keep their last :data:`tests.fakeos.KEEP` entries, so a
long run stays flat in memory and a leak of the prop's own would show; positions and byte counts
still cover every write, and a replay that needs a dropped write says so."""

from __future__ import annotations

import sys
import tracemalloc

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins import mock as gpiozero_mock
from gpiozero.pins.mock import MockFactory
from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image, ImageDraw
from smbus2 import SMBus, i2c_msg

from tests import fakeos

KEEP = 64  # the bound these tests set (fakeos.KEEP), so that passing it takes a moment


@pytest.fixture(autouse=True)
def small_records(monkeypatch):
    """Records made during the test keep ``KEEP`` entries."""
    monkeypatch.setattr(fakeos, "KEEP", KEEP)


def _frames(device, count: int) -> None:
    """``count`` frames, each different from the one before (so every one is sent)."""
    for n in range(count):
        image = Image.new("1", device.size)
        ImageDraw.Draw(image).rectangle((n % 100, 0, n % 100 + 20, 20), fill=1)
        device.display(image)


def test_a_displays_record_keeps_its_last_writes_and_counts_them_all(monkeypatch):
    with fakeos.installed(monkeypatch) as linux:
        chip = linux.i2c_display(1, 0x3C)
        device = ssd1306(i2c(port=1, address=0x3C), height=32)
        start, before = chip.mark(), chip.wire_bytes
        _frames(device, 3)
        per_frame = chip.bytes_since(start) / 3
        assert per_frame > 512, "luma sends whole frames over the fake bus"
        _frames(device, 3 * KEEP)  # past the bound several times
        assert len(chip.writes) <= KEEP
        assert chip.writes.dropped > 0 and chip.mark() == chip.writes.dropped + len(chip.writes)
        assert chip.wire_bytes - before == pytest.approx((3 + 3 * KEEP) * per_frame, rel=0.05)
        last = chip.mark()
        _frames(device, 1)
        assert chip.since(last) and chip.bytes_since(last) == pytest.approx(per_frame, rel=0.05)
        with pytest.raises(ValueError, match="dropped"):
            chip.since(start)
        with pytest.raises(ValueError, match="dropped"):
            fakeos.PageRam("ssd1306").feed(chip.writes)  # a replay from part of the record would lie
        with pytest.raises(ValueError, match="dropped"):
            fakeos.panel(chip, "ssd1306", 128, 32)


def test_a_long_run_of_the_fakes_stays_flat_in_memory(monkeypatch):
    """Once the records are full, thousands more transfers, pin changes and GPIO writes (through
    smbus2, spidev, RPi.GPIO and gpiozero, as luma and the board make them) add nothing to what the
    fakes hold: memory that still grew in a long run would be the prop's own."""
    with fakeos.installed(monkeypatch) as linux:
        chip = linux.i2c_display(1, 0x3C)
        node = linux.spi_device(0, 0, dc=24)
        gpio = sys.modules["RPi.GPIO"]
        gpio.setmode(gpio.BCM)
        gpio.setup(24, gpio.OUT)
        spidev = sys.modules["spidev"].SpiDev()
        spidev.open(0, 0)
        bus = SMBus(1)
        factory = MockFactory(pin_class=fakeos.BoundedPWMPin)
        lock = DigitalOutputDevice(15, pin_factory=factory)
        page = list(range(128)) * 8  # a 128x64 frame's bytes

        def run(rounds: int) -> None:
            for n in range(rounds):
                bus.i2c_rdwr(i2c_msg.write(0x3C, [0x40, *page]))
                gpio.output(24, n % 2)
                spidev.writebytes2(page)
                lock.toggle()

        run(2 * KEEP)  # every record is full
        tracemalloc.start(10)
        try:
            full = tracemalloc.take_snapshot()
            run(16 * KEEP)
            later = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        fakes = [tracemalloc.Filter(True, module.__file__, all_frames=True) for module in (fakeos, gpiozero_mock)]
        grown = sum(
            stat.size_diff for stat in later.filter_traces(fakes).compare_to(full.filter_traces(fakes), "filename")
        )
        written = 16 * KEEP * 2 * len(page)  # what records that kept everything would have grown by
        assert grown < written / 10, f"the fakes grew by {grown:,} bytes in a run that wrote {written:,}"
        assert len(chip.writes) <= KEEP and len(node.writes) <= KEEP and len(linux.gpio.history) <= KEEP
        assert chip.mark() == node.mark() == 18 * KEEP and chip.wire_bytes == 18 * KEEP * (2 + len(page))
        states = factory.pin(15).states
        assert len(states) <= KEEP and states.dropped > 0 and bool(states[-1].state) == bool(lock.value)
        lock.close()
        bus.close()
        spidev.close()


def test_a_pins_record_keeps_its_last_changes_in_order():
    factory = MockFactory(pin_class=fakeos.BoundedPWMPin)
    pin = factory.pin(15)
    pin.function = "output"
    pin.clear_states()
    for n in range(KEEP + 10):
        pin.state = n % 2 == 0
    states = pin.states
    assert isinstance(states, fakeos.Tail) and len(states) <= KEEP
    assert states.dropped + len(states) == 1 + KEEP + 10  # the state at clear_states() and each change
    assert [bool(s.state) for s in states[-4:]] == [True, False, True, False]  # the last sets, in order


def test_the_suites_pins_are_bounded(mock_factory):
    pin = mock_factory.pin(15)
    assert isinstance(pin, fakeos.BoundedPWMPin) and isinstance(pin.states, fakeos.Tail)
    assert pin.states.keep == KEEP
