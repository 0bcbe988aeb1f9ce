"""An OBUS bomb on the players' pages (/play, /casing): every module of the bomb, registered, solved
or not, with its strikes, in a real headless Chromium (issue 43, item 2).

The prop runs the bomb on python-can's ``virtual`` bus in this process; the test is its other
modules (frames from the spec page's tables: tests/obus_model/spec.py), as in
tests/test_obus_console_browser.py. Without an ``obus`` part the list stays hidden.
"""

from __future__ import annotations

from typing import Any

import pytest

from firmware.web.players import bomb_count
from tests import browser
from tests.browser import new_page
from tests.obus_model.harness import PATIENCE
from tests.test_obus_console_browser import M2, M3, NEEDY, SOLVED, STRIKE, registered, serve

pytest.importorskip("can", reason="python-can (the obus service's)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

chromium, web_factory = browser.chromium, browser.web_factory  # the fixtures

#: Each module's line on the page, with its mark (data-solved) and strikes (data-strikes).
ITEMS = """() => [...document.querySelectorAll('#bomb-list-modules li')].map((li) => [li.textContent,
  li.dataset.solved, li.dataset.strikes, parseFloat(getComputedStyle(li).fontSize)])"""


def wait_items(page: Any, texts: list[str]) -> list[list[Any]]:
    """The list's lines once they read ``texts``, with their marks and font sizes."""
    page.wait_for_function(
        "(want) => JSON.stringify([...document.querySelectorAll('#bomb-list-modules li')]"
        ".map((li) => li.textContent)) === JSON.stringify(want)",
        arg=texts,
        timeout=PATIENCE * 1000,
    )
    items: list[list[Any]] = page.evaluate(ITEMS)
    return items


BEFORE = [
    "Baccarat (this prop): registered, not solved, 0 strikes",
    "puzzle module 2: registered, not solved, 0 strikes",
    "puzzle module 3: registered, not solved, 0 strikes",
    "needy module 1: registered (needy: never solves), 0 strikes",
]


def test_the_tablet_and_the_casing_list_every_module_of_the_bomb_and_follow_it(
    mock_factory: Any, chromium: Any
) -> None:
    with serve(mock_factory, {"timer_seconds": 600, "strike_limit": 3}, role="controller") as bomb:
        registered(bomb)
        play_context, play = new_page(chromium, width=1024, height=768, touch=True)  # a tablet
        casing_context, casing = new_page(chromium)
        try:
            play.goto(bomb.url + "/play")
            casing.goto(bomb.url + "/casing")
            for page in (play, casing):
                page.wait_for_selector("#bomb-list:not([hidden])", timeout=PATIENCE * 1000)
                items = wait_items(page, BEFORE)
                assert [item[1:3] for item in items] == [["false", "0"]] * 4
                assert min(item[3] for item in items) >= 12, items  # no word under 12 px
            assert play.text_content("#bomb-count") == "0 of 3 puzzle modules solved"
            said = play.evaluate(
                "() => ['waiting', 'playing', undefined].map((phase) =>"
                " window.baccaratBomb.moduleState({prop: true, solved: false, type: 1}, phase))"
            )
            assert said == ["waiting to register", "registered, not solved", "registered, not solved"]
            casing.wait_for_selector("#casing #solved[data-marks='000']")
            bomb.prop.run(command="start")
            bomb.prop.until(lambda s: s["obus"]["phase"] == "playing")
            bomb.send(M2, SOLVED)
            bomb.send(M3, STRIKE, 1)
            bomb.send(NEEDY, STRIKE, 2)
            after = [
                BEFORE[0],
                "puzzle module 2: solved, 0 strikes",
                "puzzle module 3: registered, not solved, 1 strike",
                "needy module 1: registered (needy: never solves), 2 strikes",
            ]
            for page in (play, casing):
                items = wait_items(page, after)
                assert [item[1:3] for item in items] == [["false", "0"], ["true", "0"], ["false", "1"], ["false", "2"]]
                page.wait_for_function(
                    "() => document.querySelector('#bomb-count').textContent === '1 of 3 puzzle modules solved'",
                    timeout=PATIENCE * 1000,
                )
            # the casing's drawing marks each puzzle module under its timer (the needy one has none)
            for page in (play, casing):
                page.wait_for_selector("#casing #solved[data-marks='010']", timeout=PATIENCE * 1000)
            # the list is on the screen, beside the casing, and every line of it can be read
            shown = play.evaluate(
                "() => { const r = document.querySelector('#bomb-list').getBoundingClientRect();"
                " const c = document.querySelector('#casing').getBoundingClientRect();"
                " const p = document.querySelector('#panel-face').getBoundingClientRect();"
                " return r.width > 0 && r.height > 0 && r.bottom <= innerHeight && r.right <= innerWidth"
                " && r.top >= c.bottom && r.left >= p.right; }"
            )
            assert shown  # on the screen, under the casing, beside the panel: over neither
            assert play.get_attribute("#bomb-list-modules li:first-child", "class") == "bomb-module self"
        finally:
            play_context.close()
            casing_context.close()


def test_without_an_obus_part_the_players_pages_show_no_bomb(web_factory: Any, chromium: Any) -> None:
    web = web_factory(front_panel=True)
    context, page = new_page(chromium)
    try:
        for path in ("/play", "/casing"):
            page.goto(web.url + path)
            page.wait_for_selector("#connection.live")
            page.wait_for_selector("#casing svg")
            assert page.is_hidden("#bomb-list")
            assert page.evaluate("() => document.querySelectorAll('#bomb-list-modules li').length") == 0
    finally:
        context.close()


def test_the_players_view_of_the_part() -> None:
    assert bomb_count({}) == {}
    assert bomb_count({"obus": {"role": "nobody"}}) == {"bomb": None}
    part = {
        "role": "module",
        "node": {"type": 1, "id": 4},
        "bomb": {},  # before GAME START: no count yet, the modules the bus showed
        "strikes_sent": 0,
        "solved_sent": False,
        "modules": [{"type": 1, "id": 5, "solved": False, "strikes": 0}],
        "bus": {"where": "can0", "up": True},
    }
    assert bomb_count({"obus": part}) == {
        "bomb": {
            "modules": [
                {"prop": True, "type": 1, "id": 4, "solved": False, "strikes": 0},
                {"type": 1, "id": 5, "solved": False, "strikes": 0},
            ]
        }
    }
    assert bomb_count({"obus": {**part, "modules": [{"type": "x"}]}}) == {"bomb": None}  # logged, nothing shown
    # the prop on the bus, its REGISTER not yet ACKed: the page says so of its own row
    assert bomb_count({"obus": {**part, "phase": "waiting"}})["bomb"]["phase"] == "waiting"
    assert "phase" not in bomb_count({"obus": {**part, "phase": "playing"}})["bomb"]
