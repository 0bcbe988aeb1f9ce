"""The pages on a phone (390 x 844 CSS px, held upright or sideways), in Chromium.

The game master's everyday controls (the time, the strikes, Reset, Force solve, Hint, the timer's,
each output's) fit the first screen of the console in every language; the answer's cheat sheet
keeps its columns in a box that scrolls and that the keyboard reaches; no text on any page is
under 12 CSS px (the casing's drawing is drawn larger, in a box that scrolls, where the screen is
too small for it); and ``/favicon.ico`` is there. ``BACCARAT_SCREENSHOT_DIR=docs/pictures`` saves
the console's first screen on a phone as ``console-phone.png`` (docs/run/console.md shows it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware.web import docs_site
from tests import browser
from tests.browser import new_page, web_factory
from tests.conftest import make_config
from tests.pages import pages_web
from tests.test_docs_site import site as _site

chromium = browser.chromium  # the fixtures
site = _site  # the built site, once a module (tests/test_docs_site.py)
__all__ = ["pages_web", "site", "web_factory"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

PHONE = (390, 844)
PASSWORD = "correct horse battery"
LOCK = {"name": "lock", "pin": 15, "on": "solved", "mode": "hold", "off_on": "reset", "max_on_seconds": 30}
HORN = {"name": "horn", "pin": 14, "on": "strike", "mode": "pulse", "pulse_seconds": 1}
#: The everyday controls: the countdown and the strikes (the bar), Force solve, Hint, Reset, the
#: timer's buttons, each output's buttons.
EVERYDAY = (
    "#timer-badge",
    "#strikes-badge",
    "button[data-command=force_solve]",
    "button[data-command=hint]",
    "#form-reset button[type=submit]",
    "#form-timer button[data-command=start]",
    "#form-timer button[type=submit]",
    "#output-list li:last-child button[data-output-state=pulse]",
)
#: Each visible text under 12 CSS px: its element's font size (an SVG text's times its drawing's scale).
SMALL = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!el || !text || !el.checkVisibility()) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      px *= Math.hypot(m.a, m.b);
    }
    if (px < 11.95) found.push(`${el.tagName.toLowerCase()} "${text.slice(0, 30)}" ${px.toFixed(1)} px`);
  }
  return found;
}"""


def prop(pages_web, **settings):
    config = make_config(state={"file": ""}, control={"socket": ""}, outputs=[LOCK, HORN], bomb={"timer_seconds": 300})
    web = pages_web(config, settings=settings)
    web.rig.tap("player")
    web.rig.deal()  # a strike: the log and the strikes have something to say
    web.daemon.wait_idle()
    return web


def open_console(page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#connection.live")
    page.wait_for_selector("#output-list li")
    page.wait_for_function("() => document.getElementById('fact-status').textContent.length > 3")
    page.wait_for_function("() => [...document.querySelectorAll('.output-state')].every((b) => b.textContent !== '-')")


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_the_everyday_controls_fit_a_phones_first_screen(pages_web, chromium, language):
    web = prop(pages_web, language=language)
    context, page = new_page(chromium, width=PHONE[0], height=PHONE[1], touch=True)
    try:
        open_console(page, web.url)
        below = []
        for selector in EVERYDAY:
            box = page.locator(selector).bounding_box()
            assert box is not None, f"{selector} is not shown"
            if box["y"] + box["height"] > PHONE[1] or box["x"] + box["width"] > PHONE[0]:
                x, y = box["x"], box["y"]
                below.append(f"{selector} at x {x:.0f}-{x + box['width']:.0f}, y {y:.0f}-{y + box['height']:.0f}")
        assert not below, f"{language}: off the first screen ({PHONE[0]}x{PHONE[1]}): {below}"
        shots = os.environ.get("BACCARAT_SCREENSHOT_DIR")
        if shots and language == "en":  # the docs' picture: docs/run/console.md
            page.screenshot(path=str(Path(shots) / "console-phone.png"))
    finally:
        context.close()


def test_the_cheat_sheet_keeps_its_columns_in_a_box_the_keyboard_scrolls(pages_web, chromium):
    web = prop(pages_web)
    context, page = new_page(chromium, width=PHONE[0], height=PHONE[1])
    try:
        open_console(page, web.url)
        page.click("#answer summary")
        page.wait_for_function("() => document.getElementById('cheat-sheet').textContent.length > 40")
        root = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert root[0] <= root[1], f"the page is {root[0]} px wide on a {root[1]} px screen"
        box = page.evaluate(
            "() => { const b = document.getElementById('cheat-sheet-box'); const r = b.getBoundingClientRect();"
            " return {scroll: b.scrollWidth, client: b.clientWidth, right: r.right, tab: b.tabIndex}; }"
        )
        assert box["right"] <= PHONE[0] and box["tab"] == 0, box
        assert box["scroll"] > box["client"], "the cheat sheet fits: this phone test proves nothing"
        page.focus("#cheat-sheet-box")
        assert page.evaluate("() => document.activeElement.id") == "cheat-sheet-box"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        page.wait_for_function("() => document.getElementById('cheat-sheet-box').scrollLeft > 0")
    finally:
        context.close()


#: A tablet propped beside the module (issue 42: nothing under 12 px on any page, in any orientation).
TABLET = (768, 1024)


@pytest.mark.parametrize("orientation", ["portrait", "landscape", "tablet portrait", "tablet landscape"])
def test_no_text_is_under_12_px_on_a_phone(pages_web, chromium, orientation):
    web = prop(pages_web, password=PASSWORD)
    screen = TABLET if orientation.startswith("tablet") else PHONE
    width, height = screen if orientation.endswith("portrait") else screen[::-1]
    context, page = new_page(chromium, width=width, height=height, touch=True)
    found = []
    try:
        page.goto(web.url + "/login")
        found += [f"/login: {what}" for what in page.evaluate(SMALL)]
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(web.url + "/")
        open_console(page, web.url)
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_selector("#panel-face .cap")
        found += [f"/: {what}" for what in page.evaluate(SMALL)]
        page.goto(web.url + "/play/login?next=/casing")
        found += [f"/play/login: {what}" for what in page.evaluate(SMALL)]
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(web.url + "/casing")
        for path, ready in (("/history", "#games-table tbody tr"), ("/casing", "#casing svg"), ("/play", ".cap")):
            page.goto(web.url + path)
            page.wait_for_selector(ready)
            if path != "/history":
                page.wait_for_selector("#casing[data-shape] svg text")
            found += [f"{path}: {what}" for what in page.evaluate(SMALL)]
    finally:
        context.close()
    assert not found, f"{orientation}: under 12 px:\n" + "\n".join(found)


def test_every_page_has_its_icon(pages_web):
    web = prop(pages_web)
    status, headers, body = web.request("GET", "/favicon.ico")
    assert status == 200 and headers["content-type"] == "image/vnd.microsoft.icon"
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file's header


@pytest.mark.parametrize("orientation", ["portrait", "landscape"])
def test_no_text_of_the_docs_is_under_12_px_on_a_phone(site, web_factory, monkeypatch, chromium, orientation):
    monkeypatch.setattr(docs_site, "SITE", site)
    web = web_factory()
    width, height = PHONE if orientation == "portrait" else PHONE[::-1]
    context, page = new_page(chromium, width=width, height=height, touch=True)
    found = []
    try:
        for path in ("", "run/console/", "play/party/", "run/language/"):  # prose, tables, code
            page.goto(f"{web.url}/docs/{path}")
            page.wait_for_selector("article")
            found += [f"/docs/{path}: {what}" for what in page.evaluate(SMALL)]
    finally:
        context.close()
    assert not found, f"{orientation}: under 12 px:\n" + "\n".join(found)
