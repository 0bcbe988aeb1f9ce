"""Remote play: bets sent as words or JSON, turned into the presses that place them.

The original module's Twitch Plays handler takes ``bet 25 on banker, 5 on tie``,
clears the table, stacks each amount from the largest chip down (so a stack is
never out of order) and deals. Here the same rule is pure: :func:`parse_bets`
reads the bets, :func:`bet_inputs` plans the presses a person would make for
them, and :meth:`BaccaratModule.bet <baccarat_core.module.BaccaratModule.bet>`
runs those presses, so a bet gives exactly the events the presses give.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from . import events as ev
from .chips import DENOMINATIONS
from .errors import BaccaratError
from .inputs import Arrow, Deal, Hold, Input, Press
from .numbers import format_cents, format_dollars, parse_dollars, show_value
from .patterns import Pattern
from .rounds import AREAS
from .strict import MAX_TABLE_MAXIMUM

#: The largest amount one bet may be: the largest table maximum the prop shows, so that every bet
#: any table allows can be placed (and more strikes as a deal would; the original caps there too).
MAX_BET = MAX_TABLE_MAXIMUM

#: The names a betting area answers to, in lower case with runs of spaces as one and one ``_`` or
#: ``-`` as a space (the original's Twitch Plays names, and the areas' own ids).
AREA_ALIASES: dict[str, str] = {
    "player": "player",
    "banker": "banker",
    "tie": "tie",
    "player pair": "player_pair",
    "playerpair": "player_pair",
    "banker pair": "banker_pair",
    "bankerpair": "banker_pair",
}

#: A comma that separates two bets: any comma but a thousands separator (a digit before it and
#: exactly three digits after it), so ``bet 1,000 on banker, 5 on tie`` is two bets.
_BET_SEPARATOR = Pattern(r"(?<![0-9]),|,(?![0-9]{3}(?![0-9]))")
#: One bet: ``<amount> on <area>``.
_ONE_BET = Pattern(r"(?P<amount>\S+)\s+on\s+(?P<area>\S.*)", re.IGNORECASE | re.DOTALL)

#: A part that is a number and nothing else (a thousands separator mistyped, ``1,00``).
_AMOUNT_ONLY = Pattern(r"\$?[0-9]+")
#: The word ``bet`` in front of the bets (optional).
_LEADING_BET = Pattern(r"\s*bet(?:\s+|$)", re.IGNORECASE)

_HOW = "write <amount> on <area>, e.g. 25 on banker, 5 on tie"


def area_of(name: object) -> str:
    """The betting area ``name`` names: ``banker``, ``Player Pair``, ``playerpair``, ``banker_pair``."""
    key = " ".join(name.lower().split()).replace("_", " ").replace("-", " ") if isinstance(name, str) else None
    if key not in AREA_ALIASES:
        raise BaccaratError(f"{show_value(name)} is not a betting area (player, banker, tie, player pair, banker pair)")
    return AREA_ALIASES[key]


def check_amount(amount: object, area: str) -> int:
    """``amount`` if it is a bet the chips can make on ``area``: whole dollars from $1 to :data:`MAX_BET`."""
    where = f"the amount on {ev.AREA_NAMES[area]}"
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise BaccaratError(f"{where} {show_value(amount)} is not a whole number of dollars")
    if amount < 1:
        raise BaccaratError(f"{where} {show_value(amount)} is below the smallest chip ($1)")
    if amount > MAX_BET:
        raise BaccaratError(f"{where} {show_value(amount)} is above the largest bet ({format_dollars(MAX_BET)})")
    return amount


def parse_bet_words(text: str) -> dict[str, int]:
    """Bets from words, as the original's Twitch Plays reads them: ``bet 25 on banker, 5 on tie``.

    The leading ``bet`` may be left out; amounts may carry ``$`` and thousands separators
    (``$1,000``); areas are named as :func:`area_of` reads them. Empty parts between
    commas are skipped. Every bet names a different area, and there is at least one.

    >>> parse_bet_words("bet 25 on banker, 5 on tie")
    {'banker': 25, 'tie': 5}
    >>> parse_bet_words("$1,000 on Player Pair")
    {'player_pair': 1000}
    >>> parse_bet_words("bet 0 on tie")
    Traceback (most recent call last):
    baccarat_core.errors.BaccaratError: the amount on Tie 0 is below the smallest chip ($1)
    """
    leading = _LEADING_BET.match(text)
    words = text[leading.end() :] if leading else text
    bets: dict[str, int] = {}
    for part in _BET_SEPARATOR.split(words):
        part = part.strip()
        if not part:
            continue
        match = _ONE_BET.fullmatch(part)
        if match is None and _AMOUNT_ONLY.fullmatch(part):
            raise BaccaratError(f"cannot read {show_value(part)} as a bet: no area (a comma separates bets; {_HOW})")
        if match is None:
            raise BaccaratError(f"cannot read {show_value(part)} as a bet ({_HOW})")
        area = area_of(match["area"].strip())
        if area in bets:
            raise BaccaratError(f"more than one bet on {ev.AREA_NAMES[area]}")
        amount = parse_dollars(match["amount"], f"the amount on {ev.AREA_NAMES[area]}")
        bets[area] = check_amount(amount, area)
    if not bets:
        raise BaccaratError(f"no bet given ({_HOW})")
    return bets


def parse_bets(value: object) -> dict[str, int]:
    """Bets from a command's ``bets``: an object (``{"banker": 25, "tie": 5}``) or words (a string)."""
    if isinstance(value, str):
        return parse_bet_words(value)
    if not isinstance(value, dict):
        raise BaccaratError(f'bets {show_value(value)} must be an object like {{"banker": 25}} or words')
    bets: dict[str, int] = {}
    for name, amount in value.items():
        area = area_of(name)
        if area in bets:
            raise BaccaratError(f"more than one bet on {ev.AREA_NAMES[area]}")
        bets[area] = check_amount(amount, area)
    if not bets:
        raise BaccaratError("no bet given: bets is empty")
    return bets


def chips_for(amount: int) -> tuple[int, ...]:
    """``amount`` in chips, largest first: the stack from the bottom up, never out of order.

    >>> chips_for(1_130)
    (1000, 100, 25, 5)
    """
    chips: list[int] = []
    for chip in reversed(DENOMINATIONS):
        count, amount = divmod(amount, chip)
        chips += [chip] * count
    return tuple(chips)


def bet_inputs(bets: Mapping[str, int], denomination: int, stacks: Mapping[str, Sequence[int]]) -> list[Input]:
    """The presses that place ``bets`` from this table, as the original's Twitch Plays makes them.

    A hold on each area that holds chips (the table is cleared), then for each bet in
    the order given and each of its chips from the largest down: the arrows to that
    chip from the active one (``denomination``), and a press on the area; then the deal.
    The active chip is left where the last press left it.

    $30 on Banker with the $5 chip showing and $5 on Tie:

    >>> from baccarat_core.inputs import describe_input
    >>> for step in bet_inputs({"banker": 30}, 5, {"tie": [5]}):
    ...     print(describe_input(step))
    hold tie
    arrow right
    press banker
    arrow left
    press banker
    deal
    """
    inputs: list[Input] = [Hold(area) for area in AREAS if stacks.get(area)]
    index = DENOMINATIONS.index(denomination)
    for area, amount in bets.items():
        for chip in chips_for(amount):
            target = DENOMINATIONS.index(chip)
            inputs += [Arrow("right" if target > index else "left")] * abs(target - index)
            index = target
            inputs.append(Press(area))
    inputs.append(Deal())
    return inputs


def describe_bets(bets: Mapping[str, int]) -> str:
    """``$25 on Banker, $5 on Tie``."""
    return ", ".join(f"{format_dollars(amount)} on {ev.AREA_NAMES[area]}" for area, amount in bets.items())


def bet_outcome(events: Sequence[ev.Event]) -> str:
    """What a bet's events came to, in one line: the round, a strike, or why it was ignored."""
    ignored = next((e for e in events if isinstance(e, ev.InputIgnored) and e.input == "deal"), None)
    if ignored is not None:
        return ignored.describe()
    played = next((e for e in events if isinstance(e, ev.RoundPlayed)), None)
    strikes = [e for e in events if isinstance(e, ev.Strike)]
    if played is None:
        strike = strikes[-1] if strikes else None
        why = f"STRIKE {strike.strikes}: {strike.detail}" if strike else "no deal"
        return f"{why}; no deal, the chips stay"
    winner = "a tie" if played.winner == "tie" else f"{played.winner.capitalize()} wins"
    scores = f"Player {played.player_score}, Banker {played.banker_score}"
    line = f"{winner} ({scores}), profit {format_cents(played.profit_cents, signed=True)}"
    if any(isinstance(e, ev.Solved) for e in events):
        return f"{line}: SOLVED"
    loss = next((e for e in strikes if e.reason == "loss"), None)
    return f"{line}: STRIKE {loss.strikes}" if loss else f"{line}: nothing happens"
