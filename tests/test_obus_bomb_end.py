"""The history keeps an OBUS bomb's final state (issue 43, item 2): the end line is written when the
prop's own game ends, and in a bomb the prop runs the other modules play on after its solve; when
the bomb's game ends (SOLVED, TIMEOUT, STRIKEOUT) a ``bomb`` line after the end line keeps its
modules then, and every reader takes it as the game's bomb. Files without one read as before.

Here the keeper's reader of the bus is a part the test changes as the service would; the whole path
(the service on a virtual bus, the prop's solve first, then the other modules') is the last test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat_core import BaccaratError
from firmware.history.games import build_games
from firmware.history.lines import parse_line
from firmware.history.store import FileStore, read_files
from tests.test_history import Table
from tests.test_obus_history import PART


class Bus:
    """The state document's ``obus`` part as the keeper reads it, changed by the test."""

    def __init__(self) -> None:
        self.part: dict[str, Any] = copy.deepcopy(PART)

    def __call__(self) -> dict[str, Any]:
        return self.part

    def bomb_ends(self) -> None:
        """The prop's solve counted, then modules 3 solves: the bomb is defused."""
        self.part["prop"]["solved"] = True
        self.part["modules"][1]["solved"] = True
        self.part["bomb"].update(solved=3)
        self.part.update(phase="over", ended="solved")


FINAL = {
    "role": "controller",
    "modules": [
        {"prop": True, "solved": True, "strikes": 0},
        {"type": 1, "id": 2, "solved": True, "strikes": 0},
        {"type": 1, "id": 3, "solved": True, "strikes": 0},
        {"type": 2, "id": 1, "solved": False, "strikes": 1},
    ],
    "solved": 3,
    "puzzles": 3,
    "strikes": 1,
    "ended": "solved",
}


def lines_of(store: FileStore) -> list[dict[str, Any]]:
    store.flush()
    return [json.loads(line) for line in store.path.read_text().splitlines()]


def game_of(store: FileStore) -> Any:
    entries, problems = read_files(store.path)
    games, more = build_games(entries)
    assert not problems and not more, (problems, more)
    return games


def solved_first(tmp_path: Path) -> tuple[Table, FileStore, Bus]:
    """A game the prop's solve ends while the bomb plays on."""
    store = FileStore(tmp_path / "history.jsonl")
    bus = Bus()
    table = Table(store).start()
    table.keeper.bus = bus
    table.lose()
    table.command("force_solve")
    end = lines_of(store)[-1]
    assert end["t"] == "end" and end["obus"]["solved"] == 2 and "ended" not in end["obus"]
    return table, store, bus


def test_the_bombs_end_after_the_games_is_a_bomb_line_every_reader_takes(tmp_path: Path) -> None:
    table, store, bus = solved_first(tmp_path)
    table.batch([])  # a batch while the bomb plays on (a module registered, struck...): nothing yet
    assert lines_of(store)[-1]["t"] == "end"
    bus.bomb_ends()
    table.clock.advance(30)
    table.batch([])  # the service's obus_sync end=solved: an empty batch once the prop is solved
    last = lines_of(store)[-1]
    assert last["t"] == "bomb" and last["obus"] == FINAL
    assert parse_line(json.dumps(last).encode()) == last  # read as strictly as every line
    end_at = lines_of(store)[-2]["at"]
    assert last["at"] == pytest.approx(end_at + 30)
    table.batch([])  # written once
    assert sum(1 for line in lines_of(store) if line["t"] == "bomb") == 1
    games = game_of(store)
    summary = games[-1].summary()
    assert summary["bomb"] == FINAL and summary["outcome"] == "solved"
    assert games[-1].end is not None and games[-1].end["obus"]["solved"] == 2  # the end line as it was
    assert [line["t"] for line in games[-1].lines()][-2:] == ["end", "bomb"]  # the JSON download's lines
    # a start after it finds the game ended (no "interrupted" record, no resume)
    again = FileStore(store.path)
    assert [line["t"] for line in again.last_game()] == ["end"]
    store.close()


def test_a_start_whose_file_ends_in_a_bomb_line_takes_the_game_as_ended(tmp_path: Path) -> None:
    table, store, bus = solved_first(tmp_path)
    bus.bomb_ends()
    table.batch([])
    store.close()
    restarted = Table(FileStore(store.path)).start()  # a fresh module: a new game, the last one closed
    restarted.store.flush()
    kinds = [json.loads(line)["t"] for line in store.path.read_text().splitlines()]
    assert kinds[-2:] == ["bomb", "start"] and "interrupted" not in store.path.read_text()
    assert len(game_of(restarted.store)) == 2
    restarted.store.close()


def test_a_reset_before_the_bombs_end_keeps_the_end_lines_view(tmp_path: Path) -> None:
    table, store, bus = solved_first(tmp_path)
    table.command("reset", min=25, max=1000)
    bus.bomb_ends()  # too late: this bomb is not the new game's
    table.batch([])
    assert not [line for line in lines_of(store) if line["t"] == "bomb"]
    store.close()


def test_a_bomb_over_at_the_games_end_needs_no_bomb_line(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "history.jsonl")
    bus = Bus()
    bus.bomb_ends()  # e.g. the bomb's time ran out: the prop's game ends with it
    table = Table(store).start()
    table.keeper.bus = bus
    table.command("force_solve")
    table.batch([])
    assert [line["t"] for line in lines_of(store)][-1] == "end"
    assert lines_of(store)[-1]["obus"]["ended"] == "solved"
    store.close()


@pytest.mark.parametrize(
    "line",
    [
        {"t": "bomb", "id": "g1", "at": 1.0},
        {"t": "bomb", "id": "g1", "at": 1.0, "obus": {"role": "boss", "modules": []}},
        {"t": "bomb", "id": "g1", "at": 1.0, "obus": {"role": "module", "modules": []}, "outcome": "solved"},
    ],
)
def test_a_bomb_line_that_breaks_its_schema_is_refused(line: dict[str, Any]) -> None:
    with pytest.raises(BaccaratError):  # the line is skipped and reported, never trusted
        parse_line(json.dumps(line).encode())
