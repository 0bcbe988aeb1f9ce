"""The simulator in a plain terminal, played from the keyboard under tmux (issues: prop daemon,
"a simulator that fits"): in braille when the terminal is large, in words at 80x24 and in
plain ASCII, with the game master's details only under --gm."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from baccarat_core import Edgework, TableLimits, build_deck, play_round
from firmware.simulator.textview import card_text
from tests.conftest import ROOT
from tests.mosquitto import free_port

EDGEWORK = Edgework("AB3DE4", ("Parallel", "Serial", "RJ-45"), ("FRK",), ("CAR",))


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True, timeout=20).stdout


def _screen(session: str) -> str:
    return _tmux("capture-pane", "-p", "-t", session)


def _wait_for(session: str, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if re.search(text, screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def _hand(cards: list[str]) -> str:
    """A hand as the text view writes it (the third card in brackets: drawn), as a pattern."""
    return re.escape(" ".join(f"[{card}]" if number == 2 else card for number, card in enumerate(cards)))


def _keys(session: str, *keys: str, pause: float = 0.2) -> None:
    for key in keys:
        _tmux("send-keys", "-t", session, key)
        time.sleep(pause)


@pytest.fixture
def simulator(tmp_path, short_dir):
    assert shutil.which("tmux"), "tmux is needed (scripts/test.sh installs it)"
    config = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    config = config.replace('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000')
    config = config.replace('first_color = "random"', 'first_color = "red"')
    config = config.replace("card_seconds = 0.6", "card_seconds = 0.05")
    config = config.replace('pacing = "original"', 'pacing = "quick"')  # quick deals: 0.05 s a card
    # Its own state file (a fresh game, not a saved one), control socket and console port,
    # never the defaults: the tests pass beside a simulator someone is playing.
    config += f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
    config += f'\n[control]\nsocket = "{short_dir / "control.sock"}"\n'
    config += f"\n[web]\nport = {free_port()}\n"
    path = tmp_path / "sim.toml"
    path.write_text(config)
    sessions: list[str] = []

    def start(columns: int, rows: int, *options: str, env: str = "") -> str:
        name = f"baccarat-{uuid.uuid4().hex[:8]}"
        command = f"{env} {sys.executable} -m firmware.cli run --simulate --config {path} {' '.join(options)}"
        _tmux("new-session", "-d", "-s", name, "-x", str(columns), "-y", str(rows), "-c", str(ROOT), command.strip())
        sessions.append(name)
        return name

    yield start
    for name in sessions:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def _first_rounds() -> tuple:
    """The first two rounds of the reference bomb's red deck at $25 - $1000."""
    cards = build_deck(EDGEWORK, TableLimits(25, 1000), "red").cards
    first = play_round(cards)
    second = play_round(cards[len(first.order) :])
    return first, second


def test_win_a_round_from_the_keyboard_in_braille(simulator):
    session = simulator(150, 50, "--view terminal")
    screen = _wait_for(session, "ready: inputs armed")
    assert "Status light: off (armed)" in screen and "Deck light: red" in screen and "Strikes: 0" in screen
    assert "\u2800" in screen  # braille: the displays are drawn
    assert "CLEAR q Player" in screen  # the key map is on screen
    game = play_round(build_deck(EDGEWORK, TableLimits(25, 1000), "red").cards)
    assert game.winner in ("player", "banker")
    wrong, right = ("1", "2") if game.winner == "banker" else ("2", "1")
    _keys(session, ".", ".")  # $1 -> $5 -> $25
    _keys(session, wrong)
    _wait_for(session, re.escape("stack bottom to top $25 = $25"))
    _keys(session, "q" if wrong == "1" else "w")  # long-press clear
    _wait_for(session, re.escape("cleared (held), $25 taken back"))
    _keys(session, right, pause=0.3)
    _keys(session, "Space")
    screen = _wait_for(session, re.escape("Status light: GREEN (solved)"))
    assert "SOLVED: the round made money" in screen
    assert "STRIKE" not in screen
    _keys(session, "x")


def _assert_fits(screen: str, columns: int = 80, rows: int = 24) -> list[str]:
    """Every line within the terminal, nothing wrapped or scrolled: the placard line on top."""
    lines = screen.split("\n")
    assert len([line for line in lines if line.strip()]) <= rows
    assert all(len(line) < columns for line in lines), max(lines, key=len)
    assert lines[0].startswith("BACCARAT   TABLE LIMITS   $25 - $1000"), screen
    assert lines[0].rstrip().endswith(("Strikes: 0", "Strikes: 1")), lines[0]
    return lines


def test_a_whole_game_in_an_80x24_terminal(simulator):
    first, second = _first_rounds()
    assert (first.winner, second.winner) == ("banker", "player")  # the plan below needs these
    session = simulator(80, 24)  # --view auto without a display server: the terminal
    screen = _wait_for(session, "ready: inputs armed")
    _assert_fits(screen)
    assert "text view: this terminal is 80x24; the braille view needs" in screen  # it says why
    assert "Status light: off (armed)" in screen and "Deck light: red" in screen
    assert "TABLE  red deck, 52 cards left" in screen and "PLACE YOUR BETS" in screen
    assert "deck red appears" in screen and "first index" not in screen  # no answer on the players' screen
    assert "active chip    $1 >" in screen  # no left arrow at the smallest chip
    for line in ("BET   1 Player", "CLEAR q Player", "DEAL  space or d"):
        assert line in screen

    # A bet, cleared by holding the area's button.
    _keys(session, ".", ".", "1")
    _assert_fits(_wait_for(session, r"1/q  Player +\$25 +\$25"))
    _keys(session, "q")
    screen = _wait_for(session, re.escape("player cleared (held), $25 taken back"))
    assert re.search(r"1/q  Player +- *\n", screen), screen
    assert "active chip  < $25 >" in screen
    time.sleep(0.4)  # the q key holds the button 0.15 s past the clear: let go before the next press

    # A bet on the losing side: the round is shown card by card, then a strike.
    _keys(session, "1", "Space")
    screen = _wait_for(session, re.escape("STRIKE 1 (loss)"))
    _assert_fits(screen)
    assert "Strikes: 1" in screen.split("\n")[0]
    player = _hand([card_text(str(card), unicode=True) for card in first.player])  # 10\u2666 K\u2666 [6\u2663]
    banker = _hand([card_text(str(card), unicode=True) for card in first.banker])
    assert re.search(rf"\n  Player +{player} += {first.player_score}\n", screen), screen
    assert re.search(rf"\n  Banker +{banker} += {first.banker_score}\n", screen), screen
    assert "BANKER WINS -$25.00" in screen

    # A bet on the winning side (once the round is over): solved, the status light green.
    _wait_for(session, "chips cleared from the table")
    _keys(session, "1", "Space")
    screen = _wait_for(session, re.escape("Status light: GREEN (solved)"))
    lines = _assert_fits(screen)
    assert "PLAYER WINS +$25.00" in screen and "SOLVED: the round made money" in screen
    assert lines[0].rstrip().endswith("Strikes: 1")
    _keys(session, "x")


def test_the_game_master_sees_the_deck_and_the_next_round(simulator):
    first, _ = _first_rounds()
    session = simulator(80, 24, "--gm")
    screen = _wait_for(session, "ready: inputs armed")
    assert f"GM: next round {first.winner} wins" in screen
    assert re.search(r"deck red appears with 0 solved: letter \w, digit \d, first index", screen), screen
    _keys(session, "x")


def test_the_text_view_in_plain_ascii(simulator):
    session = simulator(80, 24, "--view terminal", env="LC_ALL=C")
    screen = _wait_for(session, "ready: inputs armed")
    assert "text view: the terminal is not UTF-8" in screen
    first, _ = _first_rounds()
    _keys(session, ".", ".", "2", "Space")  # on Banker, who wins the first round
    screen = _wait_for(session, "SOLVED: the round made money")
    assert screen.isascii(), [c for c in screen if not c.isascii()]
    player = _hand([str(card) for card in first.player])
    assert re.search(rf"\n  Player +{player} +=", screen), screen  # suits as letters: 10D KD [6C]
    _keys(session, "x")


def test_a_terminal_too_small_says_what_it_needs(simulator):
    session = simulator(50, 12)
    screen = _wait_for(session, "needs 80x24")
    assert "This terminal is 50x12" in re.sub(r"\s+", " ", screen)
    _tmux("resize-window", "-t", session, "-x", "80", "-y", "24")  # larger: the game appears
    _assert_fits(_wait_for(session, "PLACE YOUR BETS"))
    _keys(session, "x")
