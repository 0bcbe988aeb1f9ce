"""A start after a power cut in a long game (no ``stop`` line) reads a handful of lines, however long
the game (issue 44, item 4): the round ending each write carries the game's totals so far, and a
start goes on from the last such line with what the lines after it add. What follows is the same
record as going on from every line of the game (the history before the totals)."""

from __future__ import annotations

import copy
import json

import pytest

from baccarat_core.strict import InputError
from firmware.history.games import build_games
from firmware.history.lines import check_entry
from firmware.history.recorder import ROUNDS_PER_WRITE
from firmware.history.store import FileStore, read_files
from firmware.history.totals import sum_up
from tests.test_history import Table
from tests.test_history_start import checked, long_history

__all__ = ["checked"]  # the fixture


@pytest.mark.parametrize("rounds", [12, 296])  # each a write's last round; 300 lines at most a game
def test_a_start_after_a_power_cut_reads_as_many_lines_after_12_rounds_as_after_296(tmp_path, checked, rounds):
    path = tmp_path / "history.jsonl"
    long_history(path, games=1, rounds=rounds + 1, end=False)
    game = FileStore(path).last_game()
    assert game[0]["totals"]["gestures"] == rounds and [line["n"] for line in game] == [rounds, rounds + 1]
    assert len(checked) == 3  # the last line (a round), then back to the one with the totals
    assert sum_up(game)["gestures"] == rounds + 1


def test_the_totals_are_on_the_round_that_ends_each_write_alone(tmp_path):
    path = tmp_path / "history.jsonl"
    long_history(path, games=1, rounds=2 * ROUNDS_PER_WRITE + 1, end=False)
    rounds = [entry for entry, _, _ in read_files(path)[0] if entry["t"] == "round"]
    with_totals = [entry["n"] for entry in rounds if "totals" in entry]
    assert with_totals == [ROUNDS_PER_WRITE, 2 * ROUNDS_PER_WRITE]
    assert rounds[-1]["totals"] if "totals" in rounds[-1] else True
    totals = rounds[ROUNDS_PER_WRITE - 1]["totals"]
    assert totals["gestures"] == totals["rounds"] == ROUNDS_PER_WRITE and totals["hints"] == 0


def played_then_cut(path, strip: bool):
    """Rounds, a hint and a command after the last totals, then a power cut; ``strip``: the file as
    the history wrote it before the totals (none on any line)."""
    table = Table(FileStore(path), seed=5).start()
    for _ in range(13):
        table.lose()
    table.command("hint")
    table.command("set_limits", min=25, max=1000)
    table.deal()  # no bet: a refused deal (no result) and its strike
    table.lose()
    table.store.close()  # what waited is written, no stop line: as if the power went
    if strip:
        lines = [json.loads(raw) for raw in path.read_bytes().splitlines()]
        for line in lines:
            line.pop("totals", None)
        path.write_bytes(b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines))
    return table


def test_going_on_from_the_totals_records_what_going_on_from_every_line_does(tmp_path):
    records = []
    for strip in (False, True):
        path = tmp_path / f"{strip}.jsonl"
        table = played_then_cut(path, strip)
        last = FileStore(path).last_game()
        assert (last[0]["t"] == "start") is strip  # without totals: read from the game's start
        again = Table(FileStore(path), module=copy.deepcopy(table.module))
        again.clock.now = table.clock.now + 60
        again.start()
        again.lose()
        again.command("hint")
        again.command("force_solve")
        again.store.close()
        lines, problems = read_files(path)
        assert not problems
        end = lines[-1][0]
        summary = build_games(lines)[0][-1].summary()
        records.append(({k: v for k, v in end.items() if k not in ("at", "id")}, summary["seconds"]))
    assert records[0] == records[1]
    assert records[0][0]["rounds"] == 15 and records[0][0]["hints"] == 2 and records[0][0]["commands"] == 2
    assert records[0][0]["strikes"] >= 1


@pytest.mark.parametrize(
    "totals, problem",
    [
        ({"game": 1, "started": 1.0, "gestures": 4, "rounds": 4, "hints": 0, "commands": 0}, "strikes"),
        ({"game": 1, "started": 1.0, "gestures": -1, "rounds": 4, "hints": 0, "commands": 0, "strikes": 0}, "gestures"),
        ([4], "not an object"),
    ],
)
def test_a_round_s_totals_are_read_strictly(totals, problem):
    line = {
        "t": "round", "id": "20250501-120000-3fa9c1", "at": 1.0, "n": 4, "deck": "red", "cards_left": 40,
        "limits": [25, 1000], "chip": 25, "stacks": {}, "cards": [], "result": None, "strikes": [],
    }  # fmt: skip
    check_entry({**line, "totals": {"game": 1, "started": 1.0, "gestures": 4, "rounds": 4, "hints": 0,
                                    "commands": 0, "strikes": 0}})  # fmt: skip
    with pytest.raises(InputError, match=problem):
        check_entry({**line, "totals": totals})
