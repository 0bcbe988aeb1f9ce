"""The session's shared Chromium leaves the thread's asyncio free between modules.

Playwright's sync API marks its event loop as running in the calling thread between its calls. A
pytest-xdist worker that ran a browser module and then, say, Clue Control's tests or a doctest with
``asyncio.run`` had them all refused ("cannot be called from a running event loop"): CI failed that
way once. This module uses the browser as a module would, then runs asyncio as the next module would.
"""

from __future__ import annotations

import asyncio

from tests import browser

chromium_session = browser.chromium_session  # the fixture


def test_after_a_module_with_the_browser_asyncio_runs_and_the_browser_serves_again(chromium_session):
    with chromium_session() as chromium:
        page = chromium.new_page()
        page.set_content("<p id=x>one</p>")
        assert page.text_content("#x") == "one"

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert asyncio.run(answer()) == 42  # what the next module does

    with chromium_session() as chromium:  # and the browser comes back for the one after
        page = chromium.new_page()
        page.set_content("<p id=x>two</p>")
        assert page.text_content("#x") == "two"
