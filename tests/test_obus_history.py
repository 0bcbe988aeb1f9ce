"""The history keeps an OBUS bomb's modules on a game's end line (issue 43, item 2), and nothing
more without one: a prop without ``[obus]`` writes the end lines it always wrote.

The keeper reads the state document's ``obus`` part through the game master's document extras
(firmware/history/bomb.py); here its reader is given the part a controller's service makes. The
whole path (the service on a virtual bus, the console's History view) is in
tests/test_obus_console_browser.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware.history.games import build_games
from firmware.history.lines import EntryError, parse_line
from firmware.history.store import FileStore, read_files
from tests.test_history import Table

#: A controller's obus part as the service makes it: modules 2 and 3 and a needy module 1, module
#: 2 solved, the needy one struck once; the prop's own puzzle not solved yet.
PART: dict[str, Any] = {
    "role": "controller",
    "phase": "playing",
    "modules": [
        {"type": 1, "id": 2, "solved": True, "strikes": 0},
        {"type": 1, "id": 3, "solved": False, "strikes": 0},
        {"type": 2, "id": 1, "solved": False, "strikes": 1},
    ],
    "prop": {"solved": False, "strikes": 0},
    "bomb": {"left_ms": 500_000, "strikes": 1, "max_strikes": 3, "solved": 1, "puzzles": 3},
    "ended": None,
    "bus": {"where": "virtual x", "up": True},
}


def played(tmp_path: Path, bus: Any = None) -> tuple[list[str], FileStore]:
    store = FileStore(tmp_path / "history.jsonl")
    table = Table(store).start()
    if bus is not None:
        table.keeper.bus = bus
    table.lose()
    table.command("force_solve")
    store.flush()
    return store.path.read_text().splitlines(), store


def test_without_an_obus_part_the_end_line_is_as_before(tmp_path: Path) -> None:
    lines, store = played(tmp_path)
    end = json.loads(lines[-1])
    assert end["t"] == "end" and "obus" not in lines[-1]
    assert list(end) == ["t", "id", "at", "outcome", "strikes", "rounds", "hints", "commands", "forced", "progress"]
    store.close()


def test_the_end_line_keeps_the_bombs_modules_and_the_listing_reads_them(tmp_path: Path) -> None:
    lines, store = played(tmp_path, lambda: PART)
    end = parse_line(lines[-1].encode())  # read back as strictly as every line
    assert end["obus"] == {
        "role": "controller",
        "modules": [
            {"prop": True, "solved": True, "strikes": 0},  # the solve the line is written at
            {"type": 1, "id": 2, "solved": True, "strikes": 0},
            {"type": 1, "id": 3, "solved": False, "strikes": 0},
            {"type": 2, "id": 1, "solved": False, "strikes": 1},
        ],
        "solved": 2,
        "puzzles": 3,
        "strikes": 1,
    }
    entries, problems = read_files(store.path)
    games, more = build_games(entries)
    assert not problems and not more
    assert games[-1].summary()["bomb"] == end["obus"]
    store.close()


def test_a_module_props_record_has_its_own_row_and_the_others_the_bus_showed(tmp_path: Path) -> None:
    part = {
        "role": "module",
        "node": {"type": 1, "id": 4},
        "phase": "over",
        "controller_silent": False,
        "bomb": {"left_ms": 0, "strikes": 3, "max_strikes": 3, "solved": 1, "puzzles": 3},
        "strikes_sent": 2,
        "solved_sent": False,
        "ended": "strikes",
        "modules": [{"type": 1, "id": 5, "solved": True, "strikes": 1}],
    }
    lines, store = played(tmp_path, lambda: part)
    assert parse_line(lines[-1].encode())["obus"] == {
        "role": "module",
        "modules": [
            {"prop": True, "type": 1, "id": 4, "solved": True, "strikes": 2},  # force_solve ended this game
            {"type": 1, "id": 5, "solved": True, "strikes": 1},
        ],
        "solved": 2,
        "puzzles": 3,
        "strikes": 3,
        "ended": "strikes",
    }
    store.close()


def test_a_failing_reader_loses_nothing_of_the_game(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> Any:
        raise RuntimeError("the bus's view is broken")

    lines, store = played(tmp_path, broken)
    end = json.loads(lines[-1])
    assert end["t"] == "end" and end["outcome"] == "solved" and "obus" not in end
    assert "the OBUS bomb's modules not recorded" in caplog.text
    store.close()


@pytest.mark.parametrize(
    ("obus", "said"),
    [
        ({"role": "boss", "modules": []}, 'obus role "boss" is not one of module, controller'),
        ({"role": "module", "modules": [{"solved": "yes", "strikes": 0}]}, 'obus modules solved "yes"'),
        ({"role": "module", "modules": [{"solved": True, "strikes": 256}]}, "obus modules strikes 256"),
        ({"role": "module", "modules": [{"solved": True, "strikes": 0}] * 18}, "obus modules is not a list"),
        ({"role": "module", "modules": [], "ended": "boom"}, 'obus ended "boom"'),
    ],
)
def test_a_line_whose_obus_field_breaks_its_schema_is_refused(obus: Any, said: str) -> None:
    line = {"t": "end", "id": "g1", "at": 1.0, "outcome": "solved", "strikes": 0, "obus": obus}
    with pytest.raises(EntryError, match=said.replace("(", r"\(").replace(")", r"\)")):
        parse_line(json.dumps(line).encode())
