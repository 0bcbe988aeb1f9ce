"""The rules of the Baccarat module: pure, with no pins, displays or network."""

from .cards import Card, hand_score
from .chips import DENOMINATIONS
from .deck import COLORS, Deck, build_deck
from .edgework import VANILLA_PORTS, Edgework
from .errors import BaccaratError, EdgeworkError, LimitsError
from .limits import TableLimits, random_limits
from .module import BaccaratModule
from .rounds import AREAS, Round, play_round

__all__ = [
    "AREAS",
    "COLORS",
    "DENOMINATIONS",
    "VANILLA_PORTS",
    "BaccaratError",
    "BaccaratModule",
    "Card",
    "Deck",
    "Edgework",
    "EdgeworkError",
    "LimitsError",
    "Round",
    "TableLimits",
    "build_deck",
    "hand_score",
    "play_round",
    "random_limits",
]
