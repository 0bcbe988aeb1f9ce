"""The game master and the room controller keep the console while strangers spend it (issue 33).

- Another site's page, open in the browser on the controller's PC, sends wrong tokens as
  ``<img>`` requests (no ``Origin``): it locks itself out, never Escape Room Master polling
  from its own page in the same browser, from the same address (a real Chromium).
- Four addresses hold every connection they may with public event streams and login bodies
  that never end, reopening each one the console closes: the game master's requests and the
  controller's polls are still answered (real connections against the real server).
"""

from __future__ import annotations

import pytest

from tests import browser as web_browser
from tests.browser import TOKEN
from tests.test_web_cross_origin import POLL, PageServer, context, erm_site  # noqa: F401 - the fixtures
from tests.test_web_hostile import http

web_factory, chromium = web_browser.web_factory, web_browser.chromium  # the fixtures

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

# Another site's page: wrong tokens as images, one every 20 ms, until 40 have been answered.
IMAGES = """([url]) => new Promise((resolve) => {
    let answered = 0;
    const timer = setInterval(() => {
        const img = new Image();
        img.onload = img.onerror = () => { if (++answered === 40) { clearInterval(timer); resolve(answered); } };
        img.src = url + "&n=" + Math.random();
    }, 20);
})"""


def test_another_sites_images_lock_out_that_page_not_the_controller(web_factory, context, erm_site):  # noqa: F811
    web = web_factory()
    web.service.wrong_secret_pause = 0.05  # the counting is tested, not the pause
    erm = context.new_page()
    erm.goto(erm_site.url)
    erm.evaluate(POLL, [f"{web.url}/status?token={TOKEN}"])
    erm.wait_for_function("window.answers.length >= 2")
    other_site = PageServer()
    try:
        page = context.new_page()
        page.goto(other_site.url)
        assert page.evaluate("location.origin") != erm.evaluate("location.origin")
        before = erm.evaluate("window.answers.length")
        assert page.evaluate(IMAGES, [f"{web.url}/status?token=wrong-token-0000"]) == 40
        erm.wait_for_function(f"window.answers.length >= {before + 5}")
    finally:
        other_site.close()
    erm.evaluate("clearInterval(window.poller)")
    answers = erm.evaluate("window.answers")
    assert set(answers) == {"not_triggered"}, [a for a in answers if a != "not_triggered"][:3]
    assert erm.evaluate("window.failures") == []
    # The images' guesser (this address, naming no page) is locked: a wrong token is not compared.
    status, _, body = http(web.service.port, "GET", "/status?token=wrong-token-0001")
    assert status == 429 and b"too many wrong tokens" in body
