"""Playing cards, their manual index and their point value."""

from __future__ import annotations

from .errors import BaccaratError
from .records import record

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("H", "C", "D", "S")


@record(slots=True)
class Card:
    """One card: rank ``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K`` and suit ``H C D S``."""

    rank: str
    suit: str

    def __str__(self) -> str:
        """``KD``, ``10S``."""
        return self.rank + self.suit

    @property
    def points(self) -> int:
        """Aces 1, tens and face cards 0, other cards their face value."""
        position = RANKS.index(self.rank) + 1
        return position if position < 10 else 0

    @property
    def index(self) -> int:
        """The card's position (1-52) in a new, unshuffled pack, as the manual defines it."""
        position = RANKS.index(self.rank) + 1
        suit = SUITS.index(self.suit)
        if suit < 2:  # hearts, clubs: ace through king
            return suit * 13 + position
        return suit * 13 + 14 - position  # diamonds, spades: king through ace

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with manual index ``index`` (1-52)."""
        if not 1 <= index <= 52:
            raise ValueError(f"card index {index} is not in 1-52")
        suit, offset = divmod(index - 1, 13)
        rank = RANKS[offset] if suit < 2 else RANKS[12 - offset]
        return cls(rank, SUITS[suit])

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``KD``, ``10S``, ``ah`` into a card."""
        cleaned = text.strip().upper()
        rank, suit = cleaned[:-1], cleaned[-1:]
        if rank not in RANKS or suit not in SUITS:
            raise BaccaratError(f"not a card: {text!r}")
        return cls(rank, suit)


def hand_score(cards: list[Card] | tuple[Card, ...]) -> int:
    """The rightmost digit of the sum of the cards' points."""
    return sum(card.points for card in cards) % 10
