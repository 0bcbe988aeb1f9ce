"""The order of the cards in a deck, as the manual derives it from the edgework."""

from __future__ import annotations

from typing import TypeVar

from .cards import Card
from .edgework import VANILLA_PORTS, Edgework
from .errors import BaccaratError
from .limits import MINIMUMS, TableLimits
from .numbers import show_value
from .records import record

COLORS: tuple[str, ...] = ("red", "blue", "green", "silver")

#: Successor multipliers: deck colour -> one value per vanilla port column.
MULTIPLIERS: dict[str, tuple[int, ...]] = {
    "red": (20, 33, 26, 41, 12, 31),
    "blue": (18, 2, 50, 22, 34, 8),
    "green": (39, 27, 35, 3, 19, 45),
    "silver": (5, 48, 14, 51, 32, 21),
}

NO_LETTER = "B"
NO_DIGIT = 9


def check_color(color: str) -> str:
    """The colour, lower case, if it is a deck colour; else a :class:`BaccaratError`."""
    cleaned = str(color).strip().lower()
    if cleaned not in COLORS:
        raise BaccaratError(f"deck colour {show_value(color)} is not one of {', '.join(COLORS)}")
    return cleaned


def _letter_value(letter: str) -> int:
    return ord(letter) - ord("A") + 1


T = TypeVar("T")


def _pick(items: list[T], row: int) -> T:
    """First, second, second to last or last of ``items`` (rows 0-3)."""
    if len(items) == 1:
        return items[0]
    return items[(0, 1, -2, -1)[row]]


def serial_letter(edgework: Edgework, limits: TableLimits) -> str:
    """The letter chosen by the minimum bet (manual's first table)."""
    letters = list(edgework.letters) or [NO_LETTER]
    row = MINIMUMS.index(limits.minimum)
    if row == 4:
        total = sum(_letter_value(c) for c in letters)
        while total > 26:
            total -= 26
        return chr(ord("A") + total - 1)
    return _pick(letters, row)


def serial_digit(edgework: Edgework, limits: TableLimits) -> int:
    """The digit chosen by the maximum/minimum ratio (manual's second table)."""
    digits = [int(c) for c in edgework.digits] or [NO_DIGIT]
    row = limits.ratio_row
    if row == 4:
        return sum(digits) % 10
    return _pick(digits, row)


def first_index(edgework: Edgework, limits: TableLimits, solved: int) -> int:
    """Letter position + 26 x digit + solved modules, brought into 1-52."""
    index = _letter_value(serial_letter(edgework, limits)) + 26 * serial_digit(edgework, limits) + solved
    # the manual's "subtract 52 until within 1-52", in one step: a huge solved count must not hang
    return (index - 1) % 52 + 1


def port_column(edgework: Edgework) -> int:
    """Column (1-6) of the most common vanilla port, with the manual's tie rule."""
    counts = list(edgework.vanilla_port_counts().values())
    best = max(counts)
    tied = [column for column, count in enumerate(counts, start=1) if count == best]
    column = sum(tied)
    while column > 6:
        column -= 6
    return column


def is_unshuffled(edgework: Edgework) -> bool:
    """Lit BOB and exactly 8 or 9 ports (any kinds): the manual's exception."""
    return edgework.has_lit("BOB") and len(edgework.ports) in (8, 9)


@record
class Deck:
    """A deck as it appears on the module: colour, how it was derived, cards top first."""

    color: str
    solved: int
    cards: tuple[Card, ...]
    unshuffled: bool
    first_index: int | None = None
    multiplier: int | None = None
    letter: str | None = None
    digit: int | None = None
    port_column: int | None = None

    @property
    def port_name(self) -> str | None:
        """The manual's name of the port column used, or None for an unshuffled deck."""
        return None if self.port_column is None else VANILLA_PORTS[self.port_column - 1]

    def to_dict(self) -> dict[str, object]:
        """The JSON form that ``baccarat deck --json`` prints."""
        data: dict[str, object] = {"color": self.color, "unshuffled": self.unshuffled}
        if not self.unshuffled:
            data["first_index"] = self.first_index
            data["multiplier"] = self.multiplier
        data["cards"] = [str(card) for card in self.cards]
        return data


def build_deck(edgework: Edgework, limits: TableLimits, color: str, solved: int | None = None) -> Deck:
    """The deck of colour ``color`` that appears when ``solved`` modules are solved
    (the edgework's count when not given)."""
    color = check_color(color)
    solved = edgework.solved if solved is None else solved
    if is_unshuffled(edgework):
        cards = tuple(Card.from_index(i) for i in range(1, 53))
        return Deck(color, solved, cards, unshuffled=True)
    letter = serial_letter(edgework, limits)
    digit = serial_digit(edgework, limits)
    start = first_index(edgework, limits, solved)
    column = port_column(edgework)
    multiplier = MULTIPLIERS[color][column - 1]
    indices = [start]
    while len(indices) < 52:
        indices.append(indices[-1] * multiplier % 53)
    return Deck(
        color,
        solved,
        tuple(Card.from_index(i) for i in indices),
        unshuffled=False,
        first_index=start,
        multiplier=multiplier,
        letter=letter,
        digit=digit,
        port_column=column,
    )
