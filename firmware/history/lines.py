"""The history file's lines, read strictly: the schema of each kind of line.

Each game is a run of JSON lines sharing an ``id`` (``t`` says what a line is):

=============  ================================================================================
``start``      the game began (a reset, or the prop's first start): ``at``, the game ``number``,
               the ``edgework`` (and whether it was ``drawn`` at random), the table ``limits``,
               the first ``deck``, whether the table was ``enabled``, the ``bomb``'s limits (timer,
               strike limit) when the config sets them, the deal's ``pacing``, and ``resumed``
               when the record begins after a restart that found no record of the game
``round``      one gesture at the deck: the bets as stacked (``stacks``, bottom to top), the active
               ``chip``, the ``deck`` and ``cards_left`` before the deal, the ``limits``, the
               ``cards`` dealt in order (hand, card, the hand's score then), the ``result``
               (scores, winner, profit and each bet's result in cents; null when a check refused
               the deal), its ``strikes`` with their reasons, stacks the dealer ``reordered``,
               ``remote`` (true) for a ``bet`` command, the countdown's ``timer`` seconds shown
               at the gesture, and ``exploded`` (its cause) when the round set the bomb off; a
               round is the players' progress at its ``at``. The round whose line ends a write
               carries the game's ``totals`` so far (as a ``stop`` line has them): a start after a
               power cut goes on from the last such line, not from the game's first
``strike``     a strike outside a deal (a timer's)
``hint``       the game master asked which bet wins (the ``hint`` command) and was told ``winner``
``command``    the game master changed the game: ``set_limits``, ``set_edgework``, ``set_solved``,
               ``enable``, ``disable``, ``force_solve``, ``start`` (the countdown), ``add_time``,
               with the change in words (``detail``)
``stop``       the prop stopped cleanly (SIGTERM) during the game, with what a start needs to go on
               with it: the game ``number``, when it ``started``, its ``gestures`` at the deck, the
               ``rounds`` dealt, ``hints``, ``commands`` and ``strikes`` so far, and ``first_move``
``resume``     the prop started again and the saved game went on
``end``        how it ended: ``outcome`` solved, exploded (``cause`` timer or strikes), reset (the
               game master began another) or interrupted (the saved game was lost); the totals,
               and the countdown's ``time_left`` on a bomb with a timer; in an OBUS bomb, its
               modules (``obus``: :mod:`.bomb`)
``bomb``       after the ``end`` line, in an OBUS bomb that went on after the prop's game ended
               (the other modules of a bomb the prop runs play on after its own is solved): the
               bomb's modules when the bomb's game ended (``obus``, with its ``ended``); a reader
               takes it as the game's bomb instead of the end line's (files before it have none)
=============  ================================================================================

Lines may also carry ``first_move`` (the players' first input of the game) and ``progress``
(their last progress, see :mod:`.keeper`). Every line is checked against its schema here; a
line that fails is skipped and reported (:class:`Problem`), never trusted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from baccarat_core import BaccaratError, Edgework, strict
from baccarat_core.cards import Card
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.deck import COLORS
from baccarat_core.numbers import show_value
from baccarat_core.records import record
from baccarat_core.rounds import AREAS
from baccarat_core.timer import CAUSES, MAX_TIMER_SECONDS
from firmware.game.pacing import PACINGS

from .bomb import MAX_MODULES

#: The file format's version, on every ``start`` line.
VERSION = 1
#: Longest line read (a round's line is about 600 bytes).
MAX_LINE_BYTES = 16 * 1024
#: How a game can end.
OUTCOMES = ("solved", "exploded", "reset", "interrupted")
#: Most rounds, hints and commands one game records line by line (the end line keeps the totals).
MAX_ENTRIES = {"round": 300, "hint": 100, "command": 100, "strike": 100}

#: A game id: a letter or digit, then up to 47 of these and ``._:-`` (sets, not a regular
#: expression: compiling one cost every start 1.7 M instructions).
_ID_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ID_REST = _ID_FIRST | frozenset("._:-")
_LATEST = 1e11  # seconds since 1970: the year 5138


class EntryError(strict.InputError):
    """A history line that does not follow its schema."""


@record
class Problem:
    """A line of the history that was skipped, and why."""

    where: str
    line: int
    reason: str

    def describe(self) -> str:
        """``history.jsonl line 12 skipped: not JSON (...)``, or for a whole file (line 0) its reason."""
        if self.line == 0:
            return f"{self.where}: {self.reason}"
        return f"{self.where} line {self.line} skipped: {self.reason}"


# -- the schema -------------------------------------------------------------------------------------

Check = Callable[[object, str], object]


def _time(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= _LATEST:
        raise EntryError(f"{what} {show_value(value)} is not a time")
    return float(value)


def _count(maximum: int) -> Check:
    def check(value: object, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
            raise EntryError(f"{what} {show_value(value)} is not a whole number from 0 to {maximum}")
        return value

    return check


def _cents(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**12:
        raise EntryError(f"{what} {show_value(value)} is not an amount in cents")
    return value


def _bool(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise EntryError(f"{what} {show_value(value)} is not true or false")
    return value


def _text(limit: int) -> Check:
    def check(value: object, what: str) -> str:
        if not isinstance(value, str) or len(value) > limit or not value.isprintable():
            raise EntryError(f"{what} {show_value(value)} is not a line of at most {limit} characters")
        return value

    return check


def _one_of(*allowed: str) -> Check:
    def check(value: object, what: str) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise EntryError(f"{what} {show_value(value)} is not one of {', '.join(allowed)}")
        return value

    return check


def _id(value: object, what: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 48 or value[0] not in _ID_FIRST:
        raise EntryError(f"{what} {show_value(value)} is not a game id")
    if not _ID_REST.issuperset(value):
        raise EntryError(f"{what} {show_value(value)} is not a game id")
    return value


def _card(value: object, what: str) -> str:
    try:
        if isinstance(value, str) and str(Card.parse(value)) == value:
            return value
    except BaccaratError:
        pass
    raise EntryError(f"{what} {show_value(value)} is not a card")


def _list(item: Check, most: int, least: int = 0) -> Check:
    def check(value: object, what: str) -> list[Any]:
        if not isinstance(value, list) or not least <= len(value) <= most:
            raise EntryError(f"{what} is not a list of {least} to {most} items")
        return [item(each, what) for each in value]

    return check


def _chip(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in DENOMINATIONS:
        raise EntryError(f"{what} {show_value(value)} is not a chip value")
    return value


def _stacks(value: object, what: str) -> dict[str, list[int]]:
    if not isinstance(value, dict):
        raise EntryError(f"{what} is not an object")
    for area, stack in value.items():
        if area not in AREAS:
            raise EntryError(f"{what}: {show_value(area)} is not a betting area")
        _list(_chip, 500)(stack, f"{what} {area}")
    return value


def _amounts(value: object, what: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise EntryError(f"{what} is not an object")
    for area, amount in value.items():
        if area not in AREAS:
            raise EntryError(f"{what}: {show_value(area)} is not a betting area")
        _cents(amount, f"{what} {area}")
    return value


def _table_limits(value: object, what: str) -> list[int]:
    if not isinstance(value, list) or len(value) != 2:
        raise EntryError(f"{what} is not [min, max]")
    try:
        strict.check_limits(value[0], value[1])
    except BaccaratError as error:
        raise EntryError(f"{what}: {error}") from None
    return value


def _start_limits(value: object, what: str) -> dict[str, Any]:
    data = strict.check_keys(value, what, required=frozenset({"min", "max", "random"}))
    _table_limits([data["min"], data["max"]], what)
    _bool(data["random"], f"{what} random")
    return data


def _edgework(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EntryError(f"{what} is not an object")
    try:
        Edgework.from_dict(value)
    except BaccaratError as error:
        raise EntryError(f"{what}: {error}") from None
    return value


def _flat(value: object, what: str) -> dict[str, Any]:
    """A small object of plain values (the bomb's limits, as the config has them)."""
    if not isinstance(value, dict) or len(value) > 20:
        raise EntryError(f"{what} is not a small object")
    for key, item in value.items():
        _text(40)(key, what)
        if item is not None and not isinstance(item, bool | int | float | str):
            raise EntryError(f"{what} {key} is not a plain value")
        if isinstance(item, str):
            _text(80)(item, f"{what} {key}")
        if isinstance(item, int | float) and not isinstance(item, bool) and not abs(item) <= _LATEST:
            raise EntryError(f"{what} {key} {show_value(item)} is out of range")
    return value


def _dealt(value: object, what: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != 3:
        raise EntryError(f"{what} is not [hand, card, score]")
    _one_of("player", "banker")(value[0], what)
    _card(value[1], what)
    _count(9)(value[2], what)
    return value


def _result(value: object, what: str) -> dict[str, Any] | None:
    if value is None:
        return None
    keys = frozenset({"player_score", "banker_score", "winner", "profit_cents", "results"})
    data = strict.check_keys(value, what, required=keys)
    for hand in ("player", "banker"):
        _count(9)(data[f"{hand}_score"], f"{what} {hand} score")
    _one_of("player", "banker", "tie")(data["winner"], f"{what} winner")
    _cents(data["profit_cents"], f"{what} profit")
    _amounts(data["results"], f"{what} results")
    return data


def _strike(value: object, what: str) -> dict[str, Any]:
    data = strict.check_keys(value, what, required=frozenset({"reason", "detail", "strikes"}))
    _text(40)(data["reason"], f"{what} reason")
    _text(240)(data["detail"], f"{what} detail")
    _count(strict.MAX_STRIKES)(data["strikes"], f"{what} count")
    return data


def _bomb_module(value: object, what: str) -> dict[str, Any]:
    data = strict.check_keys(
        value, what, required=frozenset({"solved", "strikes"}), optional=frozenset({"type", "id", "prop"})
    )
    _bool(data["solved"], f"{what} solved")
    _count(255)(data["strikes"], f"{what} strikes")
    for key in ("type", "id"):
        if key in data:
            _count(255)(data[key], f"{what} {key}")
    if "prop" in data:
        _bool(data["prop"], f"{what} prop")
    return data


def _obus(value: object, what: str) -> dict[str, Any]:
    """An OBUS bomb's modules at the game's end (:mod:`.bomb`)."""
    counts = frozenset({"solved", "puzzles", "strikes"})
    data = strict.check_keys(value, what, required=frozenset({"role", "modules"}), optional=counts | {"ended"})
    _one_of("module", "controller")(data["role"], f"{what} role")
    _list(_bomb_module, MAX_MODULES)(data["modules"], f"{what} modules")
    for key in counts & data.keys():
        _count(255)(data[key], f"{what} {key}")
    if "ended" in data:
        _one_of("solved", "timer", "strikes")(data["ended"], f"{what} ended")
    return data


_COMMON: dict[str, Check] = {"t": _text(10), "id": _id, "at": _time}
_MARKS: dict[str, Check] = {"first_move": _time, "progress": _time}
#: A game's totals so far (a clean stop's line, and a round's ``totals``): what a start goes on from.
_TOTALS: dict[str, Check] = {
    "game": _count(strict.MAX_GAMES),
    "started": _time,
    "gestures": _count(10**7),
    "rounds": _count(10**7),
    "hints": _count(10**7),
    "commands": _count(10**7),
    "strikes": _count(strict.MAX_STRIKES),
}


def _round_totals(value: object, what: str) -> dict[str, Any]:
    data = strict.check_keys(value, what, required=frozenset(_TOTALS), optional=frozenset({"first_move"}))
    for key, check in (*_TOTALS.items(), ("first_move", _time)):
        if key in data:
            check(data[key], f"{what} {key}")
    return data


#: Each line type: its required keys, then its optional ones, each with its check.
SCHEMAS: dict[str, tuple[dict[str, Check], dict[str, Check]]] = {
    "start": (
        {
            "v": _count(VERSION),
            "game": _count(strict.MAX_GAMES),
            "edgework": _edgework,
            "drawn": _bool,
            "limits": _start_limits,
            "deck": _one_of(*COLORS),
            "enabled": _bool,
        },
        {"bomb": _flat, "resumed": _bool, "pacing": _one_of(*PACINGS)},
    ),
    "round": (
        {
            "n": _count(10**7),
            "deck": _one_of(*COLORS),
            "cards_left": _count(52),
            "limits": _table_limits,
            "chip": _chip,
            "stacks": _stacks,
            "cards": _list(_dealt, 6),
            "result": _result,
            "strikes": _list(_strike, 10),
        },
        {
            "reordered": _stacks,
            "remote": _bool,
            "timer": _count(int(MAX_TIMER_SECONDS)),
            "exploded": _one_of(*CAUSES),
            "totals": _round_totals,
            **_MARKS,
        },
    ),
    "strike": ({"reason": _text(40), "detail": _text(240), "strikes": _count(strict.MAX_STRIKES)}, dict(_MARKS)),
    "hint": ({"winner": _one_of("player", "banker", "tie")}, dict(_MARKS)),
    "command": ({"command": _text(20), "detail": _text(240)}, dict(_MARKS)),
    "stop": ({}, {**_TOTALS, **_MARKS}),
    "resume": ({}, dict(_MARKS)),
    "bomb": ({"obus": _obus}, {}),
    "end": (
        {"outcome": _one_of(*OUTCOMES), "strikes": _count(strict.MAX_STRIKES)},
        {
            "forced": _bool,
            "cause": _text(40),
            "rounds": _count(10**7),
            "hints": _count(10**7),
            "commands": _count(10**7),
            "time_left": _time,
            "obus": _obus,
            **_MARKS,
        },
    ),
}


def check_entry(data: object) -> dict[str, Any]:
    """``data`` if it is a history line that follows its schema, else an :class:`EntryError`."""
    if not isinstance(data, dict):
        raise EntryError(f"{show_value(data)} is not an object")
    kind = data.get("t")
    if not isinstance(kind, str) or kind not in SCHEMAS:
        raise EntryError(f"unknown entry type {show_value(kind)}")
    required, optional = SCHEMAS[kind]
    strict.check_keys(
        data, f"a {kind} entry", required=frozenset(_COMMON) | frozenset(required), optional=frozenset(optional)
    )
    for key, check in (*_COMMON.items(), *required.items(), *optional.items()):
        if key in data:
            check(data[key], key)
    if kind == "start" and data["v"] != VERSION:
        raise EntryError(f"version {show_value(data['v'])} is not {VERSION}")
    return data


def parse_line(raw: bytes) -> dict[str, Any]:
    """One line of the file (without its newline), read strictly and checked."""
    return check_entry(strict.loads(raw, "the line", max_bytes=MAX_LINE_BYTES))


#: Times are counted from here, in whole seconds, by the calendar's own arithmetic.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_time(at: float) -> str:
    """``2025-05-01T12:00:00Z``: a time as the history's readers show it (UTC).

    Where the C library's ``gmtime`` gives up (a 32-bit ``time_t``, as on Raspberry Pi OS 32-bit,
    ends on 2038-01-19), by the calendar's own arithmetic: every time the history holds (up to the
    year 5138) is shown.
    """
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    except (OverflowError, OSError, ValueError):  # past a 32-bit time_t: the calendar's own arithmetic
        return (_EPOCH + timedelta(seconds=int(at))).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_stamp(at: float) -> str:
    """``20250501-120000``: the time a game began, as its id begins (UTC; past 2038 as well)."""
    try:
        return time.strftime("%Y%m%d-%H%M%S", time.gmtime(at))
    except (OverflowError, OSError, ValueError):
        return (_EPOCH + timedelta(seconds=int(at))).strftime("%Y%m%d-%H%M%S")


def local_time(at: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``at`` in this machine's time zone, as ``fmt`` says (``baccarat history``'s table). Past the end
    of a 32-bit ``time_t`` (2038-01-19, where the C library's ``localtime`` gives up), at the time
    zone's offset of now."""
    try:
        return time.strftime(fmt, time.localtime(at))
    except (OverflowError, OSError, ValueError):
        offset = time.localtime().tm_gmtoff
        return (_EPOCH + timedelta(seconds=int(at) + offset)).strftime(fmt)
