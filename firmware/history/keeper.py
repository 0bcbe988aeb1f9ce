"""The history's recorder: the daemon's ``on_handled`` hook turns each game's events into lines.

Attached like the state keeper (the daemon knows nothing of it): ``on_handled`` sees every batch
of events in order, as the module made it, before any of it is shown, so a round is recorded
whole at its gesture whatever the pacing of its cards. The game master's commands are recorded
from the events they make (``set_limits``, ``set_edgework``, ``set_solved``, ``enable``,
``disable``, ``force_solve``, ``reset``, from MQTT, Room 2.0, the console or the shell alike);
the two that leave no event saying they were the game master's come through
:attr:`GameMaster.on_command <firmware.room.commands.GameMaster.on_command>`: ``hint`` (hints
asked) and ``bet`` (remote play).

A game runs from the prop's first start or a reset to its solve, its explosion (an event of kind
``exploded``) or the next reset. Its lines reach the store (:mod:`.store`) at once, and the file
at most once per round: at the game's start and end, and in between every
:data:`ROUNDS_PER_WRITE` rounds (the SD card's budget: a write dirties a 4 KiB page, see the
README). The writer thread is woken from ``on_settled``, once the batch's frames are out, as the
daemon's other services are. A clean stop (SIGTERM) writes what waits, with a ``stop`` line.

**A restart mid-game** goes on with the same record: the saved game (the state file) is the one
the file's last game left unfinished (same game number), so a ``resume`` line follows and the
rounds count on. A start that finds no saved game closes an unfinished record as
``interrupted``; a saved game the file has no record of starts a record marked ``resumed``.

**Progress** (the stuck indicator): the players' last input the module took: a chip placed, a
stack cleared, the active chip changed, a deal (with the strikes or the solve it brings). The
state document carries when that was (``progress_at``) and the whole minutes since, as of the
document (``stuck_minutes``); nothing ticks while the prop is idle.
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

from .games import MAX_ENTRIES, VERSION, Game, Problem, build_games, iso_time
from .store import Store

if TYPE_CHECKING:
    from ..daemon import Daemon
    from ..room.commands import Command, GameMaster

log = logging.getLogger("baccarat.history")

#: Rounds whose lines wait in memory before they are written together (a game's start and end,
#: and a clean stop, are written at once): a power cut loses at most the last three rounds'
#: lines, never the game itself (the state file has it).
ROUNDS_PER_WRITE = 4

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


def new_id(at: float) -> str:
    """``20250501-120000-3fa9c1``: the time the game began (UTC) and six random hex digits."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime(at))}-{os.urandom(3).hex()}"


class HistoryKeeper:
    """Records each game to a :class:`~.store.Store` (attach with :meth:`attach` before the daemon starts).

    ``bomb`` is the bomb's limits as the config sets them (a timer, a strike limit), recorded
    with each game; ``clock`` gives the time of day (seconds since 1970).
    """

    def __init__(
        self,
        store: Store,
        *,
        bomb: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.time,
        rounds_per_write: int = ROUNDS_PER_WRITE,
    ) -> None:
        self.store = store
        self.bomb = bomb
        self.clock = clock
        self.rounds_per_write = rounds_per_write
        #: How the daemon paces a deal (``original`` or ``quick``), recorded for the replay.
        self.pacing: str | None = None
        self._lock = threading.Lock()
        self._game: _Game | None = None  # None between games (after a solve, until the reset)
        self._begin_at_first_batch = True  # a fresh module: its first batch is the game's start
        self._interrupted: list[dict[str, Any]] = []  # an unfinished record to close with the next start
        self._remote = False  # the next batch is a bet command's (remote play)
        self._handling = False  # inside on_handled: a write waits for on_settled (after the frames)
        self._write_due = False

    # -- attaching ---------------------------------------------------------------------------
    def attach(self, daemon: Daemon, commands: GameMaster | None = None) -> HistoryKeeper:
        """Go on with the file's last game or close it (see the module), and hook into the daemon
        (and the game master's commands and state document)."""
        pacing = getattr(daemon, "pacing", None)
        self.pacing = pacing if isinstance(pacing, str) else None
        self._take_over(daemon.module, self.store.last_game())
        daemon.on_handled.append(self.on_handled)
        daemon.on_settled.append(self.on_settled)
        if commands is not None:
            commands.on_command.append(self.on_command)
            commands.document_extras.append(self.document)
        return self

    def _take_over(self, module: BaccaratModule, last: list[dict[str, Any]]) -> None:
        """Before the first batch: the module is fresh (no deck yet) or a restored game."""
        now = self.clock()
        unfinished = last if last and last[-1]["t"] != "end" else []
        if module.deck is None:  # a fresh game: the saved one (if any) is lost
            if unfinished:
                self._interrupted = [self._interrupt(unfinished, now)]
            return
        self._begin_at_first_batch = False
        over = module.solved or bool(getattr(module, "exploded", False))
        if unfinished and unfinished[0]["game"] == module.game:
            game = self._continue(unfinished, module, now)
            self._emit([self._mark(game, self._line(game.id, "resume", now))], write=over)
            log.info("history: game %s goes on after the restart", game.id)
            if over:
                game.ending = ("exploded" if getattr(module, "exploded", False) else "solved", {})
                self._finish(module, now)
            return
        if unfinished:
            self._emit([self._interrupt(unfinished, now)], write=over)
        if not over:
            self._begin(module, now, resumed=True)

    def _interrupt(self, lines: list[dict[str, Any]], now: float) -> dict[str, Any]:
        """The end line of an unfinished record whose saved game is lost."""
        log.info(
            "history: game %s was not finished and its saved game is gone: recorded as interrupted", lines[0]["id"]
        )
        return self._line(lines[0]["id"], "end", now, outcome="interrupted", strikes=_strikes(lines))

    def _continue(self, lines: list[dict[str, Any]], module: BaccaratModule, now: float) -> _Game:
        start = lines[0]
        game = self._fresh_game(start["id"], float(start["at"]), module)
        done = Game(start)
        for line in lines[1:]:
            done.add(line)
        game.gestures = max([r["n"] for r in done.rounds], default=0)
        game.dealt = sum(1 for r in done.rounds if r["result"] is not None)
        game.hints = len(done.of_kind("hint"))
        game.commands = len(done.of_kind("command"))
        game.first_move = done.first_move
        game.first_move_written = game.first_move is not None
        game.progress = done.last_progress
        self._game = game
        return game

    # -- the hooks (game thread) -----------------------------------------------------------------
    def on_handled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_handled`` hook: record the batch (a round is one line; see the module)."""
        now = self.clock()
        with self._lock:
            self._handling = True
            try:
                if self._begin_at_first_batch:
                    self._begin_at_first_batch = False
                    self._begin(module, now)
                    return  # the start's own events are the game's first state
                for event in events:
                    if isinstance(event, ev.ModuleReset):
                        self._close_round(now)
                        if self._game is not None:
                            self._game.ending = ("reset", {})
                            self._finish(module, now)
                        self._begin(module, now)
                        return  # the rest of the batch sets the new game up
                    self._take(event, module, now)
                self._close_round(now)
                game = self._game
                if game is not None and game.ending is not None:
                    self._finish(module, now)
                elif game is not None and game.waiting >= self.rounds_per_write:
                    game.waiting = 0
                    self._emit([], write=True)
            finally:
                self._remote = False
                self._handling = False

    def on_settled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook: the displays show the batch, so the writer thread may now
        write what the batch asked for (it never competes with a frame for the interpreter)."""
        with self._lock:
            due, self._write_due = self._write_due, False
        if due:
            self.store.hand([], [], write=True)

    def on_command(self, command: Command, module: BaccaratModule) -> None:
        """:attr:`GameMaster.on_command` hook (game thread): a hint asked, or remote play coming."""
        with self._lock:
            if command.name == "bet":
                self._remote = True  # the bet's own batch follows at once
                return
            game = self._game
            if command.name != "hint" or game is None:
                return
            game.hints += 1
            if game.hints <= MAX_ENTRIES["hint"]:
                try:
                    winner = module.next_round().winner
                except Exception:  # noqa: BLE001 - no deck to read: the hint said so; the count stays
                    return
                self._emit([self._mark(game, self._line(game.id, "hint", self.clock(), winner=winner))], write=False)

    def document(self) -> dict[str, Any]:
        """The stuck indicator for the state document (``GameMaster.document_extras``): when the
        players last made progress in the game being played (its start, if they have not yet:
        ``progress_made`` says which), and the whole minutes since, now; all null between games."""
        with self._lock:
            game = self._game
            since = None if game is None else game.progress if game.progress is not None else game.started
            made = None if game is None else game.progress is not None
        if since is None:
            return {"progress_at": None, "stuck_minutes": None, "progress_made": None}
        minutes = max(0, int((self.clock() - since) // 60))
        return {"progress_at": iso_time(since), "stuck_minutes": minutes, "progress_made": made}

    @property
    def current_id(self) -> str | None:
        """The id of the game being played, or None between games."""
        with self._lock:
            return None if self._game is None else self._game.id

    def close(self) -> None:
        """The prop stops: a ``stop`` line for the game being played, and everything written."""
        with self._lock:
            game = self._game
            if game is not None:
                self._close_round(self.clock())
                self._emit([self._mark(game, self._line(game.id, "stop", self.clock()))], write=True)
        self.store.close()

    # -- reading (any thread) ---------------------------------------------------------------------
    def games(self) -> tuple[list[Game], list[Problem]]:
        """Every game kept, oldest first (the one being played included), and the lines skipped."""
        lines, problems = self.store.read()
        games, more = build_games(lines)
        return games, problems + more

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
        )

    def _begin(self, module: BaccaratModule, now: float, *, resumed: bool = False) -> None:
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
        self._emit([self._mark(game, end)], write=True)
        self._game = None

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
        texts = [json.dumps(line, separators=(",", ":"), allow_nan=False) for line in lines]
        if write and self._handling:  # written once the frames are out (on_settled)
            write, self._write_due = False, True
        self.store.hand(lines, texts, new_game=new_game, write=write)


def _strikes(lines: list[dict[str, Any]]) -> int:
    """The highest strike count an unfinished game's lines saw."""
    game = Game(lines[0])
    for line in lines[1:]:
        game.add(line)
    return game.strikes()
