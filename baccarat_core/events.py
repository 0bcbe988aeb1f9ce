"""Plain event objects: what happened on the module, in order.

The same objects go to the log, the displays, ``baccarat play`` and the
network. ``to_dict()`` gives the JSON form, always with an ``"event"`` key;
``describe()`` gives one line of words for the log.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .numbers import format_cents, format_dollars
from .records import asdict, field, record
from .timer import clock_text

#: Betting areas as the log and the messages name them.
AREA_NAMES: dict[str, str] = {
    "player": "Player",
    "banker": "Banker",
    "tie": "Tie",
    "player_pair": "Player Pair",
    "banker_pair": "Banker Pair",
}


def _stack(stack: tuple[int, ...] | list[int]) -> str:
    return " ".join(format_dollars(chip) for chip in stack)


@record
class Event:
    """Base of every event: a ``kind`` name, a JSON form and a log line."""

    kind: ClassVar[str] = "event"
    #: False for a moment of the prop's presentation that changes nothing in the game (a card
    #: landing face down, an arrow's click): it is shown and heard, never published or saved.
    published: ClassVar[bool] = True

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with the ``"event"`` key first."""
        return {"event": self.kind, **asdict(self)}

    def describe(self) -> str:
        """One line of words for the log."""
        return self.kind


@record
class LimitsSet(Event):
    """The placard shows these limits (at start, on reset, or set by the game master)."""

    kind: ClassVar[str] = "limits"
    min: int
    max: int
    random: bool

    def describe(self) -> str:
        """``limits $25 - $1000 (fixed)``."""
        how = "drawn at random" if self.random else "fixed"
        return f"limits {format_dollars(self.min)} - {format_dollars(self.max)} ({how})"


@record
class DeckAppeared(Event):
    """A deck appeared on the table: its colour and how its order was derived."""

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
        """The colour, the solved count it appeared with, and the manual's steps."""
        head = f"deck {self.color} appears with {self.solved} solved"
        if self.replaces:
            head = f"deck {self.color} replaces {self.replaces}, {self.solved} solved"
        if self.unshuffled:
            return f"{head}: unshuffled (lit BOB and 8 or 9 ports), top card {self.top}"
        return (
            f"{head}: letter {self.letter}, digit {self.digit}, first index {self.first_index}"
            f" ({self.top}), port column {self.port}, multiplier {self.multiplier}"
        )


@record
class DenominationChanged(Event):
    """An arrow changed the active chip."""

    kind: ClassVar[str] = "denomination"
    value: int

    def describe(self) -> str:
        """``active chip $25``."""
        return f"active chip {format_dollars(self.value)}"


@record
class ChipAdded(Event):
    """A short press put a chip on top of an area's stack."""

    kind: ClassVar[str] = "chip"
    area: str
    chip: int
    stack: tuple[int, ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the stack as a list, bottom first)."""
        return {
            "event": self.kind,
            "area": self.area,
            "chip": self.chip,
            "stack": list(self.stack),
            "total": self.total,
        }

    def describe(self) -> str:
        """The chip, and the whole stack bottom to top."""
        return (
            f"chip {format_dollars(self.chip)} on {self.area}: stack bottom to top "
            f"{_stack(self.stack)} = {format_dollars(self.total)}"
        )


@record
class AreaCleared(Event):
    """A held betting area was cleared."""

    kind: ClassVar[str] = "clear"
    area: str
    total: int

    def describe(self) -> str:
        """``tie cleared (held), $6 taken back``."""
        return f"{self.area} cleared (held), {format_dollars(self.total)} taken back"


@record
class InputIgnored(Event):
    """An input the module did not take, and why."""

    kind: ClassVar[str] = "ignored"
    input: str
    reason: str

    def describe(self) -> str:
        """``ignored press player: the module is solved``."""
        why = {
            "solved": "the module is solved",
            "disabled": "the table is closed",
            "exploded": "the bomb exploded (reset it)",
        }.get(self.reason, self.reason)
        return f"ignored {self.input}: {why}"


@record
class DealStarted(Event):
    """A gesture at the deck: the deal is checked with these bets (non-empty areas only)."""

    kind: ClassVar[str] = "deal"
    bets: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """``deal requested with player $26``."""
        bets = ", ".join(f"{area} {format_dollars(amount)}" for area, amount in self.bets.items()) or "no bets"
        return f"deal requested with {bets}"


@record
class ChipsReordered(Event):
    """The dealer re-ordered these stacks (largest chip at the bottom)."""

    kind: ClassVar[str] = "reorder"
    stacks: dict[str, tuple[int, ...]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (stacks as lists, bottom first)."""
        return {"event": self.kind, "stacks": {a: list(s) for a, s in self.stacks.items()}}

    def describe(self) -> str:
        """``the dealer re-orders player to $500 $100 (bottom to top)``."""
        parts = "; ".join(f"{area} to {_stack(stack)}" for area, stack in self.stacks.items())
        return f"the dealer re-orders {parts} (bottom to top)"


@record
class Strike(Event):
    """A strike: ``reason`` is exclusive, limits, stack_order or loss."""

    kind: ClassVar[str] = "strike"
    reason: str
    detail: str
    strikes: int

    def describe(self) -> str:
        """``STRIKE 1 (loss): the round lost $26.00``."""
        return f"STRIKE {self.strikes} ({self.reason}): {self.detail}"


@record
class CardDealt(Event):
    """One card dealt face up to a hand, with the hand's score so far."""

    kind: ClassVar[str] = "card"
    hand: str
    card: str
    score: int

    def describe(self) -> str:
        """``card 10D to player, player total 0``."""
        return f"card {self.card} to {self.hand}, {self.hand} total {self.score}"


@record
class CardLanded(Event):
    """A card lands face down on ``hand``'s side: the prop's presentation of a deal, before the
    card turns face up (its :class:`CardDealt`). ``sideways`` for a third card, which the
    dealer lays across. Not a game event: never published (:attr:`Event.published`)."""

    kind: ClassVar[str] = "card_down"
    published: ClassVar[bool] = False
    hand: str
    sideways: bool = False

    def describe(self) -> str:
        """``a card lands face down to player`` (``..., sideways`` for a third card)."""
        return f"a card lands face down to {self.hand}" + (", sideways" if self.sideways else "")


@record
class ArrowClicked(Event):
    """An arrow was pressed, whatever it did (also at either end, or while input is locked): the
    original clicks on every press. Not a game event: never published (:attr:`Event.published`)."""

    kind: ClassVar[str] = "click"
    published: ClassVar[bool] = False
    direction: str

    def describe(self) -> str:
        """``arrow left pressed``."""
        return f"arrow {self.direction} pressed"


@record
class RoundPlayed(Event):
    """The round's hands, scores, winner and each bet's result in cents."""

    kind: ClassVar[str] = "round"
    player: tuple[str, ...]
    banker: tuple[str, ...]
    player_score: int
    banker_score: int
    winner: str
    profit_cents: int
    results: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (hands as lists)."""
        data = asdict(self)
        data["player"] = list(self.player)
        data["banker"] = list(self.banker)
        return {"event": self.kind, **data}

    def describe(self) -> str:
        """Both hands with their scores, the winner, each bet's result and the profit."""
        results = ", ".join(f"{a} {format_cents(c, signed=True)}" for a, c in self.results.items())
        return (
            f"round: player {' '.join(self.player)} = {self.player_score}, banker "
            f"{' '.join(self.banker)} = {self.banker_score}, {self.winner} wins; "
            f"{results}; profit {format_cents(self.profit_cents, signed=True)}"
        )


@record
class Solved(Event):
    """The module is solved (by a winning round, or forced by the game master)."""

    kind: ClassVar[str] = "solved"
    forced: bool = False

    def describe(self) -> str:
        """Who solved it."""
        return "SOLVED by the game master" if self.forced else "SOLVED: the round made money"


@record
class ChipsCleared(Event):
    """After a round that did not solve the module, every chip leaves the table."""

    kind: ClassVar[str] = "chips_cleared"

    def describe(self) -> str:
        """``chips cleared from the table``."""
        return "chips cleared from the table"


@record
class SolvedCountChanged(Event):
    """The bomb's solved count changed (the next deck uses it)."""

    kind: ClassVar[str] = "solved_count"
    solved: int

    def describe(self) -> str:
        """The new count and what it affects."""
        return f"the bomb now has {self.solved} solved modules (the next deck uses it)"


@record
class EdgeworkChanged(Event):
    """The bomb's edgework changed: set by the game master, or ``drawn`` at random (random edgework,
    at the start and at each reset). ``batteries`` and ``plates`` are in the JSON form only when known."""

    kind: ClassVar[str] = "edgework"
    serial: str
    ports: tuple[str, ...]
    lit: tuple[str, ...]
    unlit: tuple[str, ...]
    solved: int
    batteries: tuple[str, ...] = ()
    plates: tuple[tuple[str, ...], ...] | None = None
    drawn: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (lists for the names), as the edgework's own JSON form plus ``drawn``."""
        data: dict[str, Any] = {
            "event": self.kind,
            "serial": self.serial,
            "ports": list(self.ports),
            "lit": list(self.lit),
            "unlit": list(self.unlit),
            "solved": self.solved,
        }
        if self.batteries:
            data["batteries"] = list(self.batteries)
        if self.plates is not None:
            data["plates"] = [list(plate) for plate in self.plates]
        data["drawn"] = self.drawn
        return data

    def describe(self) -> str:
        """The new edgework in words."""

        def names(items: tuple[str, ...]) -> str:
            return ", ".join(items) or "none"

        how = "bomb drawn at random" if self.drawn else "edgework set"
        batteries = f", battery holders {names(self.batteries)}" if self.batteries else ""
        return (
            f"{how}: serial {self.serial}, ports {names(self.ports)}, lit {names(self.lit)}, "
            f"unlit {names(self.unlit)}{batteries}, {self.solved} solved"
        )


@record
class EnabledChanged(Event):
    """The game master opened or closed the table (a closed one ignores player inputs)."""

    kind: ClassVar[str] = "enabled"
    enabled: bool

    def describe(self) -> str:
        """``table opened by the game master`` or ``table closed ...``."""
        return f"table {'opened' if self.enabled else 'closed'} by the game master"


@record
class ModuleReset(Event):
    """The game master started a fresh game."""

    kind: ClassVar[str] = "reset"

    def describe(self) -> str:
        """``reset: a fresh game``."""
        return "reset: a fresh game"


@record
class TimerStarted(Event):
    """The countdown started: at the players' first input after a reset, or by the game master's
    ``start`` (``forced``). It starts paused when the table is closed."""

    kind: ClassVar[str] = "timer_started"
    seconds_left: float
    forced: bool = False

    def describe(self) -> str:
        """``timer started: 05:00 left``."""
        who = " by the game master" if self.forced else ""
        return f"timer started{who}: {clock_text(self.seconds_left)} left"


@record
class TimeAdded(Event):
    """The game master added ``seconds`` to the countdown (took them away when negative)."""

    kind: ClassVar[str] = "time_added"
    seconds: float
    seconds_left: float

    def describe(self) -> str:
        """``60 s added by the game master: 04:12 left``."""
        what = f"{self.seconds:g} s added" if self.seconds >= 0 else f"{-self.seconds:g} s taken away"
        return f"{what} by the game master: {clock_text(self.seconds_left)} left"


@record
class Exploded(Event):
    """The bomb exploded: ``cause`` is ``timer`` (the countdown reached 0) or ``strikes`` (the
    strike limit was reached), with the strikes it had. The module takes no input until a reset."""

    kind: ClassVar[str] = "exploded"
    cause: str
    strikes: int

    def describe(self) -> str:
        """``EXPLODED: the time ran out (1 strike)``, ``EXPLODED: strike 3 reached the limit``."""
        if self.cause == "strikes":
            return f"EXPLODED: strike {self.strikes} reached the strike limit"
        return f"EXPLODED: the time ran out ({self.strikes} strike{'' if self.strikes == 1 else 's'})"
