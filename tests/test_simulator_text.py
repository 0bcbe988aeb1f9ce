"""The simulator's text view and the players' log (issue 13, "a simulator that fits"): built
from the same views the displays draw, within 80x24, and no answer on the players' screen."""

from __future__ import annotations

import logging

from baccarat_core import TableLimits
from firmware.game.scene import Scene
from firmware.render import BetsView, TableView
from firmware.simulator.screenlog import hide_secrets, player_line
from firmware.simulator.textview import Snapshot, text_lines

LIGHTS = {"status": "RED (strike!)", "deck": "silver"}


def crowded() -> Snapshot:
    """Everything at its longest: three cards a hand, tall stacks on every area, a hint."""
    stacks = {
        "player": (100000, 25000, 5000, 1000, 500, 100, 25, 5, 1, 1, 1),
        "banker": (25000, 25000, 1000, 500),
        "tie": (100, 25, 5, 1),
        "player_pair": (5, 5, 5, 5),
        "banker_pair": (1,),
    }
    table = TableView("silver", 29, ("10H", "10D", "QS"), ("KC", "9H", "8D"), 0, 7, "BANKER WINS +$12,345.95")
    scene = Scene(TableLimits(100, 150000), table, BetsView(stacks, 25000, True, True))
    hint = "GM: next round banker wins (player 10H 10D QS = 0, banker KC 9H 8D = 7)"
    return Snapshot(scene, 2, LIGHTS, hint)


LOG = [
    "round: player 10H 10D QS = 0, banker KC 9H 8D = 7, banker wins; player -$131,633.00; banker +$51,475.00; "
    "tie -$131.00; profit -$80,289.00",
    "STRIKE 2 (loss): the round lost $80,289.00",
] * 5


def test_the_text_view_fits_80x24_with_everything_at_its_longest():
    lines = text_lines(crowded(), LOG, 80, 24, unicode=True)
    assert len(lines) == 24
    assert all(len(line) < 80 for line in lines), max(lines, key=len)
    assert lines[0].startswith("BACCARAT   TABLE LIMITS   $100 - $150,000") and lines[0].endswith("Strikes: 2")
    text = "\n".join(lines)
    assert "Status light: RED (strike!)" in text and "Deck light: silver" in text
    assert "TABLE  silver deck, 29 cards left" in text
    assert "  Player 10\u2665 10\u2666 [Q\u2660]" in text and "= 0" in text  # the third card: drawn
    assert "  Banker K\u2663 9\u2665 [8\u2666]" in text
    assert "BANKER WINS +$12,345.95" in text
    # Bottom to top, equal chips counted; a stack too long keeps its top.
    assert "$25,000x2 $1000 $500" in text and "$5x4" in text
    player = next(line for line in lines if "Player   " in line and "1/q" in line)
    assert "$131,633" in player and player.rstrip().endswith("$100 $25 $5 $1x3") and "\u2026" in player
    assert "active chip  < $25,000 >" in text
    assert "GM: next round banker wins" in text
    assert "CLEAR q Player" in text
    assert lines[-1].startswith(("Log: ", "     "))  # the newest log lines fill the rest


def test_the_text_view_in_plain_ascii_and_a_smaller_terminal():
    lines = text_lines(crowded(), LOG, 60, 18, unicode=False)
    assert len(lines) <= 18 and all(len(line) < 60 for line in lines)
    text = "\n".join(lines)
    assert text.isascii()
    assert "  Player 10H 10D [QS]" in text and "..." in text
    assert "" not in lines[:-1]  # blank lines go first when rows are short


def test_the_arrows_show_only_where_the_chip_can_move():
    snap = crowded()
    smallest = Snapshot(Scene(snap.scene.placard, snap.scene.table, BetsView({}, 1, False, True)), 0, LIGHTS)
    largest = Snapshot(Scene(snap.scene.placard, snap.scene.table, BetsView({}, 100000, True, False)), 0, LIGHTS)
    assert "active chip    $1 >" in "\n".join(text_lines(smallest, [], 80, 24))
    assert "active chip  < $100,000  " in "\n".join(text_lines(largest, [], 80, 24))


def test_the_players_log_hides_the_decks_derivation(rig_factory, caplog):
    rig = rig_factory()
    undo = hide_secrets(rig.daemon)
    caplog.set_level(logging.INFO, logger="baccarat")
    rig.events.clear()
    rig.daemon.apply(lambda module: module.reset()).result(5)
    deck = rig.wait_for("deck")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("deck ")]
    assert lines == [f"deck {deck.color} appears"], lines
    assert player_line(deck) == lines[0] and "first index" in deck.describe()
    # The game master's log (no filter) keeps the whole line.
    undo()
    caplog.clear()
    rig.events.clear()
    rig.daemon.apply(lambda module: module.reset()).result(5)
    full = [r.getMessage() for r in caplog.records if r.getMessage().startswith("deck ")]
    assert len(full) == 1 and "first index" in full[0] and "multiplier" in full[0], full
