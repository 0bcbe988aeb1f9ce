"""Behaviour no other test held (issue 35 item 3): the history's records at a restart, and the replay.

A restart goes on with the file's unfinished record only when the saved game is that record's game
(the same game number); a saved game of another number (the state file of a later game whose start
never reached the history, or a state file copied from elsewhere) starts a record of its own, marked
``resumed``, and the unfinished one is closed as ``interrupted``: rounds of one game are never
counted into another's."""

from __future__ import annotations

import random

from baccarat_core import BaccaratModule
from firmware.history import replay
from firmware.history.games import build_games
from firmware.history.store import FileStore, MemoryStore
from tests.test_history import Table, lines_of


def test_a_saved_game_of_another_number_never_goes_on_with_the_files_unfinished_record(tmp_path):
    path = tmp_path / "history.jsonl"
    store = FileStore(path)
    first = Table(store).start()
    first.lose()
    first.lose()
    first.keeper.close()  # SIGTERM: game 1's record is left unfinished
    strikes_of_game_1 = first.module.strikes

    elsewhere = Table(MemoryStore(), seed=4).start()  # a later game, whose lines this file never got
    elsewhere.batch(elsewhere.module.reset())
    elsewhere.lose()
    assert elsewhere.module.game == 2
    saved = elsewhere.module.snapshot()

    store = FileStore(path)
    again = Table(store, module=BaccaratModule.restore(saved, rng=random.Random(2)))
    again.clock.now = first.clock.now + 60
    again.start()
    again.lose()
    store.flush()
    games, problems = build_games([(line, "f", n) for n, line in enumerate(lines_of(path))])
    assert problems == []
    old, new = games
    assert old.start["game"] == 1 and old.outcome == "interrupted"
    assert old.end["strikes"] == strikes_of_game_1
    assert [r["n"] for r in old.rounds] == [1, 2]
    assert new.start["game"] == 2 and new.start.get("resumed") is True and new.outcome == "playing"
    assert [r["n"] for r in new.rounds] == [1], "game 2's round was counted on from game 1's"
    store.close()


def test_a_replayed_round_never_shows_fewer_than_no_cards_left(tmp_path):
    """A line's ``cards_left`` (0-52, checked alone) may be fewer than the cards its round dealt (a
    damaged or hand-edited file): the replay shows an empty deck, never a negative count."""
    path = tmp_path / "history.jsonl"
    store = FileStore(path)
    table = Table(store).start()
    table.lose()
    store.flush()
    lines = lines_of(path)
    (played,) = [line for line in lines if line["t"] == "round"]
    assert len(played["cards"]) >= 4
    played["cards_left"] = 2
    games, problems = build_games([(line, "f", n) for n, line in enumerate(lines)])
    assert problems == []
    (game,) = games
    shown = [step.scene.table.cards_left for step in replay.steps(game, 1)]
    assert min(shown) == 0 and all(left >= 0 for left in shown), shown
    store.close()
