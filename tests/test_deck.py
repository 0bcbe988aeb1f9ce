"""The order of the cards: serial letter and digit, first index, port column, multiplier."""

import pytest

from baccarat_core import COLORS, BaccaratError, Edgework, TableLimits, build_deck
from baccarat_core.deck import first_index, is_unshuffled, port_column, serial_digit, serial_letter

# Maximum for a $5 minimum that lands in each ratio row (module-facts.md).
ROW_MAX_FOR_5 = {0: 200, 1: 500, 2: 1000, 3: 2500, 4: 5000}

# The manual's multiplier table, copied by hand: colour -> DVI-D, Parallel, PS/2, RJ-45, Serial, Stereo RCA.
MANUAL_MULTIPLIERS = {
    "red": [20, 33, 26, 41, 12, 31],
    "blue": [18, 2, 50, 22, 34, 8],
    "green": [39, 27, 35, 3, 19, 45],
    "silver": [5, 48, 14, 51, 32, 21],
}
PORTS = ["DVI-D", "Parallel", "PS/2", "RJ-45", "Serial", "Stereo RCA"]


def names(cards):
    return [str(card) for card in cards]


def row_limits(row: int) -> TableLimits:
    return TableLimits(5, ROW_MAX_FOR_5[row])


def mostly(port: str) -> tuple[str, ...]:
    """Ports whose most common vanilla kind is ``port``, with some noise."""
    other = "Serial" if port != "Serial" else "Parallel"
    return (port, "HDMI", port, other, "USB", port, "HDMI", "HDMI")[:7]


# -- the letter ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "minimum, letter",
    [
        (5, "D"),  # first
        (10, "K"),  # second
        (25, "R"),  # second to last
        (50, "Z"),  # last
        (100, "G"),  # D+K+R+Z = 4+11+18+26 = 59 -> 33 -> 7 = G
    ],
)
def test_letter_rows(minimum, letter):
    assert serial_letter(Edgework("DKRZ52"), TableLimits(minimum, minimum * 20)) == letter


@pytest.mark.parametrize("minimum, letter", [(5, "A"), (10, "Y"), (25, "A"), (50, "Y"), (100, "Z")])
def test_two_letters_and_a_sum_of_exactly_26(minimum, letter):
    # A + Y = 1 + 25 = 26: already in range, stays Z
    assert serial_letter(Edgework("AY38"), TableLimits(minimum, minimum * 20)) == letter


def test_letter_sum_subtracts_26_more_than_once():
    # Z + Z + Y = 26 + 26 + 25 = 77 -> 51 -> 25 = Y
    assert serial_letter(Edgework("ZZY1"), TableLimits(100, 3000)) == "Y"
    # Z + Z = 52 -> 26 = Z
    assert serial_letter(Edgework("ZZ1"), TableLimits(100, 3000)) == "Z"
    # Z + A = 27: one past Z -> 1 = A (the first sum that must come down)
    assert serial_letter(Edgework("ZA1"), TableLimits(100, 3000)) == "A"


@pytest.mark.parametrize("minimum", [5, 10, 25, 50, 100])
def test_single_letter_serves_every_row(minimum):
    assert serial_letter(Edgework("Q12345"), TableLimits(minimum, minimum * 20)) == "Q"


@pytest.mark.parametrize("minimum", [5, 10, 25, 50, 100])
def test_no_letters_means_b(minimum):
    assert serial_letter(Edgework("123456"), TableLimits(minimum, minimum * 20)) == "B"


# -- the digit ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "row, digit",
    [
        (0, 1),  # first
        (1, 3),  # second
        (2, 7),  # second to last
        (3, 9),  # last
        (4, 5),  # 1+3+5+7+9 = 25 -> 5
    ],
)
def test_digit_rows(row, digit):
    assert serial_digit(Edgework("A13579"), row_limits(row)) == digit


@pytest.mark.parametrize("row, digit", [(0, 3), (1, 8), (2, 3), (3, 8), (4, 1)])
def test_two_digits(row, digit):
    # 3 + 8 = 11 -> 1
    assert serial_digit(Edgework("AY38"), row_limits(row)) == digit


def test_digit_sum_that_is_a_multiple_of_ten():
    assert serial_digit(Edgework("A4600"), row_limits(4)) == 0


@pytest.mark.parametrize("row", range(5))
def test_single_digit_serves_every_row(row):
    assert serial_digit(Edgework("ABCDE4"), row_limits(row)) == 4


@pytest.mark.parametrize("row", range(5))
def test_no_digits_means_9(row):
    assert serial_digit(Edgework("ABCDEF"), row_limits(row)) == 9


@pytest.mark.parametrize(
    "minimum, maximum, row",
    [
        (10, 500, 0),
        (10, 1000, 1),
        (10, 2000, 2),
        (10, 5000, 3),
        (10, 10000, 4),
        (100, 5000, 0),
        (100, 10000, 1),
        (100, 20000, 2),
        (100, 50000, 3),
        (100, 150000, 4),
    ],
)
def test_digit_row_follows_the_ratio_for_other_minima(minimum, maximum, row):
    expected = {0: 1, 1: 3, 2: 7, 3: 9, 4: 5}[row]
    assert serial_digit(Edgework("A13579"), TableLimits(minimum, maximum)) == expected


# -- the first index ------------------------------------------------------------------


@pytest.mark.parametrize(
    "serial, limits, solved, index, card",
    [
        ("DKRZ52", (5, 200), 0, 30, "10D"),  # D=4 + 26*5 = 134 -> 82 -> 30
        ("DKRZ52", (5, 200), 3, 33, "7D"),  # 137 -> 33
        ("DKRZ52", (5, 200), 200, 22, "9C"),  # 334 - 6*52 = 22
        ("DKRZ52", (5, 200), 1000, 42, "JS"),  # 1134 - 21*52 = 42
        ("DKRZ52", (100, 150000), 0, 33, "7D"),  # G=7 + 26*(5+2) = 189 -> 33
        ("Z9", (5, 200), 0, 52, "AS"),  # 26 + 234 = 260 = 5*52 -> 52, never 0
        ("Z9", (5, 200), 1, 1, "AH"),  # 261 -> 1
        ("A0", (5, 200), 0, 1, "AH"),
        ("A0", (5, 200), 51, 52, "AS"),
        ("A0", (5, 200), 52, 1, "AH"),
        ("ABCDEF", (5, 200), 0, 27, "KD"),  # A + 26*9 = 235 -> 27
        ("123456", (10, 300), 0, 28, "QD"),  # B=2 + 26*1 = 28
    ],
)
def test_first_index(serial, limits, solved, index, card):
    edgework = Edgework(serial)
    table = TableLimits(*limits)
    assert first_index(edgework, table, solved) == index
    deck = build_deck(edgework.with_solved(solved), table, "red")
    assert deck.first_index == index
    assert str(deck.cards[0]) == card


@pytest.mark.timeout(10)
def test_first_index_with_a_huge_solved_count_does_not_hang():
    # 10**11 = 0 (mod 4) and 4 (mod 13), so 10**11 = 4 (mod 52): 27 + 4 = 31 (9D)
    edgework = Edgework("AB12C3")
    assert first_index(edgework, TableLimits(5, 200), 10**11) == 31
    assert str(build_deck(edgework, TableLimits(5, 200), "red", 10**11).cards[0]) == "9D"
    # Edgework itself refuses a count no bomb has (see baccarat_core/strict.py).
    with pytest.raises(BaccaratError, match="above the most allowed"):
        Edgework("AB12C3", solved=10**11)


def test_build_deck_solved_argument_overrides_edgework():
    edgework = Edgework("DKRZ52", solved=7)
    limits = TableLimits(5, 200)
    assert build_deck(edgework, limits, "red").first_index == (134 + 7) - 104
    assert build_deck(edgework, limits, "red", solved=3).first_index == 33
    assert build_deck(edgework, limits, "red", solved=3).solved == 3


# -- the port column and the multiplier -------------------------------------------------


@pytest.mark.parametrize("color", list(MANUAL_MULTIPLIERS))
@pytest.mark.parametrize("column", range(1, 7))
def test_every_multiplier_cell(color, column):
    port = PORTS[column - 1]
    edgework = Edgework("A0", mostly(port))  # first index 1
    assert port_column(edgework) == column
    deck = build_deck(edgework, TableLimits(5, 200), color)
    multiplier = MANUAL_MULTIPLIERS[color][column - 1]
    assert deck.multiplier == multiplier
    assert deck.port_name == port
    assert deck.cards[0].index == 1
    assert deck.cards[1].index == multiplier  # 1 * m mod 53
    assert deck.cards[2].index == multiplier * multiplier % 53


@pytest.mark.parametrize(
    "ports, column",
    [
        (("DVI-D", "Parallel"), 3),  # 1+2
        (("Parallel", "Stereo RCA"), 2),  # 2+6 = 8 -> 2
        (("RJ-45", "Serial"), 3),  # 4+5 = 9 -> 3
        (("Serial", "Stereo RCA"), 5),  # 11 -> 5
        (("DVI-D", "Stereo RCA"), 1),  # 7 -> 1
        (("PS/2", "RJ-45", "RJ-45", "PS/2", "Serial"), 1),  # 3+4 = 7 -> 1
        (("DVI-D", "PS/2", "Serial"), 3),  # 1+3+5 = 9 -> 3
        (("Parallel", "RJ-45", "Stereo RCA"), 6),  # 2+4+6 = 12 -> 6, not 0
        (("RJ-45", "Serial", "Stereo RCA"), 3),  # 15 -> 9 -> 3
        (("DVI-D", "Parallel", "RJ-45", "Serial"), 6),  # 12 -> 6
        (tuple(PORTS), 3),  # 21 -> 3
        ((), 3),  # no ports: six-way tie
        (("HDMI", "HDMI", "HDMI"), 3),  # no vanilla port: six-way tie
        (("HDMI", "HDMI", "HDMI", "Serial"), 5),  # other kinds do not count
        (("USB", "USB", "Parallel", "Parallel", "DVI-D"), 2),  # no tie
        (("Stereo RCA",), 6),
    ],
)
def test_port_column_and_tie_rule(ports, column):
    assert port_column(Edgework("A0", ports)) == column


def test_no_ports_uses_ps2_multiplier():
    deck = build_deck(Edgework("AB12C3"), TableLimits(5, 200), "green")
    assert deck.port_name == "PS/2"
    assert deck.multiplier == 35


# -- whole decks ---------------------------------------------------------------------------


def test_hand_computed_red_deck():
    # A + 26*1 = 27 (KD); no ports -> PS/2, red -> 26; 27*26 = 702 = 13*53 + 13 (KH);
    # 13*26 = 338 = 6*53 + 20 (7C); 20*26 = 520 = 9*53 + 43 (10S)
    deck = build_deck(Edgework("AB12C3"), TableLimits(5, 200), "red")
    assert names(deck.cards[:4]) == ["KD", "KH", "7C", "10S"]
    assert (deck.letter, deck.digit, deck.first_index, deck.multiplier) == ("A", 1, 27, 26)


def test_hand_computed_blue_deck():
    # first index 1, blue x Parallel = 2: 1 2 4 8 16 32 64-53=11
    deck = build_deck(Edgework("A0", ("Parallel", "Parallel")), TableLimits(5, 200), "blue")
    assert names(deck.cards[:7]) == ["AH", "2H", "4H", "8H", "3C", "8D", "JH"]


@pytest.mark.parametrize("color", COLORS)
def test_successor_is_index_times_multiplier_mod_53(color):
    deck = build_deck(Edgework("KT4R2Q", ("Serial", "RJ-45", "RJ-45")), TableLimits(25, 3000), color)
    assert len(deck.cards) == 52
    for card, following in zip(deck.cards, deck.cards[1:], strict=False):
        assert following.index == card.index * deck.multiplier % 53
    assert sorted(card.index for card in deck.cards) == list(range(1, 53))


def test_colour_is_case_insensitive_and_checked():
    assert build_deck(Edgework("A1"), TableLimits(5, 200), " Silver ").color == "silver"
    with pytest.raises(BaccaratError, match='"pink"'):
        build_deck(Edgework("A1"), TableLimits(5, 200), "pink")


def test_to_dict_shuffled():
    deck = build_deck(Edgework("AB12C3"), TableLimits(5, 200), "red")
    data = deck.to_dict()
    assert list(data) == ["color", "unshuffled", "first_index", "multiplier", "cards"]
    assert data["first_index"] == 27
    assert data["multiplier"] == 26
    assert data["unshuffled"] is False
    assert data["cards"][:2] == ["KD", "KH"]
    assert len(data["cards"]) == 52


# -- the exception: lit BOB with 8 or 9 ports ----------------------------------------------


@pytest.mark.parametrize(
    "ports",
    [
        ("HDMI",) * 8,
        ("Serial",) * 9,
        ("Parallel", "PS/2", "USB", "USB", "RJ-45", "Serial", "DVI-D", "Stereo RCA"),
    ],
)
def test_unshuffled_with_lit_bob_and_8_or_9_ports(ports):
    edgework = Edgework("DKRZ52", ports, lit=("BOB", "FRK"), solved=5)
    assert is_unshuffled(edgework)
    deck = build_deck(edgework, TableLimits(50, 2000), "blue")
    assert deck.unshuffled
    assert [card.index for card in deck.cards] == list(range(1, 53))
    assert str(deck.cards[0]) == "AH"
    assert str(deck.cards[12]) == "KH"
    assert str(deck.cards[26]) == "KD"
    assert str(deck.cards[-1]) == "AS"
    data = deck.to_dict()
    assert set(data) == {"color", "unshuffled", "cards"}
    assert data["unshuffled"] is True


@pytest.mark.parametrize(
    "ports, lit, unlit",
    [
        (("HDMI",) * 7, ("BOB",), ()),
        (("HDMI",) * 10, ("BOB",), ()),
        ((), ("BOB",), ()),
        (("HDMI",) * 8, (), ("BOB",)),  # unlit BOB does not count
        (("HDMI",) * 8, ("FRK",), ()),
        (("HDMI",) * 9, ("CAR",), ("BOB",)),
    ],
)
def test_shuffled_otherwise(ports, lit, unlit):
    edgework = Edgework("A0", ports, lit=lit, unlit=unlit)
    assert not is_unshuffled(edgework)
    deck = build_deck(edgework, TableLimits(5, 200), "red")
    assert not deck.unshuffled
    assert deck.first_index == 1
    assert "first_index" in deck.to_dict()


def test_all_colours_give_different_orders():
    decks = {color: names(build_deck(Edgework("AB12C3"), TableLimits(5, 200), color).cards) for color in COLORS}
    assert len({tuple(cards) for cards in decks.values()}) == 4
    assert all(cards[0] == "KD" for cards in decks.values())
