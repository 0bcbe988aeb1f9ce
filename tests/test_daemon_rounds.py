"""Deals on the daemon: strikes with the red flash, a winning round, deck replacement,
pacing (issue: prop daemon)."""

from __future__ import annotations

import time

import pytest

from firmware.devices.lights import DECK_COLORS
from tests.conftest import make_config
from tests.pixels import find_text

FLASH = 0.3  # strike_flash_seconds in the test config


def _red_flashes(rig) -> list[float]:
    """Lengths of the red LED's lit periods, from the mock pin's recorded states
    (gpiozero's MockPin stamps each state with the time since the previous one)."""
    states = rig.daemon.board.status.red.pin.states
    lengths, lit = [], False
    for record in states:
        if record.state and not lit:
            lit = True
        elif not record.state and lit:
            lengths.append(record.timestamp)
            lit = False
    return lengths


def _assert_one_flash(rig) -> None:
    assert rig.led("red"), "the red light is not lit right after the strike"
    time.sleep(FLASH + 0.25)
    assert not rig.led("red")
    assert not rig.led("green")
    flashes = _red_flashes(rig)
    assert len(flashes) == 1 and flashes[0] == pytest.approx(FLASH, abs=0.1), flashes


def _bet_side(rig, *, win: bool) -> str:
    game = rig.daemon.module.next_round()
    assert game.winner != "tie", "pick a seed whose next round is not a tie"
    loser = "banker" if game.winner == "player" else "player"
    return game.winner if win else loser


def test_no_main_bet_is_an_exclusive_strike_with_a_red_flash(rig):
    assert not rig.led("red") and not rig.led("green")
    rig.chips("tie", 5)
    rig.deal()
    strike = rig.wait_for("strike")
    assert strike.reason == "exclusive"
    _assert_one_flash(rig)
    assert rig.daemon.module.stacks["tie"] == [5]  # chips stay
    assert "card" not in rig.kinds()


def test_bets_on_both_sides_are_an_exclusive_strike(rig):
    rig.chips("player", 25)
    rig.chips("banker", 25)
    rig.deal()
    assert rig.wait_for("strike").reason == "exclusive"
    _assert_one_flash(rig)


def test_a_bet_under_the_minimum_is_a_limits_strike(rig):
    rig.chips("player", 5)
    rig.deal()
    strike = rig.wait_for("strike")
    assert strike.reason == "limits" and "$5" in strike.detail
    _assert_one_flash(rig)
    assert find_text(rig.frame("bets"), "$5") is not None  # chips stay


def test_a_disordered_stack_is_a_strike_and_the_dealer_reorders(rig):
    side = _bet_side(rig, win=False)
    rig.chips(side, 1, 25)  # $1 at the bottom, $25 on top: wrong
    rig.deal()
    strikes = [e for e in rig.events if e.kind == "strike"]
    assert strikes[0].reason == "stack_order"
    reorder = rig.wait_for("reorder")
    assert reorder.stacks[side] == (25, 1)
    assert "round" in rig.kinds()  # the deal went on
    assert [s.reason for s in strikes] == ["stack_order", "loss"]


def test_a_losing_round_is_a_loss_strike_and_chips_are_cleared(rig):
    side = _bet_side(rig, win=False)
    rig.chips(side, 25)
    rig.deal()
    strike = rig.wait_for("strike")
    assert strike.reason == "loss"
    _assert_one_flash(rig)
    assert rig.daemon.module.stacks[side] == []
    stacks = rig.frame("bets").crop((0, 0, 128, 50))  # above the active-chip line
    assert find_text(stacks, "$25") is None


def test_a_winning_round_ends_in_steady_green_and_ignores_input(rig):
    side = _bet_side(rig, win=True)
    game = rig.daemon.module.next_round()
    rig.chips(side, 25)
    rig.deal()
    rig.wait_for("solved")
    table = rig.frame("table")
    assert find_text(table, f"{side.upper()} WINS") is not None
    assert find_text(table, f"= {game.player_score}") is not None
    assert find_text(table, f"= {game.banker_score}") is not None
    assert rig.led("green") and not rig.led("red")
    time.sleep(0.3)
    rig.tap("player")
    rig.tap("deal")
    assert rig.led("green") and not rig.led("red")
    assert rig.daemon.module.stacks["player"] == ([25] if side == "player" else [])
    assert rig.kinds().count("solved") == 1


def test_the_deck_is_replaced_and_the_colour_light_follows(rig):
    light = rig.daemon.board.deck_light.led
    assert light.color == pytest.approx(DECK_COLORS["red"])
    assert find_text(rig.frame("table"), "RED DECK 52", dark_on_light=True) is not None
    rig.events.clear()  # forget the first deck's appearance
    for _ in range(12):
        if "deck" in [e.kind for e in rig.events]:
            break
        game = rig.daemon.module.next_round()
        if game.winner == "tie":
            rig.chips("player", 25)  # a push: no strike, no solve
        else:
            rig.chips(_bet_side(rig, win=False), 25)
        rig.deal()
    deck = rig.wait_for("deck")
    assert deck.replaces == "red" and deck.color != "red"
    assert light.color == pytest.approx(DECK_COLORS[deck.color])
    rig.tap("left")  # the next input clears the last hands
    assert find_text(rig.frame("table"), f"{deck.color.upper()} DECK 52", dark_on_light=True) is not None


def test_cards_appear_one_by_one_and_inputs_during_the_deal_are_ignored(rig_factory):
    frames: list[tuple[float, object]] = []

    def recording_factory(cfg):
        from luma.core.device import dummy

        class Recording(dummy):
            def display(self, image):
                super().display(image)
                if cfg.role == "table":
                    frames.append((time.monotonic(), image.copy()))

        return Recording(width=cfg.width, height=cfg.height, mode=cfg.mode)

    rig = rig_factory(make_config(timing={"card_seconds": 0.15}), device_factory=recording_factory)
    side = _bet_side(rig, win=False)
    rig.chips(side, 25)
    frames.clear()
    pin = rig.pin(side)
    rig.pin("deal").drive_low()
    time.sleep(0.3)  # mid-deal: a press on the table is ignored
    pin.drive_low()
    time.sleep(0.05)
    pin.drive_high()
    rig.pin("deal").drive_high()
    rig.wait_for("round", timeout=5)
    rig.daemon.wait_idle()
    times = [t for t, _ in frames]
    assert len(frames) >= 5  # four or more cards, one frame each, then the result
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert sum(1 for g in gaps if g >= 0.12) >= 3, gaps
    assert rig.daemon.module.stacks[side] == []  # the mid-deal press added nothing
    # The final hands stay until the next input.
    time.sleep(0.3)
    final = rig.frame("table")
    assert find_text(final, "WINS") is not None or find_text(final, "TIE") is not None
    rig.tap("right")
    assert find_text(rig.frame("table"), "WINS") is None
