"""The history file's lines, read strictly, and the games they make: summaries, averages, CSV.

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
               round is the players' progress at its ``at``
``strike``     a strike outside a deal (a timer's)
``hint``       the game master asked which bet wins (the ``hint`` command) and was told ``winner``
``command``    the game master changed the game: ``set_limits``, ``set_edgework``, ``set_solved``,
               ``enable``, ``disable``, ``force_solve``, ``start`` (the countdown), ``add_time``,
               with the change in words (``detail``)
``stop``       the prop stopped cleanly (SIGTERM) during the game
``resume``     the prop started again and the saved game went on
``end``        how it ended: ``outcome`` solved, exploded (``cause`` timer or strikes), reset (the
               game master began another) or interrupted (the saved game was lost); the totals,
               and the countdown's ``time_left`` on a bomb with a timer
=============  ================================================================================

Lines may also carry ``first_move`` (the players' first input of the game) and ``progress``
(their last progress, see :mod:`.keeper`). Every line is checked against its schema here; a
line that fails is skipped and reported (:class:`Problem`), never trusted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from baccarat_core import BaccaratError, Edgework, strict
from baccarat_core.cards import Card
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.deck import COLORS
from baccarat_core.numbers import format_cents, format_dollars, show_value
from baccarat_core.records import record
from baccarat_core.rounds import AREAS
from baccarat_core.timer import CAUSES, MAX_TIMER_SECONDS

from ..pacing import PACINGS

#: The file format's version, on every ``start`` line.
VERSION = 1
#: Longest line read (a round's line is about 600 bytes).
MAX_LINE_BYTES = 16 * 1024
#: How a game can end.
OUTCOMES = ("solved", "exploded", "reset", "interrupted")
#: Most rounds, hints and commands one game records line by line (the end line keeps the totals).
MAX_ENTRIES = {"round": 300, "hint": 100, "command": 100, "strike": 100}

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,47}")
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
    if not isinstance(value, str) or not _ID.fullmatch(value):
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


_COMMON: dict[str, Check] = {"t": _text(10), "id": _id, "at": _time}
_MARKS: dict[str, Check] = {"first_move": _time, "progress": _time}

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
            **_MARKS,
        },
    ),
    "strike": ({"reason": _text(40), "detail": _text(240), "strikes": _count(strict.MAX_STRIKES)}, dict(_MARKS)),
    "hint": ({"winner": _one_of("player", "banker", "tie")}, dict(_MARKS)),
    "command": ({"command": _text(20), "detail": _text(240)}, dict(_MARKS)),
    "stop": ({}, dict(_MARKS)),
    "resume": ({}, dict(_MARKS)),
    "end": (
        {"outcome": _one_of(*OUTCOMES), "strikes": _count(strict.MAX_STRIKES)},
        {
            "forced": _bool,
            "cause": _text(40),
            "rounds": _count(10**7),
            "hints": _count(10**7),
            "commands": _count(10**7),
            "time_left": _time,
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


# -- games ---------------------------------------------------------------------------------------------


class Game:
    """One game as its lines tell it (the start line first, the end line last if it ended)."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.start = start
        self.entries: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        """The game's id (unique to the history)."""
        return str(self.start["id"])

    def add(self, entry: dict[str, Any]) -> None:
        """A line after the start; the end line closes the game."""
        if entry["t"] == "end":
            self.end = entry
        else:
            self.entries.append(entry)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """The entries of one type, in order."""
        return [entry for entry in self.entries if entry["t"] == kind]

    @property
    def rounds(self) -> list[dict[str, Any]]:
        """Every gesture at the deck, refused ones included."""
        return self.of_kind("round")

    def _mark(self, key: str, pick: Callable[[Iterable[float]], float]) -> float | None:
        values = [float(e[key]) for e in (*self.entries, *([self.end] if self.end else [])) if key in e]
        return float(pick(values)) if values else None

    @property
    def first_move(self) -> float | None:
        """When the players first touched the module in this game (None: never)."""
        return self._mark("first_move", min)

    @property
    def last_progress(self) -> float | None:
        """When the players last made progress, as far as the lines say (None: never): a round
        is progress at its time, other lines say when the last progress before them was."""
        marks = [m for m in (self._mark("progress", max), *(float(r["at"]) for r in self.rounds)) if m is not None]
        return max(marks) if marks else None

    def offline_seconds(self) -> float:
        """Time the prop was stopped cleanly during the game (a ``stop`` line, then a ``resume``)."""
        total, stopped = 0.0, None
        for entry in self.entries:
            if entry["t"] == "stop":
                stopped = entry["at"]
            elif entry["t"] == "resume" and stopped is not None:
                total += max(0.0, entry["at"] - stopped)
                stopped = None
        return total

    def seconds(self, now: float | None = None) -> float | None:
        """Time played: from the players' first input (else the start) to the end (an unfinished
        game: to its ``stop`` if the prop stopped last, else ``now``, else its last line), less the
        time the prop was stopped cleanly."""
        begin = self.first_move if self.first_move is not None else float(self.start["at"])
        if self.end is not None:
            finish = float(self.end["at"])
        elif self.entries and self.entries[-1]["t"] == "stop":  # the prop stopped: its clock too
            finish = float(self.entries[-1]["at"])
        elif now is not None:
            finish = now
        else:
            finish = max([float(self.start["at"]), *(float(e["at"]) for e in self.entries)])
        return max(0.0, finish - begin - self.offline_seconds())

    @property
    def outcome(self) -> str:
        """solved, exploded, reset, interrupted, or playing (no end line)."""
        return str(self.end["outcome"]) if self.end is not None else "playing"

    def strikes(self) -> int:
        """Strikes in the game: the end line's count, else the highest count the lines saw."""
        if self.end is not None:
            return int(self.end["strikes"])
        counts = [s["strikes"] for r in self.rounds for s in r["strikes"]] + [
            s["strikes"] for s in self.of_kind("strike")
        ]
        return max(counts, default=0)

    def _total(self, key: str, counted: int) -> int:
        return max(counted, int(self.end.get(key, 0))) if self.end is not None else counted

    def summary(self, now: float | None = None) -> dict[str, Any]:
        """The game in one row: what the History view, the CSV and ``baccarat history`` show."""
        start = self.start
        dealt = [r for r in self.rounds if r["result"] is not None]
        seconds = self.seconds(now)
        end = self.end or {}
        limits = start["limits"]
        return {
            "id": self.id,
            "game": start["game"],
            "started": iso_time(start["at"]),
            "ended": iso_time(end["at"]) if end else None,
            "outcome": self.outcome,
            "cause": end.get("cause"),
            "forced": bool(end.get("forced", False)),
            "seconds": None if seconds is None else round(seconds, 1),
            "rounds": self._total("rounds", len(dealt)),
            "strikes": self.strikes(),
            "hints": self._total("hints", len(self.of_kind("hint"))),
            "commands": self._total("commands", len(self.of_kind("command"))),
            "restarts": len(self.of_kind("resume")),
            "remote_rounds": sum(1 for r in dealt if r.get("remote")),
            "profit_cents": sum(r["result"]["profit_cents"] for r in dealt),
            "serial": start["edgework"]["serial"],
            "edgework_drawn": start["drawn"],
            "limits": f"{format_dollars(limits['min'])} - {format_dollars(limits['max'])}",
            "resumed": bool(start.get("resumed", False)),
        }


def iso_time(at: float) -> str:
    """``2025-05-01T12:00:00Z``: a time as the history's readers show it (UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def build_games(entries: Iterable[tuple[dict[str, Any], str, int]]) -> tuple[list[Game], list[Problem]]:
    """The games of checked lines ``(entry, where, line number)`` in file order, oldest first, and
    the lines that belong to no game (no start line before them, or after their game's end)."""
    games: dict[str, Game] = {}
    problems: list[Problem] = []
    for entry, where, line in entries:
        game = games.get(entry["id"])
        if entry["t"] == "start":
            if game is not None:
                problems.append(Problem(where, line, f"game {entry['id']} starts a second time"))
                continue
            games[entry["id"]] = Game(entry)
            continue
        if game is None:
            problems.append(Problem(where, line, f"game {entry['id']} has no start line before it"))
        elif game.end is not None:
            problems.append(Problem(where, line, f"game {entry['id']} already ended"))
        else:
            game.add(entry)
    return list(games.values()), problems


def averages(games: Iterable[Game]) -> dict[str, Any]:
    """Over the games that ended after the players made a move: how many, how they ended, the
    time to solve (solved games), and the rounds, strikes and hints per game."""
    import statistics  # here: the prop's start never needs it

    played = [g for g in games if g.end is not None and g.first_move is not None]
    solved = [g for g in played if g.outcome == "solved"]
    times = [s for g in solved if (s := g.seconds()) is not None]

    def mean(values: list[float]) -> float | None:
        return round(statistics.fmean(values), 1) if values else None

    return {
        "games": len(played),
        "solved": len(solved),
        "exploded": sum(1 for g in played if g.outcome == "exploded"),
        "solve_rate": round(len(solved) / len(played), 3) if played else None,
        "mean_seconds_to_solve": mean(times),
        "median_seconds_to_solve": round(statistics.median(times), 1) if times else None,
        "mean_rounds": mean([g.summary()["rounds"] for g in played]),
        "mean_strikes": mean([g.strikes() for g in played]),
        "mean_hints": mean([g.summary()["hints"] for g in played]),
    }


#: The CSV's columns, in order (numbers and plain words only: nothing a spreadsheet runs).
CSV_COLUMNS = (
    "id",
    "game",
    "started",
    "ended",
    "outcome",
    "cause",
    "forced",
    "seconds",
    "rounds",
    "strikes",
    "hints",
    "commands",
    "restarts",
    "remote_rounds",
    "profit_cents",
    "serial",
    "edgework_drawn",
)


def to_csv(summaries: Iterable[dict[str, Any]]) -> str:
    """The games' summaries as CSV, one row each, with a header."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in summaries:
        writer.writerow(["" if row[key] is None else row[key] for key in CSV_COLUMNS])
    return out.getvalue()


def duration(seconds: float | None) -> str:
    """``12:05``, ``1:02:03``, ``-``: a time played as people read it."""
    if seconds is None:
        return "-"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def hand(entry: dict[str, Any], name: str) -> list[str]:
    """A round's ``player`` or ``banker`` hand, from its cards in dealing order."""
    return [card for who, card, _ in entry["cards"] if who == name]


def round_words(entry: dict[str, Any]) -> str:
    """A round in one line: the bets, the hands and what came of it."""
    bets = ", ".join(
        f"{area.replace('_', ' ')} {format_dollars(sum(stack))}" for area, stack in entry["stacks"].items() if stack
    )
    text = f"bets {bets or 'none'}"
    result = entry["result"]
    if result is not None:
        text += (
            f"; player {' '.join(hand(entry, 'player'))} = {result['player_score']}, banker "
            f"{' '.join(hand(entry, 'banker'))} = {result['banker_score']}, {result['winner']} "
            f"{'wins' if result['winner'] != 'tie' else ''}".rstrip()
            + f"; {format_cents(result['profit_cents'], signed=True)}"
        )
    for strike in entry["strikes"]:
        text += f"; STRIKE {strike['strikes']} ({strike['reason']}): {strike['detail']}"
    return text
