"""The simulator in a plain terminal, played from the keyboard under tmux
(issue: prop daemon): a known deck, a bet placed, cleared with the long-press
key, placed again on the winning side, dealt, and the module solved."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid

import pytest

from baccarat_core import Edgework, TableLimits, build_deck, play_round
from tests.conftest import ROOT


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True, timeout=20).stdout


def _wait_for(session: str, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


@pytest.fixture
def session(tmp_path):
    assert shutil.which("tmux"), "tmux is needed (scripts/test.sh installs it)"
    config = (ROOT / "firmware" / "default-config.toml").read_text()
    config = config.replace('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000')
    config = config.replace('first_color = "random"', 'first_color = "red"')
    config = config.replace("card_seconds = 0.6", "card_seconds = 0.05")
    config += f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'  # a fresh game, not a saved one
    path = tmp_path / "sim.toml"
    path.write_text(config)
    name = f"baccarat-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} -m firmware.cli run --simulate --view terminal --config {path}"
    _tmux("new-session", "-d", "-s", name, "-x", "150", "-y", "50", "-c", str(ROOT), command)
    yield name
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_win_a_round_from_the_keyboard(session):
    screen = _wait_for(session, "ready: inputs armed")
    assert "Status light: off (armed)" in screen and "Deck light: red" in screen
    assert "CLEAR q Player" in screen  # the key map is on screen
    edgework = Edgework("AB3DE4", ("Parallel", "Serial", "RJ-45"), ("FRK",), ("CAR",))
    game = play_round(build_deck(edgework, TableLimits(25, 1000), "red").cards)
    assert game.winner in ("player", "banker")
    wrong, right = ("1", "2") if game.winner == "banker" else ("2", "1")
    for key in (".", "."):  # $1 -> $5 -> $25
        _tmux("send-keys", "-t", session, key)
        time.sleep(0.15)
    _tmux("send-keys", "-t", session, wrong)
    _wait_for(session, "stack bottom to top $25 = $25")
    _tmux("send-keys", "-t", session, "q" if wrong == "1" else "w")  # long-press clear
    _wait_for(session, "cleared (held), $25 taken back")
    _tmux("send-keys", "-t", session, right)
    time.sleep(0.3)
    _tmux("send-keys", "-t", session, "Space")
    screen = _wait_for(session, "Status light: GREEN (solved)")
    assert "SOLVED: the round made money" in screen
    assert "STRIKE" not in screen
    _tmux("send-keys", "-t", session, "x")
