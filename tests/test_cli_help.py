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


def test_version_is_the_packages():
    from importlib import metadata

    result = baccarat("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"baccarat {metadata.version('baccarat-prop')}"


def test_the_main_help_names_every_command_and_the_manual():
    text = baccarat("--help").stdout
    commands = ("deck", "play", "run", "check-config", "doctor", "solved", "reset", "force-solve", "hint", "status")
    for command in (*commands, "bet"):
        assert f"\n    {command}" in text, command
    assert "https://ktane.timwi.de/HTML/Baccarat.html" in text


def test_deck_help_lists_the_allowed_values():
    from baccarat_core.deck import COLORS
    from baccarat_core.edgework import VANILLA_PORTS

    text = baccarat("deck", "--help").stdout
    assert "$5, $10, $25, $50 or $100" in text and "above the minimum" in text
    assert all(port in text for port in VANILLA_PORTS)
    assert f"deck colours (--color): {', '.join(COLORS)}" in text


def test_play_help_shows_the_inputs_and_an_example_that_works():
    text = baccarat("play", "--help").stdout
    for line in ('{"press": "player"}', '{"hold": "banker"}', '{"arrow": "right"}', '{"deal": true}', '{"solved": 3}'):
        assert line in text
    start = text.index("  printf ")
    example = text[start:].strip().replace("\n", " ").replace("baccarat play", f"{sys.executable} -m firmware.cli play")
    result = subprocess.run(["bash", "-c", example], capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert result.returncode == 0, result.stderr
    assert '{"event": "solved", "forced": false}' in result.stdout  # $25 on Banker wins the red deck's first round


def test_run_help_shows_the_key_map_and_the_views():
    from firmware.cli.run import VIEWS
    from firmware.simulator import VIEWS as SIMULATOR_VIEWS
    from firmware.simulator.keys import KEY_MAP_LINES

    text = baccarat("run", "--help").stdout
    assert all(line in text for line in KEY_MAP_LINES)
    assert VIEWS == SIMULATOR_VIEWS
    assert all(f"--view {view}" in text for view in VIEWS)
    assert "--scale N" in text and "--gm" in text


def test_gm_commands_say_where_the_socket_is():
    for command in ("solved", "reset", "force-solve", "hint", "status", "bet"):
        assert "$BACCARAT_SOCKET" in baccarat(command, "--help").stdout, command
