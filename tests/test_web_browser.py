"""The console in a real headless Chromium: log in, watch the displays, press, reset, hold, bad input.

Pixels, not page text: each display on the page is screenshotted and compared,
block by block, with the frame the daemon last sent to that display.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware.room.commands import hint
from firmware.web.live import png_data_url
from tests import browser
from tests.browser import lit_mask, png_image, wait_count

web_factory, chromium, page = browser.web_factory, browser.chromium, browser.page  # the fixtures

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

PASSWORD = "correct horse battery"


def wait_for_frame(page, web, role: str) -> None:
    """Wait until the page's image of ``role`` is exactly the daemon's last frame."""
    web.daemon.wait_idle()
    expected = png_data_url(web.backend.frame(role))
    page.wait_for_function(
        "([id, url]) => document.getElementById(id).src === url && document.getElementById(id).complete",
        arg=[f"display-{role}", expected],
    )


def assert_page_shows(page, web, role: str) -> None:
    """A screenshot of the page has lit pixels exactly where the frame has them, in ``role``'s image."""
    wait_for_frame(page, web, role)
    frame = web.backend.frame(role)
    box = page.evaluate(
        "(id) => { const r = document.getElementById(id).getBoundingClientRect(); "
        "return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }",
        f"display-{role}",
    )
    scale = box["width"] / frame.width
    assert scale >= 1 and scale == int(scale), f"{role} is scaled by {scale}, not by whole pixels"
    assert box["height"] == frame.height * scale
    shot = png_image(page.screenshot(full_page=True))
    if os.environ.get("DEBUG_SHOT"):
        shot.save(f"/tmp/shot-{role}.png")
    mask = lit_mask(frame)

    def lit(x: int, y: int) -> bool:
        return max(shot.getpixel((int(box["x"] + (x + 0.5) * scale), int(box["y"] + (y + 0.5) * scale)))) > 128

    wrong = [(x, y) for y in range(frame.height) for x in range(frame.width) if lit(x, y) != mask[y][x]]
    assert sum(map(sum, mask)) > 50, f"the {role} frame is nearly blank"
    assert not wrong, f"{len(wrong)} of {frame.width * frame.height} {role} pixels differ, first {wrong[:5]}"


def test_login_displays_pins_and_reset(web_factory, page):
    web = web_factory(front_panel=False, settings={"password": PASSWORD})
    page.goto(web.url + "/")
    assert page.url.endswith("/login")
    page.fill("input[name=password]", "wrong password")
    page.click("button[type=submit]")
    assert "Wrong password" in page.inner_text("body")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(web.url + "/")
    for role in ("placard", "table", "bets"):
        assert_page_shows(page, web, role)
    # A prop whose panel cannot be pressed from a page (a Pi): the panel is drawn, as a mirror only.
    page.wait_for_selector("#panel-face button[data-input=player]")
    assert all(page.is_disabled(f"button[data-input={name}]") for name in ("player", "deal", "arrow_left"))
    page.wait_for_selector("#connection.live")
    assert page.text_content("#connection") == "live"
    assert "$25 - $1000" in page.inner_text("#fact-limits")
    assert "serial AB3DE4" in page.inner_text("#fact-edgework")

    # A betting button pressed on the mock pins: the page's bets image follows.
    before = web.backend.frame("bets")
    web.rig.tap("player")
    assert web.backend.frame("bets").tobytes() != before.tobytes()
    assert_page_shows(page, web, "bets")
    page.wait_for_function("document.getElementById('fact-bets').textContent.startsWith('Player $1')")
    assert "chip $1 on player" in page.inner_text("#log-list")

    # Reset with new limits from the page: the placard changes.
    placard = web.backend.frame("placard")
    page.fill("#form-reset input[name=min]", "50")
    page.fill("#form-reset input[name=max]", "2,000")
    page.click("#form-reset button[type=submit]")
    page.click("#confirm-yes")  # a reset asks first (tests/test_web_console.py)
    page.wait_for_selector("#message.ok")
    web.rig.wait_for("reset")
    assert web.state()["limits"] == {"min": 50, "max": 2000, "placard": "$50 - $2000"}
    assert web.backend.frame("placard").tobytes() != placard.tobytes()
    assert_page_shows(page, web, "placard")
    assert_page_shows(page, web, "bets")
    page.wait_for_function("document.getElementById('fact-limits').textContent.startsWith('$50 - $2000')")

    # The answer panel: the next round from the current deck, as the hint command says.
    page.click("#answer summary")
    hint_doc = web.daemon.call(lambda: hint(web.daemon.module)).result(5)
    page.wait_for_function(
        "(text) => document.getElementById('answer-next').textContent.includes(text)",
        arg=f"{hint_doc['winner'].upper()} wins",
    )
    assert "Cards, top first" in page.inner_text("#cheat-sheet")

    shots = os.environ.get("BACCARAT_SCREENSHOT_DIR")
    if shots:  # the README's picture: `BACCARAT_SCREENSHOT_DIR=docs/pictures pytest tests/test_web_browser.py`
        page.screenshot(path=str(Path(shots) / "console.png"), full_page=True)


def test_front_panel_press_and_hold(web_factory, page):
    web = web_factory(front_panel=True)
    page.goto(web.url + "/")
    page.wait_for_selector("#panel-face button[data-input=banker]:not([disabled])")
    for role in ("placard", "table"):  # the display row above the panel has its size (no layout shift)
        wait_for_frame(page, web, role)
    assert_page_shows(page, web, "bets")

    banker = page.locator("button[data-input=banker]")
    banker.click()  # a short press: one chip, through the mock pins and the board's button logic
    wait_count(web.rig, "chip", 1)
    page.locator("button[data-input=arrow_right]").click()
    wait_count(web.rig, "denomination", 1)
    banker.click()
    wait_count(web.rig, "chip", 2)
    assert web.daemon.module.stacks["banker"] == [1, 5]
    assert_page_shows(page, web, "bets")

    # Hold 0.6 s: cleared by the hold logic at 0.5 s, and the release adds nothing.
    banker.hover()
    page.mouse.down()
    page.wait_for_timeout(600)
    page.mouse.up()
    cleared = web.rig.wait_for("clear")
    assert cleared.area == "banker" and cleared.total == 6
    web.daemon.wait_idle()
    page.evaluate("() => new Promise((done) => setTimeout(done, 100))")  # the release request's turn
    web.daemon.wait_idle()
    assert web.daemon.module.stacks["banker"] == []
    assert web.rig.kinds().count("chip") == 2, "the release after a hold added a chip"
    assert_page_shows(page, web, "bets")
    page.wait_for_function("document.getElementById('log-list').textContent.includes('banker cleared (held)')")


BAD_INPUT = [
    ("#form-reset", {"min": "25"}, "give both"),
    ("#form-reset", {"min": "abc", "max": "100"}, 'minimum "abc" is not a whole number of dollars'),
    ("#form-limits", {"min": "7", "max": "100"}, "minimum $7 is not one of the manual's"),
    ("#form-limits", {"min": "25", "max": "10"}, "maximum $10 is not above the minimum $25"),
    ("#form-limits", {}, "give both"),
    ("#form-solved", {"solved": "-3"}, "is not a whole number"),
    ("#form-solved", {"solved": "three"}, "is not a whole number"),
    ("#form-edgework", {"serial": "AB!3"}, "must be 1 to 6 letters or digits"),
    ("#form-edgework", {"serial": "AB3DE4", "ports": "Par#llel"}, "is not a port name"),
    ("#form-edgework", {"serial": "AB3DE4", "lit": "FR K!"}, "is not a label of 1-8 letters or digits"),
    ("#form-edgework", {"serial": "AB3DE4", "solved": "x"}, "is not a whole number"),
]


def test_bad_input_shows_the_message_and_changes_nothing(web_factory, page):
    web = web_factory(front_panel=False)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    before = web.state()
    frames = {role: web.backend.frame(role).tobytes() for role in ("placard", "table", "bets")}
    for form, values, message in BAD_INPUT:
        page.evaluate("(form) => document.querySelector(form).reset()", form)
        for name, value in values.items():
            page.fill(f"{form} input[name={name}]", value)
        page.click(f"{form} button[type=submit]")
        if form == "#form-reset":
            page.click("#confirm-yes")
        page.wait_for_selector("#message.error")
        shown = page.inner_text("#message")
        assert message in shown, f"{form} {values}: the page says {shown!r}"
        page.evaluate("() => { document.getElementById('message').className = ''; }")
    web.daemon.wait_idle()
    assert web.state() == before
    assert {role: web.backend.frame(role).tobytes() for role in frames} == frames
