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
:data:`~.recorder.ROUNDS_PER_WRITE` rounds (the SD card's budget: a write dirties a 4 KiB page, see the
README). The writer thread is woken from ``on_settled``, once the batch's frames are out, as the
daemon's other services are. A clean stop (SIGTERM) writes what waits, with a ``stop`` line.

**A restart mid-game** goes on with the same record: the saved game (the state file) is the one
the file's last game left unfinished (same game number), so a ``resume`` line follows and the
rounds count on. After a clean stop the ``stop`` line has the game's totals, and a start reads
that line alone (:meth:`.store.FileStore.last_game`); after a power cut, the game's lines from
the last that carries its totals (every few rounds: :mod:`.totals`). A
start that finds no saved game closes an unfinished record as ``interrupted``; a saved game the
file has no record of starts a record marked ``resumed``.

**Progress** (the stuck indicator): the players' last input the module took: a chip placed, a
stack cleared, the active chip changed, a deal (with the strikes or the solve it brings). The
state document carries when that was (``progress_at``) and the whole minutes since, as of the
document (``stuck_minutes``); nothing ticks while the prop is idle.

**An OBUS bomb** (:mod:`.bomb`): the end line keeps the bomb's modules as the prop's game ended;
when the bomb plays on after it (the other modules of a bomb the prop runs), each batch until the
bomb's end or the next game looks at the bus's view, and the bomb's end is a ``bomb`` line.

The lines themselves are made by :class:`~.recorder.Recorder` (the keeper is one); what each
holds is in :mod:`.lines`. Reading them back into games (:mod:`.games`) is the readers' work,
loaded when a reader first asks, not at start.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from baccarat_core import BaccaratModule
from baccarat_core import events as ev

from .bomb import bus_reader
from .lines import MAX_ENTRIES, Problem, iso_time
from .recorder import Recorder, _Game
from .totals import carried, game_number, sum_up

if TYPE_CHECKING:
    from firmware.game.daemon import Daemon

    from ..room.command_table import Command
    from ..room.commands import GameMaster
    from .games import Game

log = logging.getLogger("baccarat.history")


class HistoryKeeper(Recorder):
    """Records each game to a :class:`~.store.Store` (attach with :meth:`attach` before the daemon starts).

    ``bomb`` is the bomb's limits as the config sets them (a timer, a strike limit), recorded
    with each game; ``clock`` gives the time of day (seconds since 1970).
    """

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
            self.bus = bus_reader(commands.document_extras, self.document)
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
        if unfinished and game_number(unfinished) == module.game:
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
        if carried(lines[0]) is not None:  # a clean stop's line, or a round's, has the totals so far
            return self._go_on(lines[0]["id"], sum_up(lines), module)
        from .games import Game  # only for a game of fewer rounds than a write holds, or an older file

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

    def _go_on(self, game_id: str, totals: dict[str, Any], module: BaccaratModule) -> _Game:
        """The game as its totals so far left it (:func:`.totals.sum_up`)."""
        game = self._fresh_game(game_id, float(totals["started"]), module)
        game.gestures, game.dealt = totals["gestures"], totals["rounds"]
        game.hints, game.commands = totals["hints"], totals["commands"]
        game.first_move = totals.get("first_move")
        game.first_move_written = game.first_move is not None
        game.progress = totals.get("progress")
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
                if self._bomb_waits is not None:  # an OBUS bomb played on after the game's end
                    self._bomb_over(now)
            finally:
                self._remote = False
                self._handling = False

    def on_settled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook: the displays show the batch, so the writer thread may now
        write what the batch asked for (it never competes with a frame for the interpreter)."""
        if not self._write_due:  # set by on_handled, on this same thread: nothing to write
            return
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
                stop = {**self._mark(game, self._line(game.id, "stop", self.clock())), **game.totals()}
                self._emit([stop], write=True)
        self.store.close()

    # -- reading (any thread) ---------------------------------------------------------------------
    def games(self) -> tuple[list[Game], list[Problem]]:
        """Every game kept, oldest first (the one being played included), and the lines skipped."""
        from .games import build_games  # the readers': not loaded at start

        lines, problems = self.store.read()
        games, more = build_games(lines)
        return games, problems + more


def _strikes(lines: list[dict[str, Any]]) -> int:
    """The highest strike count an unfinished game's lines saw (the totals they carry say it)."""
    if carried(lines[0]) is not None:
        return int(sum_up(lines)["strikes"])
    from .games import Game

    game = Game(lines[0])
    for line in lines[1:]:
        game.add(line)
    return game.strikes()
