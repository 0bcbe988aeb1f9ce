"""Behaviour no other test held (issue 35 item 3): an arrow's release starts its bounce filter.

A contact chatters as it opens as well as when it closes: the edges just after a release are
bounce, whenever the press began. The arrows and the deck take a press at its leading edge, so
their filter must count from the last edge of either kind, the release included."""

from __future__ import annotations


def test_bounce_just_after_a_long_press_is_released_does_not_step_again(rig):
    rig.driver.press("right")
    rig.driver.wait(0.5)  # a long press: its leading edge is far behind
    rig.driver.release("right")
    rig.driver.wait(0.002)
    rig.driver.press("right")  # the opening contact chatters once, 2 ms after the release
    rig.driver.wait(0.001)
    rig.driver.release("right")
    rig.driver.wait(0.05)
    rig.daemon.wait_idle()
    assert rig.daemon.module.denomination == 5  # one step: $1 -> $5


def test_a_press_after_the_debounce_time_past_a_release_steps_again(rig):
    """The other side of the same filter: a real second press is taken."""
    rig.driver.press("right")
    rig.driver.wait(0.5)
    rig.driver.release("right")
    rig.driver.wait(0.03)  # past debounce_seconds (0.02) after the release
    rig.driver.tap("right")
    rig.daemon.wait_idle()
    assert rig.daemon.module.denomination == 25  # $1 -> $5 -> $25
