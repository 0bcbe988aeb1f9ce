"""What a start reads of the history: the last line when the last game ended, however long the file.

A start only needs to know whether the file's last game goes on (then its lines from the last
that carries its totals: tests/test_history_cut.py); after a game that ended it reads and checks
the file's last line alone, so a start after a long game costs what a start after a short one does
(``benchmarks/instructions.py``: ``long`` against ``startup``).
"""

from __future__ import annotations

import logging

import pytest

from firmware.history import store as store_module
from firmware.history.games import build_games
from firmware.history.lines import parse_line
from firmware.history.store import FileStore, read_files
from tests.test_history import Table


@pytest.fixture
def checked(monkeypatch):
    """Every line the store reads and checks, as it reads it."""
    seen: list[bytes] = []

    def counting(raw: bytes):
        seen.append(raw)
        return parse_line(raw)

    monkeypatch.setattr(store_module, "parse_line", counting)
    return seen


def long_history(path, *, games: int = 3, rounds: int = 60, end: bool = True) -> Table:
    """``games`` games of ``rounds`` lost rounds each, the last one ended (forced solved) if ``end``."""
    table = Table(FileStore(path)).start()
    for number in range(games):
        for _ in range(rounds):
            table.lose()
        if number < games - 1 or end:
            table.command("force_solve")
        if number < games - 1:
            table.command("reset")
    table.store.close()
    return table


def test_a_start_after_a_long_game_that_ended_reads_its_last_line_alone(tmp_path, checked):
    path = tmp_path / "history.jsonl"
    long_history(path)
    lines = path.read_bytes().splitlines()
    assert len(lines) > 180
    game = FileStore(path).last_game()
    assert [line["t"] for line in game] == ["end"] and game[0]["outcome"] == "solved"
    assert checked == [lines[-1]]


def test_a_start_in_a_long_game_after_a_power_cut_reads_back_to_its_last_totals(tmp_path, checked):
    path = tmp_path / "history.jsonl"
    long_history(path, games=2, rounds=22, end=False)  # no stop line: a power cut
    game = FileStore(path).last_game()
    assert game[0]["t"] == "round" and game[0]["totals"]["gestures"] == 20  # the last write's last round
    assert [line["t"] for line in game] == ["round", "round", "round"] and game[-1]["n"] == 22
    assert len(checked) <= 4  # the last line (not a summing-up one), then the game's back to its totals


def test_a_line_cut_short_after_the_end_line_is_passed_over_with_one_log_line(tmp_path, checked, caplog):
    path = tmp_path / "history.jsonl"
    long_history(path, games=1, rounds=3)
    end = path.read_bytes().splitlines()[-1]
    with path.open("ab") as file:
        file.write(b'{"t":"round","id":"x","at":1')  # a kill -9 in the middle of the next write
    with caplog.at_level(logging.WARNING, logger="baccarat.history"):
        game = FileStore(path).last_game()
    assert [line["t"] for line in game] == ["end"] and checked[-1] == end
    assert len([r for r in caplog.records if "a damaged line at its end skipped" in r.getMessage()]) == 1


def test_the_next_game_after_a_long_ended_one_is_a_record_of_its_own(tmp_path):
    path = tmp_path / "history.jsonl"
    long_history(path, games=1, rounds=30)
    table = Table(FileStore(path), seed=2).start()  # a fresh prop: its first batch begins a game
    table.lose()
    table.store.close()
    lines, problems = read_files(path)
    assert not problems
    kinds = [(entry["t"], entry.get("outcome")) for entry, _, _ in lines]
    assert ("end", "interrupted") not in kinds and kinds.count(("start", None)) == 2
    assert len({entry["id"] for entry, _, _ in lines}) == 2


def played_then_stopped(path, seed: int = 3) -> Table:
    """A game with lost rounds, a hint and a command, then a clean stop (its stop line)."""
    table = Table(FileStore(path), seed=seed).start()
    for _ in range(12):
        table.lose()
    table.command("hint")
    table.command("set_limits", min=25, max=1000)
    table.lose()
    table.keeper.close()
    return table


def test_a_start_after_a_clean_stop_in_a_long_game_reads_its_stop_line_alone(tmp_path, checked):
    path = tmp_path / "history.jsonl"
    played_then_stopped(path)
    last = path.read_bytes().splitlines()[-1]
    game = FileStore(path).last_game()
    assert [line["t"] for line in game] == ["stop"] and checked == [last]
    assert game[0]["gestures"] == 13 and game[0]["hints"] == 1 and game[0]["commands"] == 1


def test_going_on_from_a_stop_line_records_what_going_on_from_every_line_does(tmp_path):
    """The same game, stopped cleanly; one start reads the stop line's totals, the other (a stop line
    without them, as the history wrote it before) every line of the game: the same record follows."""
    import copy
    import json

    records = []
    for summed_up in (True, False):
        path = tmp_path / f"{summed_up}.jsonl"
        table = played_then_stopped(path)
        if not summed_up:
            *head, stop = path.read_bytes().splitlines()
            bare = {k: v for k, v in json.loads(stop).items() if k in ("t", "id", "at", "progress", "first_move")}
            path.write_bytes(b"\n".join([*head, json.dumps(bare).encode()]) + b"\n")
        again = Table(FileStore(path), module=copy.deepcopy(table.module))
        again.clock.now = table.clock.now + 60
        again.start()
        again.lose()
        again.command("force_solve")
        again.store.close()
        lines, problems = read_files(path)
        assert not problems
        end = lines[-1][0]
        summary = build_games(lines)[0][-1].summary()  # its time played counts from the first move
        records.append(({k: v for k, v in end.items() if k not in ("at", "id")}, summary["seconds"]))  # ids: random
    assert records[0] == records[1]
    assert records[0][0]["outcome"] == "solved" and records[0][0]["rounds"] >= 13 and records[0][0]["hints"] == 1
