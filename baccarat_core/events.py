"""Plain event objects: what happened on the module, in order.

The same objects go to the log, the displays, ``baccarat play`` and the
network. ``to_dict()`` gives the JSON form, always with an ``"event"`` key;
``describe()`` gives one line of words for the log, in English or, given a gettext catalog
(``firmware.i18n``), in its language, the betting areas, hands and deck colours named as the
catalog names them (:mod:`.names`); the cards and the money stay as the manual writes them.
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Any, ClassVar

from .names import AREA_NAMES as AREA_NAMES  # the names' module's, imported from here as before
from .names import COLOR_NAMES as COLOR_NAMES
from .names import ENGLISH as ENGLISH
from .names import N_ as N_
from .names import named as named
from .numbers import format_cents, format_dollars
from .records import asdict, field, record
from .timer import clock_text


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

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """One line of words for the log (in ``t``'s language)."""
        return self.kind


@record
class LimitsSet(Event):
    """The placard shows these limits (at start, on reset, or set by the game master)."""

    kind: ClassVar[str] = "limits"
    min: int
    max: int
    random: bool

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``limits $25 - $1000 (fixed)``."""
        how = t.gettext("drawn at random") if self.random else t.gettext("fixed")
        return t.gettext("limits {low} - {high} ({how})").format(
            low=format_dollars(self.min), high=format_dollars(self.max), how=how
        )


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

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """The colour, the solved count it appeared with, and the manual's steps."""
        color = named(self.color, t)
        head = t.ngettext(
            "deck {color} appears with {solved} solved", "deck {color} appears with {solved} solved", self.solved
        ).format(color=color, solved=self.solved)
        if self.replaces:
            head = t.ngettext(
                "deck {color} replaces {old}, {solved} solved",
                "deck {color} replaces {old}, {solved} solved",
                self.solved,
            ).format(color=color, old=named(self.replaces, t), solved=self.solved)
        if self.unshuffled:
            return t.gettext("{deck}: unshuffled (lit BOB and 8 or 9 ports), top card {top}").format(
                deck=head, top=self.top
            )
        steps = {"letter": self.letter, "digit": self.digit, "index": self.first_index, "top": self.top}
        return t.gettext(
            "{deck}: letter {letter}, digit {digit}, first index {index} ({top}), port column {port}, "
            "multiplier {times}"
        ).format(deck=head, port=self.port, times=self.multiplier, **steps)


@record
class DenominationChanged(Event):
    """An arrow changed the active chip."""

    kind: ClassVar[str] = "denomination"
    value: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``active chip $25``."""
        return t.gettext("active chip {chip}").format(chip=format_dollars(self.value))


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

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """The chip, and the whole stack bottom to top."""
        return t.gettext("chip {chip} on {area}: stack bottom to top {stack} = {total}").format(
            chip=format_dollars(self.chip),
            area=named(self.area, t),
            stack=_stack(self.stack),
            total=format_dollars(self.total),
        )


@record
class AreaCleared(Event):
    """A held betting area was cleared."""

    kind: ClassVar[str] = "clear"
    area: str
    total: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``tie cleared (held), $6 taken back``."""
        return t.gettext("{area} cleared (held), {total} taken back").format(
            area=named(self.area, t), total=format_dollars(self.total)
        )


@record
class InputIgnored(Event):
    """An input the module did not take, and why."""

    kind: ClassVar[str] = "ignored"
    input: str
    reason: str

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``ignored press player: the module is solved``."""
        why = {
            "solved": t.gettext("the module is solved"),
            "disabled": t.gettext("the table is closed"),
            "exploded": t.gettext("the bomb exploded (reset it)"),
        }.get(self.reason, self.reason)
        return t.gettext("ignored {input}: {why}").format(input=self.input, why=why)


@record
class DealStarted(Event):
    """A gesture at the deck: the deal is checked with these bets (non-empty areas only)."""

    kind: ClassVar[str] = "deal"
    bets: dict[str, int] = field(default_factory=dict)

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``deal requested with player $26``."""
        bets = ", ".join(f"{named(area, t)} {format_dollars(amount)}" for area, amount in self.bets.items())
        return t.gettext("deal requested with {bets}").format(bets=bets or t.gettext("no bets"))


@record
class ChipsReordered(Event):
    """The dealer re-ordered these stacks (largest chip at the bottom)."""

    kind: ClassVar[str] = "reorder"
    stacks: dict[str, tuple[int, ...]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (stacks as lists, bottom first)."""
        return {"event": self.kind, "stacks": {a: list(s) for a, s in self.stacks.items()}}

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``the dealer re-orders player to $500 $100 (bottom to top)``."""
        parts = "; ".join(
            t.gettext("{area} to {stack}").format(area=named(area, t), stack=_stack(stack))
            for area, stack in self.stacks.items()
        )
        return t.gettext("the dealer re-orders {stacks} (bottom to top)").format(stacks=parts)


@record
class Strike(Event):
    """A strike: ``reason`` is exclusive, limits, stack_order or loss."""

    kind: ClassVar[str] = "strike"
    reason: str
    detail: str
    strikes: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``STRIKE 1 (loss): the round lost $26.00``."""
        return t.gettext("STRIKE {count} ({reason}): {detail}").format(
            count=self.strikes, reason=self.reason, detail=self.detail
        )


@record
class CardDealt(Event):
    """One card dealt face up to a hand, with the hand's score so far."""

    kind: ClassVar[str] = "card"
    hand: str
    card: str
    score: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``card 10D to player, player total 0``."""
        return t.gettext("card {card} to {hand}, {hand} total {score}").format(
            card=self.card, hand=named(self.hand, t), score=self.score
        )


@record
class CardLanded(Event):
    """A card lands face down on ``hand``'s side: the prop's presentation of a deal, before the
    card turns face up (its :class:`CardDealt`). ``sideways`` for a third card, which the
    dealer lays across. Not a game event: never published (:attr:`Event.published`)."""

    kind: ClassVar[str] = "card_down"
    published: ClassVar[bool] = False
    hand: str
    sideways: bool = False

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``a card lands face down to player`` (``..., sideways`` for a third card)."""
        if self.sideways:
            return t.gettext("a card lands face down to {hand}, sideways").format(hand=named(self.hand, t))
        return t.gettext("a card lands face down to {hand}").format(hand=named(self.hand, t))


@record
class ArrowClicked(Event):
    """An arrow was pressed, whatever it did (also at either end, or while input is locked): the
    original clicks on every press. Not a game event: never published (:attr:`Event.published`)."""

    kind: ClassVar[str] = "click"
    published: ClassVar[bool] = False
    direction: str

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``arrow left pressed``."""
        return t.gettext("arrow {direction} pressed").format(direction=self.direction)


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

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """Both hands with their scores, the winner, each bet's result and the profit."""
        results = ", ".join(f"{named(a, t)} {format_cents(c, signed=True)}" for a, c in self.results.items())
        return t.gettext(
            "round: player {player} = {player_score}, banker {banker} = {banker_score}, {winner} wins; "
            "{results}; profit {profit}"
        ).format(
            player=" ".join(self.player),
            player_score=self.player_score,
            banker=" ".join(self.banker),
            banker_score=self.banker_score,
            winner=named(self.winner, t),
            results=results,
            profit=format_cents(self.profit_cents, signed=True),
        )


@record
class Solved(Event):
    """The module is solved (by a winning round, or forced by the game master). For the hooks, the
    prop adds the ``strikes``, the ``hints`` given and the ``elapsed`` seconds since the game began
    (since the prop's start, for a game resumed after a restart; None: not measured)."""

    kind: ClassVar[str] = "solved"
    forced: bool = False
    strikes: int = field(default=0, compare=False)
    hints: int = field(default=0, compare=False)
    elapsed: float | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """``{"event": "solved", "forced": false}``: the form every surface publishes, as before."""
        return {"event": self.kind, "forced": self.forced}

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """Who solved it."""
        return t.gettext("SOLVED by the game master") if self.forced else t.gettext("SOLVED: the round made money")


@record
class ChipsCleared(Event):
    """After a round that did not solve the module, every chip leaves the table."""

    kind: ClassVar[str] = "chips_cleared"

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``chips cleared from the table``."""
        return t.gettext("chips cleared from the table")


@record
class SolvedCountChanged(Event):
    """The bomb's solved count changed (the next deck uses it)."""

    kind: ClassVar[str] = "solved_count"
    solved: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """The new count and what it affects."""
        return t.ngettext(
            "the bomb now has {count} solved module (the next deck uses it)",
            "the bomb now has {count} solved modules (the next deck uses it)",
            self.solved,
        ).format(count=self.solved)


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

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """The new edgework in words."""

        def names(items: tuple[str, ...]) -> str:
            return ", ".join(items) or t.gettext("none")

        how = t.gettext("bomb drawn at random") if self.drawn else t.gettext("edgework set")
        said = t.ngettext(
            "{how}: serial {serial}, ports {ports}, lit {lit}, unlit {unlit}, {solved} solved",
            "{how}: serial {serial}, ports {ports}, lit {lit}, unlit {unlit}, {solved} solved",
            self.solved,
        )
        if self.batteries:
            said = t.ngettext(
                "{how}: serial {serial}, ports {ports}, lit {lit}, unlit {unlit}, battery holders {batteries}, "
                "{solved} solved",
                "{how}: serial {serial}, ports {ports}, lit {lit}, unlit {unlit}, battery holders {batteries}, "
                "{solved} solved",
                self.solved,
            )
        return said.format(
            how=how,
            serial=self.serial,
            ports=names(self.ports),
            lit=names(self.lit),
            unlit=names(self.unlit),
            batteries=names(self.batteries),
            solved=self.solved,
        )


@record
class EnabledChanged(Event):
    """The game master opened or closed the table (a closed one ignores player inputs)."""

    kind: ClassVar[str] = "enabled"
    enabled: bool

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``table opened by the game master`` or ``table closed ...``."""
        if self.enabled:
            return t.gettext("table opened by the game master")
        return t.gettext("table closed by the game master")


@record
class ModuleReset(Event):
    """The game master started a fresh game."""

    kind: ClassVar[str] = "reset"

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``reset: a fresh game``."""
        return t.gettext("reset: a fresh game")


@record
class TimerStarted(Event):
    """The countdown started: at the players' first input after a reset, or by the game master's
    ``start`` (``forced``). It starts paused when the table is closed."""

    kind: ClassVar[str] = "timer_started"
    seconds_left: float
    forced: bool = False

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``timer started: 05:00 left``."""
        if self.forced:
            return t.gettext("timer started by the game master: {left} left").format(left=clock_text(self.seconds_left))
        return t.gettext("timer started: {left} left").format(left=clock_text(self.seconds_left))


@record
class TimeAdded(Event):
    """The game master added ``seconds`` to the countdown (took them away when negative)."""

    kind: ClassVar[str] = "time_added"
    seconds: float
    seconds_left: float

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``60 s added by the game master: 04:12 left``."""
        left = clock_text(self.seconds_left)
        if self.seconds >= 0:
            return t.gettext("{seconds} s added by the game master: {left} left").format(
                seconds=f"{self.seconds:g}", left=left
            )
        return t.gettext("{seconds} s taken away by the game master: {left} left").format(
            seconds=f"{-self.seconds:g}", left=left
        )


@record
class Exploded(Event):
    """The bomb exploded: ``cause`` is ``timer`` (the countdown reached 0) or ``strikes`` (the
    strike limit was reached), with the strikes it had. The module takes no input until a reset."""

    kind: ClassVar[str] = "exploded"
    cause: str
    strikes: int

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``EXPLODED: the time ran out (1 strike)``, ``EXPLODED: strike 3 reached the limit``."""
        if self.cause == "strikes":
            return t.gettext("EXPLODED: strike {count} reached the strike limit").format(count=self.strikes)
        return t.ngettext(
            "EXPLODED: the time ran out ({n} strike)", "EXPLODED: the time ran out ({n} strikes)", self.strikes
        ).format(n=self.strikes)
