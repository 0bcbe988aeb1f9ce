"""Remote play in the rules (issue 25 part 2): the words, the chips, and the presses a bet stands for.

The oracle for "a bet gives the same events as the presses" is written here from the original's
Twitch Plays handler (``ProcessTwitchCommand`` in ``BaccaratScript.cs``), not from
:func:`baccarat_core.bets.bet_inputs`: hold every area that holds chips, then for each bet its
chips by repeated subtraction from the largest (``ToChipIndices``), the arrows stepped from the
chip showing, a press per chip, and the deal.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_core import COLORS, DENOMINATIONS, BaccaratError, BaccaratModule, TableLimits
from baccarat_core import events as ev
from baccarat_core.bets import MAX_BET, bet_outcome, chips_for, parse_bet_words, parse_bets
from baccarat_core.chips import is_ordered
from baccarat_core.inputs import Arrow, Deal, Hold, Press
from baccarat_core.strict import MAX_TABLE_MAXIMUM
from tests.hostile import Hostile
from tests.test_properties import LIMIT_CELLS, edgeworks, input_sequences
from tests.tiers import examples

AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")


# -- the oracle: the presses a person makes for a bet --------------------------------------------


def presses_for(module: BaccaratModule, bets: dict[str, int]) -> list:
    index = DENOMINATIONS.index(module.denomination)
    presses: list = [Hold(area) for area in AREAS if module.stacks[area]]
    for area, amount in bets.items():
        for i in range(len(DENOMINATIONS) - 1, -1, -1):
            while amount >= DENOMINATIONS[i]:
                presses += [Arrow("left")] * max(0, index - i) + [Arrow("right")] * max(0, i - index)
                index = i
                presses.append(Press(area))
                amount -= DENOMINATIONS[i]
    return [*presses, Deal()]


def press(module: BaccaratModule, bets: dict[str, int], finish: bool) -> list[ev.Event]:
    out = module.finish_round()  # a round left on the table is cleared before the table is read
    for action in presses_for(module, bets):
        out += module.deal(finish=finish) if isinstance(action, Deal) else module.handle(action)
    return out


# -- generated tables and bets -------------------------------------------------------------------


@st.composite
def tables(draw):
    """A module somewhere in a game: any edgework, limits, deck colour, inputs so far, and sometimes
    closed by the game master, solved, or with a round's chips still on the table."""
    module = BaccaratModule(
        draw(edgeworks()),
        TableLimits(*draw(st.sampled_from(LIMIT_CELLS))),
        rng=random.Random(draw(st.integers(0, 2**16))),
        first_color=draw(st.sampled_from(COLORS)),
    )
    module.start()
    for action in draw(input_sequences):
        module.handle(action)
    twist = draw(st.sampled_from(["none"] * 6 + ["closed", "solved", "pending"]))
    if twist == "closed":
        module.set_enabled(False)
    elif twist == "solved":
        module.force_solve()
    elif twist == "pending" and not module.solved:
        module.deal(finish=False)
    return module


def amounts(minimum: int, maximum: int):
    """Amounts near the table's limits (inside and just outside), anywhere, or at the extremes."""
    return st.one_of(
        st.integers(minimum, maximum),
        st.integers(max(1, minimum // 10 - 3), maximum // 10 + 3),
        st.integers(1, MAX_BET),
        st.sampled_from([1, minimum - 1 or 1, maximum + 1, MAX_BET, 99_999, 131_313]),
    )


@st.composite
def bet_lists(draw, module: BaccaratModule):
    """One to four bets: most within the table's limits (so that the cards come), the rest on one to
    five areas with any amounts (Player and Banker both, outside the limits: strikes)."""
    low, high = module.limits.minimum, module.limits.maximum
    out = []
    for _ in range(draw(st.integers(1, 4))):
        areas = draw(st.permutations(AREAS))[: draw(st.integers(1, 5))]
        if draw(st.integers(0, 2)):
            main = [a for a in areas if a in ("player", "banker")][:1] or [draw(st.sampled_from(["player", "banker"]))]
            sides = [a for a in areas if a not in ("player", "banker")]
            bets = {area: draw(st.integers(low, high)) for area in main}
            bets |= {area: draw(st.integers(-(-low // 10), high // 10)) for area in sides}
        else:
            bets = {area: draw(amounts(low, high)) for area in areas}
        out.append(bets)
    return out


# -- a bet is its presses ----------------------------------------------------------------------------


# 1,200 examples under the ci profile, 120 under dev (the fast tier: tests/tiers.py)
@settings(
    max_examples=examples(1200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.data())
def test_a_bet_gives_exactly_the_events_of_its_presses(data):
    module = data.draw(tables())
    for bets in data.draw(bet_lists(module)):
        finish = data.draw(st.booleans())
        pressed = copy.deepcopy(module)
        expected = press(pressed, bets, finish)
        got = module.bet(bets, finish=finish)
        assert got == expected
        assert module.snapshot() == pressed.snapshot() and module.stacks == pressed.stacks
        assert module.round_pending == pressed.round_pending
        # Never out of order: no re-order and no stack-order strike, and the bets are the amounts.
        assert not [e for e in got if isinstance(e, ev.ChipsReordered)]
        assert not [e for e in got if isinstance(e, ev.Strike) and e.reason == "stack_order"]
        started = [e for e in got if isinstance(e, ev.DealStarted)]
        if started:
            assert started[0].bets == {area: bets[area] for area in AREAS if area in bets}


def test_a_bet_clears_the_table_stacks_from_the_largest_chip_and_deals():
    module = _module()
    module.arrow("right")
    module.press("tie")  # $5 on Tie and $1 on Player Pair: cleared first
    module.arrow("left")
    module.press("player_pair")
    events = module.bet({"banker": 130, "tie": 5}, finish=False)
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["clear", "clear"] and [e.area for e in events[:2]] == ["tie", "player_pair"]
    chips = [e for e in events if isinstance(e, ev.ChipAdded)]
    assert [(c.area, c.chip) for c in chips] == [("banker", 100), ("banker", 25), ("banker", 5), ("tie", 5)]
    assert chips[2].stack == (100, 25, 5)
    assert kinds.index("deal") > kinds.index("chip") and "card" in kinds
    assert module.denomination == 5  # where the last press left it, as in the original


def test_a_bet_strikes_as_a_deal_would():
    module = _module()
    events = module.bet({"player": 25, "banker": 25})
    strike = [e for e in events if isinstance(e, ev.Strike)]
    assert [s.reason for s in strike] == ["exclusive"] and "card" not in [e.kind for e in events]
    assert module.bets() == {"player": 25, "banker": 25, "tie": 0, "player_pair": 0, "banker_pair": 0}
    assert "STRIKE 1: bets on both Player ($25) and Banker ($25); no deal" in bet_outcome(events)
    events = module.bet({"banker": 1001})
    assert [e.reason for e in events if isinstance(e, ev.Strike)] == ["limits"]
    assert [e.area for e in events if isinstance(e, ev.AreaCleared)] == ["player", "banker"]


def test_a_bet_on_a_closed_or_solved_table_is_ignored_press_by_press():
    module = _module()
    module.set_enabled(False)
    events = module.bet({"banker": 30})
    assert events and all(isinstance(e, ev.InputIgnored) and e.reason == "disabled" for e in events)
    assert [e.input for e in events] == [
        "arrow right",
        "arrow right",
        "press banker",
        "arrow left",
        "press banker",
        "deal",
    ]
    assert bet_outcome(events) == "ignored deal: the table is closed"
    assert module.bets()["banker"] == 0 and module.denomination == 1


def test_chips_for_is_the_greedy_stack_and_the_fewest_chips():
    fewest = [0] + [10**9] * 2000
    for amount in range(1, 2001):
        fewest[amount] = 1 + min(fewest[amount - c] for c in DENOMINATIONS if c <= amount)
    for amount in [*range(1, 2001), 99_999, 131_313, MAX_BET]:
        chips = chips_for(amount)
        assert sum(chips) == amount and is_ordered(chips) and set(chips) <= set(DENOMINATIONS)
        if amount <= 2000:
            assert len(chips) == fewest[amount], amount
    assert chips_for(1_130) == (1000, 100, 25, 5)
    assert MAX_BET == MAX_TABLE_MAXIMUM  # any bet a table can allow can be placed


def _module() -> BaccaratModule:
    from baccarat_core import Edgework

    module = BaccaratModule(Edgework("AB12C3"), TableLimits(25, 1000), rng=random.Random(1), first_color="red")
    module.start()
    return module


# -- the words, as the original's Twitch Plays reads them ------------------------------------------------


@pytest.mark.parametrize(
    ("words", "bets"),
    [
        ("bet 25 on banker, 5 on tie", {"banker": 25, "tie": 5}),
        ("25 on banker", {"banker": 25}),
        ("BET 25 ON Banker", {"banker": 25}),
        ("bet $25 on player", {"player": 25}),
        ("bet 1,000 on banker, 5 on tie", {"banker": 1000, "tie": 5}),
        ("bet $1,000,000 on player", {"player": 1_000_000}),
        ("bet 25 on banker,5 on tie,", {"banker": 25, "tie": 5}),
        (
            "bet 10 on player pair, 10 on bankerpair, 100 on player",
            {"player_pair": 10, "banker_pair": 10, "player": 100},
        ),
        ("bet 10 on playerpair", {"player_pair": 10}),
        ("bet 10 on banker_pair", {"banker_pair": 10}),
        ("bet   10   on   player    pair  ", {"player_pair": 10}),
        ("bet 5 on tie, , 25 on player", {"tie": 5, "player": 25}),
        ("bet 25 on tie,100 on banker", {"tie": 25, "banker": 100}),
        ("bet 007 on tie", {"tie": 7}),
    ],
)
def test_the_words_the_original_takes(words, bets):
    assert parse_bet_words(words) == bets
    assert list(parse_bet_words(words)) == list(bets)  # the order given is the order placed


@pytest.mark.parametrize(
    ("words", "names"),
    [
        ("bet", "no bet given"),
        ("bet 0 on tie", "the amount on Tie 0 is below the smallest chip ($1)"),
        ("bet 2.5 on tie", 'the amount on Tie "2.5" is not a whole number of dollars'),
        ("bet -5 on banker", "the amount on Banker -5 is negative"),
        ("bet 1000001 on banker", "the amount on Banker 1000001 is above the largest bet ($1,000,000)"),
        ("bet 5 on table", '"table" is not a betting area'),
        ("bet 5 tie", 'cannot read "5 tie" as a bet'),
        ("bet 5 on tie, 6 on TIE", "more than one bet on Tie"),
        ("bet 5 on player pair, 6 on playerpair", "more than one bet on Player Pair"),
        ("bet 1,00 on tie", 'cannot read "1" as a bet: no area (a comma separates bets'),
        ("bet five on tie", 'the amount on Tie "five" is not a whole number of dollars'),
    ],
)
def test_words_that_cannot_be_a_bet_are_one_clear_line_naming_the_value(words, names):
    with pytest.raises(BaccaratError) as error:
        parse_bet_words(words)
    assert names in str(error.value)


def test_the_json_form_takes_the_same_areas_and_refuses_what_no_chips_make():
    assert parse_bets({"Banker": 25, "player pair": 5}) == {"banker": 25, "player_pair": 5}
    assert parse_bets("25 on banker") == {"banker": 25}
    for bad, names in [
        ({"tie": 0}, "Tie 0 is below"),
        ({"tie": 2.5}, "Tie 2.5 is not a whole number"),
        ({"tie": "5"}, 'Tie "5" is not a whole number'),
        ({"tie": True}, "Tie true is not"),
        ({"tie": 5, "TIE": 5}, "more than one bet on Tie"),
        ({}, "no bet given"),
        ([25], "must be an object"),
        ({"deck": 5}, '"deck" is not a betting area'),
    ]:
        with pytest.raises(BaccaratError) as error:
            parse_bets(bad)
        assert names in str(error.value), (bad, str(error.value))


def test_hostile_words_are_refused_in_one_printable_line():
    hostile = Hostile(25)
    texts = [hostile.bet_words() for _ in range(3000)]
    assert len(set(texts)) > 800
    for text in texts:
        with pytest.raises(BaccaratError) as error:
            parse_bet_words(text)
        message = str(error.value)
        assert message.isprintable() and len(message) <= 200, (text, message)
