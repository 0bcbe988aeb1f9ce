"""What the ``baccarat`` command tells its user (issue 13): --version, each command's --help,
and ``baccarat play`` errors that quote the bad value as JSON spells it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def baccarat(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=30
    )


def test_play_errors_quote_values_as_json():
    lines = ['{"press": "x"}', '{"press": true}', '{"a": 1, "b": 2}', '{"arrow": "up"}', '{"deal": false}', '{"x": 1}']
    result = baccarat("play", "--serial", "AB3DE4", "--color", "red", "--seed", "1", stdin="\n".join(lines) + "\n")
    assert result.returncode == 0
    err = result.stderr.splitlines()
    assert err == [
        'baccarat play: line 1: betting area "x" is not one of player, banker, tie, player_pair, banker_pair',
        "baccarat play: line 2: betting area true is not one of player, banker, tie, player_pair, banker_pair",
        'baccarat play: line 3: input {"a": 1, "b": 2} is not an object with one key',
        'baccarat play: line 4: arrow "up" is not "left" or "right"',
        "baccarat play: line 5: deal false must be true",
        'baccarat play: line 6: unknown input "x"',
    ]
