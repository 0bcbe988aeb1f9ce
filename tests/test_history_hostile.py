"""Hostile history files, and ``baccarat history`` on good and bad ones.

Whatever the file holds, the prop plays on, the good games are still read, each bad line is one
problem (one log line in the prop, one stderr line from the shell command), and nothing raises.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.cli.history import history_file
from firmware.config import DEFAULT_CONFIG
from firmware.history.games import build_games
from firmware.history.store import MAX_FILE_BYTES, FileStore, older_path, read_files
from tests.conftest import ROOT
from tests.test_history import Table, lines_of, play_games

GAME = "20250101-000000-abcdef"


def good_file(path: Path) -> list[dict]:
    """Two games, the first solved, the second being played; returns its lines."""
    store = FileStore(path)
    table = Table(store).start()
    table.lose()
    table.win()
    table.command("reset")
    table.lose()
    table.keeper.close()  # the prop stops: a stop line, everything written
    return lines_of(path)


def line(**fields) -> bytes:
    return json.dumps(fields).encode()


def round_line(**changes) -> bytes:
    entry = {
        "t": "round",
        "id": GAME,
        "at": 1_750_000_100,
        "n": 1,
        "deck": "red",
        "cards_left": 52,
        "limits": [25, 1000],
        "chip": 25,
        "stacks": {"player": [25]},
        "cards": [["player", "KD", 0], ["banker", "2H", 2], ["player", "QS", 0], ["banker", "3C", 5]],
        "result": {
            "player_score": 0,
            "banker_score": 5,
            "winner": "banker",
            "profit_cents": -2500,
            "results": {"player": -2500},
        },
        "strikes": [{"reason": "loss", "detail": "the round lost $25.00", "strikes": 1}],
    }
    entry.update(changes)
    return json.dumps(entry).encode()


START = line(
    v=1,
    t="start",
    id=GAME,
    at=1_750_000_000,
    game=1,
    edgework={"serial": "AB3DE4", "ports": ["Parallel"], "lit": [], "unlit": [], "solved": 0},
    drawn=False,
    limits={"min": 25, "max": 1000, "random": False},
    deck="red",
    enabled=True,
)

#: Lines that must each be skipped (after a start line of GAME that is fine).
HOSTILE = {
    "not JSON": b"this is not json",
    "not UTF-8": b'{"t": "stop", "id": "\xff\xfe", "at": 1}',
    "NUL bytes": b"\x00" * 200,
    "deep nesting": b"[" * 5000 + b"]" * 5000,
    "a line too long": line(t="command", id=GAME, at=1_750_000_001, command="set_solved", detail="x" * 20_000),
    "a JSON array": b"[1, 2, 3]",
    "no type": line(id=GAME, at=1),
    "an unknown type": line(t="explode", id=GAME, at=1_750_000_001),
    "an extra key": line(t="stop", id=GAME, at=1_750_000_001, rm="-rf"),
    "a key twice": b'{"t": "stop", "t": "resume", "id": "' + GAME.encode() + b'", "at": 1750000001}',
    "NaN": b'{"t": "stop", "id": "' + GAME.encode() + b'", "at": NaN}',
    "a time of 1e300": line(t="stop", id=GAME, at=1e300),
    "a negative time": line(t="stop", id=GAME, at=-5),
    "a time of true": line(t="stop", id=GAME, at=True),
    "an id with a path": line(t="stop", id="../../etc/passwd", at=1),
    "an id of HTML": line(t="stop", id="<script>alert(1)</script>", at=1),
    "a round missing its cards": round_line(cards=None),
    "cards left as text": round_line(cards_left="52"),
    "a chip that is no chip": round_line(stacks={"player": [3]}),
    "a stack on no area": round_line(stacks={"dealer": [25]}),
    "a minimum the manual has not": round_line(limits=[7, 100]),
    "a card that is no card": round_line(cards=[["player", "1X", 0]]),
    "a score of 12": round_line(cards=[["player", "KD", 12]]),
    "a winner that is no hand": round_line(result={**json.loads(round_line())["result"], "winner": "dealer"}),
    "a detail with a bell": round_line(strikes=[{"reason": "loss", "detail": "ding\u0007", "strikes": 1}]),
    "a deck of another colour": round_line(deck="purple"),
    "an outcome that is none": line(t="end", id=GAME, at=1_750_000_200, outcome="won", strikes=0),
    "a version 2 start": line(**{**json.loads(START), "v": 2, "id": "20250101-000000-222222"}),
    "a start with bad edgework": line(
        **{**json.loads(START), "id": "20250101-000000-333333", "edgework": {"serial": "", "ports": 7}}
    ),
    "a second start of the same game": START,
    "an entry of no game": line(t="stop", id="20250101-000000-999999", at=1_750_000_001),
    "a bomb that is not flat": line(**{**json.loads(START), "id": "20250101-000000-444444", "bomb": {"a": [1]}}),
}


def _history_command(config: Path) -> subprocess.CompletedProcess[str]:
    """``baccarat history --config CONFIG`` in a process of its own."""
    command = [sys.executable, "-m", "firmware.cli", "history", "--config", str(config)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_every_hostile_line_is_one_problem_and_the_good_games_stay(tmp_path, caplog):
    path = tmp_path / "history.jsonl"
    good = good_file(path)
    body = path.read_bytes() + START + b"\n" + b"\n".join(HOSTILE.values()) + b"\n" + round_line() + b"\n"
    path.write_bytes(body)
    lines, problems = read_files(path)
    games, orphans = build_games(lines)
    skipped = problems + orphans
    assert len(skipped) == len(HOSTILE), "\n".join(p.describe() for p in skipped)
    first = len(good) + 2
    assert sorted(p.line for p in skipped) == list(range(first, first + len(HOSTILE)))
    assert all(len(p.describe()) < 400 and "\n" not in p.describe() for p in skipped)
    assert [g.id for g in games][-1] == GAME and len(games) == 3
    assert len(games[-1].rounds) == 1  # the good round after all the bad lines
    # The prop starts on it (one log line for each damaged line of the last game), plays, and writes on after it.
    store = FileStore(path)
    with caplog.at_level(logging.WARNING):
        table = Table(store, seed=4).start()
        table.lose()
        table.command("force_solve")
        store.close()
    assert [r for r in caplog.records if "a damaged line of its last game skipped" in r.getMessage()]
    lines, problems = read_files(path)
    assert len(problems) + len(build_games(lines)[1]) == len(HOSTILE)
    assert build_games(lines)[0][-1].outcome == "solved"


def test_each_damaged_line_of_the_game_a_start_goes_on_with_is_one_log_line(tmp_path, caplog):
    path = tmp_path / "history.jsonl"
    bad = [HOSTILE["not JSON"], HOSTILE["a card that is no card"], HOSTILE["NUL bytes"]]
    path.write_bytes(START + b"\n" + round_line() + b"\n" + b"\n".join(bad) + b"\n")
    store = FileStore(path)
    with caplog.at_level(logging.WARNING, logger="baccarat.history"):
        lines = store.last_game()
    logged = [r.getMessage() for r in caplog.records]
    assert [line["t"] for line in lines] == ["start", "round"]
    assert len(logged) == 3 and all(f"history file {path}: a damaged line of its last game" in m for m in logged)
    assert "is not a card" in logged[1] and "\n" not in "".join(logged)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_line_alone_is_named_in_one_line_by_baccarat_history(tmp_path, capsys, name):
    path = tmp_path / "history.jsonl"
    path.write_bytes(START + b"\n" + HOSTILE[name] + b"\n")
    code = main(["history", "--file", str(path)])
    out = capsys.readouterr()
    errors = out.err.splitlines()
    assert code == 0 and len(errors) == 1, out.err
    assert errors[0].startswith(f"baccarat history: {path} line 2 skipped: "), errors[0]
    assert "Traceback" not in out.err and len(errors[0]) < 400
    assert "     1  " in out.out  # game 1 is listed


def fifo(path: Path) -> None:
    os.mkfifo(path)


def directory(path: Path) -> None:
    path.mkdir()


def to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def out_of_the_directory(path: Path) -> None:
    elsewhere = path.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "history.jsonl").write_bytes(START + b"\n")
    path.symlink_to(elsewhere / "history.jsonl")


def too_large(path: Path) -> None:
    with path.open("wb") as out:
        out.write(START + b"\n")
        out.truncate(MAX_FILE_BYTES + 1)


@pytest.mark.parametrize("make", [fifo, directory, to_dev_zero, out_of_the_directory, too_large])
def test_a_history_file_that_is_no_file_is_refused_in_one_line_and_the_prop_plays(tmp_path, capsys, caplog, make):
    path = tmp_path / "history.jsonl"
    make(path)
    code = main(["history", "--file", str(path)])
    out = capsys.readouterr()
    assert code == 2 and len(out.err.splitlines()) == 1 and "Traceback" not in out.err, out.err
    assert out.err.startswith(f"baccarat history: {path}: the file cannot be read: ")
    # The prop: it never blocks on it nor writes through it; the game goes on.
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if make is fifo else None  # a FIFO someone reads
    store = FileStore(path)
    with caplog.at_level(logging.ERROR, logger="baccarat.history"):
        table = Table(store).start()
        table.lose()
        table.command("force_solve")
        store.close()
    assert table.module.solved
    if reader is not None:
        try:
            assert os.read(reader, 65536) == b"", "the history went into the FIFO"
        finally:
            os.close(reader)
    if make in (fifo, directory, to_dev_zero, out_of_the_directory):
        assert [r for r in caplog.records if "cannot write the history" in r.getMessage()]
        assert len([r for r in caplog.records if "cannot write" in r.getMessage()]) == 1  # once, not per write
    else:  # too large: the next game's start moves it aside, and the prop writes a fresh file
        assert older_path(path).stat().st_size > MAX_FILE_BYTES and not read_files(path)[1][1:]


def test_an_older_file_that_cannot_be_read_leaves_the_newer_one_readable(tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    good_file(path)
    os.mkfifo(older_path(path))
    code = main(["history", "--file", str(path)])
    out = capsys.readouterr()
    assert code == 2 and "history.1.jsonl: the file cannot be read: it is a FIFO" in out.err
    assert "solved" in out.out and "playing" in out.out


# -- the command on good files -----------------------------------------------------------------------------


def test_baccarat_history_lists_the_games_newest_first_with_averages(tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    good_file(path)
    code = main(["history", "--file", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == f"{path}: 2 game(s)"
    assert out[1].split() == ["game", "started", "outcome", "time", "rounds", "strikes", "hints", "commands"]
    second, first = out[2].split(), out[3].split()
    assert second[0] == "2" and second[3] == "playing" and second[-4:] == ["1", "1", "0", "0"]
    assert first[0] == "1" and first[3] == "solved" and first[-4:] == ["2", "1", "0", "0"]
    assert out[4].startswith("averages over 1 game(s) played: solved 1 (100 %), exploded 0; time to solve ")
    assert "the players last made progress" not in "\n".join(out)  # the prop stopped during game 2


def test_baccarat_history_before_anyone_moved_says_no_progress_yet(tmp_path, capsys):
    """A game the prop is playing (no stop line) with no move in it yet: no "last made progress"
    (CLI and JSON say so, as the console does)."""
    path = tmp_path / "history.jsonl"
    lines = good_file(path)
    cut = [i for i, entry in enumerate(lines) if entry["t"] == "start"][1] + 1  # game 2's start, nothing after
    path.write_text("".join(json.dumps(entry) + "\n" for entry in lines[:cut]))
    code = main(["history", "--file", str(path)])
    out = capsys.readouterr().out
    assert code == 0 and "the players last made progress" not in out
    assert "the game being played: no progress yet (the game started " in out
    main(["history", "--file", str(path), "--json"])
    stuck = json.loads(capsys.readouterr().out)["stuck"]
    assert stuck["progress_made"] is False and stuck["progress_at"] is not None
    path.write_text("".join(json.dumps(entry) + "\n" for entry in lines[: cut + 1]))  # and a round: progress
    main(["history", "--file", str(path)])
    assert "the game being played: the players last made progress " in capsys.readouterr().out


def test_baccarat_history_json_and_last(tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    good_file(path)
    code = main(["history", "--file", str(path), "--json", "--last", "1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["total"] == 2 and [g["game"] for g in data["games"]] == [2]
    assert data["averages"]["solved"] == 1 and data["skipped"] == []
    assert data["games"][0]["outcome"] == "playing" and data["stuck"]["progress_at"] is None


def test_the_history_file_a_reader_finds(tmp_path):
    assert history_file("") is None
    assert history_file(str(tmp_path / "left.json")) == tmp_path / "left.history.jsonl"
    assert history_file(None, {"STATE_DIRECTORY": "/var/lib/baccarat"}) == Path("/var/lib/baccarat/history.jsonl")


def test_baccarat_history_from_the_shell(tmp_path):
    """The installed command, from its config: a game, and a state saving that is off."""
    state = tmp_path / "state.json"
    good_file(tmp_path / "history.jsonl")
    config = tmp_path / "config.toml"
    config.write_text(DEFAULT_CONFIG.read_text() + f'\n[state]\nfile = "{state}"\n')
    run = _history_command(config)
    assert run.returncode == 0 and run.stderr == "" and "2 game(s)" in run.stdout, run.stderr
    config.write_text(DEFAULT_CONFIG.read_text() + '\n[state]\nfile = ""\n')
    run = _history_command(config)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and 'turns saving off ([state] file = "")' in run.stderr


def test_no_history_yet(tmp_path, capsys):
    code = main(["history", "--file", str(tmp_path / "history.jsonl")])
    assert code == 0 and capsys.readouterr().out.strip() == f"no games recorded yet in {tmp_path / 'history.jsonl'}"


def test_baccarat_history_refuses_a_bad_last(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["history", "--last", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_many_games_and_rotation_are_read_in_order_by_the_command(tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    store = FileStore(path, rotate_bytes=6_000)
    play_games(store, 12)
    store.close()
    assert older_path(path).exists()
    main(["history", "--file", str(path), "--json"])
    numbers = [g["game"] for g in json.loads(capsys.readouterr().out)["games"]]
    assert numbers == sorted(numbers, reverse=True) and numbers[0] == 13
