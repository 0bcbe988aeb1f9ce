"""Behaviour no other test held (issue 35 item 3): the countdown's states.

baccarat_core alone, the clock given as numbers. A countdown that stopped (the module was solved,
or the bomb exploded) never runs again, whatever the table does; time is added to a countdown
that waits or is paused (the game master's extra minute before the players begin) and refused
once the game is over."""

from __future__ import annotations

import pytest

from baccarat_core import events as ev
from baccarat_core.timer import Countdown
from tests.test_bomb_timer import module


@pytest.mark.parametrize("state", ["stopped", "waiting", "running"])
def test_only_a_paused_countdown_resumes(state):
    timer = Countdown(300.0, state=state)
    timer.resume()
    assert timer.state == state


@pytest.mark.parametrize("ending", ["solved", "exploded"])
def test_opening_the_table_after_the_game_ended_never_restarts_the_countdown(ending):
    m = module(300.0)
    m.start_timer()
    m.timer.advance(0.0)
    m.timer.advance(100.0)
    m.set_enabled(False)  # the game master closes the table ...
    if ending == "solved":
        m.force_solve()
    else:
        m.explode("strikes")
    left = m.timer.left
    assert not m.timer.running
    m.set_enabled(True)  # ... and opens it again after the end
    assert not m.timer.running, f"the countdown runs again after the module was {ending}"
    m.timer.advance(200.0)
    assert m.timer.left == left and m.timer.expires_at() is None


@pytest.mark.parametrize("state", ["waiting", "paused"])
def test_time_is_added_to_a_countdown_that_is_not_running(state):
    m = module(300.0)
    if state == "paused":
        m.start_timer()
        m.set_enabled(False)
    assert m.timer.state == state
    events = m.add_time(60)
    assert [e.kind for e in events] == ["time_added"]
    assert m.timer.left == 360.0


@pytest.mark.parametrize("ending", ["solved", "exploded"])
def test_time_is_refused_once_the_game_is_over(ending):
    m = module(300.0)
    m.start_timer()
    if ending == "solved":
        m.force_solve()
    else:
        m.explode("strikes")
    left = m.timer.left
    events = m.add_time(60)
    assert events == [ev.InputIgnored("add time", ending)]
    assert m.timer.left == left
