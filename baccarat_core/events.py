"""Plain event objects: what happened on the module, in order.

The same objects go to the log, the displays, ``baccarat play`` and the
network. ``to_dict()`` gives the JSON form, always with an ``"event"`` key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, **asdict(self)}

    def describe(self) -> str:
        """One line for the log."""
        fields = " ".join(f"{k}={v}" for k, v in asdict(self).items())
        return f"{self.kind} {fields}".strip()


@dataclass(frozen=True)
class LimitsSet(Event):
    kind: ClassVar[str] = "limits"
    min: int
    max: int
    random: bool

    def describe(self) -> str:
        how = "drawn at random" if self.random else "fixed"
        low, high = (f"${v:,}" if v >= 10000 else f"${v}" for v in (self.min, self.max))
        return f"limits {low} - {high} ({how})"


@dataclass(frozen=True)
class DeckAppeared(Event):
    kind: ClassVar[str] = "deck"
    color: str
    solved: int
    unshuffled: bool
    first_index: int | None
    multiplier: int | None
    letter: str | None
    digit: int | None
    port: str | None
    top: str
    replaces: str | None = None

    def describe(self) -> str:
        head = f"deck {self.color} appears with {self.solved} solved"
        if self.replaces:
            head = f"deck {self.color} replaces {self.replaces}, {self.solved} solved"
        if self.unshuffled:
            return f"{head}: unshuffled (lit BOB and 8 or 9 ports), top card {self.top}"
        return (f"{head}: letter {self.letter}, digit {self.digit}, first index {self.first_index}"
                f" ({self.top}), port column {self.port}, multiplier {self.multiplier}")


@dataclass(frozen=True)
class DenominationChanged(Event):
    kind: ClassVar[str] = "denomination"
    value: int

    def describe(self) -> str:
        return f"active chip ${self.value:,}"


@dataclass(frozen=True)
class ChipAdded(Event):
    kind: ClassVar[str] = "chip"
    area: str
    chip: int
    stack: tuple[int, ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "area": self.area, "chip": self.chip,
                "stack": list(self.stack), "total": self.total}

    def describe(self) -> str:
        stack = " ".join(f"${c:,}" for c in self.stack)
        return f"chip ${self.chip:,} on {self.area}: stack bottom to top {stack} = ${self.total:,}"


@dataclass(frozen=True)
class AreaCleared(Event):
    kind: ClassVar[str] = "clear"
    area: str
    total: int

    def describe(self) -> str:
        return f"{self.area} cleared (held), ${self.total:,} taken back"


@dataclass(frozen=True)
class InputIgnored(Event):
    kind: ClassVar[str] = "ignored"
    input: str
    reason: str


@dataclass(frozen=True)
class DealStarted(Event):
    kind: ClassVar[str] = "deal"
    bets: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        bets = ", ".join(f"{area} ${amount}" for area, amount in self.bets.items()) or "no bets"
        return f"deal requested with {bets}"


@dataclass(frozen=True)
class ChipsReordered(Event):
    kind: ClassVar[str] = "reorder"
    stacks: dict[str, tuple[int, ...]]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "stacks": {a: list(s) for a, s in self.stacks.items()}}


@dataclass(frozen=True)
class Strike(Event):
    kind: ClassVar[str] = "strike"
    reason: str
    detail: str
    strikes: int

    def describe(self) -> str:
        return f"STRIKE {self.strikes} ({self.reason}): {self.detail}"


@dataclass(frozen=True)
class CardDealt(Event):
    kind: ClassVar[str] = "card"
    hand: str
    card: str
    score: int

    def describe(self) -> str:
        return f"card {self.card} to {self.hand}, {self.hand} total {self.score}"


@dataclass(frozen=True)
class RoundPlayed(Event):
    kind: ClassVar[str] = "round"
    player: tuple[str, ...]
    banker: tuple[str, ...]
    player_score: int
    banker_score: int
    winner: str
    profit_cents: int
    results: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["player"] = list(self.player)
        data["banker"] = list(self.banker)
        return {"event": self.kind, **data}

    def describe(self) -> str:
        results = ", ".join(f"{a} {_cents(c)}" for a, c in self.results.items())
        return (f"round: player {' '.join(self.player)} = {self.player_score}, banker "
                f"{' '.join(self.banker)} = {self.banker_score}, {self.winner} wins; "
                f"{results}; profit {_cents(self.profit_cents)}")


@dataclass(frozen=True)
class Solved(Event):
    kind: ClassVar[str] = "solved"
    forced: bool = False

    def describe(self) -> str:
        return "SOLVED by the game master" if self.forced else "SOLVED: the round made money"


@dataclass(frozen=True)
class ChipsCleared(Event):
    kind: ClassVar[str] = "chips_cleared"

    def describe(self) -> str:
        return "chips cleared from the table"


@dataclass(frozen=True)
class SolvedCountChanged(Event):
    kind: ClassVar[str] = "solved_count"
    solved: int

    def describe(self) -> str:
        return f"the bomb now has {self.solved} solved modules (the next deck uses it)"


@dataclass(frozen=True)
class EdgeworkChanged(Event):
    kind: ClassVar[str] = "edgework"
    serial: str
    ports: tuple[str, ...]
    lit: tuple[str, ...]
    unlit: tuple[str, ...]
    solved: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "serial": self.serial, "ports": list(self.ports),
                "lit": list(self.lit), "unlit": list(self.unlit), "solved": self.solved}


@dataclass(frozen=True)
class ModuleReset(Event):
    kind: ClassVar[str] = "reset"


def _cents(cents: int) -> str:
    sign = "-" if cents < 0 else "+"
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars}.{rest:02d}"
