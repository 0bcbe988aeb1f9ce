"""Property tests: decks are permutations, profit decides the outcome, re-orders keep value."""

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_core import COLORS, DENOMINATIONS, BaccaratModule, Card, Edgework, TableLimits, build_deck, records
from baccarat_core import events as ev
from baccarat_core.chips import is_ordered, reorder
from baccarat_core.inputs import Arrow, Deal, Hold, Press, SetSolved
from baccarat_core.strict import MAX_SOLVED

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALL_CARDS = [Card.from_index(i) for i in range(1, 53)]
AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")

# module-facts.md's table of limits, as (minimum, maximum) pairs.
LIMIT_CELLS = [
    (5, 200),
    (5, 300),
    (5, 500),
    (5, 1000),
    (5, 1500),
    (5, 2000),
    (5, 2500),
    (5, 3000),
    (5, 5000),
    (10, 300),
    (10, 500),
    (10, 1000),
    (10, 1500),
    (10, 2000),
    (10, 2500),
    (10, 3000),
    (10, 5000),
    (10, 10000),
    (25, 1000),
    (25, 1500),
    (25, 2000),
    (25, 2500),
    (25, 3000),
    (25, 5000),
    (25, 10000),
    (25, 15000),
    (25, 20000),
    (25, 25000),
    (50, 1000),
    (50, 2000),
    (50, 3000),
    (50, 5000),
    (50, 10000),
    (50, 15000),
    (50, 20000),
    (50, 25000),
    (50, 30000),
    (50, 50000),
    (100, 3000),
    (100, 5000),
    (100, 10000),
    (100, 15000),
    (100, 20000),
    (100, 25000),
    (100, 30000),
    (100, 50000),
    (100, 100000),
    (100, 150000),
]

# -- an independent reference of the manual's round and payouts ----------------------------------

POINTS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 0, "J": 0, "Q": 0, "K": 0}
BANKER_DRAWS_ON = {
    7: set(),
    6: {6, 7},
    5: {4, 5, 6, 7},
    4: {2, 3, 4, 5, 6, 7},
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    2: set(range(10)),
    1: set(range(10)),
    0: set(range(10)),
}


def reference_profit(deck, bets) -> int:
    def score(hand):
        return sum(POINTS[card.rank] for card in hand) % 10

    player, banker = [deck[0], deck[2]], [deck[1], deck[3]]
    rest = iter(deck[4:])
    if score(player) < 8 and score(banker) < 8:
        third = None
        if score(player) <= 5:
            third = next(rest)
            player.append(third)
        if third is None:
            draws = score(banker) <= 5
        else:
            draws = POINTS[third.rank] in BANKER_DRAWS_ON[score(banker)]
        if draws:
            banker.append(next(rest))
    p, b = score(player), score(banker)
    profit = 0
    for area, amount in bets.items():
        if not amount:
            continue
        if area in ("player", "banker") and p == b:
            continue
        won = {
            "player": p > b,
            "banker": b > p,
            "tie": p == b,
            "player_pair": player[0].rank == player[1].rank,
            "banker_pair": banker[0].rank == banker[1].rank,
        }[area]
        rate = {"player": 100, "banker": 95, "tie": 800, "player_pair": 1100, "banker_pair": 1100}[area]
        profit += amount * rate if won else -amount * 100
    return profit


# -- helpers ---------------------------------------------------------------------------------------


def greedy_chips(amount: int) -> list[int]:
    """Chips for ``amount``, largest first (a correctly ordered stack)."""
    chips = []
    for value in reversed(DENOMINATIONS):
        while amount >= value:
            chips.append(value)
            amount -= value
    return chips


def select(module, value):
    while module.denomination < value:
        module.arrow("right")
    while module.denomination > value:
        module.arrow("left")


def press_chips(module, area, chips):
    for chip in chips:
        select(module, chip)
        module.press(area)


def new_module(limits, deck_cards=None, seed=0, color="red"):
    module = BaccaratModule(Edgework("AB12C3"), TableLimits(*limits), rng=random.Random(seed), first_color=color)
    module.start()
    if deck_cards is not None:
        module.deck = records.replace(module.deck, cards=tuple(deck_cards))
    return module


# -- strategies ----------------------------------------------------------------------------------

PORT_NAMES = [
    "DVI-D",
    "dvi-d",
    "Parallel",
    "parallel",
    "PS/2",
    "ps2",
    "RJ-45",
    "rj45",
    "Serial",
    "serial",
    "Stereo RCA",
    "stereo rca",
    "HDMI",
    "USB",
    "AC Power",
]


@st.composite
def edgeworks(draw):
    # A bomb carries each indicator label once: an unlit BOB only when BOB is not lit.
    lit = draw(st.lists(st.sampled_from(["BOB", "FRK", "CAR", "SND"]), max_size=3, unique=True))
    unlit = draw(st.lists(st.sampled_from(["BOB", "IND", "MSA"]), max_size=2, unique=True))
    return Edgework(
        draw(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcxyz", min_size=1, max_size=6)),
        tuple(draw(st.lists(st.sampled_from(PORT_NAMES), max_size=12))),
        tuple(lit),
        tuple(label for label in unlit if label not in lit),
        draw(st.one_of(st.integers(min_value=0, max_value=100), st.integers(min_value=0, max_value=MAX_SOLVED))),
    )


@st.composite
def bet_plans(draw):
    minimum, maximum = draw(st.sampled_from(LIMIT_CELLS))
    bets = {area: 0 for area in AREAS}
    bets[draw(st.sampled_from(["player", "banker"]))] = draw(st.integers(minimum, maximum))
    side_low, side_high = -(-minimum // 10), maximum // 10
    for area in ("tie", "player_pair", "banker_pair"):
        if draw(st.booleans()):
            bets[area] = draw(st.integers(side_low, side_high))
    return (minimum, maximum), bets


single_inputs = st.one_of(
    st.builds(Press, st.sampled_from(AREAS)),
    st.builds(Hold, st.sampled_from(AREAS)),
    st.builds(Arrow, st.sampled_from(["left", "right"])),
    st.just(Deal()),
    st.builds(SetSolved, st.integers(0, 30)),
)
# Bursts of presses on one main area followed by a deal, so that many games get to play rounds.
input_sequences = st.lists(
    st.one_of(
        single_inputs.map(lambda action: [action]),
        st.builds(
            lambda area, n, right: [Arrow("right")] * right + [Press(area)] * n + [Deal()],
            st.sampled_from(["player", "banker"]),
            st.integers(1, 6),
            st.integers(0, 2),
        ),
    ),
    max_size=25,
).map(lambda chunks: [action for chunk in chunks for action in chunk])


# -- properties ------------------------------------------------------------------------------------


@SETTINGS
@given(edgeworks(), st.sampled_from(LIMIT_CELLS), st.sampled_from(COLORS))
def test_every_deck_is_a_permutation_of_52_cards(edgework, limits, color):
    deck = build_deck(edgework, TableLimits(*limits), color)
    assert len(deck.cards) == 52
    assert sorted(card.index for card in deck.cards) == list(range(1, 53))
    assert len(set(deck.cards)) == 52
    if not deck.unshuffled:
        assert 1 <= deck.first_index <= 52
        start = ord(deck.letter) - 64 + 26 * deck.digit + edgework.solved
        assert (deck.first_index - start) % 52 == 0
        assert deck.cards[0].index == deck.first_index
        for card, following in zip(deck.cards, deck.cards[1:], strict=False):
            assert following.index == card.index * deck.multiplier % 53


@SETTINGS
@given(bet_plans(), st.permutations(ALL_CARDS))
def test_profit_sign_decides_solve_or_strike(plan, deck_cards):
    limits, bets = plan
    module = new_module(limits, deck_cards)
    for area in AREAS:
        press_chips(module, area, greedy_chips(bets[area]))
    assert module.bets() == bets
    events = module.deal()
    played = [e for e in events if isinstance(e, ev.RoundPlayed)]
    assert len(played) == 1
    profit = played[0].profit_cents
    assert profit == reference_profit(deck_cards, bets)
    assert profit == sum(played[0].results.values())
    solved = [e for e in events if isinstance(e, ev.Solved)]
    reasons = [e.reason for e in events if isinstance(e, ev.Strike)]
    assert (profit > 0) == bool(solved) == module.solved
    assert (profit < 0) == (reasons == ["loss"])
    if profit >= 0:
        assert reasons == []
    if profit <= 0:
        assert all(total == 0 for total in module.bets().values())


@SETTINGS
@given(st.lists(st.sampled_from(DENOMINATIONS), min_size=1, max_size=15))
def test_reorder_keeps_total_and_chips(stack):
    again = reorder(stack)
    assert sum(again) == sum(stack)
    assert Counter(again) == Counter(stack)
    assert is_ordered(again)
    assert reorder(again) == again
    assert is_ordered(stack) == (tuple(stack) == again)


@SETTINGS
@given(
    st.lists(st.sampled_from(DENOMINATIONS[:7]), min_size=1, max_size=12),
    st.sampled_from(AREAS[2:]),
    st.permutations(ALL_CARDS),
)
def test_dealer_reorder_never_changes_a_bets_value(stack, side, deck_cards):
    module = new_module((100, 150000), deck_cards)
    press_chips(module, "player", stack)
    press_chips(module, side, [[], [25], [5, 25]][len(stack) % 3])  # sometimes a disordered side stack
    placed = module.bets()
    stacks = {area: list(chips) for area, chips in module.stacks.items()}
    events = module.deal()
    reorders = [e for e in events if isinstance(e, ev.ChipsReordered)]
    if placed["player"] < 100:
        assert not reorders
        return
    assert events[0].bets == {area: total for area, total in placed.items() if total}
    for event in reorders:
        for area, chips in event.stacks.items():
            assert Counter(chips) == Counter(stacks[area])
            assert sum(chips) == placed[area]
            assert is_ordered(chips)
    disordered = {area for area, chips in stacks.items() if not is_ordered(chips)}
    assert set(reorders[0].stacks if reorders else ()) == disordered
    played = [e for e in events if isinstance(e, ev.RoundPlayed)]
    assert len(played) == 1
    assert played[0].profit_cents == reference_profit(deck_cards, placed)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    input_sequences,
    st.permutations(ALL_CARDS),
    st.integers(0, 2**16),
    st.sampled_from([(5, 200), (5, 5000), (25, 1000)]),
)
def test_never_two_solved_events(actions, deck_cards, seed, limits):
    module = new_module(limits, deck_cards, seed=seed)
    solved_seen = 0
    for action in actions:
        strikes_before = module.strikes
        events = module.handle(action)
        if solved_seen:
            assert all(isinstance(e, ev.InputIgnored | ev.SolvedCountChanged) for e in events)
            assert module.strikes == strikes_before
        solved_seen += sum(isinstance(e, ev.Solved) for e in events)
        assert solved_seen <= 1
        assert module.solved == bool(solved_seen)
        assert 0 <= module.position <= 46
