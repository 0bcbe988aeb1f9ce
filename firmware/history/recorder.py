"""A game's lines: what :class:`~.keeper.HistoryKeeper` writes as the events of a game come.

:class:`Recorder` mirrors the table from the events (stacks, chip, deck, cards left), makes a
``round`` line of each gesture at the deck with everything it brought, a ``command`` line of each
change the game master made, ``start`` and ``end`` lines, and hands them to the store (see
:mod:`.keeper` for when they are written, and :mod:`.lines` for what each line holds).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.records import field, record
from baccarat_core.rounds import AREAS

from .bomb import bomb_record
from .lines import MAX_ENTRIES, VERSION, utc_stamp
from .store import Store

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

log = logging.getLogger("baccarat.history")

#: Rounds whose lines wait in memory before they are written together (a game's start and end,
#: and a clean stop, are written at once): a power cut loses at most the last three rounds'
#: lines, never the game itself (the state file has it).
ROUNDS_PER_WRITE = 4

#: A line's JSON: compact, and no NaN or infinity (made once: ``json.dumps`` makes an encoder a call).
_encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

#: Input events that are the players' progress.
PROGRESS = (ev.ChipAdded, ev.AreaCleared, ev.DenominationChanged, ev.DealStarted)


@record(frozen=False)
class _Game:
    """The game being recorded, and what the players see of the table (mirrored from the events)."""

    id: str
    started: float
    deck: str
    cards_left: int
    limits: list[int]
    chip: int
    strikes: int = 0  # the module's count, as the strikes came
    gestures: int = 0  # rounds (gestures at the deck) recorded, refused deals included
    dealt: int = 0
    hints: int = 0
    commands: int = 0
    strikes_alone: int = 0
    waiting: int = 0  # rounds whose lines wait to be written
    first_move: float | None = None
    first_move_written: bool = False
    progress: float | None = None
    stacks: dict[str, list[int]] = field(default_factory=lambda: {area: [] for area in AREAS})
    round: dict[str, Any] | None = None  # the round of this batch, while its events come
    ending: tuple[str, dict[str, Any]] | None = None
    number: int = 0  # the module's game number

    def totals(self) -> dict[str, Any]:
        """What a start needs to go on with the game after a clean stop (on its ``stop`` line)."""
        totals: dict[str, Any] = {"game": self.number, "started": round(self.started, 3), "gestures": self.gestures}
        totals.update(rounds=self.dealt, hints=self.hints, commands=self.commands, strikes=self.strikes)
        if self.first_move is not None:
            totals["first_move"] = round(self.first_move, 3)
        return totals


def new_id(at: float) -> str:
    """``20250501-120000-3fa9c1``: the time the game began (UTC) and six random hex digits."""
    return f"{utc_stamp(at)}-{os.urandom(3).hex()}"


@record(frozen=False, eq=False, repr=False)
class Recorder:
    """A game's lines to a :class:`~.store.Store`, from the events of the game (game thread; the
    keeper holds the lock around every call)."""

    store: Store
    _: KW_ONLY
    bomb: dict[str, Any] | None = None
    clock: Callable[[], float] = time.time
    rounds_per_write: int = ROUNDS_PER_WRITE

    def __post_init__(self) -> None:
        #: How the daemon paces a deal (``original`` or ``quick``), recorded for the replay.
        self.pacing: str | None = None
        self._lock = threading.Lock()
        self._game: _Game | None = None  # None between games (after a solve, until the reset)
        self._begin_at_first_batch = True  # a fresh module: its first batch is the game's start
        self._interrupted: list[dict[str, Any]] = []  # an unfinished record to close with the next start
        self._remote = False  # the next batch is a bet command's (remote play)
        self._handling = False  # inside on_handled: a write waits for on_settled (after the frames)
        self._write_due = False
        #: The state document's ``obus`` part now, or None (the keeper sets it: :mod:`.bomb`).
        self.bus: Callable[[], Any] = lambda: None
        #: The id of the game whose end line kept an OBUS bomb still being played: its ``bomb``
        #: line waits for the bomb's end (:meth:`_bomb_over`); None when none waits.
        self._bomb_waits: str | None = None

    # -- internals (under the lock) -------------------------------------------------------------
    def _fresh_game(self, game_id: str, at: float, module: BaccaratModule) -> _Game:
        deck = module.deck
        return _Game(
            game_id,
            at,
            deck.color if deck is not None else "red",
            module.cards_left,
            [module.limits.minimum, module.limits.maximum],
            module.denomination,
            module.strikes,
            stacks={area: list(module.stacks[area]) for area in AREAS},
            number=module.game,
        )

    def _begin(self, module: BaccaratModule, now: float, *, resumed: bool = False) -> None:
        self._bomb_waits = None  # a new game: the last one's bomb, if it still played, is not this one's
        if self._interrupted:
            self._emit(self._interrupted, write=False)
            self._interrupted = []
        game = self._fresh_game(new_id(now), now, module)
        self._game = game
        limits = module.limits
        start: dict[str, Any] = {
            "v": VERSION,
            **self._line(game.id, "start", now),
            "game": module.game,
            "edgework": module.edgework.to_dict(),
            "drawn": module.edgework_drawn,
            "limits": {"min": limits.minimum, "max": limits.maximum, "random": module.limits_random},
            "deck": game.deck,
            "enabled": module.enabled,
        }
        if self.bomb:
            start["bomb"] = dict(self.bomb)
        if self.pacing:
            start["pacing"] = self.pacing
        if resumed:
            start["resumed"] = True
        self._emit([start], write=True, new_game=True)

    def _take(self, event: ev.Event, module: BaccaratModule, now: float) -> None:
        game = self._game
        if game is None or game.ending is not None:
            return
        if isinstance(event, PROGRESS):
            game.progress = now
            if game.first_move is None:
                game.first_move = now
        if isinstance(event, ev.ChipAdded):
            game.stacks[event.area] = list(event.stack)
        elif isinstance(event, ev.AreaCleared):
            game.stacks[event.area] = []
        elif isinstance(event, ev.ChipsCleared):
            game.stacks = {area: [] for area in AREAS}
        elif isinstance(event, ev.DenominationChanged):
            game.chip = event.value
        elif isinstance(event, ev.DeckAppeared):
            game.deck, game.cards_left = event.color, 52
        elif isinstance(event, ev.DealStarted):
            game.round = {
                **self._line(game.id, "round", now),
                "n": game.gestures + 1,
                "deck": game.deck,
                "cards_left": game.cards_left,
                "limits": list(game.limits),
                "chip": game.chip,
                "stacks": {area: list(stack) for area, stack in game.stacks.items() if stack},
                "cards": [],
                "result": None,
                "strikes": [],
            }
            if self._remote:
                game.round["remote"] = True
            timer = getattr(module, "timer", None)
            if timer is not None:
                game.round["timer"] = timer.shown()
        elif isinstance(event, ev.ChipsReordered):
            reordered = {area: list(stack) for area, stack in event.stacks.items()}
            game.stacks.update(reordered)
            if game.round is not None:
                game.round["reordered"] = reordered
        elif isinstance(event, ev.CardDealt):
            game.cards_left = max(0, game.cards_left - 1)
            if game.round is not None:
                game.round["cards"].append([event.hand, event.card, event.score])
        elif isinstance(event, ev.RoundPlayed):
            if game.round is not None:
                game.round["result"] = {
                    "player_score": event.player_score,
                    "banker_score": event.banker_score,
                    "winner": event.winner,
                    "profit_cents": event.profit_cents,
                    "results": dict(event.results),
                }
        elif isinstance(event, ev.Strike):
            strike = {"reason": event.reason, "detail": event.detail, "strikes": event.strikes}
            game.strikes = event.strikes
            if game.round is not None:
                game.round["strikes"].append(strike)
            else:
                game.strikes_alone += 1
                if game.strikes_alone <= MAX_ENTRIES["strike"]:
                    self._emit([self._mark(game, {**self._line(game.id, "strike", now), **strike})], write=False)
        elif isinstance(event, ev.Solved):
            if event.forced:
                self._command(game, "force_solve", event, now)
            game.ending = ("solved", {"forced": True} if event.forced else {})
        elif event.kind == "exploded":  # the bomb's (issue 24 part 3), known here by its kind
            cause = getattr(event, "cause", None)
            game.ending = ("exploded", {"cause": cause} if isinstance(cause, str) else {})
            if game.round is not None and isinstance(cause, str):
                game.round["exploded"] = cause
        elif isinstance(event, ev.LimitsSet):
            game.limits = [event.min, event.max]
            self._command(game, "set_limits", event, now)
        elif isinstance(event, ev.EdgeworkChanged):
            self._command(game, "set_edgework", event, now)
        elif isinstance(event, ev.SolvedCountChanged):
            self._command(game, "set_solved", event, now)
        elif isinstance(event, ev.EnabledChanged):
            self._command(game, "enable" if event.enabled else "disable", event, now)
        elif event.kind == "timer_started" and getattr(event, "forced", False):  # the game master's start
            self._command(game, "start", event, now)
        elif event.kind == "time_added":
            self._command(game, "add_time", event, now)

    def _command(self, game: _Game, name: str, event: ev.Event, now: float) -> None:
        game.commands += 1
        if game.commands <= MAX_ENTRIES["command"]:
            line = {**self._line(game.id, "command", now), "command": name, "detail": event.describe()[:240]}
            self._emit([self._mark(game, line)], write=False)

    def _close_round(self, now: float) -> None:
        game = self._game
        if game is None or game.round is None:
            return
        line, game.round = game.round, None
        game.gestures += 1
        if line["result"] is not None:
            game.dealt += 1
        if game.gestures <= MAX_ENTRIES["round"]:
            game.waiting += 1
            if game.waiting >= self.rounds_per_write:  # this line ends a write: a start may go on from it
                line["totals"] = game.totals()
            self._emit([self._mark(game, line)], write=False)

    def _finish(self, module: BaccaratModule, now: float) -> None:
        game = self._game
        if game is None or game.ending is None:
            return
        outcome, extra = game.ending
        end = {
            **self._line(game.id, "end", now),
            "outcome": outcome,
            "strikes": game.strikes,
            "rounds": game.dealt,
            "hints": game.hints,
            "commands": game.commands,
            **extra,
        }
        timer = getattr(module, "timer", None)
        if timer is not None:
            end["time_left"] = round(float(timer.left), 1)
        try:
            bomb = bomb_record(self.bus(), solved=outcome == "solved")
        except Exception:  # noqa: BLE001 - the game's end is written whatever the bus's view says
            log.exception("history: the OBUS bomb's modules not recorded")
            bomb = None
        if bomb is not None:
            end["obus"] = bomb
            if "ended" not in bomb:  # the bomb goes on without the prop's game: its end comes later
                self._bomb_waits = game.id
        self._emit([self._mark(game, end)], write=True)
        self._game = None

    def _bomb_over(self, now: float) -> None:
        """After a game whose end line kept an OBUS bomb still being played (the other modules go on
        after the prop's own is solved): once the bus's view says the bomb's game is over (SOLVED,
        TIMEOUT, STRIKEOUT), a ``bomb`` line with its modules then (:mod:`.lines`). The game's next
        start forgets it (a reset before the bomb's end: the end line's view stays the record's)."""
        game_id = self._bomb_waits
        if game_id is None:
            return
        try:
            bomb = bomb_record(self.bus())
        except Exception:  # noqa: BLE001 - the game's record stands as its end line has it
            log.exception("history: the OBUS bomb's end not recorded")
            self._bomb_waits = None
            return
        if bomb is None:
            self._bomb_waits = None
        elif "ended" in bomb:
            self._bomb_waits = None
            self._emit([self._line(game_id, "bomb", now, obus=bomb)], write=True)

    @staticmethod
    def _line(game_id: str, kind: str, at: float, **fields: Any) -> dict[str, Any]:
        return {"t": kind, "id": game_id, "at": round(at, 3), **fields}

    @staticmethod
    def _mark(game: _Game, line: dict[str, Any]) -> dict[str, Any]:
        """The players' first move (on the first line after it) and last progress, on a line."""
        if game.first_move is not None and not game.first_move_written:
            line["first_move"] = round(game.first_move, 3)
            game.first_move_written = True
        if game.progress is not None and line["t"] != "round":  # a round is progress at its own time
            line["progress"] = round(game.progress, 3)
        return line

    def _emit(self, lines: list[dict[str, Any]], *, write: bool, new_game: bool = False) -> None:
        texts = [_encode(line) for line in lines]
        if write and self._handling:  # written once the frames are out (on_settled)
            write, self._write_due = False, True
        self.store.hand(lines, texts, new_game=new_game, write=write)
