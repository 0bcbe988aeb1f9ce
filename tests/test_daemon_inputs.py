"""The daemon's inputs on mock pins: chips, holds, bounce, arrows (issue: prop daemon)."""

from __future__ import annotations

import time

from baccarat_core.chips import DENOMINATIONS
from tests.pixels import find_text


def _row_of(frame, text):
    found = find_text(frame, text)
    assert found is not None, f"{text!r} not on the bets display"
    return found[1] // 10  # rows are 10 pixels apart; row 0 = Player


def test_chip_press_adds_one_chip_and_redraws_only_the_bets(rig):
    sent = {role: s.frames_sent for role, s in rig.daemon.screens.items()}
    rig.tap("banker")
    assert rig.daemon.module.stacks["banker"] == [1]
    after = {role: s.frames_sent for role, s in rig.daemon.screens.items()}
    assert after["bets"] == sent["bets"] + 1
    assert after["placard"] == sent["placard"] and after["table"] == sent["table"]
    assert _row_of(rig.frame("bets"), "BNK") == _row_of(rig.frame("bets"), "$1") == 1


def test_the_bets_display_shows_chips_bottom_to_top(rig):
    rig.chips("player", 25, 1, 1)
    frame = rig.frame("bets")
    assert find_text(frame, "$27") is not None
    # The chip faces are drawn left (bottom) to right (top): 25, then 1x2.
    assert rig.daemon.module.stacks["player"] == [25, 1, 1]
    assert rig.daemon.call(rig.daemon.scene).result(5).bets.stacks["player"] == (25, 1, 1)


def test_hold_clears_when_the_hold_time_passes_and_the_release_adds_nothing(rig):
    rig.chips("tie", 5, 1)
    pin = rig.pin("tie")
    rig.events.clear()
    started = time.monotonic()
    pin.drive_low()
    cleared = rig.wait_for("clear", timeout=2)
    held_for = time.monotonic() - started
    assert 0.45 <= held_for < 1.0, held_for
    assert cleared.area == "tie" and cleared.total == 6
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["tie"] == []  # cleared while still held
    assert find_text(rig.frame("bets"), "$6") is None
    pin.drive_high()
    rig.daemon.wait_idle()
    time.sleep(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["tie"] == []
    assert "chip" not in rig.kinds()


def test_contact_bounce_never_adds_a_second_chip(rig):
    # Closing: the contact chatters for a few milliseconds (1 ms per edge on the test's
    # clock, so no scheduler stall can stretch it), then stays closed for 60 ms.
    rig.driver.bounce("player", pressed=True, edges=4, gap=0.001)
    rig.driver.wait(0.06)
    # Opening: chatters again.
    rig.driver.bounce("player", pressed=False, edges=4, gap=0.001)
    rig.driver.wait(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["player"] == [1]


def test_chatter_alone_is_not_a_press(rig):
    """Edges 1 ms apart that end open: the contact was never closed for the debounce time."""
    rig.driver.bounce("player", pressed=False, edges=6, gap=0.001)
    rig.driver.wait(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["player"] == []


def test_bounce_on_an_arrow_steps_once(rig):
    rig.driver.bounce("right", pressed=False, edges=5, gap=0.001)
    rig.driver.wait(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.denomination == 5


def test_arrows_step_and_stop_at_both_ends(rig):
    assert find_text(rig.frame("bets"), "CHIP $1") is not None
    rig.tap("left")
    assert rig.daemon.module.denomination == 1
    assert "denomination" not in rig.kinds()
    for value in DENOMINATIONS[1:]:
        rig.tap("right")
        assert rig.daemon.module.denomination == value
    rig.tap("right")
    assert rig.daemon.module.denomination == DENOMINATIONS[-1]
    assert find_text(rig.frame("bets"), "CHIP $100,000") is not None
    for _ in DENOMINATIONS:
        rig.tap("left")
    assert rig.daemon.module.denomination == 1
    assert find_text(rig.frame("bets"), "CHIP $1") is not None


def test_active_high_deal_sensor(rig_factory):
    from tests.conftest import make_config

    rig = rig_factory(make_config(inputs={"deal_active_high": True}))
    pin = rig.pin("deal")
    pin.drive_high()
    rig.driver.wait(0.03)
    pin.drive_low()
    rig.daemon.wait_idle()
    strike = rig.wait_for("strike")
    assert strike.reason == "exclusive"


def test_services_get_their_work_after_the_frame(rig):
    """The settled hook runs once the frame of everything queued is sent: MQTT's, Room 2.0's and
    the web console's work never competes with a frame for the interpreter."""
    order: list[str] = []
    daemon = rig.daemon
    daemon.call(lambda: None).result(5)
    daemon.on_handled.append(lambda events, module: order.append("events"))
    daemon.on_frame.append(lambda role, image: order.append(f"frame {role}"))
    daemon.on_settled.append(lambda events, module: order.append("settled"))
    rig.chips("player", 1)
    daemon.wait_idle()
    first = order.index("events")
    assert order[first : first + 3] == ["events", "frame bets", "settled"], order
