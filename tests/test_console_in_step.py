"""The console page in step with the displays (issue 21, item 15), read off the live event stream.

Everything a page shows (the frames, the state, the answer panel, the log) comes from one
page view taken on the game thread, and nothing goes back through the game's queue to get
there: during a deal the text keeps what the displays showed before the gesture until the
result is on the table, then the state, the next round's answer and the result's frame
arrive in one update, before the round is cleared (not with the clearing, 1.5 s later).
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import threading
from typing import Any

from PIL import Image

from baccarat_core import events as ev
from firmware.game.scene import RoundOnTable, render_view, table_view
from firmware.room.commands import hint
from tests import browser

web_factory = browser.web_factory  # the fixture

#: A deal slow enough to watch: the result stays on the table for two seconds before the clearing.
SLOW_DEAL = {"card_seconds": 0.1, "result_seconds": 2.0}


class Stream:
    """The page's server-sent events, as a page reads them."""

    def __init__(self, web: browser.WebRig) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", web.service.port, timeout=15)
        self.connection.request("GET", "/events", headers={"Cookie": web.cookie})
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def update(self) -> dict[str, Any]:
        while True:
            line = self.response.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    def until(self, done) -> list[dict[str, Any]]:
        """Updates until one makes ``done(update)`` true (that one included)."""
        updates = []
        while True:
            updates.append(self.update())
            if done(updates[-1]):
                return updates

    def close(self) -> None:
        self.connection.close()


def _kinds(update: dict[str, Any]) -> list[str]:
    return [entry["kind"] for entry in update.get("log", [])]


def _png(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_the_text_changes_with_the_result_frame_not_before_and_not_after(web_factory):
    web = web_factory(front_panel=False, timing=SLOW_DEAL)
    web.login()
    stream = Stream(web)
    stream.until(lambda update: update.get("answer"))  # the page is open and its answer panel computed
    web.rig.chips("player", 25)
    dealt = stream.until(lambda update: "chip" in _kinds(update))[-1]["answer"]["hint"]  # the round to come
    before = web.state()

    web.rig.driver.tap("deal")  # the gesture; the game thread paces the round on its own
    updates = stream.until(lambda update: "chips_cleared" in _kinds(update))
    stream.close()
    web.daemon.wait_idle()
    after_round = web.daemon.call(lambda: hint(web.daemon.module)).result(5)  # the next round, same deck

    result = next(i for i, update in enumerate(updates) if "round" in _kinds(update))
    clearing = next(i for i, update in enumerate(updates) if "chips_cleared" in _kinds(update))
    assert result < clearing, "the page heard of the result only with the clearing, after the displays"
    for update in updates[:result]:  # the cards turning: the text does not run ahead of the table
        assert "state" not in update or update["state"]["doc"] == before
        assert "answer" not in update
    shown = updates[result]
    doc = shown["state"]["doc"]
    assert doc["bets"]["player"] == 25, "the state with the result still has the round's chips on the table"
    assert doc["strikes"] == 1 and doc["cards_left"] < before["cards_left"]  # the loss, the cards dealt
    assert shown["answer"]["hint"] == after_round != dealt, "the answer panel advises the next round"

    # ... and the frame in that same update is the table with the result on it.
    cards = [e for e in web.rig.events if isinstance(e, ev.CardDealt)]
    played = next(e for e in web.rig.events if isinstance(e, ev.RoundPlayed))
    screen = web.daemon.screens["table"]
    on_table = RoundOnTable(tuple(cards), len(cards), played)
    expected = web.daemon.call(
        lambda: render_view("table", table_view(web.daemon.module, on_table), screen.size, screen.mode)
    ).result(5)
    frame = _png(shown["frames"]["table"])
    assert frame.convert("RGB").tobytes() == expected.convert("RGB").tobytes()
    assert "state" in updates[clearing] and updates[clearing]["state"]["doc"]["bets"]["player"] == 0


def test_the_game_thread_never_goes_back_through_its_queue_for_the_page(web_factory):
    """No second round trip per batch: the page view is taken as the game settles."""
    web = web_factory(front_panel=False)
    web.login()
    stream = Stream(web)
    stream.until(lambda update: update.get("answer"))
    calls: list[str] = []
    call = web.daemon.call

    def counting(fn, **kwargs):
        calls.append(threading.current_thread().name)
        return call(fn, **kwargs)

    web.daemon.call = counting
    try:
        for area in ("player", "player", "banker"):
            web.rig.driver.tap(area)
            stream.until(lambda update: "chip" in _kinds(update))
    finally:
        web.daemon.call = call
        stream.close()
    assert "baccarat-game" not in calls, calls


def test_a_page_opened_during_a_deal_gets_its_answer_with_the_result(web_factory):
    web = web_factory(front_panel=False, timing=SLOW_DEAL)
    web.login()
    web.rig.chips("player", 25)
    before = web.state()
    web.rig.driver.tap("deal")
    web.rig.wait_for("card")  # the gesture is handled: the page opens while the cards turn
    stream = Stream(web)
    updates = stream.until(lambda update: "round" in _kinds(update))
    stream.close()
    assert updates[0]["state"]["doc"] == before  # what the displays showed before the gesture
    assert all(update.get("answer") is None for update in updates[:-1]), "an answer ahead of the table"
    web.daemon.wait_idle()
    assert updates[-1]["answer"]["hint"] == web.daemon.call(lambda: hint(web.daemon.module)).result(5)
