"""Cards: the manual's index, point values and hand scores."""

import pytest

from baccarat_core.cards import Card, hand_score
from baccarat_core.errors import BaccaratError

# The manual: "ace through king of hearts, then ace through king of clubs, then king
# through ace of diamonds, then king through ace of spades" -- written out by hand.
MANUAL_ORDER = (
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH "
    "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC "
    "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD "
    "KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AS"
).split()


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def test_manual_order_has_52_distinct_cards():
    assert len(MANUAL_ORDER) == 52
    assert len(set(MANUAL_ORDER)) == 52


@pytest.mark.parametrize("position, name", list(enumerate(MANUAL_ORDER, start=1)))
def test_index_of_every_card(position, name):
    card = Card.parse(name)
    assert card.index == position
    assert Card.from_index(position) == card
    assert str(Card.from_index(position)) == name


@pytest.mark.parametrize("name, index", [("AH", 1), ("7C", 20), ("AS", 52)])
def test_manual_examples(name, index):
    assert Card.parse(name).index == index
    assert Card.from_index(index) == Card.parse(name)


@pytest.mark.parametrize(
    "name, index",
    [
        ("KH", 13),
        ("AC", 14),
        ("KC", 26),
        ("KD", 27),
        ("QD", 28),
        ("AD", 39),
        ("KS", 40),
        ("2S", 51),
    ],
)
def test_suit_boundaries(name, index):
    assert Card.parse(name).index == index


def test_diamonds_and_spades_run_king_to_ace():
    for suit, start in (("D", 27), ("S", 40)):
        ranks = [Card.from_index(i).rank for i in range(start, start + 13)]
        assert ranks == ["K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A"]
        assert {Card.from_index(i).suit for i in range(start, start + 13)} == {suit}


def test_hearts_and_clubs_run_ace_to_king():
    for suit, start in (("H", 1), ("C", 14)):
        ranks = [Card.from_index(i).rank for i in range(start, start + 13)]
        assert ranks == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        assert {Card.from_index(i).suit for i in range(start, start + 13)} == {suit}


def test_round_trip_all_indices():
    seen = set()
    for index in range(1, 53):
        card = Card.from_index(index)
        assert card.index == index
        seen.add(card)
    assert len(seen) == 52


@pytest.mark.parametrize("index", [0, -1, 53, 100])
def test_from_index_out_of_range(index):
    with pytest.raises(ValueError, match=str(index)):
        Card.from_index(index)


@pytest.mark.parametrize(
    "rank, points",
    [
        ("A", 1),
        ("2", 2),
        ("3", 3),
        ("4", 4),
        ("5", 5),
        ("6", 6),
        ("7", 7),
        ("8", 8),
        ("9", 9),
        ("10", 0),
        ("J", 0),
        ("Q", 0),
        ("K", 0),
    ],
)
def test_point_values(rank, points):
    for suit in "HCDS":
        assert Card(rank, suit).points == points


@pytest.mark.parametrize(
    "hand, score",
    [
        ("AH", 1),
        ("7H 8C", 5),  # 15 -> 5
        ("5H 5C", 0),  # 10 -> 0
        ("4H 5C", 9),
        ("KH QC", 0),
        ("10H 9C", 9),
        ("9H 9C 9D", 7),  # 27 -> 7
        ("AH KC 7D", 8),
        ("6H 6C 6D", 8),  # 18 -> 8
        ("JH 2C", 2),
    ],
)
def test_hand_score(hand, score):
    assert hand_score(cards(hand)) == score
    assert hand_score(tuple(cards(hand))) == score


def test_hand_score_empty_is_zero():
    assert hand_score([]) == 0


@pytest.mark.parametrize(
    "text, rank, suit",
    [
        ("KD", "K", "D"),
        ("10s", "10", "S"),
        ("ah", "A", "H"),
        (" 7C ", "7", "C"),
    ],
)
def test_parse(text, rank, suit):
    assert Card.parse(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["", "1H", "11C", "KX", "K", "H", "AHH"])
def test_parse_rejects(text):
    with pytest.raises(BaccaratError, match="not a card"):
        Card.parse(text)


def test_str():
    assert str(Card("10", "S")) == "10S"
    assert str(Card.from_index(52)) == "AS"
