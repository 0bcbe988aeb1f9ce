"""An OBUS bomb on the game master's console, the players' pages and in the history (issue 43,
item 2), in a real headless Chromium.

The prop runs the bomb (``[obus] role = "controller"``) on python-can's ``virtual`` bus within this
process; the test is its other modules, their frames written from the spec page's tables
(tests/obus_model/spec.py, nothing from the product): puzzle modules 2 and 3 and needy module 1
register, the bomb starts, module 2 solves, module 3 strikes. The console's Bomb panel lists them
as the bus has them and follows each change; the players' tablet page and the casing say how many
puzzle modules are solved; the game's end line in the history keeps them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests import browser
from tests.browser import new_page
from tests.conftest import make_config, served_prop
from tests.mosquitto import free_port
from tests.obus_model import spec
from tests.obus_model.harness import PATIENCE
from tests.test_obus_module import Prop

can = pytest.importorskip("can", reason="python-can (the obus service's)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

chromium = browser.chromium  # the fixture

M2, M3, NEEDY = spec.make_id(1, 2), spec.make_id(1, 3), spec.make_id(2, 1)
REGISTER, STRIKE, SOLVED = 0, 1, 2  # a module's message types (the spec's MODULE table)


class Served:
    """The prop with its console, and the test's end of the virtual bus."""

    def __init__(self, rig: Any, bus: Any) -> None:
        self.rig, self.bus = rig, bus
        self.prop = Prop(rig.master, rig.prop.service("obus"))
        console = rig.prop.service("web").wait(PATIENCE)
        assert console is not None, "the console did not start"
        self.url = f"http://127.0.0.1:{console.port}"

    def send(self, can_id: int, *data: int) -> None:
        self.bus.send(can.Message(arbitration_id=can_id, data=bytes(data), is_extended_id=False))


@contextmanager
def serve(mock_factory: Any, bomb: dict[str, Any], **obus: Any) -> Iterator[Served]:
    """The prop with ``[obus]`` on a virtual bus of the test's own, and its console."""
    channel = f"obus-console-{uuid.uuid4().hex}"
    config = make_config(
        obus={"interface": "virtual", "channel": channel, **obus},
        bomb=bomb,
        web={"enabled": True, "port": free_port()},
        state={"file": ""},
        control={"socket": ""},
    )
    bus = can.Bus(interface="virtual", channel=channel)  # opened first: a virtual bus hears what comes after
    try:
        with served_prop(config, mock_factory) as rig:
            yield Served(rig, bus)
    finally:
        bus.shutdown()


@pytest.fixture
def bomb(mock_factory: Any) -> Iterator[Served]:
    """The prop runs the bomb."""
    with serve(mock_factory, {"timer_seconds": 600, "strike_limit": 3}, role="controller") as served:
        yield served


def registered(served: Served) -> dict[str, Any]:
    """The test's three modules registered with the prop, as a module does after HELLO."""
    served.prop.until(lambda s: s["obus"]["phase"] == "registering")
    for can_id in (M2, M3, NEEDY):
        served.send(can_id, REGISTER)
    return served.prop.until(lambda s: len(s["obus"]["modules"]) == 3)


def rows(page: Any) -> list[list[str]]:
    found: list[list[str]] = page.evaluate(
        "() => [...document.querySelectorAll('#bomb-modules tbody tr')]"
        ".map((tr) => [...tr.children].map((cell) => cell.textContent))"
    )
    return found


def wait_rows(page: Any, expected: list[list[str]]) -> None:
    page.wait_for_function(
        "(want) => JSON.stringify([...document.querySelectorAll('#bomb-modules tbody tr')]"
        ".map((tr) => [...tr.children].map((cell) => cell.textContent))) === JSON.stringify(want)",
        arg=expected,
        timeout=PATIENCE * 1000,
    )


def test_the_console_lists_the_bombs_modules_and_follows_them(bomb: Served, chromium: Any) -> None:
    registered(bomb)
    context, page = new_page(chromium)
    try:
        page.goto(bomb.url + "/")
        page.wait_for_selector("#connection.live")
        page.wait_for_selector("#bomb:not([hidden])")
        assert "this prop runs the bomb" in page.text_content("#bomb-role")
        before = [
            ["Baccarat (this prop)", "registered, not solved", "0"],
            ["puzzle module 2", "registered, not solved", "0"],
            ["puzzle module 3", "registered, not solved", "0"],
            ["needy module 1", "registered (needy: never solves)", "0"],
        ]
        wait_rows(page, before)
        assert page.get_attribute("#bomb-modules tbody tr:first-child", "class") == "self"  # the prop, marked
        # in the page's language: the panel's words, each module's and its state
        french_context, french = new_page(chromium)
        try:
            french_context.set_extra_http_headers({"Accept-Language": "fr"})  # the console's language, else [web]
            french.goto(bomb.url + "/")
            french.wait_for_selector("#bomb:not([hidden])")
            wait_rows(
                french,
                [
                    ["Baccarat (ce module-ci)", "inscrit, non résolu", "0"],
                    ["module à résoudre 2", "inscrit, non résolu", "0"],
                    ["module à résoudre 3", "inscrit, non résolu", "0"],
                    ["module exigeant 1", "inscrit (exigeant : jamais résolu)", "0"],
                ],
            )
            assert french.text_content("#bomb-title").startswith("Bombe "), french.text_content("#bomb-title")
        finally:
            french_context.close()
        bomb.prop.run(command="start")
        bomb.prop.until(lambda s: s["obus"]["phase"] == "playing")
        page.wait_for_function(
            "() => document.querySelector('#bomb-facts').textContent.startsWith('0 of 3 puzzle modules solved')"
        )
        bomb.send(M2, SOLVED)
        bomb.send(M3, STRIKE, 1)
        wait_rows(
            page,
            [
                before[0],
                ["puzzle module 2", "solved", "0"],
                ["puzzle module 3", "registered, not solved", "1"],
                before[3],
            ],
        )
        facts = page.text_content("#bomb-facts")
        assert facts == "1 of 3 puzzle modules solved; strikes 1 of 3", facts
        assert page.is_hidden("#bomb-warning")
        # the keyboard reaches the modules' table (a region that scrolls on a phone)
        page.focus("#bomb .table-wrap")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "The bomb's modules"
        # the players' tablet page says the count too
        play_context, play = new_page(chromium)
        try:
            play.goto(bomb.url + "/play")
            play.wait_for_selector("#bomb-count:not([hidden])")
            assert play.text_content("#bomb-count") == "1 of 3 puzzle modules solved"
            bomb.send(M3, SOLVED)
            play.wait_for_function(
                "() => document.querySelector('#bomb-count').textContent === '2 of 3 puzzle modules solved'",
                timeout=PATIENCE * 1000,
            )
        finally:
            play_context.close()
        bomb.prop.run(command="force_solve")  # the prop's own: the bomb is defused
        page.wait_for_function(
            "() => document.querySelector('#bomb-facts').textContent.includes('the bomb\\'s game is over: defused')",
            timeout=PATIENCE * 1000,
        )
        assert rows(page)[0] == ["Baccarat (this prop)", "solved", "0"]
    finally:
        context.close()


def test_the_history_keeps_the_bombs_modules_at_the_games_end(bomb: Served, chromium: Any) -> None:
    registered(bomb)
    bomb.prop.run(command="start")
    bomb.prop.until(lambda s: s["obus"]["phase"] == "playing")
    bomb.send(M2, SOLVED)
    bomb.send(NEEDY, STRIKE, 1)
    bomb.prop.until(lambda s: s["obus"]["bomb"]["solved"] == 1 and s["obus"]["bomb"]["strikes"] == 1)
    bomb.prop.run(command="force_solve")
    context, page = new_page(chromium)
    try:
        page.goto(bomb.url + "/")  # the console's session opens the History view
        page.wait_for_selector("#connection.live")
        page.goto(bomb.url + "/history")

        def games() -> list[dict[str, Any]]:
            listing: list[dict[str, Any]] = page.evaluate(
                "async () => (await (await fetch('/history/api/games', {credentials: 'same-origin'})).json()).games"
            )
            return listing

        def ended() -> bool:
            listed = games()
            return bool(listed) and listed[0]["ended"] is not None

        bomb.prop.until(lambda s: ended())
        record = games()[0].get("bomb")
        assert record is not None, games()[0]
        assert record["role"] == "controller" and record["puzzles"] == 3 and record["solved"] == 2
        assert record["modules"] == [
            {"prop": True, "solved": True, "strikes": 0},
            {"type": 1, "id": 2, "solved": True, "strikes": 0},
            {"type": 1, "id": 3, "solved": False, "strikes": 0},
            {"type": 2, "id": 1, "solved": False, "strikes": 1},
        ]
        # the History view says them in a line
        page.click("#refresh")
        line = page.locator("#games-table tbody tr:first-child .bomb-line")
        line.wait_for(timeout=PATIENCE * 1000)
        text = line.text_content()
        assert text.startswith("OBUS bomb (the prop ran it): 2 of 3 puzzle modules solved; "), text
        assert "puzzle module 2: solved, 0 strikes" in text and "needy module 1: not solved, 1 strike" in text, text
    finally:
        context.close()


def test_a_module_prop_shows_its_row_the_bombs_count_and_a_silent_controller(mock_factory: Any, chromium: Any) -> None:
    prop_id = spec.make_id(1, 4)
    with serve(mock_factory, {"timer_seconds": 600}, role="module", id=4) as served:
        served.prop.until(lambda s: s["obus"]["bus"]["up"])
        served.send(spec.CONTROLLER_ID, 1)  # HELLO
        while (frame := served.bus.recv(PATIENCE)) is not None and frame.arbitration_id != prop_id:
            pass
        assert frame is not None and bytes(frame.data) == bytes([0]), frame  # its REGISTER
        served.send(spec.CONTROLLER_ID, 0, 1, 4)  # ACK for puzzle module 4
        served.send(spec.make_id(1, 5), REGISTER)  # another module registers; the prop hears its ACK
        served.send(spec.CONTROLLER_ID, 0, 1, 5)
        served.send(spec.CONTROLLER_ID, *spec.status(2, 600_000, 0, 3, 3))  # GAME START: 3 puzzle modules
        served.send(spec.CONTROLLER_ID, *spec.status(3, 599_500, 0, 3, 3))  # STATE: 3 left
        served.prop.until(lambda s: s["obus"]["phase"] == "playing")
        context, page = new_page(chromium)
        try:
            page.goto(served.url + "/")
            page.wait_for_selector("#bomb:not([hidden])")
            own = ["Baccarat, puzzle module 4 (this prop)", "registered, not solved", "0"]
            wait_rows(page, [own, ["puzzle module 5", "registered, not solved", "0"]])
            assert "this prop is a module of the bomb (playing)" == page.text_content("#bomb-role")
            served.send(spec.make_id(1, 5), STRIKE, 1)  # module 5 strikes and solves, as the bus shows
            served.send(spec.make_id(1, 5), SOLVED)
            served.send(spec.CONTROLLER_ID, *spec.status(3, 599_000, 1, 3, 2))  # the controller counts them
            wait_rows(page, [own, ["puzzle module 5", "solved", "1"]])
            page.wait_for_function(
                "() => document.querySelector('#bomb-facts').textContent === "
                "'1 of 3 puzzle modules solved; strikes 1 of 3'",
                timeout=PATIENCE * 1000,
            )
            # no STATE for 3 s: the console says the controller is silent, in words
            page.wait_for_selector("#bomb-warning:not([hidden])", timeout=PATIENCE * 1000)
            assert page.text_content("#bomb-warning").startswith("The bomb's controller is silent")
            served.send(spec.CONTROLLER_ID, *spec.status(3, 590_000, 1, 3, 2))  # back
            page.wait_for_selector("#bomb-warning", state="hidden", timeout=PATIENCE * 1000)
        finally:
            context.close()
