"""The History view: behind the console's login, the list, the downloads, and a replay whose frames
are pixel for pixel the ones the prop sent; then all of it in a real Chromium."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from firmware.simulator.pins import ManualClock
from tests import browser
from tests.browser import WebRig, lit_mask, png_image, wait_count
from tests.conftest import make_config, served_prop
from tests.pages import pages_web as _pages_web

PASSWORD = "correct horse battery"
pages_web = _pages_web  # the fixture


@pytest.fixture
def history_web(pages_web):
    """A daemon with its console and its History view (the history file in ``tmp_path``), on a
    manual clock: :func:`tests.pages.pages_web` with the reference config."""

    def make(*, password: str | None = None, seed: int = 1) -> WebRig:
        config = make_config(state={"file": ""}, control={"socket": ""})
        return pages_web(config, settings={"password": password}, seed=seed, clock=ManualClock())

    return make


def get_json(web: WebRig, path: str) -> tuple[int, dict]:
    status, _, body = web.request("GET", path, headers={"Cookie": web.cookie or ""})
    return status, json.loads(body)


def distinct(frames) -> list:
    """The frames without a repeat of the one before (a display is sent a frame only when it changed)."""
    out: list = []
    for frame in frames:
        if not out or out[-1] != frame:
            out.append(frame)
    return out


def decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def lose_a_round(web: WebRig) -> list:
    """$25 on the hand that loses the next round; returns the frames the displays got from the gesture on."""
    rig = web.rig
    winner = web.daemon.call(lambda: web.daemon.module.next_round().winner).result(5)
    rig.chips("banker" if winner == "player" else "player", 25)
    web.daemon.wait_idle()
    rig.at_gesture = {role: screen.last_frame for role, screen in web.daemon.screens.items()}
    before = len(rig.frames)
    count = rig.kinds().count("chips_cleared")
    rig.deal()
    while rig.kinds().count("chips_cleared") == count:
        rig.wait_for("chips_cleared")
        web.daemon.wait_idle()
    web.daemon.wait_idle()
    return rig.frames[before:]


def test_the_history_view_is_behind_the_console_login(history_web):
    web = history_web(password=PASSWORD)
    status, headers, _ = web.request("GET", "/history")
    assert status == 303 and headers["location"] == "/login"
    for path in ("/history/api/games", "/history/api/stuck", "/history/games.csv", "/history/api/replay/x/0"):
        status, _, body = web.request("GET", path)
        assert status == 401 and json.loads(body)["ok"] is False, path
    # A players' login (/play) does not open it either.
    status, headers, _ = web.request(
        "POST", "/play/login", f"password={PASSWORD}", {"Content-Type": "application/x-www-form-urlencoded"}
    )
    play_cookie = headers["set-cookie"].split(";")[0]
    status, _, _ = web.request("GET", "/history/api/games", headers={"Cookie": play_cookie})
    assert status == 401
    web.login(PASSWORD)
    status, _, body = web.request("GET", "/history", headers={"Cookie": web.cookie})
    assert status == 200 and b"How each game went" in body
    assert get_json(web, "/history/api/games")[0] == 200


def test_without_a_password_only_this_machine_sees_it(history_web):
    web = history_web()
    web.login()
    status, _, _ = web.request("GET", "/history", headers={"Cookie": web.cookie}, host="prop.example.com")
    assert status == 403
    status, _, _ = web.request("GET", "/history/api/games", headers={"Cookie": web.cookie}, host="192.168.1.20")
    assert status == 401


def test_the_list_the_averages_and_the_downloads(history_web):
    web = history_web()
    web.login()
    lose_a_round(web)
    web.command({"command": "hint"})
    winner = web.daemon.call(lambda: web.daemon.module.next_round().winner).result(5)
    loser = "banker" if winner == "player" else "player"
    assert web.command({"command": "bet", "bets": f"25 on {loser}"})[0] == 200  # remote play, lost
    wait_count(web.rig, "chips_cleared", 2)
    web.command({"command": "force_solve"})
    web.command({"command": "reset"})
    web.daemon.wait_idle()
    status, listing = get_json(web, "/history/api/games")
    assert status == 200 and listing["ok"] and listing["total"] == 2
    playing, solved = listing["games"]
    assert playing["outcome"] == "playing" and playing["id"] == listing["current"]
    assert solved["outcome"] == "solved" and solved["forced"] and solved["rounds"] == 2
    assert solved["remote_rounds"] == 1 and solved["hints"] == 1 and solved["commands"] == 1
    assert solved["strikes"] == (2 if winner != "tie" else 1)
    assert listing["averages"]["games"] == 1 and listing["averages"]["solve_rate"] == 1.0
    assert listing["stuck"]["stuck_minutes"] == 0 and listing["stuck"]["progress_at"].endswith("Z")
    status, headers, body = web.request("GET", "/history/games.csv", headers={"Cookie": web.cookie})
    assert status == 200 and headers["content-type"].startswith("text/csv")
    assert 'attachment; filename="baccarat-games.csv"' == headers["content-disposition"]
    rows = body.decode().splitlines()
    assert rows[0].startswith("id,game,started") and len(rows) == 3 and ",solved,," in rows[1]
    status, headers, body = web.request("GET", "/history/games.json", headers={"Cookie": web.cookie})
    data = json.loads(body)
    assert [g["summary"]["outcome"] for g in data["games"]] == ["solved", "playing"]
    kinds = [line["t"] for line in data["games"][0]["lines"]]
    assert kinds == ["start", "round", "hint", "round", "command", "end"]


def test_a_replayed_round_is_what_the_displays_showed_pixel_for_pixel(history_web):
    web = history_web()
    web.login()
    sent = lose_a_round(web)
    game = web.keeper.current_id
    status, answer = get_json(web, f"/history/api/replay/{game}/1")
    assert status == 200 and answer["chapters"] == 2 and answer["rounds"] == 1
    images = [decode(url) for url in answer["images"]]

    def shown(role: str) -> list[bytes]:
        return distinct(images[step["frames"][role]].tobytes() for step in answer["steps"])

    # Each display: as it was at the gesture, then each frame it got during the deal, in order
    # (the table: each card and the result; the bets: emptied at the clearing).
    at_gesture = web.rig.at_gesture
    for role in ("placard", "table", "bets"):
        sent_to = [image.tobytes() for who, image in sent if who == role]
        assert shown(role) == distinct([at_gesture[role].tobytes(), *sent_to]), role
    assert len([1 for who, _ in sent if who == "table"]) >= 5  # four cards at least, and the result
    labels = [step["label"] for step in answer["steps"]]
    assert labels[0].startswith("Round 1: bets ") and labels[-1] == "Round 1: chips cleared from the table"
    assert labels[-2] == labels[0]  # the payout: the round in words
    # Each picture is sent once however many steps show it.
    assert len(answer["images"]) == len(set(answer["images"]))


def test_replay_chapters_out_of_range_and_unknown_games(history_web):
    web = history_web()
    web.login()
    game = web.keeper.current_id
    assert get_json(web, f"/history/api/replay/{game}/0")[0] == 200
    assert get_json(web, f"/history/api/replay/{game}/1")[0] == 404  # no round yet
    assert get_json(web, f"/history/api/replay/{game}/-1")[0] == 404
    assert get_json(web, f"/history/api/replay/{game}/x")[0] == 400
    status, answer = get_json(web, "/history/api/replay/nope/0")
    assert status == 404 and "no game 'nope'" in answer["error"]


def test_with_saving_off_the_history_view_keeps_this_runs_games(mock_factory):
    """The simulator's default (``bash scripts/start.sh`` on a PC): no state file, so no history
    file; the console's History view still has the games of this run, as the app wires it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = make_config(state={"file": ""}, control={"socket": ""}, web={"port": port})
    with served_prop(config, mock_factory) as rig:
        rig.frames = []
        web = WebRig(rig, None, SimpleNamespace(port=port))
        web.login()
        lose_a_round(web)
        assert web.command({"command": "force_solve"})[0] == 200
        status, listing = get_json(web, "/history/api/games")
        assert status == 200 and listing["where"] == "memory (saving is off)"
        (game,) = listing["games"]
        assert game["outcome"] == "solved" and game["rounds"] == 1 and game["strikes"] == 1
        status, answer = get_json(web, f"/history/api/replay/{game['id']}/1")
        assert status == 200 and len(answer["steps"]) >= 6


# -- in a real browser ------------------------------------------------------------------------------------


chromium, page = browser.chromium, browser.page  # the fixtures


def assert_image_shows(page, element_id: str, frame: Image.Image) -> None:
    """A screenshot has lit pixels exactly where ``frame`` has them, in the page's image ``element_id``."""
    box = page.evaluate(
        "(id) => { const r = document.getElementById(id).getBoundingClientRect(); "
        "return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }",
        element_id,
    )
    scale = box["width"] / frame.width
    assert scale >= 1 and scale == int(scale), f"{element_id} is scaled by {scale}, not by whole pixels"
    shot = png_image(page.screenshot(full_page=True))
    if os.environ.get("DEBUG_SHOT"):
        shot.save(f"/tmp/shot-{element_id}.png")
    mask = lit_mask(frame)

    def lit(x: int, y: int) -> bool:
        return max(shot.getpixel((int(box["x"] + (x + 0.5) * scale), int(box["y"] + (y + 0.5) * scale)))) > 128

    wrong = [(x, y) for y in range(frame.height) for x in range(frame.width) if lit(x, y) != mask[y][x]]
    assert sum(map(sum, mask)) > 50, f"the {element_id} frame is nearly blank"
    assert not wrong, f"{len(wrong)} of {frame.width * frame.height} pixels of {element_id} differ, first {wrong[:5]}"


def test_the_history_view_and_a_replay_in_chromium(history_web, page):
    web = history_web(password=PASSWORD)
    sent = lose_a_round(web)
    result_frame = [image for role, image in sent if role == "table"][-1]  # the result (it stays: no clearing frame)
    web.daemon.call(lambda: None).result(5)
    web.login(PASSWORD)
    web.command({"command": "hint"})
    web.command({"command": "force_solve"})
    web.command({"command": "reset"})

    page.goto(web.url + "/login")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(web.url + "/")
    # The console's block: the stuck indicator and the way to the History view.
    page.wait_for_function(  # the reset began a game in which nobody has moved yet
        "() => document.getElementById('stuck-minutes').textContent === 'none yet (game started 0 min ago)'"
    )
    if os.environ.get("DEBUG_SHOT"):
        page.screenshot(path="/tmp/shot-console.png", full_page=True)
    page.click("#history-box a")
    page.wait_for_url(web.url + "/history")
    page.wait_for_selector("#games-table tbody tr:nth-child(2)")
    rows = page.locator("#games-table tbody tr")
    assert rows.nth(0).locator("td").nth(2).inner_text() == "playing"
    first = [rows.nth(1).locator("td").nth(i).inner_text() for i in range(8)]
    assert first[0] == "#1" and first[2] == "solved (forced)" and first[4:8] == ["1", "1", "1", "1"]
    assert "Solve rate" in page.inner_text("#averages") and "100%" in page.inner_text("#averages")  # en: 100%
    assert page.inner_text("#stuck") == "no progress yet (game started 0 min ago)"

    # The replay of game 1: the start, then round 1 card by card to its result.
    rows.nth(1).locator("button").click()
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_function("() => document.getElementById('replay-label').textContent === 'Game 1 begins'")
    page.click("#round-next")
    page.wait_for_function("() => document.getElementById('replay').dataset.chapter === '1'")
    _, answer = get_json(web, f"/history/api/replay/{_game_one(web)}/1")
    paid = max(i for i, step in enumerate(answer["steps"]) if step["label"].startswith("Round 1: bets"))
    assert paid > 0 and answer["steps"][-1]["label"] == "Round 1: chips cleared from the table"
    for _ in range(paid):
        page.click("#step-next")
    page.wait_for_function(f"() => document.getElementById('replay').dataset.step === '{paid}'")
    page.wait_for_function("() => document.getElementById('replay-table').complete")
    assert "STRIKE 1 (loss)" in page.inner_text("#replay-label")
    assert_image_shows(page, "replay-table", result_frame)
    shots = os.environ.get("BACCARAT_SCREENSHOT_DIR")
    if shots:  # the README's picture: `BACCARAT_SCREENSHOT_DIR=docs/pictures pytest tests/test_web_history.py`
        page.screenshot(path=str(Path(shots) / "history.png"), full_page=True)
    # The clearing, then the next chapter: the end, the module solved by the game master.
    page.click("#step-next")
    page.click("#step-next")
    page.wait_for_function(
        "() => document.getElementById('replay-label').textContent.startsWith('SOLVED by the game master')"
    )
    # The downloads are links on the page.
    assert page.get_attribute("#csv", "href") == "/history/games.csv"


def _game_one(web: WebRig) -> str:
    return [g for g in web.keeper.games()[0] if g.start["game"] == 1][0].id
