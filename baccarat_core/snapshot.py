"""What of a module survives a restart: :func:`snapshot` as JSON-ready data, and :func:`restore`,
which reads it back strictly (every key known and of its exact type, every number within its
bounds, the deck exactly the one its colour, edgework, limits and solved count deal).
"""

from __future__ import annotations

import json
import random
from typing import Any, Protocol, TypeVar

from .bomb import RandomBombs, check_game
from .chips import DENOMINATIONS
from .deck import COLORS, Deck, build_deck
from .edgework import Edgework, check_solved
from .errors import BaccaratError
from .limits import TableLimits
from .numbers import check_count, show_value
from .strict import MAX_STRIKES, check_bool, check_keys, check_limits
from .timer import CAUSES, BombRules, Countdown


class Savable(Protocol):
    """What :func:`snapshot` reads of a module and :func:`restore` sets:
    :class:`~baccarat_core.module.BaccaratModule` (named by its shape, as that module imports this one)."""

    edgework: Edgework
    limits: TableLimits
    limits_random: bool
    deck: Deck | None
    position: int
    denomination_index: int
    strikes: int
    solved: bool
    enabled: bool
    round_pending: bool
    game: int
    edgework_drawn: bool
    exploded: str | None
    timer: Countdown | None
    rules: BombRules

    def __init__(
        self,
        edgework: Edgework | None,
        limits: TableLimits | None,
        *,
        rng: random.Random | None = None,
        bombs: RandomBombs | None = None,
        rules: BombRules | None = None,
    ) -> None: ...

    @property
    def denomination(self) -> int:
        """The active chip's value in dollars."""

    def _require_deck(self) -> Deck: ...

    def _rate(self) -> float: ...


_Module = TypeVar("_Module", bound=Savable)

_SNAPSHOT_KEYS = frozenset({"edgework", "limits", "deck", "position", "denomination", "strikes", "solved"})
_SNAPSHOT_OPTIONAL = frozenset(
    {"limits_random", "round_pending", "enabled", "game", "edgework_drawn", "exploded", "timer"}
)
_EDGEWORK_KEYS = frozenset({"serial", "ports", "lit", "unlit", "solved"})
_EDGEWORK_OPTIONAL = frozenset({"batteries", "plates"})
_DECK_KEYS = frozenset({"color", "unshuffled", "cards", "solved", "letter", "digit", "port_column"})
_DECK_OPTIONAL = frozenset({"first_index", "multiplier"})


def snapshot(module: Savable) -> dict[str, Any]:
    """What survives a restart, as JSON-ready data (bets on the table are not kept)."""
    deck = module._require_deck()
    bomb: dict[str, Any] = {}  # only with a bomb around the module: older saved games read the same
    if module.exploded is not None:
        bomb["exploded"] = module.exploded
    if module.timer is not None:
        bomb["timer"] = module.timer.to_dict()
    return {
        "edgework": module.edgework.to_dict(),
        "limits": module.limits.to_dict(),
        "limits_random": module.limits_random,
        "deck": {
            **deck.to_dict(),
            "solved": deck.solved,
            "letter": deck.letter,
            "digit": deck.digit,
            "port_column": deck.port_column,
        },
        "position": module.position,
        "denomination": module.denomination,
        "strikes": module.strikes,
        "solved": module.solved,
        "enabled": module.enabled,
        "round_pending": module.round_pending,
        "game": module.game,
        "edgework_drawn": module.edgework_drawn,
        **bomb,
    }


def restore(
    cls: type[_Module],
    state: dict[str, Any],
    *,
    rng: random.Random | None = None,
    bombs: RandomBombs | None = None,
    rules: BombRules | None = None,
) -> _Module:
    """Rebuild a module from :meth:`snapshot` (bets on the table are not kept); ``bombs`` draws
    the bombs of the resets to come (random edgework); ``rules`` are the bomb's (a saved
    countdown must be one of ``rules.timer_seconds``, and there must be one when they have it).

    The schema is strict: every key known and of its exact type (``"false"`` is not
    false, ``1.9`` or ``"2"`` is not a number of strikes), every number within its
    bounds, and the deck exactly the one its colour, edgework, limits and solved
    count deal. Anything else is a :class:`BaccaratError` naming the first problem.
    """
    s = check_keys(state, "saved state", required=_SNAPSHOT_KEYS, optional=_SNAPSHOT_OPTIONAL)
    limits_data = check_keys(s["limits"], "saved limits", required=frozenset({"min", "max"}))
    limits = check_limits(limits_data["min"], limits_data["max"])
    edgework = Edgework.from_dict(
        check_keys(s["edgework"], "saved edgework", required=_EDGEWORK_KEYS, optional=_EDGEWORK_OPTIONAL)
    )
    d = check_keys(s["deck"], "saved deck", required=_DECK_KEYS, optional=_DECK_OPTIONAL)
    color = d["color"]
    if not isinstance(color, str) or color not in COLORS:
        raise BaccaratError(f"saved deck colour {show_value(color)} is not one of {', '.join(COLORS)}")
    deck = build_deck(edgework, limits, color, check_solved(d["solved"]))
    expected = {
        **deck.to_dict(),
        "solved": deck.solved,
        "letter": deck.letter,
        "digit": deck.digit,
        "port_column": deck.port_column,
    }
    # Compared as JSON, so that true is not 1 and 3.0 is not 3.
    if json.dumps(d, sort_keys=True) != json.dumps(expected, sort_keys=True):
        raise BaccaratError("saved deck is not the deck its colour, edgework, limits and solved count deal")
    module = cls(edgework, limits, rng=rng, bombs=bombs, rules=rules)
    module.deck = deck
    module.position = check_count(s["position"], "saved deck position", maximum=52 - 6)
    denomination = s["denomination"]
    if isinstance(denomination, bool) or not isinstance(denomination, int) or denomination not in DENOMINATIONS:
        raise BaccaratError(f"saved active chip {show_value(denomination)} is not a chip value")
    module.denomination_index = DENOMINATIONS.index(denomination)
    module.strikes = check_count(s["strikes"], "saved strikes", maximum=MAX_STRIKES)
    module.solved = check_bool(s["solved"], "saved solved flag")
    module.limits_random = check_bool(s.get("limits_random", False), "saved limits_random")
    module.round_pending = check_bool(s.get("round_pending", False), "saved round_pending")
    module.enabled = check_bool(s.get("enabled", True), "saved enabled flag")
    module.game = check_game(s.get("game", 1))
    module.edgework_drawn = check_bool(s.get("edgework_drawn", False), "saved edgework_drawn flag")
    exploded = s.get("exploded")
    if exploded is not None and exploded not in CAUSES:
        raise BaccaratError(f"saved explosion cause {show_value(exploded)} is not one of {', '.join(CAUSES)}")
    if exploded is not None and module.solved:
        raise BaccaratError("saved game is both solved and exploded")
    module.exploded = exploded
    saved_timer = s.get("timer")
    seconds = module.rules.timer_seconds
    if seconds is None:
        if saved_timer is not None:
            raise BaccaratError("saved game has a timer, and the bomb has none")
    else:
        if saved_timer is None:
            raise BaccaratError("saved game has no timer, and the bomb has one")
        module.timer = Countdown.from_dict(saved_timer, seconds)
        module.timer.rate = module._rate()
    return module
