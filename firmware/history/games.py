"""The games the history file's lines make: summaries, averages, CSV, a round in words.

Each game is a run of lines sharing an ``id``, from its ``start`` line to its ``end`` line (see
:mod:`.lines` for what each kind of line holds; every line is checked against its schema there,
and a line that fails is skipped and reported, never trusted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from gettext import NullTranslations
from typing import Any

from baccarat_core.names import ENGLISH, STRIKE_WORDS, named, strike_detail
from baccarat_core.numbers import format_cents, format_dollars

from .lines import MAX_ENTRIES, VERSION, EntryError, Problem, check_entry, iso_time, parse_line

__all__ = [
    "MAX_ENTRIES",
    "VERSION",
    "EntryError",
    "Game",
    "Problem",
    "averages",
    "build_games",
    "check_entry",
    "duration",
    "hand",
    "iso_time",
    "parse_line",
    "round_words",
    "to_csv",
]


# -- games ---------------------------------------------------------------------------------------------


class Game:
    """One game as its lines tell it (the start line first, the end line last if it ended)."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.start = start
        self.entries: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None
        #: The ``bomb`` line: an OBUS bomb's modules at the bomb's end, after the game's (None: none).
        self.bomb_end: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        """The game's id (unique to the history)."""
        return str(self.start["id"])

    def add(self, entry: dict[str, Any]) -> None:
        """A line after the start; the end line closes the game (a ``bomb`` line may follow it)."""
        if entry["t"] == "end":
            self.end = entry
        elif entry["t"] == "bomb":
            self.bomb_end = entry
        else:
            self.entries.append(entry)

    def lines(self) -> list[dict[str, Any]]:
        """Every line of the game in order: its start, entries, end and an OBUS bomb's ``bomb`` line."""
        return [self.start, *self.entries, *(line for line in (self.end, self.bomb_end) if line is not None)]

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
            **self._bomb(),
        }

    def _bomb(self) -> dict[str, Any]:
        """``{"bomb": <the record>}`` in an OBUS bomb: its modules at the bomb's end where a ``bomb``
        line has them, else at the game's end (the end line's ``obus``); ``{}`` without a bomb."""
        if self.bomb_end is not None:
            return {"bomb": self.bomb_end["obus"]}
        end = self.end or {}
        return {"bomb": end["obus"]} if "obus" in end else {}


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
        elif game.end is not None and entry["t"] != "bomb":  # an OBUS bomb's end may follow the game's
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
    """The games' summaries as CSV, one row each, with a header. When a game was played in an OBUS
    bomb (its summary has ``bomb``), a last column ``bomb`` says its modules in words
    (:func:`~.bomb.record_words`; empty for the other games); else the columns are
    :data:`CSV_COLUMNS` alone, as they always were."""
    import csv
    import io

    from .bomb import record_words

    rows = list(summaries)
    bombs = any("bomb" in row for row in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*CSV_COLUMNS, "bomb") if bombs else CSV_COLUMNS)
    for row in rows:
        cells = ["" if row[key] is None else row[key] for key in CSV_COLUMNS]
        if bombs:
            cells.append(record_words(row["bomb"]) if "bomb" in row else "")
        writer.writerow(cells)
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


def round_words(entry: dict[str, Any], t: NullTranslations = ENGLISH) -> str:
    """A round in one line: the bets, the hands and what came of it (in ``t``'s language)."""
    bets = ", ".join(
        f"{named(area, t).replace('_', ' ')} {format_dollars(sum(stack))}"
        for area, stack in entry["stacks"].items()
        if stack
    )
    text = t.gettext("bets {bets}").format(bets=bets or t.gettext("none"))
    result = entry["result"]
    if result is not None:
        said = (
            t.gettext("player {player} = {player_score}, banker {banker} = {banker_score}, {winner} wins")
            if result["winner"] != "tie"
            else t.gettext("player {player} = {player_score}, banker {banker} = {banker_score}, tie")
        )
        said = said.format(
            player=" ".join(hand(entry, "player")),
            player_score=result["player_score"],
            banker=" ".join(hand(entry, "banker")),
            banker_score=result["banker_score"],
            winner=named(result["winner"], t),
        )
        text += f"; {said}; {format_cents(result['profit_cents'], signed=True)}"
    for strike in entry["strikes"]:
        reason = strike["reason"]  # its word in English (the log's), its words where a catalog has them
        reason = named(reason, t, STRIKE_WORDS)
        said = t.gettext("STRIKE {count} ({reason}): {detail}")
        text += "; " + said.format(count=strike["strikes"], reason=reason, detail=strike_detail(strike["detail"], t))
    return text
