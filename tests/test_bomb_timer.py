"""The bomb's countdown and strike limit in the rules (issue 24 part 3): baccarat_core alone, the
clock given as numbers (never the wall clock)."""

from __future__ import annotations

import json
import random

import pytest

from baccarat_core import BaccaratError, BaccaratModule, Edgework, TableLimits
from baccarat_core import events as ev
from baccarat_core.inputs import Arrow, Deal, Hold, Press
from baccarat_core.timer import MAX_TIMER_SECONDS, BombRules, Countdown, clock_text, rate_after, shown_seconds

EDGEWORK = Edgework("AB3DE4", ports=("Parallel",), lit=("FRK",), unlit=())


def module(timer: float | None = 300.0, limit: int | None = None, *, speed_up: bool = True, seed: int = 1):
    m = BaccaratModule(
        EDGEWORK,
        TableLimits(5, 200),
        rng=random.Random(seed),
        first_color="red",
        rules=BombRules(timer, limit, speed_up),
    )
    m.start()
    return m


def kinds(events: list[ev.Event]) -> list[str]:
    return [e.kind for e in events]


def bet_five(m: BaccaratModule, area: str) -> None:
    """A $5 chip (the table's minimum) on ``area``."""
    while m.denomination < 5:
        m.handle(Arrow("right"))
    m.handle(Press(area))


def losing_side(m: BaccaratModule) -> str:
    game = m.next_round()
    assert game.winner != "tie"
    return "player" if game.winner == "banker" else "banker"


# -- the game's rule, and the arithmetic on clock readings --------------------------------------------


def test_each_strike_runs_the_timer_a_quarter_faster_up_to_twice_as_fast():
    assert rate_after(0) == 1.0
    assert rate_after(1) == 1.25  # the game: 1.25x after one strike
    assert rate_after(2) == 1.5  # and 1.5x after two
    assert rate_after(3) == 1.75
    assert rate_after(4) == rate_after(50) == 2.0


def test_a_countdown_counts_only_the_readings_it_is_given():
    timer = Countdown(300.0)
    timer.advance(1000.0)
    timer.advance(1100.0)
    assert timer.left == 300.0, "a countdown that waits does not count"
    assert timer.start()
    assert not timer.start(), "a second start changes nothing"
    timer.advance(1160.0)
    assert timer.left == 240.0
    timer.pause()
    timer.advance(1500.0)
    assert timer.left == 240.0, "paused"
    timer.resume()
    timer.rate = 1.5
    timer.advance(1510.0)
    assert timer.left == 225.0
    timer.advance(1400.0)  # a clock reading from the past changes nothing
    assert timer.left == 225.0 and timer.at == 1510.0
    assert timer.left_at(1520.0) == 210.0 and timer.left == 225.0  # reading ahead changes nothing
    assert timer.expires_at() == 1510.0 + 225.0 / 1.5
    timer.advance(2000.0)
    assert timer.left == 0.0 and timer.done
    timer.stop()
    timer.advance(3000.0)
    assert timer.left == 0.0 and not timer.running


def test_the_next_shown_second_comes_when_the_rounded_up_seconds_change():
    timer = Countdown(10.0)
    timer.advance(0.0)
    timer.start()
    assert timer.shown() == 10 and clock_text(timer.left) == "00:10"
    due = timer.next_second_at()
    assert due == 1.0
    timer.advance(due)
    assert timer.shown() == 9
    timer.rate = 2.0
    assert timer.next_second_at() == 1.5
    timer.advance(1.25)
    assert timer.shown() == 9 and timer.next_second_at() == 1.5
    assert shown_seconds(0.3) == 1 and shown_seconds(0.0) == 0 and shown_seconds(2.0000000001) == 2
    assert clock_text(3599.5) == "1:00:00" and clock_text(59.01) == "01:00"


# -- the module: when the countdown starts, pauses, speeds up and stops ------------------------------


@pytest.mark.parametrize(
    "action", [Press("player"), Hold("tie"), Arrow("right"), Arrow("left"), Deal()], ids=lambda a: repr(a)
)
def test_the_first_player_input_starts_the_countdown(action):
    m = module()
    assert m.timer is not None and m.timer.state == "waiting"
    events = m.handle(action)
    assert events[0] == ev.TimerStarted(300.0)  # even an arrow that cannot move, as a touch of the module
    assert m.timer.running
    assert "timer_started" not in kinds(m.handle(Press("player")))


def test_a_closed_table_ignores_the_input_and_the_countdown_waits():
    m = module()
    m.set_enabled(False)
    assert kinds(m.handle(Press("player"))) == ["ignored"]
    assert m.timer is not None and m.timer.state == "waiting"
    assert m.start_timer() == [ev.TimerStarted(300.0, forced=True)]
    assert m.timer.state == "paused", "started by the game master while closed: it runs once opened"
    m.set_enabled(True)
    assert m.timer.running
    m.set_enabled(False)
    assert m.timer.state == "paused"
    assert m.start_timer() == []


def test_strikes_speed_the_countdown_up_only_with_speed_up():
    fast, steady = module(speed_up=True), module(speed_up=False)
    for m in (fast, steady):
        m.handle(Deal())  # no bet: a strike
        m.handle(Deal())
    assert fast.timer is not None and fast.timer.rate == 1.5
    assert steady.timer is not None and steady.timer.rate == 1.0
    fast.reset()
    assert fast.timer.rate == 1.0 and fast.timer.state == "waiting" and fast.timer.left == 300.0


def test_solving_stops_the_countdown_at_the_time_left():
    m = module()
    m.handle(Press("player"))
    assert m.timer is not None
    m.timer.advance(0.0)
    m.timer.advance(42.5)
    m.force_solve()
    m.timer.advance(500.0)
    assert m.timer.state == "stopped" and m.timer.left == 257.5
    assert m.expire() == [] and m.explode("timer") == [], "a solved bomb does not explode"


def test_a_winning_round_stops_the_countdown():
    m = module()
    winner = m.next_round().winner
    assert winner != "tie"
    bet_five(m, winner)
    events = m.handle(Deal())
    assert "solved" in kinds(events)
    assert m.timer is not None and m.timer.state == "stopped"


# -- the explosion -------------------------------------------------------------------------------------


def test_the_countdown_running_out_explodes_the_bomb_and_nothing_is_taken_after():
    m = module()
    m.handle(Deal())  # a strike
    assert m.timer is not None
    assert m.expire() == [], "it has not run out"
    m.timer.advance(0.0)
    m.timer.advance(1000.0)
    assert m.expire() == [ev.Exploded("timer", 1)]
    assert m.exploded == "timer" and m.timer.left == 0.0 and m.timer.state == "stopped"
    assert m.expire() == [], "one explosion"
    for action in (Press("player"), Hold("tie"), Arrow("right"), Deal()):
        events = m.handle(action)
        assert kinds(events) == ["ignored"] and events[0].reason == "exploded", action
    assert m.force_solve() == [ev.InputIgnored("force solve", "exploded")]
    assert m.bets()["player"] == 0 and m.strikes == 1
    reset = m.reset()
    assert reset[0] == ev.ModuleReset() and m.exploded is None
    assert m.timer.state == "waiting" and m.timer.left == 300.0 and m.strikes == 0
    assert "chip" in kinds(m.handle(Press("player")))


def test_the_strike_limit_explodes_at_its_strike():
    m = module(timer=None, limit=3)
    assert m.timer is None
    assert kinds(m.handle(Deal())) == ["deal", "strike"]
    assert kinds(m.handle(Deal())) == ["deal", "strike"]
    events = m.handle(Deal())
    assert events[-2:] == [ev.Strike("exclusive", "no bet on Player or Banker", 3), ev.Exploded("strikes", 3)]
    assert m.exploded == "strikes"
    assert m.handle(Deal()) == [ev.InputIgnored("deal", "exploded")]


def test_without_a_limit_strikes_never_explode():
    m = module(timer=None, limit=None)
    for _ in range(10):
        assert "exploded" not in kinds(m.handle(Deal()))
    assert m.exploded is None and m.strikes == 10


def test_a_losing_round_at_the_limit_shows_its_cards_then_explodes():
    m = module(limit=1)
    bet_five(m, losing_side(m))
    events = m.handle(Deal())
    assert kinds(events)[-3:] == ["round", "strike", "exploded"]
    assert events[-1] == ev.Exploded("strikes", 1)
    assert m.timer is not None and m.timer.state == "stopped"


def test_a_stack_order_strike_at_the_limit_deals_no_cards():
    m = module(limit=1)
    m.handle(Press("banker"))
    for _ in range(2):
        m.handle(Arrow("right"))
    m.handle(Press("banker"))  # a $25 chip on a $1 chip: out of order
    events = m.handle(Deal())
    assert kinds(events) == ["deal", "reorder", "strike", "exploded"]
    assert m.cards_left == 52


# -- the game master's time ------------------------------------------------------------------------------


def test_add_time_adds_takes_away_and_at_zero_explodes():
    m = module()
    assert m.add_time(60) == [ev.TimeAdded(60.0, 360.0)]
    assert m.add_time(-100.5) == [ev.TimeAdded(-100.5, 259.5)]
    assert m.add_time(MAX_TIMER_SECONDS) == [ev.TimeAdded(MAX_TIMER_SECONDS, MAX_TIMER_SECONDS)]
    events = m.add_time(-MAX_TIMER_SECONDS)
    assert events == [ev.TimeAdded(-MAX_TIMER_SECONDS, 0.0), ev.Exploded("timer", 0)]
    assert m.add_time(10) == [ev.InputIgnored("add time", "exploded")]


@pytest.mark.parametrize("bad", [True, "60", float("nan"), float("inf"), MAX_TIMER_SECONDS + 1, None, [60]])
def test_add_time_refuses_what_is_not_seconds(bad):
    m = module()
    with pytest.raises(BaccaratError, match="time to add"):
        m.add_time(bad)
    assert m.timer is not None and m.timer.left == 300.0


def test_a_bomb_without_a_timer_says_so():
    m = module(timer=None)
    with pytest.raises(BaccaratError, match="no timer"):
        m.start_timer()
    with pytest.raises(BaccaratError, match="no timer"):
        m.add_time(30)


# -- the saved game ------------------------------------------------------------------------------------------


def saved(m: BaccaratModule) -> dict:
    return json.loads(json.dumps(m.snapshot()))  # as the state file has it


def test_the_countdown_and_the_explosion_are_part_of_the_saved_game():
    rules = BombRules(300.0, 3)
    m = module(300.0, 3)
    m.handle(Deal())
    assert m.timer is not None
    m.timer.advance(0.0)
    m.timer.advance(12.3456)
    back = BaccaratModule.restore(saved(m), rules=rules)
    assert back.timer is not None
    assert (back.timer.state, back.timer.left, back.timer.rate) == ("running", 300 - 12.3456 * 1.25, 1.25)
    assert back.timer.at is None, "a clock reading never outlives the process"
    m.handle(Deal())
    m.handle(Deal())
    back = BaccaratModule.restore(saved(m), rules=rules)
    assert back.exploded == "strikes" and back.timer is not None and back.timer.state == "stopped"
    assert back.handle(Press("player")) == [ev.InputIgnored("press player", "exploded")]


def test_a_game_without_a_bomb_saves_exactly_as_before():
    m = module(timer=None)
    assert "timer" not in m.snapshot() and "exploded" not in m.snapshot()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(timer="300"), "is not an object"),
        (lambda s: s["timer"].update(left="12"), "saved time left"),
        (lambda s: s["timer"].update(left=-1), "saved time left"),
        (lambda s: s["timer"].update(left=True), "saved time left"),
        (lambda s: s["timer"].update(left=1e300), "saved time left"),
        (lambda s: s["timer"].update(state="ticking"), "saved timer state"),
        (lambda s: s["timer"].update(seconds=600), "not the bomb's"),
        (lambda s: s["timer"].update(extra=1), "is not an object with"),
        (lambda s: s["timer"].pop("state"), "is not an object with"),
        (lambda s: s.pop("timer"), "has no timer"),
        (lambda s: s.update(exploded="fire"), "saved explosion cause"),
        (lambda s: s.update(exploded="timer", solved=True), "both solved and exploded"),
    ],
)
def test_a_damaged_saved_countdown_is_refused_with_one_line(change, message):
    data = saved(module())
    change(data)
    with pytest.raises(BaccaratError, match=message) as caught:
        BaccaratModule.restore(data, rules=BombRules(300.0))
    assert "\n" not in str(caught.value)


def test_a_saved_countdown_on_a_bomb_without_one_is_refused():
    with pytest.raises(BaccaratError, match="has a timer, and the bomb has none"):
        BaccaratModule.restore(saved(module()), rules=BombRules())
