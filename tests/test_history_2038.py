"""Times past 2038 in the history, where a 32-bit ``time_t`` ends (Raspberry Pi OS 32-bit, armhf).

There CPython's ``time.gmtime`` and ``time.localtime`` raise OverflowError for any time after
2038-01-19 03:14:07 UTC; ``time_t_32`` makes them do so here (the lowest layer the project
reaches: everything above it runs as on the Pi). The history accepts times up to the year 5138,
so every place that shows one must show it: ``baccarat history``, the console's History view,
the stuck indicator of the state document, a game's id.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from firmware.cli import main
from firmware.history.lines import iso_time, local_time
from firmware.history.recorder import new_id
from firmware.history.store import FileStore
from tests.test_history import Table
from tests.test_web_history import get_json, history_web, pages_web

__all__ = ["history_web", "pages_web"]  # the console's fixtures, used here

#: The last second a signed 32-bit time_t holds.
TIME_T_MAX = 2**31 - 1
#: 2096-10-02T07:06:40Z: far past it.
LATE = 4_000_000_000


def shown(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # this machine's 64-bit time_t


@pytest.fixture
def time_t_32(monkeypatch):
    """``time.gmtime`` and ``time.localtime`` as CPython has them on a 32-bit ``time_t``."""

    def limited(real):
        def call(seconds=None):
            if seconds is not None and seconds > TIME_T_MAX:
                raise OverflowError("timestamp out of range for platform time_t")
            return real() if seconds is None else real(seconds)

        return call

    monkeypatch.setattr(time, "gmtime", limited(time.gmtime))
    monkeypatch.setattr(time, "localtime", limited(time.localtime))
    with pytest.raises(OverflowError):
        time.gmtime(TIME_T_MAX + 1)


def played_late(path, *, start: float = LATE) -> Table:
    """A game past 2038 that ended (a lost round, then forced solved), and one being played."""
    table = Table(FileStore(path))
    table.clock.now = start
    table.start()
    table.lose()
    table.command("force_solve")
    table.command("reset")
    table.clock.advance(600)
    table.chips("player", 5)  # progress in the game being played
    table.store.flush()
    return table


def test_a_time_past_2038_is_shown_as_on_a_64_bit_machine(time_t_32):
    for at in (TIME_T_MAX, TIME_T_MAX + 1, LATE, 1e11):
        assert iso_time(at) == shown(at) or at == 1e11
    assert iso_time(1e11) == "5138-11-16T09:46:40Z"  # the latest the history accepts
    assert new_id(LATE).startswith("20961002-070640-")
    assert local_time(LATE, "%Y") == "2096"


def test_baccarat_history_shows_games_past_2038(time_t_32, tmp_path, capsys):
    path = tmp_path / "history.jsonl"
    played_late(path)
    assert main(["history", "--file", str(path)]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "2096-10-02" in out.out and "solved (forced)" in out.out
    assert main(["history", "--file", str(path), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    playing, solved = listing["games"]
    assert solved["started"] == shown(LATE) and solved["ended"].startswith("2096-10-02T07:")
    assert playing["outcome"] == "playing" and playing["started"].startswith("2096-10-02T07:")
    assert listing["stuck"]["progress_at"].startswith("2096-10-02T07:")


def test_the_stuck_indicator_past_2038(time_t_32, tmp_path):
    table = played_late(tmp_path / "history.jsonl")
    document = table.keeper.document()
    assert document["progress_at"].startswith("2096-10-02T07:") and document["stuck_minutes"] == 0
    table.clock.advance(3600)
    assert table.keeper.document()["stuck_minutes"] == 60


def test_the_console_lists_games_past_2038(time_t_32, tmp_path, history_web):
    played_late(tmp_path / "history-0.jsonl").store.close()  # the file the console's prop starts on
    web = history_web()
    web.login()
    status, listing = get_json(web, "/history/api/games")
    assert status == 200 and listing["ok"], listing
    started = [game["started"] for game in listing["games"]]
    assert shown(LATE) in started, started
