"""The daemon's inputs on mock pins: chips, holds, bounce, arrows (issue: prop daemon)."""

from __future__ import annotations

import pytest

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


HOLD = 0.5  # hold_seconds in the test config


def test_hold_clears_at_exactly_the_hold_time_and_the_release_adds_nothing(rig):
    """The hold timer reads the rig's clock, as the debounce filters do: the area clears at
    exactly ``hold_seconds`` after the contact closed, not a microsecond before, while the
    contact is still closed; its release then adds no chip."""
    rig.chips("tie", 5, 1)
    rig.events.clear()
    rig.driver.press("tie")
    closed_at = rig.clock()
    rig.driver.wait_until(closed_at + HOLD - 1e-6)
    rig.daemon.wait_idle()
    assert "clear" not in rig.kinds() and rig.daemon.module.stacks["tie"] == [5, 1]
    rig.driver.wait_until(closed_at + HOLD)
    rig.daemon.wait_idle()
    cleared = rig.wait_for("clear", timeout=0)
    assert cleared.area == "tie" and cleared.total == 6
    assert rig.daemon.module.stacks["tie"] == []  # cleared while still held
    assert find_text(rig.frame("bets"), "$6") is None
    rig.driver.wait(0.5)
    rig.driver.release("tie")
    rig.driver.wait(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["tie"] == []
    assert rig.kinds() == ["clear"], rig.kinds()


def test_a_press_shorter_than_the_hold_adds_a_chip_and_never_clears(rig):
    rig.chips("tie", 5)
    rig.events.clear()
    rig.driver.hold("tie", HOLD - 1e-3)
    rig.driver.wait(HOLD)  # long after the release: the cancelled hold never fires
    rig.daemon.wait_idle()
    assert rig.kinds() == ["chip"], rig.kinds()
    assert rig.daemon.module.stacks["tie"] == [5, 5]


def test_a_rig_refuses_a_raw_pin_drive(rig):
    """A raw drive never moves the rig's clock (the debounce filter would drop it whatever
    the code does): only the rig's driver may touch its input pins."""
    pin = rig.daemon.board.inputs["tie"].button.pin
    with pytest.raises(AssertionError, match="rig.driver"):
        pin.drive_low()
    with pytest.raises(AssertionError, match="rig.driver"):
        pin.drive_high()
    rig.driver.tap("tie")  # the driver still may
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["tie"] == [1]


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
    assert rig.daemon.board.deal.pressed_high
    pin = rig.daemon.board.deal.button.pin
    assert not pin.state  # the sensor's output is low until something passes it
    rig.driver.press("deal")
    assert pin.state  # the driver drove it high
    rig.driver.wait(0.03)
    rig.driver.release("deal")
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
