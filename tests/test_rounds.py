"""One round: the deal order, the third-card rules and the payouts."""

import pytest

from baccarat_core import Card, play_round
from baccarat_core.rounds import banker_draws, bet_results

# The manual's Banker table, copied by hand: Banker total -> Player third-card values that make it draw.
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


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def names(hand) -> list[str]:
    return [str(card) for card in hand]


def rank(points: int) -> str:
    return {0: "J", 1: "A"}.get(points, str(points))


def two_cards(total: int, suit: str) -> list[str]:
    """Two cards of ``suit`` whose score is ``total``."""
    return [f"K{suit}", f"Q{suit}"] if total == 0 else [f"{rank(total)}{suit}", f"K{suit}"]


def one_card(points: int, suit: str) -> str:
    return f"{rank(points)}{suit}"


def deal(player: list[str], banker: list[str], rest: list[str]):
    """A deck that deals ``player`` and ``banker`` as the first two cards of each hand."""
    top = [player[0], banker[0], player[1], banker[1], *rest]
    assert len(set(top)) == len(top)
    return play_round(cards(" ".join(top)))


# -- the Banker's table -----------------------------------------------------------------


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("third", range(10))
def test_banker_table_cell(banker_total, third):
    draws = third in BANKER_DRAWS_ON[banker_total]
    assert banker_draws(banker_total, Card.parse(one_card(third, "D"))) is draws
    # the same cell reached through a real deal: the Player holds 0 and draws
    game = deal(two_cards(0, "H"), two_cards(banker_total, "C"), [one_card(third, "D"), "5S"])
    assert names(game.player)[2] == one_card(third, "D")
    assert len(game.player) == 3
    assert len(game.banker) == (3 if draws else 2)
    if draws:
        assert names(game.banker)[2] == "5S"


@pytest.mark.parametrize("rank", ["10", "J", "Q", "K"])
def test_tens_and_faces_count_as_zero_in_the_table(rank):
    card = Card(rank, "S")
    assert banker_draws(3, card) is True
    assert banker_draws(4, card) is False
    assert banker_draws(2, card) is True


@pytest.mark.parametrize("player_total", [6, 7])
@pytest.mark.parametrize("banker_total", range(8))
def test_banker_when_player_stood(player_total, banker_total):
    draws = banker_total <= 5
    assert banker_draws(banker_total, None) is draws
    game = deal(two_cards(player_total, "H"), two_cards(banker_total, "C"), ["5S", "4D"])
    assert len(game.player) == 2
    assert len(game.banker) == (3 if draws else 2)
    if draws:
        assert names(game.banker)[2] == "5S"  # the next card goes to the Banker


@pytest.mark.parametrize("player_total", range(8))
def test_player_draws_on_five_or_less(player_total):
    game = deal(two_cards(player_total, "H"), two_cards(7, "C"), ["5S", "4D"])
    draws = player_total <= 5
    assert len(game.player) == (3 if draws else 2)
    assert len(game.banker) == 2  # Banker 7 never draws


@pytest.mark.parametrize("natural", [8, 9])
@pytest.mark.parametrize("other", range(10))
def test_naturals_end_the_round_for_either_hand(natural, other):
    for player_total, banker_total in ((natural, other), (other, natural)):
        game = deal(two_cards(player_total, "H"), two_cards(banker_total, "C"), ["5S", "4D"])
        assert len(game.player) == 2
        assert len(game.banker) == 2
        assert len(game.order) == 4
        assert (game.player_score, game.banker_score) == (player_total, banker_total)


def test_natural_from_a_pair():
    game = play_round(cards("4H 2C 4D 3C 5S 6S"))
    assert game.player_score == 8
    assert len(game.order) == 4


def test_deal_order_alternates_from_the_player():
    # Player 6C 5C = 1, draws 9D -> 0; Banker 4C 9S = 3, Player's third is a 9, not an 8 -> draws JH -> 3
    game = play_round(cards("6C 4C 5C 9S 9D JH 2H"))
    assert names(game.player) == ["6C", "5C", "9D"]
    assert names(game.banker) == ["4C", "9S", "JH"]
    assert [hand for hand, _ in game.order] == ["player", "banker", "player", "banker", "player", "banker"]
    assert names(card for _, card in game.order) == ["6C", "4C", "5C", "9S", "9D", "JH"]
    assert (game.player_score, game.banker_score, game.winner) == (0, 3, "banker")


def test_player_stands_banker_draws_and_ties():
    # Player 3H 3D = 6 stands; Banker 2C 2S = 4 draws 2D -> 6: tie
    game = play_round(cards("3H 2C 3D 2S 2D 9H"))
    assert names(game.player) == ["3H", "3D"]
    assert names(game.banker) == ["2C", "2S", "2D"]
    assert game.winner == "tie"


# -- winner and pairs ---------------------------------------------------------------------

PLAYER_WIN = "9H 2C KH 3C 5S 6S"  # Player 9 (natural), Banker 5
BANKER_WIN = "2H 9C 3H KC 5S 6S"  # Player 5, Banker 9 (natural)
TIE = "8H 8C KH KC 5S 6S"  # 8 - 8
PAIRS = "4H 5C 4D 5S 6S 7S"  # Player 4 4 = 8, Banker 5 5 = 0: both pairs, Player wins
TIE_PAIRS = "4H 4C 4D 4S 6S 7S"  # 8 - 8, both pairs


@pytest.mark.parametrize(
    "deck, winner, player_pair, banker_pair",
    [
        (PLAYER_WIN, "player", False, False),
        (BANKER_WIN, "banker", False, False),
        (TIE, "tie", False, False),
        (PAIRS, "player", True, True),
        (TIE_PAIRS, "tie", True, True),
    ],
)
def test_winner_and_pairs(deck, winner, player_pair, banker_pair):
    game = play_round(cards(deck))
    assert game.winner == winner
    assert game.player_pair() is player_pair
    assert game.banker_pair() is banker_pair


def test_pair_needs_same_rank_not_same_points():
    game = play_round(cards("10H 2C KH 3C 5S 6S"))  # 10 and K are both 0 points
    assert not game.player_pair()


def test_pair_uses_only_the_first_two_cards():
    # Player 2H 3H = 5 draws 2D; Banker KC QC = 0 draws 5S
    game = play_round(cards("2H KC 3H QC 2D 5S"))
    assert names(game.player) == ["2H", "3H", "2D"]
    assert names(game.banker) == ["KC", "QC", "5S"]
    assert not game.player_pair()
    assert not game.banker_pair()


# -- payouts (profit in cents for whole-dollar bets) ------------------------------------------


@pytest.mark.parametrize(
    "deck, area, amount, cents",
    [
        # Player wins
        (PLAYER_WIN, "player", 10, 1000),
        (PLAYER_WIN, "player", 1, 100),
        (PLAYER_WIN, "banker", 10, -1000),
        (PLAYER_WIN, "tie", 10, -1000),
        (PLAYER_WIN, "player_pair", 10, -1000),
        (PLAYER_WIN, "banker_pair", 10, -1000),
        # Banker wins: 19 to 20
        (BANKER_WIN, "banker", 20, 1900),
        (BANKER_WIN, "banker", 1, 95),
        (BANKER_WIN, "banker", 7, 665),
        (BANKER_WIN, "banker", 150000, 14250000),
        (BANKER_WIN, "player", 10, -1000),
        (BANKER_WIN, "tie", 3, -300),
        # Tie: main bets push, Tie pays 8 to 1
        (TIE, "player", 10, 0),
        (TIE, "banker", 10, 0),
        (TIE, "tie", 10, 8000),
        (TIE, "tie", 1, 800),
        (TIE, "player_pair", 1, -100),
        # Pairs pay 11 to 1
        (PAIRS, "player_pair", 3, 3300),
        (PAIRS, "banker_pair", 3, 3300),
        (PAIRS, "player", 5, 500),
        (PAIRS, "banker", 5, -500),
        (PAIRS, "tie", 5, -500),
        (TIE_PAIRS, "player_pair", 2, 2200),
        (TIE_PAIRS, "banker_pair", 2, 2200),
        (TIE_PAIRS, "tie", 2, 1600),
        (TIE_PAIRS, "banker", 2, 0),
    ],
)
def test_payout(deck, area, amount, cents):
    assert bet_results(play_round(cards(deck)), {area: amount}) == {area: cents}


def test_empty_bets_are_left_out():
    results = bet_results(play_round(cards(PLAYER_WIN)), {"player": 10, "tie": 0, "banker_pair": 0})
    assert results == {"player": 1000}


def test_all_bets_together():
    results = bet_results(play_round(cards(TIE_PAIRS)), {"player": 100, "tie": 5, "player_pair": 1, "banker_pair": 2})
    assert results == {"player": 0, "tie": 4000, "player_pair": 1100, "banker_pair": 2200}
    assert sum(results.values()) == 7300


def test_banker_win_with_losing_sides_is_a_net_loss():
    results = bet_results(play_round(cards(BANKER_WIN)), {"banker": 20, "tie": 2, "player_pair": 2})
    assert results == {"banker": 1900, "tie": -200, "player_pair": -200}
    assert sum(results.values()) == 1500


def test_profits_are_whole_cents():
    game = play_round(cards(BANKER_WIN))
    for amount in range(1, 60):
        (cents,) = bet_results(game, {"banker": amount}).values()
        assert isinstance(cents, int)
        assert cents == amount * 95
