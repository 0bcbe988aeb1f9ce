"""Deals on the daemon: strikes with the red flash, a winning round, deck replacement,
pacing (issue: prop daemon)."""

from __future__ import annotations

import threading
import time

import pytest

from firmware.devices.lights import DECK_COLORS
from firmware.simulator.pins import ManualClock
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
    """One red flash of FLASH seconds, then dark. gpiozero's blink thread times it on the machine's
    clock, so its length is checked from below exactly and from above with room for a busy machine
    (a loaded CI once held the light 0.1 s past the old bound); the pin's record says what happened, whenever
    this thread gets to look."""
    deadline = time.monotonic() + 10
    while (rig.led("red") or not _red_flashes(rig)) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(FLASH)  # time enough for a second flash, if one were coming
    assert not rig.led("red")
    assert not rig.led("green")
    flashes = _red_flashes(rig)
    assert len(flashes) == 1 and FLASH - 0.01 <= flashes[0] <= FLASH + 0.5, flashes  # the default (1 s) fails


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

    # A result shown for 0.5 s: the deal lasts a second or more after its first card.
    rig = rig_factory(
        make_config(timing={"card_seconds": 0.15, "result_seconds": 0.5}), device_factory=recording_factory
    )
    side = _bet_side(rig, win=False)
    rig.chips(side, 25)
    frames.clear()
    rig.events.clear()
    # The game thread stops at the first card (a shown hook) while a chip press, an arrow
    # and a hold arrive: each is queued during the deal, deterministically, however
    # loaded the machine is. A read-only call queued behind them reports whether the deal
    # was still on when they were handled.
    first_card, go_on = threading.Event(), threading.Event()

    def stop_at_the_first_card(event) -> None:
        if event.kind == "card" and not first_card.is_set():
            first_card.set()
            assert go_on.wait(5)

    rig.daemon.on_shown.append(stop_at_the_first_card)
    rig.driver.press("deal")
    assert first_card.wait(5)
    rig.driver.tap(side)
    rig.driver.tap("right")
    rig.driver.hold("player" if side == "banker" else "banker", 0.6)
    still_dealing = rig.daemon.call(lambda: rig.daemon.dealing, during_round=True)
    go_on.set()
    assert still_dealing.result(5), "the inputs were handled after the deal (a stall of over a second?)"
    rig.driver.release("deal")
    rig.wait_for("round", timeout=5)
    rig.daemon.wait_idle()
    times = [t for t, _ in frames]
    assert len(frames) >= 5  # four or more cards, one frame each, then the result
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert sum(1 for g in gaps if g >= 0.12) >= 3, gaps
    assert rig.daemon.module.stacks[side] == []  # the mid-deal press added nothing
    assert rig.daemon.module.denomination == 25  # the arrow did not move it
    assert not {"chip", "denomination", "clear"} & set(rig.kinds()), rig.kinds()
    # The final hands stay until the next input.
    time.sleep(0.3)
    final = rig.frame("table")
    assert find_text(final, "WINS") is not None or find_text(final, "TIE") is not None
    rig.tap("right")
    assert find_text(rig.frame("table"), "WINS") is None


# -- the original's timing: the pause after a round, the dealer's stacks, the new deck's count --


def _until_the_next_round_replaces_the_deck(rig) -> None:
    """Play rounds that neither solve nor need a solve until the next one empties the deck below 26."""
    for _ in range(12):
        module = rig.daemon.module
        if module.cards_left - len(module.next_round().order) < 26:
            return
        game = module.next_round()
        rig.chips("player" if game.winner == "tie" else _bet_side(rig, win=False), 25)
        rig.deal()
    raise AssertionError("the deck was never about to be replaced")


def test_the_replacement_deck_reads_the_solved_count_of_the_moment_it_appears(rig):
    """As in the original, the new deck is made after the cards and the pause: a module solved
    elsewhere on the bomb during the deal counts. Reference edgework and limits: letter D (4),
    digit 3, so the first index is 4 + 78 + solved - 52: 30 with 0 solved, 37 with 7."""
    _until_the_next_round_replaces_the_deck(rig)
    rig.daemon.card_seconds = 0.1
    rig.daemon.result_seconds = 0.4
    game = rig.daemon.module.next_round()
    rig.chips("player" if game.winner == "tie" else _bet_side(rig, win=False), 25)
    rig.events.clear()
    shown: list[str] = []
    first_card, go_on = threading.Event(), threading.Event()

    def watch(event) -> None:  # holds the game thread at the first card, so the count comes mid-deal
        shown.append(event.kind)
        if event.kind == "card" and not first_card.is_set():
            first_card.set()
            assert go_on.wait(5)

    rig.daemon.on_shown.append(watch)
    rig.driver.press("deal")
    assert first_card.wait(5)
    count = rig.daemon.set_solved(7)  # mid-deal: the bomb reports 7 solved modules
    during = rig.daemon.call(lambda: (rig.daemon.dealing, rig.daemon.module.edgework.solved), during_round=True)
    go_on.set()
    assert during.result(5) == (True, 0), "the count was applied before the deal was over"
    rig.driver.release("deal")
    deck = rig.wait_for("deck", timeout=5)
    assert count.result(5)[0].kind == "solved_count"
    assert deck.replaces == "red"
    assert (deck.solved, deck.first_index) == (7, 37)
    kinds = rig.kinds()
    assert kinds.index("round") < kinds.index("solved_count") < kinds.index("chips_cleared") < kinds.index("deck")
    # As shown: every card and the result, then the count, then the clearing and the new deck.
    last_card = len(shown) - 1 - shown[::-1].index("card")
    assert last_card < shown.index("round") < shown.index("solved_count") < shown.index("chips_cleared"), shown
    assert shown.index("chips_cleared") < shown.index("deck"), shown


def test_the_result_shows_for_result_seconds_with_the_chips_then_they_leave(rig_factory):
    clock = ManualClock(0.0)  # the deal's schedule: the pause lasts what the clock says, not the machine's speed
    rig = rig_factory(make_config(timing={"result_seconds": 0.6}), schedule_clock=clock)
    side = _bet_side(rig, win=False)
    rig.chips(side, 25)
    rig.events.clear()
    rig.driver.tap("deal")
    rig.wait_for("round")
    clock.advance_to(0.5)
    rig.daemon.catch_up()
    # The pause: the result is on the table, the losing chips still on the bets display,
    # and a press is ignored.
    assert "chips_cleared" not in rig.kinds()
    assert find_text(rig.frame("table"), "WINS") is not None or find_text(rig.frame("table"), "TIE") is not None
    assert find_text(rig.frame("bets"), "$25") is not None
    rig.driver.tap("tie")
    rig.daemon.catch_up()
    assert "chips_cleared" not in rig.kinds()
    clock.advance_to(0.6)  # result_seconds after the result: the chips leave
    rig.daemon.catch_up()
    rig.wait_for("chips_cleared", timeout=2)
    rig.daemon.wait_idle()
    assert rig.daemon.module.stacks["tie"] == [], "a press during the pause was taken"
    assert find_text(rig.frame("bets").crop((0, 0, 128, 50)), "$25") is None


def test_the_dealers_reordered_stacks_are_on_show_during_the_deal(rig_factory):
    frames: list = []

    def recording_factory(spec):
        from luma.core.device import dummy

        class Recording(dummy):
            def display(self, image):
                super().display(image)
                if spec.role == "bets":
                    frames.append(image.copy())

        return Recording(width=spec.width, height=spec.height, mode=spec.mode)

    rig = rig_factory(make_config(timing={"card_seconds": 0.1}), device_factory=recording_factory)
    side = _bet_side(rig, win=False)
    rig.chips(side, 1, 25)  # $25 on top of $1: the dealer re-orders
    frames.clear()
    rig.events.clear()
    rig.driver.tap("deal")
    rig.wait_for("reorder")
    time.sleep(0.15)  # cards are being dealt (the listeners had the whole round at the gesture)
    assert rig.daemon.dealing
    during = rig.frame("bets")
    assert find_text(during, "$26") is not None, "the stack left the bets display during the deal"
    assert rig.daemon.module.stacks[side] == [25, 1]
    shown = rig.daemon.call(lambda: rig.daemon.picture("bets"), during_round=True).result(5)
    assert during.tobytes() == shown.tobytes()
    rig.wait_for("chips_cleared", timeout=5)
    rig.daemon.wait_idle()
    assert find_text(rig.frame("bets"), "$26") is None
