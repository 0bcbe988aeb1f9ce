"""The module as a state machine: chips, denominations, the deal checks, outcomes, deck swaps."""

import json
import random

import pytest

from baccarat_core import BaccaratError, BaccaratModule, Card, Edgework, TableLimits, records
from baccarat_core import events as ev
from baccarat_core.inputs import Arrow, Deal, Hold, Press, SetSolved, parse_input

ALL_CARDS = [Card.from_index(i) for i in range(1, 53)]

PLAYER_WIN = "9H 2C KH 3C"  # Player 9 (natural) beats Banker 5
BANKER_WIN = "2H 9C 3H KC"  # Banker 9 (natural) beats Player 5
TIE = "8H 8C KH KC"  # 8 - 8
SIX_CARDS = "2H KC 3H QC 2D 5S"  # Player 2 3 2 = 7, Banker K Q 5 = 5: Player wins with six cards


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def make(limits=(5, 200), serial="AB12C3", ports=(), lit=(), color="red", seed=1, solved=0):
    module = BaccaratModule(
        Edgework(serial, ports, lit, (), solved), TableLimits(*limits), rng=random.Random(seed), first_color=color
    )
    module.start()
    return module


def rig(module, top: str, at: int = 0) -> None:
    """Put the cards ``top`` at position ``at`` of the current deck and deal from there."""
    chosen = cards(top)
    rest = [card for card in ALL_CARDS if card not in chosen]
    order = rest[:at] + chosen + rest[at:]
    assert len(order) == 52
    module.deck = records.replace(module.deck, cards=tuple(order))
    module.position = at


def select(module, value: int) -> list:
    events = []
    while module.denomination < value:
        events += module.arrow("right")
    while module.denomination > value:
        events += module.arrow("left")
    assert module.denomination == value
    return events


def bet(module, area: str, *chips: int) -> None:
    for chip in chips:
        select(module, chip)
        module.press(area)


def kinds(events) -> list[str]:
    return [event.kind for event in events]


def strikes(events) -> list[str]:
    return [event.reason for event in events if isinstance(event, ev.Strike)]


def the(events, cls):
    found = [event for event in events if isinstance(event, cls)]
    assert len(found) == 1, kinds(events)
    return found[0]


# -- start ----------------------------------------------------------------------------------


def test_start_shows_limits_and_first_deck():
    module = BaccaratModule(Edgework("AB12C3"), TableLimits(5, 200), rng=random.Random(1), first_color="red")
    events = module.start()
    assert kinds(events) == ["limits", "deck"]
    assert events[0] == ev.LimitsSet(5, 200, False)
    deck = events[1]
    assert (deck.color, deck.solved, deck.first_index, deck.multiplier, deck.top) == ("red", 0, 27, 26, "KD")
    assert deck.replaces is None
    assert module.cards_left == 52


def test_start_with_random_limits_and_colour():
    module = BaccaratModule(Edgework("AB12C3"), rng=random.Random(5))
    events = module.start()
    assert events[0].random is True
    assert events[0].min in (5, 10, 25, 50, 100)
    assert events[1].color in ("red", "blue", "green", "silver")


# -- denominations and chips ----------------------------------------------------------------


def test_denomination_starts_at_one_and_arrows_stop_at_both_ends():
    module = make()
    assert module.denomination == 1
    assert module.arrow("left") == []
    assert module.denomination == 1
    steps = [module.arrow("right") for _ in range(8)]
    assert [e.value for (e,) in steps] == [5, 25, 100, 500, 1000, 5000, 25000, 100000]
    assert module.arrow("right") == []
    assert module.denomination == 100000
    back = [module.arrow("left") for _ in range(8)]
    assert [e.value for (e,) in back] == [25000, 5000, 1000, 500, 100, 25, 5, 1]
    assert module.arrow("left") == []
    assert module.denomination == 1


def test_bad_arrow_and_area():
    module = make()
    with pytest.raises(BaccaratError):
        module.arrow("up")
    with pytest.raises(BaccaratError, match='"table"'):
        module.press("table")
    with pytest.raises(BaccaratError):
        module.hold("dealer")


def test_press_adds_the_active_chip_on_top():
    module = make()
    assert module.press("player") == [ev.ChipAdded("player", 1, (1,), 1)]
    select(module, 25)
    assert module.press("player") == [ev.ChipAdded("player", 25, (1, 25), 26)]
    select(module, 5)
    module.press("tie")
    assert module.stacks["player"] == [1, 25]
    assert module.stacks["tie"] == [5]
    assert module.bets() == {"player": 26, "banker": 0, "tie": 5, "player_pair": 0, "banker_pair": 0}


def test_hold_clears_only_that_area():
    module = make()
    bet(module, "banker", 25, 5, 5)
    bet(module, "banker_pair", 1)
    assert module.hold("banker") == [ev.AreaCleared("banker", 35)]
    assert module.stacks["banker"] == []
    assert module.stacks["banker_pair"] == [1]
    assert module.hold("banker") == [ev.AreaCleared("banker", 0)]


def test_handle_dispatches_inputs():
    module = make()
    assert kinds(module.handle(parse_input({"arrow": "right"}))) == ["denomination"]
    assert kinds(module.handle(Press("player"))) == ["chip"]
    assert kinds(module.handle(Hold("player"))) == ["clear"]
    assert kinds(module.handle(Arrow("left"))) == ["denomination"]
    assert module.handle(SetSolved(3)) == [ev.SolvedCountChanged(3)]
    assert kinds(module.handle(Deal())) == ["deal", "strike"]


# -- the deal: check 1, exactly one main bet --------------------------------------------------


@pytest.mark.parametrize(
    "placed",
    [
        {},
        {"tie": (5,)},
        {"player_pair": (1,), "banker_pair": (1,)},
        {"player": (5,), "banker": (5,)},
        {"player": (1,), "banker": (100, 100, 100)},  # also outside the limits: exclusive comes first
        {"player": (1, 5), "banker": (5,)},  # also out of order: exclusive comes first
    ],
)
def test_exclusive_strike_and_chips_stay(placed):
    module = make()
    for area, chips in placed.items():
        bet(module, area, *chips)
    before = {area: list(stack) for area, stack in module.stacks.items()}
    events = module.deal()
    assert kinds(events) == ["deal", "strike"]
    assert strikes(events) == ["exclusive"]
    assert module.strikes == 1
    assert module.stacks == before
    assert module.position == 0
    assert not module.solved


def test_deal_event_lists_non_empty_bets():
    module = make()
    bet(module, "player", 5)
    bet(module, "tie", 1)
    rig(module, TIE)
    assert module.deal()[0] == ev.DealStarted({"player": 5, "tie": 1})


# -- the deal: check 2, limits -------------------------------------------------------------------


@pytest.mark.parametrize(
    "limits, placed, ok",
    [
        ((5, 200), {"player": (1, 1, 1, 1)}, False),  # $4 < $5
        ((5, 200), {"player": (5,)}, True),  # exactly the minimum
        ((5, 200), {"banker": (100, 100)}, True),  # exactly the maximum
        ((5, 200), {"banker": (100, 100, 1)}, False),  # $201
        ((5, 200), {"player": (5,), "tie": (1,)}, True),  # side $0.50 - $20
        ((5, 200), {"player": (5,), "tie": (5, 5, 5, 5)}, True),
        ((5, 200), {"player": (5,), "tie": (5, 5, 5, 5, 1)}, False),  # $21 > $20
        ((25, 1000), {"player": (25,)}, True),  # empty side bets are not checked
        ((25, 1000), {"player": (25,), "tie": (1, 1)}, False),  # $2 < $2.50
        ((25, 1000), {"player": (25,), "tie": (1, 1, 1)}, True),
        ((25, 1000), {"banker": (500, 500), "player_pair": (100,)}, True),
        ((25, 1000), {"banker": (500, 500), "player_pair": (100, 1)}, False),
        ((25, 1000), {"banker": (500, 500), "banker_pair": (100, 1)}, False),
        ((25, 1000), {"banker": (500, 500, 1)}, False),
        ((100, 150000), {"player": (100000, 25000, 25000)}, True),
        ((100, 150000), {"player": (100000, 25000, 25000, 1)}, False),
    ],
)
def test_limits(limits, placed, ok):
    module = make(limits=limits)
    for area, chips in placed.items():
        bet(module, area, *chips)
    rig(module, TIE)  # a tie: nobody loses or wins on the main bet
    before = {area: list(stack) for area, stack in module.stacks.items()}
    events = module.deal()
    if ok:
        assert "limits" not in strikes(events)
        assert "round" in kinds(events)
    else:
        assert kinds(events) == ["deal", "strike"]
        assert strikes(events) == ["limits"]
        assert module.stacks == before
        assert module.position == 0


def test_limits_come_before_stack_order():
    module = make(limits=(10, 300))
    bet(module, "player", 1, 5)  # $6 < $10 and out of order
    events = module.deal()
    assert strikes(events) == ["limits"]
    assert "reorder" not in kinds(events)
    assert module.stacks["player"] == [1, 5]


def test_limits_strike_names_the_bet():
    module = make(limits=(25, 1000))
    bet(module, "player", 25)
    bet(module, "tie", 1, 1)
    strike = the(module.deal(), ev.Strike)
    assert "Tie" in strike.detail and "$2" in strike.detail


# -- the deal: check 3, stack order -------------------------------------------------------------


def test_stack_order_strike_reorders_and_deals_on():
    module = make()
    bet(module, "player", 1, 5)
    rig(module, PLAYER_WIN)
    events = module.deal()
    assert kinds(events) == ["deal", "reorder", "strike", "card", "card", "card", "card", "round", "solved"]
    assert the(events, ev.ChipsReordered).stacks == {"player": (5, 1)}
    assert strikes(events) == ["stack_order"]
    assert module.strikes == 1
    assert the(events, ev.RoundPlayed).profit_cents == 600
    assert module.solved


def test_several_stacks_reordered_with_one_strike():
    module = make()
    bet(module, "banker", 5, 25, 5)
    bet(module, "tie", 1, 5)
    bet(module, "player_pair", 1)
    rig(module, TIE)
    events = module.deal()
    assert the(events, ev.ChipsReordered).stacks == {"banker": (25, 5, 5), "tie": (5, 1)}
    assert strikes(events) == ["stack_order"]


@pytest.mark.parametrize("chips", [(5, 5), (25, 5, 1), (100, 25, 25, 5, 1, 1), (5,)])
def test_ordered_stacks_no_strike(chips):
    module = make()
    bet(module, "player", *chips)
    rig(module, TIE)
    events = module.deal()
    assert strikes(events) == []
    assert "reorder" not in kinds(events)


# -- the outcome -----------------------------------------------------------------------------------


def test_cards_dealt_in_order_with_running_scores():
    module = make()
    bet(module, "banker", 5)
    rig(module, SIX_CARDS)
    events = module.deal()
    dealt = [(e.hand, e.card, e.score) for e in events if isinstance(e, ev.CardDealt)]
    assert dealt == [
        ("player", "2H", 2),
        ("banker", "KC", 0),
        ("player", "3H", 5),
        ("banker", "QC", 0),
        ("player", "2D", 7),
        ("banker", "5S", 5),
    ]
    played = the(events, ev.RoundPlayed)
    assert (played.player, played.banker) == (("2H", "3H", "2D"), ("KC", "QC", "5S"))
    assert (played.player_score, played.banker_score, played.winner) == (7, 5, "player")
    assert played.results == {"banker": -500}
    assert module.position == 6


@pytest.mark.parametrize(
    "deck, placed, profit",
    [
        (PLAYER_WIN, {"player": (5, 5)}, 1000),
        (BANKER_WIN, {"banker": (5,)}, 475),
        (BANKER_WIN, {"banker": (5, 1, 1)}, 665),
        (TIE, {"player": (5, 5), "tie": (1,)}, 800),
        (TIE, {"banker": (5,), "player_pair": (1,), "tie": (1,)}, 700),
    ],
)
def test_profit_solves(deck, placed, profit):
    module = make()
    for area, chips in placed.items():
        bet(module, area, *chips)
    rig(module, deck)
    events = module.deal()
    assert the(events, ev.RoundPlayed).profit_cents == profit
    assert kinds(events)[-1] == "solved"
    assert events[-1] == ev.Solved()
    assert module.solved
    assert module.strikes == 0


def test_solved_module_ignores_further_input():
    module = make()
    bet(module, "player", 5, 5)
    rig(module, PLAYER_WIN)
    module.deal()
    stacks = {area: list(stack) for area, stack in module.stacks.items()}
    position = module.position
    for action in (
        lambda: module.press("player"),
        lambda: module.hold("player"),
        lambda: module.arrow("right"),
        lambda: module.arrow("left"),
        module.deal,
        lambda: module.handle(Press("tie")),
    ):
        (event,) = action()
        assert isinstance(event, ev.InputIgnored)
        assert event.reason == "solved"
    assert module.stacks == stacks
    assert module.position == position
    assert module.denomination == 5
    assert module.strikes == 0


@pytest.mark.parametrize(
    "deck, placed, profit",
    [
        (PLAYER_WIN, {"banker": (5, 5)}, -1000),
        (BANKER_WIN, {"player": (5,)}, -500),
        (BANKER_WIN, {"banker": (5, 5, 5, 5), "tie": (5, 5, 5, 5)}, 1900 - 2000),  # winning main, net loss
        (TIE, {"player": (5,), "player_pair": (1,)}, -100),
    ],
)
def test_loss_strikes_and_clears_chips(deck, placed, profit):
    module = make()
    for area, chips in placed.items():
        bet(module, area, *chips)
    rig(module, deck)
    events = module.deal()
    assert the(events, ev.RoundPlayed).profit_cents == profit
    assert strikes(events) == ["loss"]
    assert f"${-profit / 100:.2f}" in the(events, ev.Strike).detail
    assert module.strikes == 1
    assert not module.solved
    assert "solved" not in kinds(events)
    assert kinds(events)[-1] == "chips_cleared"
    assert all(total == 0 for total in module.bets().values())


@pytest.mark.parametrize(
    "deck, placed",
    [
        (TIE, {"player": (5, 5)}),
        (TIE, {"banker": (100,)}),
    ],
)
def test_break_even_does_nothing_but_clear(deck, placed):
    module = make()
    for area, chips in placed.items():
        bet(module, area, *chips)
    rig(module, deck)
    events = module.deal()
    assert the(events, ev.RoundPlayed).profit_cents == 0
    assert strikes(events) == []
    assert "solved" not in kinds(events)
    assert not module.solved
    assert module.strikes == 0
    assert kinds(events)[-1] == "chips_cleared"
    assert all(total == 0 for total in module.bets().values())


def test_strikes_accumulate_and_play_goes_on():
    module = make()
    module.deal()  # exclusive
    bet(module, "player", 1)
    module.deal()  # limits
    module.hold("player")
    bet(module, "banker", 1, 5)
    rig(module, PLAYER_WIN)
    events = module.deal()  # stack order, then a loss
    assert strikes(events) == ["stack_order", "loss"]
    assert [e.strikes for e in events if isinstance(e, ev.Strike)] == [3, 4]
    assert module.strikes == 4


# -- deck replacement ----------------------------------------------------------------------------


def test_deck_replaced_only_below_26_cards():
    module = make(color="red")
    rig(module, SIX_CARDS + " 9D 2C KH 3C", at=20)  # 6 cards: 20 -> 26, then 4: 26 -> 30
    bet(module, "banker", 5)
    events = module.deal()
    assert module.cards_left == 26
    assert "deck" not in kinds(events)
    bet(module, "banker", 5)
    events = module.deal()
    new = the(events, ev.DeckAppeared)
    assert new.replaces == "red"
    assert new.color != "red"
    assert kinds(events)[-2:] == ["chips_cleared", "deck"]
    assert module.deck.color == new.color
    assert module.cards_left == 52
    assert module.strikes == 2


def test_replacement_uses_solved_count_at_that_moment():
    module = make(color="red", solved=0)
    rig(module, PLAYER_WIN, at=24)
    assert module.set_solved(4) == [ev.SolvedCountChanged(4)]
    assert module.deck.solved == 0  # the current deck keeps its order
    bet(module, "banker", 5)
    new = the(module.deal(), ev.DeckAppeared)
    # A + 26 * 1 + 4 solved = 31 = nine of diamonds
    assert new.solved == 4
    assert new.first_index == 31
    assert new.top == "9D"
    assert module.deck.cards[0] == Card("9", "D")
    assert module.deck.solved == 4


def test_limits_or_edgework_changed_after_a_new_solved_count_re_deal_with_the_decks_own_count():
    """The manual: a deck's first card uses the solved count of the moment it appeared. A placard or
    edgework change re-deals the deck in play (same colour) from the new values but with that count;
    a solved count given meanwhile is the next deck's."""
    from baccarat_core.deck import build_deck

    module = make(color="red", solved=0)
    module.set_solved(3)
    module.set_limits(TableLimits(50, 3000))
    assert module.deck.solved == 0
    assert module.deck == build_deck(module.edgework, TableLimits(50, 3000), "red", 0)
    assert module.deck != build_deck(module.edgework, TableLimits(50, 3000), "red", 3)
    module.set_edgework(Edgework("ZZ9ZZ9", ("Parallel",), ("FRK",), (), 5))
    assert module.deck.solved == 0 and module.edgework.solved == 5
    assert module.deck == build_deck(module.edgework, TableLimits(50, 3000), "red", 0)
    # The next deck takes the bomb's count of its moment.
    rig(module, PLAYER_WIN, at=24)
    bet(module, "banker", 25, 25)
    assert the(module.deal(), ev.DeckAppeared).solved == 5


def test_edgework_that_changes_only_the_solved_count_re_deals_nothing():
    module = make(color="red", solved=0, serial="AB12C3")
    bet(module, "player", 5)
    rig(module, TIE, at=4)
    deck = module.deck
    events = module.set_edgework(Edgework("AB12C3", (), (), (), 2))
    assert kinds(events) == ["edgework"]
    assert module.deck is deck and module.position == 4 and module.edgework.solved == 2


def test_the_cheat_sheet_finds_the_next_round_by_the_cards_left():
    """Mid-game, the sheet's line whose cards left are the module's names the round the deal plays."""
    import re

    from baccarat_core.cheatsheet import cheat_sheet

    module = make(limits=(25, 1000), serial="AB3DE4", ports=("Parallel", "Serial", "RJ-45"), color="red")
    sheet = cheat_sheet(module.edgework, module.limits, module.deck)
    assert "The next round is the one whose cards left are the deck's now" in sheet
    rounds = {int(left): winner for left, winner in re.findall(r"^ +(\d+) left, round \d+: .* -> (\w+)", sheet, re.M)}
    played = 0
    while module.cards_left >= 26 and not module.solved:
        expected = rounds[module.cards_left]
        # $25 on Player and on Tie: a Player win only breaks even, so the module never solves.
        bet(module, "tie", 25)
        bet(module, "player", 25)
        result = the(module.deal(), ev.RoundPlayed)
        assert result.winner.upper() == expected
        played += 1
    assert played >= 4


def test_replacement_colour_differs_and_reaches_all_others():
    seen = set()
    for seed in range(40):
        module = make(color="green", seed=seed)
        rig(module, TIE, at=23)
        bet(module, "player", 5)
        new = the(module.deal(), ev.DeckAppeared)
        assert new.color != "green"
        assert new.replaces == "green"
        seen.add(new.color)
    assert seen == {"red", "blue", "silver"}


def test_no_replacement_after_a_solving_round():
    module = make()
    rig(module, PLAYER_WIN, at=24)
    bet(module, "player", 5)
    events = module.deal()
    assert "deck" not in kinds(events)
    assert module.solved


def test_no_replacement_after_a_failed_check():
    module = make()
    rig(module, PLAYER_WIN, at=30)
    assert kinds(module.deal()) == ["deal", "strike"]
    assert module.position == 30


def test_real_deck_played_until_replaced():
    module = make(serial="KT4R2Q", ports=("Serial", "RJ-45"), color="blue", seed=7)
    colours = ["blue"]
    for _ in range(40):
        coming = module.next_round()
        loser = "banker" if coming.winner == "player" else "player"  # a tie pushes
        bet(module, loser, 5)
        before = module.cards_left
        events = module.deal()
        assert not module.solved
        used = len(coming.order)
        assert 4 <= used <= 6
        if before - used < 26:
            new = the(events, ev.DeckAppeared)
            assert new.color not in colours[-1:]
            colours.append(new.color)
            if len(colours) == 3:
                break
        else:
            assert "deck" not in kinds(events)
            assert module.cards_left == before - used
    assert len(colours) == 3
    assert colours[1] != colours[0] and colours[2] != colours[1]


# -- snapshot and restore ---------------------------------------------------------------------------


def test_snapshot_restore_round_trip():
    module = make(serial="DKRZ52", ports=("Parallel",), color="silver", solved=2)
    game = module.next_round()  # the deck as the manual deals it: a restore checks that
    assert game.winner == "player"
    bet(module, "banker", 5)
    module.deal()  # one loss
    select(module, 25)
    state = json.loads(json.dumps(module.snapshot()))
    again = BaccaratModule.restore(state, rng=random.Random(3))
    assert again.deck == module.deck
    assert again.position == module.position == len(game.order) == 6
    assert again.strikes == 1
    assert again.denomination == 25
    assert again.limits == module.limits
    assert again.edgework == module.edgework
    assert again.solved is False
    assert again.next_round() == module.next_round()
    assert again.snapshot() == module.snapshot()


def test_restored_solved_module_still_ignores_input():
    module = make()
    assert module.next_round().winner == "player"
    bet(module, "player", 5)
    module.deal()
    again = BaccaratModule.restore(module.snapshot())
    assert again.solved
    assert isinstance(again.press("player")[0], ev.InputIgnored)


def _damaged():
    good = make().snapshot()

    def changed(path, value):
        state = json.loads(json.dumps(good))
        target = state
        for key in path[:-1]:
            target = target[key]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return state

    cards_ = good["deck"]["cards"]
    return [
        None,
        [],
        {},
        changed(("deck",), KeyError),
        changed(("limits",), KeyError),
        changed(("position",), KeyError),
        changed(("deck", "cards"), cards_[:51]),
        changed(("deck", "cards"), [cards_[0]] + cards_[:51]),
        changed(("deck", "cards"), cards_[:51] + ["ZZ"]),
        changed(("deck", "cards"), "AH"),
        changed(("deck", "color"), "pink"),
        changed(("position",), 50),
        changed(("position",), -1),
        changed(("position",), "3"),
        changed(("denomination",), 7),
        changed(("strikes",), "many"),
        changed(("limits", "min"), 7),
        changed(("limits", "max"), 1),
        changed(("edgework", "serial"), "A-1"),
        changed(("edgework", "ports"), 5),
    ]


@pytest.mark.parametrize("state", _damaged())
def test_damaged_snapshot_raises_baccarat_error(state):
    with pytest.raises(BaccaratError) as caught:
        BaccaratModule.restore(state)
    assert "\n" not in str(caught.value)
