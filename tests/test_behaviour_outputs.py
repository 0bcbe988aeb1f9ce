"""Behaviour no other test held (issue 35 item 3): the outputs' timers across a restart and a re-trigger.

The outputs on gpiozero's mock pins (MockFactory), their clock injected. A restart hands back each
held output with the seconds left of its cut-off (what the state file kept)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.devices.outputs import Outputs
from firmware.devices.wiring import OutputWiring
from firmware.simulator.pins import ManualClock

LOCK = OutputWiring("lock", 15, on="solved", max_on_seconds=60)
HORN = OutputWiring("horn", 14, on="strike", mode="pulse", pulse_seconds=30)


@pytest.fixture
def outputs() -> Iterator[tuple[Outputs, ManualClock, MockFactory]]:
    factory = MockFactory()
    clock = ManualClock(100.0)
    made = Outputs([LOCK, HORN], pin_factory=factory, clock=clock)
    yield made, clock, factory
    made.close()
    factory.reset()


def _ever_on(factory: MockFactory, pin: int) -> bool:
    return any(state.state for state in factory.pin(pin).states)


@pytest.mark.parametrize("left", [0.0, -0.5])
def test_a_held_output_whose_cut_off_ran_out_while_the_prop_was_down_stays_off(outputs, left):
    made, _, factory = outputs
    assert made.restore({"lock": left}) == []
    assert not _ever_on(factory, LOCK.pin), "the lock's pin went on, even for an instant"
    assert made.held() == {} and made.states() == [{"name": "lock", "on": False}, {"name": "horn", "on": False}]
    assert made.expire() == [], "a cut-off reported for an output that never came on"


def test_a_held_output_with_time_left_comes_back_for_that_time(outputs):
    made, clock, _ = outputs
    [event] = made.restore({"lock": 20.0})
    assert (event.name, event.on, event.cause) == ("lock", True, "restart")
    assert event.seconds == pytest.approx(20)
    assert made.next_due() == pytest.approx(clock() + 20)


def test_a_pulse_triggered_again_while_on_lasts_its_seconds_from_the_second_trigger(outputs):
    made, clock, factory = outputs
    [first] = made.follow("strike")
    assert first.on and first.seconds == pytest.approx(30)
    clock.advance(20)  # 10 s of the first pulse left
    [again] = made.follow("strike")
    assert again.on and again.seconds == pytest.approx(30), "the second strike's pulse was cut to the first's end"
    assert made.next_due() == pytest.approx(clock() + 30)
    clock.advance(15)  # past the first pulse's end, within the second's
    assert made.expire() == []
    assert factory.pin(HORN.pin).state
    clock.advance(15)
    assert [(e.name, e.on, e.cause) for e in made.expire()] == [("horn", False, "ended")]


def test_the_game_masters_pulse_while_a_pulse_is_on_starts_it_again(outputs):
    made, clock, _ = outputs
    made.command("horn", "pulse")
    clock.advance(25)
    [again] = made.command("horn", "pulse")
    assert again.seconds == pytest.approx(30)
    clock.advance(10)
    assert made.expire() == []


def test_a_saved_output_the_config_no_longer_has_does_not_stop_the_others_coming_back(outputs):
    """mutmut's ``break`` for ``continue``: an output removed from the config since the save."""
    made, _, _ = outputs
    events = made.restore({"door": 10.0, "lock": 10.0})
    assert [(e.name, e.on) for e in events] == [("lock", True)]
