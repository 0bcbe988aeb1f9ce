"""How each game went: what is recorded, when it is written, the file's bounds, rotation, torn lines.

Most tests drive a :class:`BaccaratModule` and the keeper's hook directly, batch by batch, as the
daemon calls it (the events of one input or command, then the module as it is after them), with
a clock of their own; the daemon's own wiring is checked with a real daemon at the end.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from baccarat_core import BaccaratModule, Edgework, TableLimits
from baccarat_core import events as ev
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.inputs import Arrow, Deal, Press
from baccarat_core.records import record
from firmware.app import build_daemon, close_daemon
from firmware.cli import main
from firmware.cli.gm import request
from firmware.devices.displays import open_dummy_device
from firmware.history import HistoryKeeper, history_path, replay
from firmware.history.games import averages, build_games, to_csv
from firmware.history.store import FileStore, MemoryStore, older_path, read_files
from firmware.room.commands import GameMaster, parse_command
from firmware.simulator.pins import ManualClock
from tests import test_mqtt
from tests.conftest import ROOT, Rig, config_data, make_config, served_prop
from tests.test_mqtt import mqtt_section
from tests.test_state import PropProcess, _bet_to_lose

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory

BOMB = Edgework("AB3DE4", ports=("Parallel", "Serial", "RJ-45"), lit=("FRK",), unlit=("CAR",))


class Clock:
    """The time of day the keeper reads: moves only when a test moves it."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Table:
    """A module and a keeper, driven as the daemon drives its hook: one batch per input or command."""

    def __init__(self, store, *, seed: int = 1, module: BaccaratModule | None = None, **keeper) -> None:
        self.clock = Clock()
        self.module = module or BaccaratModule(BOMB, TableLimits(25, 1000), rng=random.Random(seed), first_color="red")
        self.keeper = HistoryKeeper(store, clock=self.clock, **keeper)
        self.store = store
        self.fresh = self.module.deck is None

    def start(self) -> Table:
        self.keeper._take_over(self.module, self.store.last_game())
        self.batch(self.module.start() if self.fresh else self.module.resume())
        return self

    def batch(self, events: list[ev.Event]) -> list[ev.Event]:
        self.keeper.on_handled(events, self.module)
        self.keeper.on_settled(events, self.module)  # the daemon's next hook, once the frames are out
        return events

    def press(self, action) -> list[ev.Event]:
        self.clock.advance(2)
        return self.batch(self.module.handle(action))

    def chips(self, area: str, value: int) -> None:
        while self.module.denomination < value:
            self.press(Arrow("right"))
        while self.module.denomination > value:
            self.press(Arrow("left"))
        self.press(Press(area))

    def deal(self) -> list[ev.Event]:
        """The gesture, then the clearing after the result's pause (two batches, as the daemon hands them)."""
        events = self.press(Deal())
        self.clock.advance(3)
        self.batch(self.module.finish_round())
        return events

    def lose(self) -> list[ev.Event]:
        """$25 on the hand that does not win the next round."""
        winner = self.module.next_round().winner
        self.chips("banker" if winner == "player" else "player", 25)
        return self.deal()

    def win(self) -> list[ev.Event]:
        winner = self.module.next_round().winner
        self.chips("tie" if winner == "tie" else winner, 5 if winner == "tie" else 25)
        if winner == "tie":
            self.chips("player", 25)
        return self.deal()

    def command(self, name: str, **args) -> None:
        """A game-master command as GameMaster runs it (hooks for hint and bet)."""
        self.clock.advance(1)
        command = parse_command({"command": name, **args})
        if name == "hint":
            self.keeper.on_command(command, self.module)
            return
        if name == "bet":
            events = self.module.bet(command.bets, finish=False)
            self.keeper.on_command(command, self.module)
            self.batch(events)
            self.batch(self.module.finish_round())
            return
        produce = {
            "reset": lambda m: m.reset(command.limits),
            "force_solve": lambda m: m.force_solve(),
            "set_limits": lambda m: m.set_limits(command.limits),
            "set_solved": lambda m: m.set_solved(command.solved),
            "enable": lambda m: m.set_enabled(True),
            "disable": lambda m: m.set_enabled(False),
        }[name]
        self.batch(produce(self.module))

    def games(self):
        games, problems = self.keeper.games()
        assert not problems, [p.describe() for p in problems]
        return games


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def store(tmp_path):
    made = FileStore(tmp_path / "history.jsonl")
    yield made
    made.close()


# -- what a game's record holds ---------------------------------------------------------------------


def test_a_game_is_recorded_from_its_start_to_its_solve(store):
    table = Table(store).start()
    table.clock.advance(60)  # the players come in a minute after the reset
    lost = table.lose()
    table.command("hint")
    table.win()
    store.flush()
    games = table.games()
    assert len(games) == 1
    game = games[0]
    start = game.start
    assert start["edgework"] == BOMB.to_dict() and start["limits"] == {"min": 25, "max": 1000, "random": False}
    assert start["deck"] == "red" and start["game"] == 1
    first, second = game.rounds
    # The bets as stacked, the cards as dealt, the result and the strike with its reason.
    played = next(e for e in lost if isinstance(e, ev.RoundPlayed))
    strike = next(e for e in lost if isinstance(e, ev.Strike))
    assert first["stacks"] == {("banker" if played.winner == "player" else "player"): [25]}
    assert first["chip"] == 25 and first["cards_left"] == 52 and first["deck"] == "red"
    assert [c[1] for c in first["cards"]] == [e.card for e in lost if isinstance(e, ev.CardDealt)]
    assert first["result"]["winner"] == played.winner and first["result"]["profit_cents"] == played.profit_cents
    assert first["strikes"] == [{"reason": "loss", "detail": strike.detail, "strikes": 1}]
    assert second["cards_left"] == 52 - len(first["cards"]) and second["result"]["profit_cents"] > 0
    assert [h["winner"] for h in game.of_kind("hint")] == [game.rounds[1]["result"]["winner"]]
    summary = game.summary()
    assert summary["outcome"] == "solved" and not summary["forced"]
    assert (summary["rounds"], summary["strikes"], summary["hints"]) == (2, 1, 1)
    # Time to solve counts from the players' first input, not from the reset a minute before.
    assert summary["seconds"] == pytest.approx(game.end["at"] - game.first_move)
    assert game.first_move - game.start["at"] >= 60
    assert summary["seconds"] < table.clock.now - game.start["at"] - 59


def test_a_refused_deal_is_a_round_with_its_strike_and_no_cards(store):
    table = Table(store).start()
    table.chips("player", 25)
    table.chips("banker", 25)
    table.deal()  # both Player and Banker: the exclusive check strikes, nothing is dealt
    table.chips("player", 5)  # the bets stay: $25 and $5 on Player ($5 on top of $25: in order)
    store.flush()
    (entry,) = table.games()[0].rounds
    assert entry["result"] is None and entry["cards"] == []
    assert entry["stacks"] == {"player": [25], "banker": [25]}
    assert entry["strikes"][0]["reason"] == "exclusive"
    assert table.games()[0].summary()["rounds"] == 0  # no cards dealt
    assert table.games()[0].strikes() == 1


def test_reordered_stacks_keep_what_the_players_stacked_and_what_the_dealer_made_of_it(store):
    table = Table(store).start()
    table.chips("player", 5)
    table.chips("player", 25)  # $25 on top of $5: out of order
    table.deal()
    store.flush()
    (game,) = table.games()
    (entry,) = game.rounds
    assert entry["stacks"] == {"player": [5, 25]}
    assert entry["reordered"] == {"player": [25, 5]}
    assert entry["strikes"][0]["reason"] == "stack_order"
    # The replay (the original's pacing): the stack as the players left it, marked while the dealer
    # re-stacks it, then in order for the cards, the result, and the clearing.
    steps = replay.steps(game, 1)
    bets = [(step.scene.bets.stacks["player"], step.scene.bets.restacking) for step in steps]
    assert bets[:4] == [((5, 25), ()), ((5, 25), ("player",)), ((25, 5), ("player",)), ((25, 5), ())]
    assert steps[0].scene.table.status == "PLACE YOUR BETS" and steps[1].scene.table.status == "DEALING"
    # The payout takes the losing bet: the clearing then changes nothing on the first deck (no step).
    assert steps[-1].scene.table.result and bets[-1] == ((), ())


def test_game_master_commands_are_recorded_whatever_asked_for_them(store):
    table = Table(store).start()
    table.command("set_limits", min=50, max=2000)
    table.command("set_solved", solved=3)
    table.command("disable")
    table.command("enable")
    table.command("hint")
    table.command("bet", bets="50 on banker")
    table.command("force_solve")
    store.flush()
    game = table.games()[0]
    assert [c["command"] for c in game.of_kind("command")] == [
        "set_limits",
        "set_solved",
        "disable",
        "enable",
        "force_solve",
    ]
    assert "$50 - $2000" in game.of_kind("command")[0]["detail"]
    (bet,) = game.rounds
    assert bet["remote"] is True and bet["limits"] == [50, 2000] and bet["stacks"] == {"banker": [25, 25]}
    summary = game.summary()
    assert summary["outcome"] == "solved" and summary["forced"] is True
    assert (summary["commands"], summary["hints"], summary["remote_rounds"]) == (5, 1, 1)


def test_a_reset_ends_the_game_and_begins_the_next(store):
    table = Table(store).start()
    table.lose()
    table.command("reset")
    table.lose()
    table.command("reset", min=100, max=5000)
    store.flush()
    first, second, third = table.games()
    assert first.outcome == "reset" and first.end["strikes"] == first.strikes() >= 0
    assert first.end["strikes"] == first.rounds[0]["strikes"][0]["strikes"] if first.rounds[0]["strikes"] else True
    assert (second.start["game"], third.start["game"]) == (2, 3)
    assert third.start["limits"] == {"min": 100, "max": 5000, "random": False}
    assert second.outcome == "reset" and third.outcome == "playing"
    assert not second.of_kind("command")  # the reset's own limits and deck are the next game's start


def test_the_strikes_of_a_game_ended_by_a_reset_are_its_own(store):
    table = Table(store).start()
    while table.module.strikes < 2:
        table.lose()
    table.command("reset")
    store.flush()
    assert table.games()[0].end["strikes"] == 2


@record
class Exploded(ev.Event):
    """A stand-in for the timer's ``Exploded`` event (issue 24 part 3): the keeper knows it by its kind."""

    kind = "exploded"
    cause: str
    strikes: int


def exploded(cause: str, strikes: int) -> ev.Event:
    real = getattr(ev, "Exploded", None)
    return real(cause=cause, strikes=strikes) if real is not None else Exploded(cause, strikes)


@pytest.mark.parametrize("cause", ["timer", "strikes"])
def test_an_explosion_ends_the_game(store, cause):
    table = Table(store).start()
    lost = table.lose()
    table.batch([exploded(cause, table.module.strikes)])
    table.command("hint")  # after the end: not this game's
    store.flush()
    (game,) = table.games()
    assert game.outcome == "exploded" and game.end["cause"] == cause
    assert game.summary()["cause"] == cause and game.summary()["hints"] == 0
    assert game.strikes() == sum(isinstance(e, ev.Strike) for e in lost)
    assert table.keeper.document() == {"progress_at": None, "stuck_minutes": None, "progress_made": None}


# -- the stuck indicator ----------------------------------------------------------------------------------


def test_the_stuck_indicator_counts_from_the_last_progress(store):
    table = Table(store).start()
    start = table.clock.now
    table.clock.advance(125)
    assert table.keeper.document()["stuck_minutes"] == 2  # no move yet: since the game's start
    assert table.keeper.document()["progress_made"] is False
    assert table.keeper.document()["progress_at"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
    table.press(Press("player"))
    moved = table.clock.now
    table.clock.advance(59)
    assert table.keeper.document()["stuck_minutes"] == 0 and table.keeper.document()["progress_made"] is True
    table.clock.advance(540)
    table.command("hint")  # the game master's commands are not the players' progress
    table.command("set_limits", min=50, max=2000)
    assert table.keeper.document()["stuck_minutes"] == 10
    assert table.keeper.document()["progress_at"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moved))
    table.press(Arrow("right"))
    assert table.keeper.document()["stuck_minutes"] == 0


def test_an_ignored_input_is_no_progress(store):
    table = Table(store).start()
    table.command("disable")
    table.clock.advance(300)
    table.press(Press("player"))  # the table is closed: ignored
    assert table.keeper.document()["stuck_minutes"] == 5


def test_the_state_document_carries_the_stuck_indicator(
    tmp_path, mock_factory, short_dir, broker, watcher_factory, capsys
):
    """The one document MQTT publishes (retained) and ``baccarat status`` reads has it: when, and
    the minutes as of the document (it is rebuilt when the state changes, never on a timer)."""
    sock = short_dir / "control.sock"
    config = make_config(
        state={"file": str(tmp_path / "state.json")}, control={"socket": str(sock)}, mqtt=mqtt_section(broker)
    )
    watcher = watcher_factory()
    with served_prop(config, mock_factory, clock=ManualClock()) as rig:
        first = json.loads(watcher.wait_for("bomb/baccarat/state", lambda p: "progress_at" in p))
        assert first["stuck_minutes"] == 0 and first["progress_at"].endswith("Z")
        status = request(sock, {"command": "status"})["result"]
        assert status["progress_at"] == first["progress_at"]
        assert main(["status", "--socket", str(sock)]) == 0
        assert f"players' last progress: 0 minute(s) ago, at {first['progress_at']}" in capsys.readouterr().out
        time.sleep(1.1)  # the document's time has whole seconds
        seen = len(watcher.on("bomb/baccarat/state"))
        rig.tap("player")
        moved = json.loads(watcher.wait_after("bomb/baccarat/state", seen, lambda p: "progress_at" in p))
        assert moved["progress_at"] > first["progress_at"] and moved["bets"]["player"] == 1


# -- when it is written: at most once per round, nothing while idle ---------------------------------------


class CountingStore(FileStore):
    """A file store that counts its appends (each one ``write()`` and one ``fdatasync``)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.appends = 0

    def _append(self, text: str) -> None:
        if text:
            self.appends += 1
        super()._append(text)


def test_lines_are_written_at_the_start_every_fourth_round_and_at_the_end(tmp_path):
    store = CountingStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    store.flush()
    assert store.appends == 1  # the start
    written = []
    for _ in range(8):
        if table.module.solved:
            break
        table.lose()
        assert store.settle()  # the writes asked for so far are done (none is asked for rounds 1-3)
        written.append(store.appends)
    assert written[:8] == [1, 1, 1, 2, 2, 2, 2, 3][: len(written)]
    table.press(Press("player"))
    table.clock.advance(3600)  # an idle hour: nothing is written
    assert store.settle()
    assert store.appends == written[-1]
    table.command("force_solve")
    store.flush()
    assert store.appends == written[-1] + 1
    assert lines_of(store.path)[-1]["t"] == "end"
    store.close()


def test_the_writer_is_woken_only_once_the_frames_are_out(tmp_path):
    """A batch asks for a write in ``on_handled`` (before its frames); the writer thread starts
    only at ``on_settled``, so it never competes with a frame (the daemon's rule for services)."""
    store = CountingStore(tmp_path / "history.jsonl")
    table = Table(store)
    table.keeper._take_over(table.module, [])
    table.keeper.on_handled(table.module.start(), table.module)  # the game's start: a write is due
    assert store.settle() and store.appends == 0 and not store.path.exists()
    table.keeper.on_settled([], table.module)
    assert store.settle() and store.appends == 1
    store.close()


def test_a_clean_stop_writes_what_waits_with_a_stop_line(tmp_path):
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    table.lose()
    table.lose()
    table.keeper.close()
    kinds = [line["t"] for line in lines_of(store.path)]
    assert kinds == ["start", "round", "round", "stop"]


# -- restarts ---------------------------------------------------------------------------------------------


def test_a_restart_mid_game_goes_on_with_the_same_record(tmp_path):
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    table.lose()
    table.lose()
    table.command("hint")
    table.keeper.close()  # SIGTERM
    saved = table.module.snapshot()

    store = FileStore(tmp_path / "history.jsonl")
    module = BaccaratModule.restore(saved, rng=random.Random(2))
    again = Table(store, module=module)
    again.clock.now = table.clock.now + 600  # ten minutes off
    again.start()
    again.lose()
    again.command("force_solve")
    store.flush()
    (game,) = again.games()
    assert [r["n"] for r in game.rounds] == [1, 2, 3]
    assert [e["t"] for e in game.entries] == ["round", "round", "hint", "stop", "resume", "round", "command"]
    assert game.summary()["restarts"] == 1 and game.summary()["hints"] == 1 and game.outcome == "solved"
    # The ten minutes the prop was off are not play time.
    assert game.seconds() == pytest.approx(again.clock.now - game.first_move - 600)
    store.close()


def test_a_fresh_start_closes_an_unfinished_record_as_interrupted(tmp_path):
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    table.lose()
    table.keeper.close()

    store = FileStore(tmp_path / "history.jsonl")
    Table(store, seed=3).start()  # the state file was lost: a fresh module
    store.flush()
    first, second = build_games([(line, "f", i) for i, line in enumerate(lines_of(store.path))])[0]
    assert first.outcome == "interrupted" and first.end["strikes"] == table.module.strikes
    assert second.outcome == "playing" and second.start["game"] == 1
    store.close()


def test_a_saved_game_the_file_does_not_know_starts_a_record_marked_resumed(tmp_path):
    module = BaccaratModule(BOMB, TableLimits(25, 1000), rng=random.Random(1), first_color="red")
    module.start()
    module.reset()  # game 2, never recorded
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store, module=module).start()
    table.lose()
    store.flush()
    (game,) = table.games()
    assert game.start["resumed"] is True and game.start["game"] == 2 and game.summary()["resumed"]
    store.close()


def test_a_game_solved_just_before_a_kill_is_ended_at_the_next_start(tmp_path):
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    table.win()  # the end line is handed to the writer: pretend it never reached the file
    store.close()
    lines = store.path.read_text().splitlines()
    store.path.write_text("\n".join(line for line in lines if '"t":"end"' not in line) + "\n")

    store = FileStore(tmp_path / "history.jsonl")
    module = BaccaratModule.restore(table.module.snapshot(), rng=random.Random(2))
    Table(store, module=module).start()
    store.flush()
    (game,) = build_games([(line, "f", i) for i, line in enumerate(lines_of(store.path))])[0]
    assert game.outcome == "solved" and game.of_kind("resume")
    store.close()


# -- bounds and rotation ----------------------------------------------------------------------------------


def play_games(store, count: int, rounds: int = 3, seed: int = 1) -> Table:
    table = Table(store, seed=seed).start()
    for _ in range(count):
        for _ in range(rounds):
            if table.module.solved:
                break
            table.lose()
        table.command("reset")
    return table


def test_rotation_moves_a_full_file_aside_when_a_game_starts(tmp_path):
    path = tmp_path / "history.jsonl"
    store = FileStore(path, rotate_bytes=6_000)
    table = play_games(store, 40)
    table.lose()  # the game being played has rounds of its own
    store.flush()
    newer, older = lines_of(path), lines_of(older_path(path))
    # Each file begins with a start line: a game's lines are never split between the files.
    assert newer[0]["t"] == "start" and older[0]["t"] == "start"
    for lines in (newer, older):
        ids = {line["id"] for line in lines}
        assert all(any(line["t"] == "start" and line["id"] == i for line in lines) for i in ids)
    # The bound: the newer file passed the size only with the game that began it, at most.
    assert path.stat().st_size < 6_000 + 4_000 and older_path(path).stat().st_size < 6_000 + 4_000
    # The game being played is there, whole; the oldest games are gone.
    games, problems = read_files(path)
    built, orphans = build_games(games)
    assert not problems and not orphans
    assert built[-1].id == table.keeper.current_id and built[-1].rounds
    assert built[0].start["game"] > 1
    assert [g.start["game"] for g in built] == list(range(built[0].start["game"], 42))
    store.close()


def test_lines_of_the_last_game_handed_with_the_next_start_stay_in_the_older_file(tmp_path):
    """A start that closes an unfinished record (its end line and the new start in one batch):
    the rotation comes between them, so each game stays whole in its file."""
    path = tmp_path / "history.jsonl"
    store = FileStore(path, rotate_bytes=2_000)
    table = Table(store).start()
    for _ in range(4):
        table.lose()
    table.keeper.close()  # stopped mid-game, the file past 2,000 bytes
    assert path.stat().st_size > 2_000
    store = FileStore(path, rotate_bytes=2_000)
    fresh = Table(store, seed=2).start()  # the saved game is gone: interrupted, and a new game
    fresh.keeper.close()
    older, newer = lines_of(older_path(path)), lines_of(path)
    assert older[0]["t"] == "start" and older[-1]["t"] == "end" and older[-1]["outcome"] == "interrupted"
    assert newer[0]["t"] == "start" and newer[0]["id"] != older[0]["id"]
    assert {line["id"] for line in older} == {older[0]["id"]} and {line["id"] for line in newer} == {newer[0]["id"]}


def test_the_history_is_beside_the_state_file():
    assert history_path(Path("/var/lib/baccarat/state.json")) == Path("/var/lib/baccarat/history.jsonl")
    assert history_path(Path("/srv/props/left.json")) == Path("/srv/props/left.history.jsonl")
    assert older_path(Path("/var/lib/baccarat/history.jsonl")) == Path("/var/lib/baccarat/history.1.jsonl")


def test_a_game_records_at_most_300_rounds_line_by_line_and_counts_the_rest(tmp_path):
    store = MemoryStore()
    table = Table(store).start()
    keeper = table.keeper
    game = keeper._game
    for _ in range(305):  # refused deals (no bet on Player or Banker): fast, and each one a round
        table.press(Deal())
    table.command("force_solve")
    (recorded,) = table.games()
    assert len(recorded.rounds) == 300 and game.gestures == 305
    assert recorded.end["strikes"] == 305


# -- a line cut short ----------------------------------------------------------------------------------------


def test_a_line_cut_short_is_skipped_when_read_and_cut_off_at_the_next_write(tmp_path, caplog):
    path = tmp_path / "history.jsonl"
    store = FileStore(path)
    table = play_games(store, 2)
    store.close()
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"t":"round","id":"2025')  # a kill in the middle of a write
    lines, problems = read_files(path)
    assert len(problems) == 1 and "cut short" in problems[0].reason
    assert len(lines) == whole.count(b"\n")

    store = FileStore(path)
    module = BaccaratModule.restore(table.module.snapshot(), rng=random.Random(5))
    with caplog.at_level(logging.WARNING, logger="baccarat.history"):
        again = Table(store, module=module).start()
        again.command("force_solve")
        store.flush()
    assert path.read_bytes().startswith(whole)
    assert [r.getMessage() for r in caplog.records if "cut short" in r.getMessage()]
    lines, problems = read_files(path)
    assert not problems
    store.close()


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "history.jsonl"
    store = FileStore(path)
    play_games(store, 1)
    store.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    before = len(path.read_bytes().splitlines())
    store = FileStore(path)
    Table(store, seed=2).start()
    store.flush()
    lines, problems = read_files(path)
    assert not problems and len(lines) == before + 2  # the interrupted end, the new start
    store.close()


# -- summaries ---------------------------------------------------------------------------------------------------


def test_averages_count_only_games_the_players_played(store):
    table = Table(store).start()
    table.command("reset")  # nobody touched the module: not counted
    table.lose()
    table.win()
    table.command("reset")
    table.lose()
    table.command("reset")
    store.flush()
    games = table.games()
    result = averages(games)
    assert result["games"] == 2 and result["solved"] == 1 and result["solve_rate"] == 0.5
    solved = next(g for g in games if g.outcome == "solved")
    assert result["mean_seconds_to_solve"] == pytest.approx(solved.seconds(), abs=0.1)
    csv_text = to_csv(g.summary() for g in games)
    header, *rows = csv_text.splitlines()
    assert header.startswith("id,game,started,ended,outcome")
    assert len(rows) == 4 and ",solved," in rows[1]


# -- the daemon's own wiring ------------------------------------------------------------------------------------


def test_the_daemon_records_a_game_through_its_hooks_and_commands(tmp_path, mock_factory):
    """attach_services wires the keeper: presses on the pins, a deal, commands from the console's path."""
    config = make_config(state={"file": str(tmp_path / "state.json")}, control={"socket": ""})
    umask = os.umask(0o077)  # the service's UMask=: its files are its own, but this one the group may read
    try:
        with served_prop(config, mock_factory, clock=ManualClock()) as rig:
            rig.tap("right")
            rig.tap("right")
            rig.tap("player")
            rig.deal()
            rig.wait_for("chips_cleared")
            rig.daemon.wait_idle()
    finally:
        os.umask(umask)
    lines = lines_of(tmp_path / "history.jsonl")
    assert [line["t"] for line in lines] == ["start", "round", "stop"]
    assert lines[1]["stacks"] == {"player": [25]} and len(lines[1]["cards"]) >= 4
    assert os.stat(tmp_path / "history.jsonl").st_mode & 0o777 == 0o640


# -- kill -9 ---------------------------------------------------------------------------------------------


class Writer:
    """tests/history_writer.py as a child process."""

    def __init__(self, path: Path, mode: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "history_writer.py"), str(path), mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )

    def expect(self, key: str) -> int:
        """Read the writer's lines up to the first with ``key``; ``self.written`` is the last count written."""
        for line in self.proc.stdout:
            data = json.loads(line)
            self.written = data.get("written", getattr(self, "written", 0))
            if key in data:
                return data[key]
        raise AssertionError(f"the writer ended: {self.proc.stderr.read()[-2000:]}")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)
        self.proc.stdout.close()
        self.proc.stderr.close()


def numbers(path: Path) -> list[int]:
    lines, _ = read_files(path)
    return [int(line["detail"][:8]) for line, _, _ in lines if line["t"] == "command"]


def test_kill_9_in_the_middle_of_a_write_leaves_no_torn_line_after_the_next(tmp_path, caplog):
    """The writer is killed with half a batch in the file (as the kernel leaves a large write()
    a kill interrupts): readers skip the torn line, the next write cuts it off, nothing before it is lost."""
    path = tmp_path / "history.jsonl"
    writer = Writer(path, "half")
    writer.expect("half")
    written = writer.written  # two whole batches on disk, then half of the third
    assert written == 10
    writer.kill9()
    lines, problems = read_files(path)
    assert [p.reason.split(" (")[0] for p in problems] == ["cut short"]  # the torn line, and only it
    assert numbers(path)[:written] == list(range(1, written + 1))
    assert not path.read_bytes().endswith(b"\n")

    store = FileStore(path)
    with caplog.at_level(logging.WARNING, logger="baccarat.history"):
        store.hand([], [json.dumps({"t": "stop", "id": "kill-test-1", "at": 1_750_000_999})])
        store.flush()
    store.close()
    assert any("cut short" in r.getMessage() for r in caplog.records)
    lines, problems = read_files(path)
    assert not problems
    got = numbers(path)
    assert got == list(range(1, len(got) + 1)) and len(got) >= written  # whole lines of the half batch may stay
    assert lines[-1][0]["t"] == "stop"


def test_kill_9_at_any_moment_of_the_writes_never_leaves_a_damaged_line_behind(tmp_path):
    rng = random.Random(7)
    torn = 0
    for attempt in range(12):
        path = tmp_path / f"h{attempt}" / "history.jsonl"
        path.parent.mkdir()
        writer = Writer(path, "loop")
        writer.expect("written")
        time.sleep(rng.uniform(0, 0.05))
        writer.kill9()
        _, problems = read_files(path)
        assert len(problems) <= 1 and all("cut short" in p.reason for p in problems), problems
        torn += len(problems)
        before = numbers(path)
        store = FileStore(path)
        store.hand([], [json.dumps({"t": "stop", "id": "kill-test-1", "at": 1_750_000_999})])
        store.close()
        lines, problems = read_files(path)
        assert not problems and lines[-1][0]["t"] == "stop"
        assert numbers(path) == before == list(range(1, len(before) + 1))
    print(f"{torn} of 12 kills tore a line")


def test_kill_9_mid_game_and_a_restart_go_on_with_the_same_record(tmp_path):
    """The prop as ``baccarat run`` builds it, killed mid-game: the rounds written survive, the
    restart goes on with the same record (a ``resume`` line), and the rounds count on."""
    data = config_data(
        state={"file": str(tmp_path / "state.json")}, control={"socket": ""}, timing={"card_seconds": 0.01}
    )
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps(data))
    history = tmp_path / "history.jsonl"

    def rounds(prop: PropProcess, count: int) -> None:
        for _ in range(count):
            snapshot = prop.snapshot()
            for _ in range(DENOMINATIONS.index(snapshot["denomination"])):
                prop.tap("left")  # back to $1: _bet_to_lose steps up to $25 from there
            _bet_to_lose(prop)
            prop.send(deal=True)
            prop.expect("events", test=lambda kinds: "chips_cleared" in kinds)

    prop = PropProcess(config_file)
    try:
        rounds(prop, 5)  # four written together, the fifth waiting in memory
        prop.kill9()
        (game,) = build_games(read_files(history)[0])[0]
        assert [r["n"] for r in game.rounds] == [1, 2, 3, 4] and game.outcome == "playing"
        prop = PropProcess(config_file)
        assert prop.ready["restored"] is True
        rounds(prop, 4)
    finally:
        prop.stop()
    games, problems = build_games(read_files(history)[0])
    assert not problems
    (again,) = games
    assert again.id == game.id
    assert [e["t"] for e in again.entries][4] == "resume"
    assert [r["n"] for r in again.rounds] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert again.summary()["restarts"] == 1


def test_the_bombs_limits_are_recorded_with_each_game_whatever_form_the_config_gives_them(store):
    """The timer and the strike limit (``[bomb]``, issue 24 part 3) as plain values, from a record
    or an object with ``to_dict``; nothing when the config has none."""
    from firmware.history import bomb_limits

    @record
    class Bomb:
        timer_seconds: int | None = 300
        strike_limit: int | None = 3
        speed_up: bool = True

    class Settings:
        def to_dict(self) -> dict:
            return {"timer_seconds": None, "strike_limit": 5, "nested": {"no": 1}}

    assert bomb_limits(make_config()) is None
    assert bomb_limits(SimpleNamespace(bomb=Bomb())) == {"timer_seconds": 300, "strike_limit": 3, "speed_up": True}
    assert bomb_limits(SimpleNamespace(bomb=Settings())) == {"timer_seconds": None, "strike_limit": 5}
    table = Table(store, bomb=bomb_limits(SimpleNamespace(bomb=Bomb()))).start()
    store.flush()
    assert table.games()[0].start["bomb"] == {"timer_seconds": 300, "strike_limit": 3, "speed_up": True}


def test_a_replayed_deal_on_the_originals_timeline_is_what_the_displays_showed(mock_factory):
    """The original's pacing, on the daemon's own clock: the stack re-stacked (a strike), each card
    landing face down and turning, the loss that reaches the strike limit (every display shows the
    explosion). The replay's pictures are the frames the displays got, in order, pixel for pixel."""
    schedule = ManualClock(0.0)
    config = make_config(timing={"pacing": "original"}, bomb={"strike_limit": 2})
    clock = ManualClock()
    daemon = build_daemon(
        config,
        pin_factory=mock_factory,
        device_factory=open_dummy_device,
        rng=random.Random(1),
        clock=clock,
        schedule_clock=schedule,
    )
    rig = Rig(daemon, mock_factory, clock)
    keeper = HistoryKeeper(MemoryStore()).attach(daemon)
    frames: list = []
    daemon.on_frame.append(lambda role, image: frames.append((role, image)))
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        winner = daemon.call(lambda: daemon.module.next_round().winner).result(5)
        assert winner != "tie"
        rig.chips("banker" if winner == "player" else "player", 5, 25)  # $25 on $5: out of order
        daemon.wait_idle()
        at_gesture = {role: screen.last_frame for role, screen in daemon.screens.items()}
        frames.clear()
        rig.driver.tap("deal")
        daemon.catch_up()
        while daemon.call(lambda: daemon.dealing, during_round=True).result(5):
            schedule.advance(1 / 16)
            daemon.catch_up()
        daemon.wait_idle()
        displays = {role: (s.size, s.mode, s.colour) for role, s in daemon.screens.items()}
    finally:
        daemon.stop()
        keeper.close()
        close_daemon(daemon)
    (game,) = keeper.games()[0]
    (entry,) = game.rounds
    assert entry["reordered"] and entry["exploded"] == "strikes" and game.outcome == "exploded"
    steps = replay.steps(game, 1)
    assert steps[-1].scene.exploded is not None and steps[1].scene.bets.restacking

    def distinct(images: list) -> list[bytes]:
        out: list[bytes] = []
        for data in (image.tobytes() for image in images):
            if not out or out[-1] != data:
                out.append(data)
        return out

    drawn = [replay.draw(step, displays) for step in steps]
    for role in displays:
        sent = [image for who, image in frames if who == role]
        assert distinct([d[role] for d in drawn]) == distinct([at_gesture[role], *sent]), role
    assert len([1 for who, _ in frames if who == "table"]) >= 9  # a card back and a face for each, the end


def test_the_bomb_the_countdown_commands_and_the_time_left_are_recorded(tmp_path, mock_factory):
    """With ``[bomb]``: its limits on the start line, the game master's ``start`` and ``add_time``
    among the commands, the deal's pacing for the replay, the time left on the end line."""
    from firmware.history import attach_history

    config = make_config(bomb={"timer_seconds": 300, "strike_limit": 3}, state={"file": str(tmp_path / "s.json")})
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    commands = GameMaster(daemon)
    keeper = attach_history(daemon, commands, config, tmp_path / "s.json")
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        for payload in ({"command": "start"}, {"command": "add_time", "seconds": 60}, {"command": "force_solve"}):
            assert commands.handle(payload).result(5)["ok"]
    finally:
        daemon.stop()
        keeper.close()
        close_daemon(daemon)
    (game,) = keeper.games()[0]
    assert game.start["bomb"] == {"timer_seconds": 300.0, "strike_limit": 3, "speed_up": True}
    assert game.start["pacing"] == "quick"  # the tests' pacing (conftest); the prop's default is "original"
    assert [c["command"] for c in game.of_kind("command")] == ["start", "add_time", "force_solve"]
    assert "60 s added by the game master" in game.of_kind("command")[1]["detail"]
    assert 359 < game.end["time_left"] <= 360
    assert (tmp_path / "s.history.jsonl").exists()
