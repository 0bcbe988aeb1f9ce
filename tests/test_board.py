"""The board below the daemon: one hold timer for every betting area, asleep while nothing is
pressed, and the pin factory the service names, built without scanning entry points."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from firmware.devices.buttons import HoldTimer


def switches(thread: threading.Thread) -> int:
    """The thread's context switches so far, as Linux counts them."""
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return sum(
        int(line.split()[1])
        for line in status.splitlines()
        if line.endswith(tuple("0123456789")) and "ctxt_switches" in line
    )


@pytest.fixture
def timer():
    made = HoldTimer(name="test-holds")
    yield made
    made.close()


def test_calls_come_in_due_order_and_a_cancelled_one_never(timer):
    calls: list[str] = []
    done = threading.Event()
    timer.arm("late", 0.15, lambda: (calls.append("late"), done.set()))
    timer.arm("early", 0.05, lambda: calls.append("early"))
    timer.arm("cancelled", 0.02, lambda: calls.append("cancelled"))
    timer.cancel("cancelled")
    assert done.wait(2)
    assert calls == ["early", "late"]


def test_arming_again_replaces_the_earlier_time(timer):
    fired: list[float] = []
    done = threading.Event()
    start = time.monotonic()
    timer.arm("tie", 0.02, lambda: (fired.append(time.monotonic() - start), done.set()))
    timer.arm("tie", 0.2, lambda: (fired.append(time.monotonic() - start), done.set()))
    assert done.wait(2)
    time.sleep(0.05)
    assert len(fired) == 1 and fired[0] >= 0.2


def test_a_failing_call_is_logged_and_the_next_still_comes(timer, caplog):
    done = threading.Event()

    def broken() -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="baccarat.inputs"):
        timer.arm("bad", 0.01, broken)
        timer.arm("good", 0.05, done.set)
        assert done.wait(2)
    assert any("hold" in r.getMessage() and r.exc_info for r in caplog.records)


def test_close_drops_armed_calls_and_ends_the_thread():
    timer = HoldTimer(name="test-holds-close")
    calls: list[int] = []
    timer.arm("x", 0.05, lambda: calls.append(1))
    timer.close()
    time.sleep(0.1)
    assert calls == []
    assert not timer._thread.is_alive()


def test_nothing_armed_means_no_wakeups(timer):
    # gpiozero's HoldThread woke every 0.1 s per button; this thread sleeps until a hold is due.
    done = threading.Event()
    timer.arm("once", 0.01, done.set)
    assert done.wait(2)
    time.sleep(0.05)
    before = switches(timer._thread)
    time.sleep(0.5)
    assert switches(timer._thread) == before


def test_the_board_runs_no_gpiozero_hold_threads(rig):
    from gpiozero.mixins import HoldThread

    assert not [t for t in threading.enumerate() if isinstance(t, HoldThread)]
    assert len(rig.daemon.board.areas) == 5


# -- the pin factory the service names ----------------------------------------------------------


def test_a_built_in_factory_named_in_the_environment_is_built_without_scanning_entry_points(monkeypatch):
    """GPIOZERO_PIN_FACTORY=lgpio (the service's) or another of gpiozero's own four: imported
    directly, with the same result gpiozero's entry-point scan gives; other names are gpiozero's."""
    import gpiozero.devices
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, PinUnknownPi

    from firmware.devices.board import named_pin_factory

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "NATIVE")  # names are case-insensitive, as in gpiozero
    with pytest.raises(PinUnknownPi) as ours:  # this PC is no Pi: gpiozero's own error, either way
        named_pin_factory()
    with pytest.raises(PinUnknownPi) as theirs:
        Device._default_pin_factory()
    assert str(ours.value) == str(theirs.value)

    def no_scan(**kwargs):
        raise AssertionError("scanned the entry points")

    monkeypatch.setattr(gpiozero.devices, "entry_points", no_scan)
    with pytest.raises(PinUnknownPi):
        named_pin_factory()
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")  # not installed on this PC
    with pytest.raises(BadPinFactory, match=r"^GPIOZERO_PIN_FACTORY=lgpio: No module named 'lgpio'$"):
        named_pin_factory()
    for other in ("mock", "somebody_elses", ""):
        monkeypatch.setenv("GPIOZERO_PIN_FACTORY", other)
        assert named_pin_factory() is None  # gpiozero chooses, as it always did
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY")
    assert named_pin_factory() is None
