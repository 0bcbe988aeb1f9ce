"""The solved event tells the hooks how the game went (issue 40 item 3): the strikes, the hints
the game master gave and the seconds since the game began; its published form is unchanged."""

from __future__ import annotations

from baccarat_core import events as ev
from tests.conftest import ManualClock, make_config, served_prop


def _solved_seen(rig) -> list[ev.Solved]:
    return [event for event in rig.events if isinstance(event, ev.Solved)]


def test_the_solved_event_carries_strikes_hints_and_the_time_since_the_game_began(mock_factory, short_dir):
    clock = ManualClock()
    config = make_config(state={"file": ""}, control={"socket": str(short_dir / "c.sock")})
    with served_prop(config, mock_factory, schedule_clock=clock) as rig:
        master = rig.master
        clock.advance(5)
        assert master.handle({"command": "hint"}).result(10)["ok"]
        assert master.handle({"command": "reset"}).result(10)["ok"]  # a new game: its own tally
        clock.advance(40)
        for _ in range(2):
            assert master.handle({"command": "hint"}).result(10)["ok"]
        refused = master.handle({"command": "bet", "bets": {"player": 5000}}).result(10)
        strikes = rig.daemon.module.strikes
        assert strikes >= 1, refused  # a bet over the table's maximum is a strike
        clock.advance(12.25)
        assert master.handle({"command": "force_solve"}).result(10)["ok"]
        rig.daemon.wait_idle()
    (solved,) = _solved_seen(rig)
    assert (solved.strikes, solved.hints, solved.elapsed) == (strikes, 2, 52.25)
    assert solved.to_dict() == {"event": "solved", "forced": True}  # what MQTT, webhooks and history publish
