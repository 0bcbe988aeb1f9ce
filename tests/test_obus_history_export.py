"""An OBUS bomb's modules in ``baccarat history``'s listing and the CSV export (issue 43, item 2):
a game whose end line has an ``obus`` field gets a line of words under its row and a ``bomb``
column; a history without one reads byte for byte as before.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main
from firmware.history.bomb import record_words
from firmware.history.games import CSV_COLUMNS, build_games, to_csv
from firmware.history.store import read_files
from tests.test_obus_history import PART, played

WORDS = (
    "controller; 2/3 solved; 1 strike; prop: solved, 0 strikes; puzzle 2: solved, 0 strikes; "
    "puzzle 3: not solved, 0 strikes; needy 1: not solved, 1 strike"
)


def without_obus(path: Path, to: Path) -> Path:
    """The same history with the end lines' ``obus`` fields taken out (a prop without ``[obus]``)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    to.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "obus"}) + "\n" for line in lines))
    return to


def old_csv(summaries: list[dict[str, Any]]) -> str:
    """The CSV as it was before the bomb's column: the columns alone."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in summaries:
        writer.writerow(["" if row[key] is None else row[key] for key in CSV_COLUMNS])
    return out.getvalue()


def summaries(path: Path) -> list[dict[str, Any]]:
    entries, problems = read_files(path)
    games, more = build_games(entries)
    assert not problems and not more
    return [g.summary() for g in games]


@pytest.fixture
def bomb_file(tmp_path: Path) -> Path:
    folder = tmp_path / "bomb"
    folder.mkdir()
    _, store = played(folder, lambda: PART)
    store.close()
    return store.path


def test_the_words_of_a_record() -> None:
    record = {
        "role": "module",
        "modules": [
            {"prop": True, "type": 1, "id": 4, "solved": False, "strikes": 1},
            {"type": 2, "id": 7, "solved": False, "strikes": 2},
        ],
        "ended": "timer",
    }
    assert record_words(record) == (
        "module; ended: timer; prop (puzzle 4): not solved, 1 strike; needy 7: not solved, 2 strikes"
    )


def test_the_csv_has_a_bomb_column_only_with_a_bomb(bomb_file: Path, tmp_path: Path) -> None:
    rows = summaries(bomb_file)
    text = to_csv(rows)
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == [*CSV_COLUMNS, "bomb"]
    assert table[-1][-1] == WORDS
    assert table[-1][:-1] == old_csv(rows).splitlines()[-1].split(",")  # the other columns as before
    plain = summaries(without_obus(bomb_file, tmp_path / "plain.jsonl"))
    assert to_csv(plain) == old_csv(plain)  # byte for byte
    assert "bomb" not in to_csv(plain).splitlines()[0]
    # a game without a bomb beside one with: its cell is empty
    mixed = to_csv([plain[0], rows[0]])
    assert [row[-1] for row in csv.reader(io.StringIO(mixed))] == ["bomb", "", WORDS]


def test_baccarat_history_lists_the_bombs_modules_under_its_game(
    bomb_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "--file", str(bomb_file)]) == 0
    with_bomb = capsys.readouterr().out.replace(str(bomb_file), "FILE")
    plain_file = without_obus(bomb_file, tmp_path / "plain.jsonl")
    assert main(["history", "--file", str(plain_file)]) == 0
    plain = capsys.readouterr().out.replace(str(plain_file), "FILE")
    assert "OBUS" not in plain
    extra = [line for line in with_bomb.splitlines() if line not in plain.splitlines()]
    assert extra == [f"        OBUS bomb: {WORDS}"]
    assert with_bomb.replace(extra[0] + "\n", "") == plain  # nothing else changed
