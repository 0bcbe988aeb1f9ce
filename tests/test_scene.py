"""The scene: what each display shows, as a pure function of the module and the round on the table."""

from __future__ import annotations

import random

import pytest
from PIL import Image

from baccarat_core import BaccaratModule, Edgework, TableLimits
from baccarat_core import events as ev
from firmware.game.scene import RoundOnTable, compose, invert, render_view, result_text
from firmware.render import BetsView


def module(seed: int = 3) -> BaccaratModule:
    m = BaccaratModule(
        Edgework("AB3DE4", ("Parallel", "Serial", "RJ-45")),
        TableLimits(25, 1000),
        rng=random.Random(seed),
        first_color="red",
    )
    m.start()
    return m


def bet_and_deal(m: BaccaratModule, side: str) -> list[ev.Event]:
    for _ in range(2):
        m.arrow("right")
    m.press(side)
    return m.deal(finish=False)


def losing_side(m: BaccaratModule) -> str:
    game = m.next_round()
    return "banker" if game.winner == "player" else "player"


def test_no_round_on_the_table_shows_the_deck_and_waits_for_bets():
    m = module()
    table = compose(m).table
    assert (table.deck_color, table.cards_left, table.player, table.banker) == ("red", 52, (), ())
    assert table.status == "PLACE YOUR BETS" and table.result is None
    m.force_solve()
    assert compose(m).table.status == "SOLVED"


def test_cards_turn_one_by_one_and_cards_left_counts_down_with_them():
    m = module()
    events = bet_and_deal(m, losing_side(m))
    cards = tuple(e for e in events if isinstance(e, ev.CardDealt))
    on_table = RoundOnTable(cards)
    table = compose(m, on_table).table
    assert table.cards_left == 52 and table.player == () and table.status == "DEALING"
    on_table = on_table.turn_card()
    table = compose(m, on_table).table
    assert table.player == (cards[0].card,) and table.banker == () and table.cards_left == 51
    assert table.player_score == cards[0].score and table.banker_score is None
    for _ in cards[1:]:
        on_table = on_table.turn_card()
    table = compose(m, on_table).table
    assert len(table.player) + len(table.banker) == len(cards)
    assert table.cards_left == 52 - len(cards) == m.cards_left
    assert table.status == "DEALING", "every card is up but the result is not shown yet"
    result = next(e for e in events if isinstance(e, ev.RoundPlayed))
    table = compose(m, on_table.show_result(result)).table
    assert table.result == result_text(result) and table.status == table.result
    assert table.result.startswith(("PLAYER WINS", "BANKER WINS", "TIE"))


def test_a_winning_round_does_not_say_solved_before_its_result():
    m = module()
    game = m.next_round()
    side = game.winner if game.winner != "tie" else "player"
    events = bet_and_deal(m, side)
    assert m.solved or game.winner == "tie"
    cards = tuple(e for e in events if isinstance(e, ev.CardDealt))
    table = compose(m, RoundOnTable(cards).turn_card()).table
    assert table.status == "DEALING"


def test_the_bets_stay_through_the_round_and_leave_when_it_is_finished():
    m = module()
    side = losing_side(m)
    bet_and_deal(m, side)
    assert compose(m).bets.stacks[side] == (25,), "the chips stay on the table until the round is finished"
    finished = m.finish_round()
    assert [e.kind for e in finished][0] == "chips_cleared"
    assert compose(m).bets.stacks[side] == ()


def test_the_dealers_reordered_stack_is_what_the_bets_display_shows():
    m = module()
    side = losing_side(m)
    m.press(side)
    m.arrow("right")
    m.arrow("right")
    m.press(side)  # $1 under $25: out of order
    events = m.deal(finish=False)
    assert "reorder" in [e.kind for e in events]
    assert compose(m).bets.stacks[side] == (25, 1)


def test_views_are_equal_when_nothing_changed_so_nothing_is_redrawn():
    m = module()
    assert compose(m) == compose(m)
    before = compose(m)
    m.press("tie")
    after = compose(m)
    assert before.table == after.table and before.placard == after.placard and before.bets != after.bets


def test_render_view_refuses_an_unknown_role_or_a_mismatched_view():
    m = module()
    scene = compose(m)
    with pytest.raises(KeyError):
        scene.view("bogus")
    with pytest.raises(KeyError):
        render_view("table", BetsView(), (128, 64), "1")
    image = render_view("bets", scene.bets, (128, 64), "1")
    assert image.size == (128, 64) and image.getbbox() is not None


@pytest.mark.parametrize("mode", ["1", "L", "RGB"])
def test_invert_gives_imageops_pixels_in_every_mode(mode):
    """``invert`` (identify) without importing ImageOps: the same pixels as ``ImageOps.invert``."""
    from PIL import ImageOps

    rng = random.Random(mode)
    size = {"1": 16, "L": 128, "RGB": 384}[mode]  # bytes of a 16x8 image
    image = Image.frombytes(mode, (16, 8), bytes(rng.randrange(256) for _ in range(size)))
    inverted = invert(image)
    assert inverted.mode == mode
    assert inverted.tobytes() == ImageOps.invert(image).tobytes()
    assert inverted.tobytes() != image.tobytes()
