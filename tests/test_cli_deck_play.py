"""The ``baccarat deck`` and ``baccarat play`` commands, including bad input."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import cli

ROOT = Path(__file__).resolve().parent.parent
DECK = ["deck", "--serial", "AB12C3", "--min", "5", "--max", "200", "--color", "red"]
PLAY = ["play", "--serial", "AB12C3", "--min", "5", "--max", "200", "--color", "red"]

# The manual's unshuffled order, written out by hand.
MANUAL_ORDER = (
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC "
    "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AS"
).split()


def run_main(argv, capsys, stdin: str = "", monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_process(argv, stdin: str = ""):
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *argv], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


# -- baccarat deck ------------------------------------------------------------------------------


def test_deck_json_shape(capsys):
    code, out, err = run_main([*DECK, "--json"], capsys)
    assert code == 0
    assert err == ""
    assert len(out.splitlines()) == 1
    data = json.loads(out)
    assert list(data) == ["color", "unshuffled", "first_index", "multiplier", "cards"]
    # A + 26 x 1 + 0 = 27 (KD); no ports -> PS/2; red x PS/2 = 26
    assert data["color"] == "red"
    assert data["unshuffled"] is False
    assert data["first_index"] == 27
    assert data["multiplier"] == 26
    assert data["cards"][:4] == ["KD", "KH", "7C", "10S"]
    assert sorted(data["cards"]) == sorted(MANUAL_ORDER)


def test_deck_json_uses_solved_ports_and_dollar_signs(capsys):
    argv = [
        "deck",
        "--serial",
        "ab12c3",
        "--min",
        "$5",
        "--max",
        "$1,000",
        "--color",
        "Blue",
        "--ports",
        "serial, Serial,rj45",
        "--solved",
        "4",
        "--json",
    ]
    code, out, _ = run_main(argv, capsys)
    assert code == 0
    data = json.loads(out)
    # $1000 / $5 = 200: third row, second to last digit = 2; A + 52 + 4 = 57 -> 5 (5H)
    assert data["color"] == "blue"
    assert data["first_index"] == 5
    assert data["cards"][0] == "5H"
    assert data["multiplier"] == 34  # blue x Serial
    assert data["cards"][1] == "JH"  # 5 * 34 = 170 = 3*53 + 11


@pytest.mark.timeout(10)
def test_deck_json_largest_solved_count(capsys):
    code, out, _ = run_main([*DECK, "--solved", "9999", "--json"], capsys)
    assert code == 0
    assert json.loads(out)["first_index"] == (27 + 9999 - 1) % 52 + 1
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*DECK, "--solved", "100000000000", "--json"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "above the most allowed (9999)" in err and len(err.splitlines()) == 1


def test_deck_json_unshuffled(capsys):
    argv = [*DECK, "--lit", "bob", "--ports", "HDMI,HDMI,USB,USB,Serial,Serial,Parallel,DVI-D", "--json"]
    code, out, _ = run_main(argv, capsys)
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["color", "unshuffled", "cards"]
    assert data["unshuffled"] is True
    assert data["cards"] == MANUAL_ORDER


def test_deck_listing(capsys):
    code, out, err = run_main(DECK, capsys)
    assert code == 0
    assert err == ""
    tokens = set(out.split())
    assert all(card in tokens for card in MANUAL_ORDER)
    assert "red" in out
    assert "$5 - $200" in out
    lines = out.splitlines()
    rounds = [line for line in lines if " left, round " in line]
    assert len(rounds) >= 4
    assert rounds[0].startswith("  52 left, round 1:")
    # round 1: Player KD 7C = 7; Banker KH 10S = 0 draws 5H = 5 -> Player
    assert "KD 7C" in rounds[0] and "= 7" in rounds[0] and "KH 10S 5H" in rounds[0]
    assert "PLAYER" in rounds[0]
    # round 3: Player AD 10C = 1, Banker 7H 2C = 9 (natural) -> Banker
    assert "AD 10C" in rounds[2] and "7H 2C" in rounds[2] and "BANKER" in rounds[2]


def test_deck_listing_unshuffled_says_so(capsys):
    argv = [*DECK, "--lit", "BOB", "--ports", ",".join(["HDMI"] * 9)]
    code, out, _ = run_main(argv, capsys)
    assert code == 0
    assert "unshuffled" in out


# -- baccarat play ---------------------------------------------------------------------------------

SESSION = (
    "\n".join(
        [
            '{"deal": true}',  # 1: no main bet -> exclusive
            '{"press": "player"}',  # 2: $1 on Player
            '{"deal": true}',  # 3: $1 < $5 -> limits
            "this is not json",  # 4: reported, skipped
            '{"hold": "player"}',  # 5
            '{"arrow": "right"}',  # 6: $5
            '{"press": "banker"}',  # 7
            '{"deal": true}',  # 8: Player 7 beats Banker 5 -> loss
            '{"press": "nowhere"}',  # 9: reported, skipped
            '{"arrow": "left"}',  # 10: $1
            '{"press": "player"}',  # 11
            '{"arrow": "right"}',  # 12: $5
            '{"press": "player"}',  # 13: $1 under $5 -> stack order
            '{"deal": true}',  # 14: Player 6 beats Banker 3 -> +$6, solved
            "",  # 15: blank, skipped silently
            '{"press": "player"}',  # 16: ignored
        ]
    )
    + "\n"
)

EXPECTED_KINDS = (
    ["limits", "deck", "deal", "strike", "chip", "deal", "strike", "clear", "denomination", "chip", "deal"]
    + ["card"] * 5
    + ["round", "strike", "chips_cleared", "denomination", "chip", "denomination", "chip", "deal", "reorder", "strike"]
    + ["card"] * 5
    + ["round", "solved", "ignored"]
)


def check_session(out: str, err: str) -> None:
    events = json_lines(out)
    assert all("event" in event for event in events)
    assert [event["event"] for event in events] == EXPECTED_KINDS
    assert events[0] == {"event": "limits", "min": 5, "max": 200, "random": False}
    assert events[1]["color"] == "red" and events[1]["first_index"] == 27 and events[1]["top"] == "KD"
    strikes = [event for event in events if event["event"] == "strike"]
    assert [s["reason"] for s in strikes] == ["exclusive", "limits", "loss", "stack_order"]
    assert [s["strikes"] for s in strikes] == [1, 2, 3, 4]
    rounds = [event for event in events if event["event"] == "round"]
    assert set(rounds[0]) == {
        "event",
        "player",
        "banker",
        "player_score",
        "banker_score",
        "winner",
        "profit_cents",
        "results",
    }
    assert rounds[0]["player"] == ["KD", "7C"]
    assert rounds[0]["banker"] == ["KH", "10S", "5H"]
    assert (rounds[0]["player_score"], rounds[0]["banker_score"], rounds[0]["winner"]) == (7, 5, "player")
    assert rounds[0]["profit_cents"] == -500
    assert rounds[0]["results"] == {"banker": -500}
    # round 2: Player JC 6H = 6 stands; Banker QS 3S = 3 draws QD -> 3
    assert rounds[1]["player"] == ["JC", "6H"]
    assert rounds[1]["banker"] == ["QS", "3S", "QD"]
    assert rounds[1]["profit_cents"] == 600
    reorder = next(event for event in events if event["event"] == "reorder")
    assert reorder["stacks"] == {"player": [5, 1]}
    assert events[-1]["event"] == "ignored"
    problems = err.splitlines()
    assert len(problems) == 2
    assert "line 4" in problems[0]
    assert "line 9" in problems[1] and "nowhere" in problems[1]
    assert "Traceback" not in err


def test_play_session(capsys, monkeypatch):
    code, out, err = run_main(PLAY, capsys, SESSION, monkeypatch)
    assert code == 0
    check_session(out, err)


def test_play_session_as_a_process():
    result = run_process(PLAY, SESSION)
    assert result.returncode == 0
    check_session(result.stdout, result.stderr)


def test_play_empty_input_shows_limits_and_deck(capsys, monkeypatch):
    code, out, err = run_main(PLAY, capsys, "", monkeypatch)
    assert code == 0
    assert [event["event"] for event in json_lines(out)] == ["limits", "deck"]
    assert err == ""


@pytest.mark.parametrize(
    "line",
    [
        "[1, 2]",
        '{"press": "player", "deal": true}',
        '{"deal": false}',
        '{"arrow": "up"}',
        '{"solved": -1}',
        '{"jump": 1}',
        '"deal"',
        '{"press"',
        "[" * 100_000,
    ],
    ids=lambda line: line[:20],
)
def test_play_malformed_lines_are_skipped(line, capsys, monkeypatch):
    stdin = f'{line}\n{{"press": "tie"}}\n'
    code, out, err = run_main(PLAY, capsys, stdin, monkeypatch)
    assert code == 0
    assert [event["event"] for event in json_lines(out)] == ["limits", "deck", "chip"]
    assert len(err.splitlines()) == 1
    assert "line 1" in err


def test_play_non_utf8_line_is_skipped():
    # PYTHONIOENCODING=utf-8 makes stdin strict, as in a UTF-8 locale on the Pi
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", *PLAY],
        input=b'\xff\xfe\n{"press": "tie"}\n',
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert result.returncode == 0
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and "line 1" in err
    assert [event["event"] for event in json_lines(result.stdout.decode())] == ["limits", "deck", "chip"]


def test_play_solved_count_changes_next_deck(capsys, monkeypatch):
    code, out, _ = run_main(PLAY, capsys, '{"solved": 3}\n', monkeypatch)
    assert code == 0
    assert json_lines(out)[-1] == {"event": "solved_count", "solved": 3}


def test_play_random_limits_from_seed(capsys, monkeypatch):
    argv = ["play", "--serial", "AB12C3", "--color", "red", "--seed", "11"]
    stdin = '{"press": "player"}\n{"deal": true}\n'
    _, first, _ = run_main(argv, capsys, stdin, monkeypatch)
    _, again, _ = run_main(argv, capsys, stdin, monkeypatch)
    assert first == again
    limits = json_lines(first)[0]
    assert limits["event"] == "limits"
    assert limits["random"] is True
    assert limits["min"] in (5, 10, 25, 50, 100)
    assert limits["max"] > limits["min"]
    seen = set()
    for seed in range(12):
        _, out, _ = run_main([*argv[:-1], str(seed)], capsys, "", monkeypatch)
        first_event = json_lines(out)[0]
        seen.add((first_event["min"], first_event["max"]))
    assert len(seen) > 1


# -- bad arguments -----------------------------------------------------------------------------------


def replaced(argv, option, value):
    out = list(argv)
    out[out.index(option) + 1] = value
    return out


BAD = [
    (replaced(DECK, "--color", "pink"), "pink"),
    (replaced(DECK, "--min", "7"), "$7"),
    (replaced(DECK, "--min", "1000"), "$1000"),
    (replaced(DECK, "--max", "5"), "$5"),
    (replaced(replaced(DECK, "--min", "50"), "--max", "20"), "$20"),
    ([*DECK, "--solved=-1"], "-1"),
    ([*DECK, "--solved", "-4"], "-4"),
    ([*DECK, "--solved", "lots"], "lots"),
    (replaced(DECK, "--serial", ""), '""'),
    (replaced(DECK, "--serial", "AB-12"), "AB-12"),
    (replaced(DECK, "--serial", "AB 12"), "AB 12"),
    (replaced(DECK, "--serial", "ABCDEFG"), "ABCDEFG"),
    (replaced(DECK, "--min", "five"), "five"),
    (replaced(DECK, "--max", "2x0"), "2x0"),
    ([*DECK, "--lit", "B-B"], "B-B"),
    (["deck", "--serial", "AB12C3", "--min", "5", "--color", "red"], "--max"),
    (["deck", "--min", "5", "--max", "200", "--color", "red"], "--serial"),
    (replaced(PLAY, "--color", "purple"), "purple"),
    (replaced(PLAY, "--min", "15"), "$15"),
    (replaced(PLAY, "--max", "4"), "$4"),
    ([*PLAY, "--solved=-2"], "-2"),
    ([*PLAY, "--seed", "x1"], "x1"),
    (replaced(PLAY, "--serial", ""), '""'),
    (replaced(PLAY, "--serial", "A*1"), "A*1"),
    (["play", "--serial", "AB12C3", "--color", "red", "--min", "5"], "--max"),
]


@pytest.mark.parametrize("argv, named", BAD, ids=[" ".join(argv) or "empty" for argv, _ in BAD])
def test_bad_arguments(argv, named):
    result = run_process(argv, "")
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert named in lines[0]
    assert lines[0].startswith("baccarat ")


@pytest.mark.parametrize("argv", [replaced(DECK, "--min", "7"), replaced(DECK, "--serial", "AB-12")])
def test_bad_arguments_in_process(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert code != 0
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1
