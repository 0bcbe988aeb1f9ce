"""The history keeps an OBUS bomb's final state, the whole path (issue 43, item 2): the prop runs
the bomb on python-can's ``virtual`` bus, its own module is solved first (the game's end line),
then the test's modules solve; the History view's listing has the bomb as it ended, not as the
prop's solve left it (tests/test_obus_bomb_end.py has the keeper alone).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import browser
from tests.browser import new_page
from tests.test_obus_console_browser import M2, M3, SOLVED, STRIKE, registered, serve

pytest.importorskip("can", reason="python-can (the obus service's)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

chromium = browser.chromium  # the fixture


def test_the_history_has_the_bomb_as_it_ended_after_the_props_solve(mock_factory: Any, chromium: Any) -> None:
    with serve(mock_factory, {"timer_seconds": 600, "strike_limit": 3}, role="controller") as bomb:
        registered(bomb)
        bomb.prop.run(command="start")
        bomb.prop.until(lambda s: s["obus"]["phase"] == "playing")
        bomb.send(M3, STRIKE, 1)
        bomb.prop.until(lambda s: s["obus"]["bomb"]["strikes"] == 1)
        bomb.prop.run(command="force_solve")  # the prop's own module: its game ends, the bomb plays on
        bomb.prop.until(lambda s: s["obus"]["prop"]["solved"] and s["obus"]["phase"] == "playing")
        context, page = new_page(chromium)
        try:
            page.goto(bomb.url + "/")  # the console's session opens the History view
            page.wait_for_selector("#connection.live")

            def first() -> dict[str, Any]:
                listing: list[dict[str, Any]] = page.evaluate(
                    "async () => (await (await fetch('/history/api/games', {credentials: 'same-origin'})).json()).games"
                )
                return listing[0] if listing else {}

            bomb.prop.until(lambda s: first().get("ended") is not None)
            record = first()["bomb"]
            assert record["solved"] == 1 and "ended" not in record, record  # the end line: the prop's solve
            bomb.send(M2, SOLVED)
            bomb.send(M3, SOLVED)
            bomb.prop.until(lambda s: s["obus"]["ended"] == "solved")
            bomb.prop.until(lambda s: first().get("bomb", {}).get("ended") == "solved")
            record = first()["bomb"]
            assert record["solved"] == 3 and record["puzzles"] == 3 and record["strikes"] == 1
            assert [m["solved"] for m in record["modules"]] == [True, True, True, False]  # the needy one never
            assert first()["outcome"] == "solved"
            download = page.evaluate(
                "async () => (await (await fetch('/history/games.json', {credentials: 'same-origin'})).json())"
            )
            kept = download["games"][-1]
            assert [line["t"] for line in kept["lines"]][-2:] == ["end", "bomb"]  # every line, the bomb's too
            assert kept["summary"]["bomb"] == record
        finally:
            context.close()
