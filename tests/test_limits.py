"""Table limits: minima, the maxima table of module-facts.md, side limits, placard, random pick."""

import random
from collections import Counter

import pytest

from baccarat_core import LimitsError, TableLimits, random_limits
from baccarat_core.errors import BaccaratError
from baccarat_core.numbers import format_dollars

MINIMA = (5, 10, 25, 50, 100)

# module-facts.md, "Table limits": minimum -> one list of maxima per ratio row
# (<= 50, 50 < r <= 100, 100 < r <= 200, 200 < r <= 500, r > 500), copied by hand.
FACTS_TABLE = {
    5: [[200], [300, 500], [1000], [1500, 2000, 2500], [3000, 5000]],
    10: [[300, 500], [1000], [1500, 2000], [2500, 3000, 5000], [10000]],
    25: [[1000], [1500, 2000, 2500], [3000, 5000], [10000], [15000, 20000, 25000]],
    50: [[1000, 2000], [3000, 5000], [10000], [15000, 20000, 25000], [30000, 50000]],
    100: [[3000, 5000], [10000], [15000, 20000], [25000, 30000, 50000], [100000, 150000]],
}

CELLS = [
    (minimum, maximum, row)
    for minimum, rows in FACTS_TABLE.items()
    for row, cell in enumerate(rows)
    for maximum in cell
]


@pytest.mark.parametrize("minimum", MINIMA)
def test_every_minimum_is_accepted(minimum):
    limits = TableLimits(minimum, minimum * 40)
    assert limits.minimum == minimum
    assert limits.maximum == minimum * 40


@pytest.mark.parametrize("minimum, maximum, row", CELLS)
def test_every_cell_lands_in_its_ratio_row(minimum, maximum, row):
    assert TableLimits(minimum, maximum).ratio_row == row


def test_cells_count():
    assert len(CELLS) == 9 + 9 + 10 + 10 + 10


@pytest.mark.parametrize("minimum", MINIMA)
@pytest.mark.parametrize("ratio, row", [(50, 0), (100, 1), (200, 2), (500, 3)])
def test_ratio_boundaries_are_inclusive(minimum, ratio, row):
    # ratio exactly on a bound belongs to the lower row; one dollar more goes up a row
    assert TableLimits(minimum, minimum * ratio).ratio_row == row
    assert TableLimits(minimum, minimum * ratio + 1).ratio_row == row + 1


@pytest.mark.parametrize("minimum", MINIMA)
def test_smallest_and_huge_ratios(minimum):
    assert TableLimits(minimum, minimum + 1).ratio_row == 0
    assert TableLimits(minimum, minimum * 10_000).ratio_row == 4


@pytest.mark.parametrize("minimum", [0, 1, 2, 15, 20, 30, 75, 200, 1000, -5])
def test_minimum_not_in_manual(minimum):
    with pytest.raises(LimitsError) as caught:
        TableLimits(minimum, 100_000)
    assert format_dollars(minimum) in str(caught.value)


@pytest.mark.parametrize("minimum, maximum", [(True, 200), (5.0, 200), ("5", 200), (5, 200.0), (5, None)])
def test_limits_must_be_whole_numbers(minimum, maximum):
    with pytest.raises(LimitsError):
        TableLimits(minimum, maximum)


@pytest.mark.parametrize("minimum, maximum", [(5, 5), (5, 4), (10, 5), (100, 100), (100, 0), (50, -50)])
def test_maximum_must_be_above_minimum(minimum, maximum):
    with pytest.raises(LimitsError) as caught:
        TableLimits(minimum, maximum)
    assert format_dollars(maximum) in str(caught.value)


def test_limits_error_is_a_baccarat_error_and_not_a_value_error():
    """The rules' refusals are caught by name (house plan): never together with a ValueError."""
    with pytest.raises(BaccaratError) as caught:
        TableLimits(7, 200)
    assert isinstance(caught.value, LimitsError) and not isinstance(caught.value, ValueError)


@pytest.mark.parametrize("minimum, maximum", [(5, 200), (25, 1000), (100, 150000)])
def test_main_bet_limits_inclusive(minimum, maximum):
    limits = TableLimits(minimum, maximum)
    assert limits.allows(minimum)
    assert limits.allows(maximum)
    assert not limits.allows(minimum - 1)
    assert not limits.allows(maximum + 1)
    assert not limits.allows(0)


@pytest.mark.parametrize(
    "minimum, maximum, lowest, highest",
    [
        (5, 200, 1, 20),  # $0.50 - $20: $1 is fine
        (10, 300, 1, 30),  # $1 - $30
        (25, 1000, 3, 100),  # $2.50 - $100: $2 is too little
        (50, 1000, 5, 100),
        (100, 150000, 10, 15000),
        (5, 2500, 1, 250),
        (25, 15000, 3, 1500),
    ],
)
def test_side_bet_limits_one_tenth(minimum, maximum, lowest, highest):
    limits = TableLimits(minimum, maximum)
    assert limits.allows_side(lowest)
    assert limits.allows_side(highest)
    assert not limits.allows_side(lowest - 1)
    assert not limits.allows_side(highest + 1)


@pytest.mark.parametrize(
    "minimum, maximum, text",
    [
        (5, 200, "$5 - $200"),
        (10, 1000, "$10 - $1000"),
        (25, 5000, "$25 - $5000"),
        (50, 10000, "$50 - $10,000"),
        (100, 150000, "$100 - $150,000"),
        (100, 25000, "$100 - $25,000"),
    ],
)
def test_placard(minimum, maximum, text):
    assert TableLimits(minimum, maximum).placard() == text


@pytest.mark.parametrize(
    "amount, text",
    [
        (1, "$1"),
        (5, "$5"),
        (1000, "$1000"),
        (5000, "$5000"),
        (9999, "$9999"),
        (10000, "$10,000"),
        (150000, "$150,000"),
        (1000000, "$1,000,000"),
    ],
)
def test_format_dollars(amount, text):
    assert format_dollars(amount) == text


def test_to_dict():
    assert TableLimits(25, 3000).to_dict() == {"min": 25, "max": 3000}


def test_random_limits_always_a_table_value():
    cells = {(minimum, maximum): row for minimum, maximum, row in CELLS}
    for seed in range(300):
        limits = random_limits(random.Random(seed))
        assert (limits.minimum, limits.maximum) in cells
        assert limits.ratio_row == cells[(limits.minimum, limits.maximum)]


def test_random_limits_is_reproducible():
    first = [random_limits(random.Random(seed)) for seed in range(20)]
    again = [random_limits(random.Random(seed)) for seed in range(20)]
    assert first == again


def test_random_limits_reaches_every_minimum_and_row():
    rng = random.Random(2024)
    picks = [random_limits(rng) for _ in range(3000)]
    minima = Counter(p.minimum for p in picks)
    rows = Counter(p.ratio_row for p in picks)
    pairs = Counter((p.minimum, p.ratio_row) for p in picks)
    assert set(minima) == set(MINIMA)
    assert set(rows) == {0, 1, 2, 3, 4}
    assert len(pairs) == 25
    # uniform minimum, then uniform row: each about 600 of 3000 (loose bounds)
    for count in list(minima.values()) + list(rows.values()):
        assert 450 < count < 750
    # a row with several maxima does not get more picks than a row with one
    assert 450 < rows[0] < 750 and 450 < rows[3] < 750
    maxima = {(p.minimum, p.maximum) for p in picks}
    assert maxima == {(m, x) for m, x, _ in CELLS}
