"""Every text a page shows is marked for translation: the pages in a pseudo-translation, in Chromium.

The catalogs are a fresh ``pybabel extract`` of the sources and a pseudo-translation of it that
puts every message in ``⟦...⟧`` (tests/i18n_catalogs.py). Each page is opened in it, used (a
strike, a hint, a dialog, the outputs, a replay, the logins), and every text node and every
``title``, ``placeholder``, ``aria-label`` and ``alt`` a person can meet is read: a letter
outside the brackets is a text that no ``_()``, ``gettext()`` or page extraction marked, and the
test names it. What the prop shows as data rather than words is marked ``translate="no"`` (HTML's
own attribute: a serial number, a config's names, the cheat sheet); the known untranslated
texts are named in :data:`KNOWN_ENGLISH`.
"""

from __future__ import annotations

import re

import pytest

from tests import browser
from tests.browser import new_page
from tests.conftest import make_config
from tests.i18n_catalogs import PSEUDO, catalogs_with_pseudo
from tests.pages import pages_web

chromium = browser.chromium  # the fixtures
__all__ = ["pages_web"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

PASSWORD = "correct horse battery"
LOCK = {"name": "lock", "pin": 15, "on": "solved", "mode": "hold", "off_on": "reset", "max_on_seconds": 30}

#: Texts the pages show in English whatever the language, each with the reason (the docs say so too).
KNOWN_ENGLISH: dict[str, str] = {}

#: Every text and attribute a person meets on the page whose letters are outside the brackets.
UNMARKED = """() => {
  const strip = (text) => { let out = text; let before;
    do { before = out; out = out.replace(/⟦[^⟦⟧]*⟧/g, ""); } while (out !== before); return out; };
  const bare = (text) => /\\p{L}/u.test(strip(text || ""));
  const kept = (el) => el.closest('[translate="no"], script, style' + KNOWN);
  const found = [];
  for (const lines of document.querySelectorAll("[data-lines]")) {  // one message wrapped into lines
    if (!kept(lines) && bare(lines.textContent)) found.push(`lines: ${lines.textContent.trim().slice(0, 90)}`);
  }
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || kept(el) || el.closest("[data-lines]")) continue;
    const tooltip = el.tagName.toLowerCase() === "title";
    if (!tooltip && typeof el.checkVisibility === "function" && !el.checkVisibility()) continue;
    if (bare(node.textContent)) found.push(`${el.tagName.toLowerCase()}: ${node.textContent.trim().slice(0, 90)}`);
  }
  for (const el of document.querySelectorAll("[title], [placeholder], [aria-label], [alt]")) {
    if (kept(el)) continue;
    for (const name of ["title", "placeholder", "aria-label", "alt"]) {
      const value = el.getAttribute(name);
      if (value && bare(value)) found.push(`${el.tagName.toLowerCase()} ${name}: ${value.slice(0, 90)}`);
    }
  }
  return found;
}""".replace("KNOWN", repr("".join(f", {selector}" for selector in KNOWN_ENGLISH)))


def unmarked(page) -> list[str]:
    return page.evaluate(UNMARKED)


@pytest.fixture
def pseudo(tmp_path):
    with catalogs_with_pseudo(tmp_path) as where:
        yield where


def test_every_text_of_the_console_and_the_history_is_marked(pseudo, pages_web, chromium):
    web = pages_web(
        make_config(state={"file": ""}, control={"socket": ""}, outputs=[LOCK], bomb={"timer_seconds": 300}),
        settings={"language": PSEUDO},
    )
    web.rig.tap("player")
    web.rig.deal()  # $1 is below the table's minimum: a strike
    web.daemon.wait_idle()
    context, page = new_page(chromium, width=1280, height=1000)
    try:
        page.goto(web.url + "/")
        assert page.get_attribute("html", "lang") == PSEUDO
        page.wait_for_selector("#connection.live")
        page.locator("#log-list li.strike").first.wait_for()
        page.wait_for_function("() => document.getElementById('answer-next').textContent.length > 3")
        page.click("#answer summary")
        page.click("button[data-command=hint]")
        page.wait_for_selector("#message.ok")
        found = unmarked(page)
        page.click("button[data-command=force_solve]")
        page.wait_for_selector("#confirm[open]")
        found += unmarked(page)
        page.click("#confirm button[value=cancel]")
        page.click("button[data-command=identify]")
        page.wait_for_selector("#message.ok")
        found += unmarked(page)
        assert not found, "unmarked on the console:\n" + "\n".join(dict.fromkeys(found))

        page.goto(web.url + "/history")
        page.wait_for_selector("#games-table tbody tr")
        page.locator("#games-table tbody tr button").first.click()
        page.wait_for_selector("#replay:not([hidden])")
        page.wait_for_function("() => document.getElementById('round-select').options.length > 0")
        found = unmarked(page)
        assert not found, "unmarked on the History view:\n" + "\n".join(dict.fromkeys(found))
    finally:
        context.close()


def test_every_text_of_the_players_pages_and_the_logins_is_marked(pseudo, pages_web, chromium):
    web = pages_web(
        make_config(state={"file": ""}, control={"socket": ""}, bomb={"timer_seconds": 300}),
        settings={"language": PSEUDO, "password": PASSWORD},
    )
    context, page = new_page(chromium, width=1280, height=900)
    try:
        page.goto(web.url + "/login?restarted")
        found = unmarked(page)
        page.fill("input[name=password]", "wrong password!")
        page.click("button[type=submit]")
        page.wait_for_selector("p.error")
        assert re.fullmatch(r"⟦.*⟧", page.inner_text("p.error")), page.inner_text("p.error")
        found += unmarked(page)
        page.goto(web.url + "/play/login?next=/casing")
        found += unmarked(page)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(web.url + "/casing")
        page.wait_for_selector("#connection.live")
        page.wait_for_selector("#casing #serial")
        found += unmarked(page)
        page.goto(web.url + "/play")
        page.wait_for_selector("#connection.live")
        page.wait_for_selector("#casing #serial")
        page.wait_for_selector(".panel-face .cap")
        found += unmarked(page)
        assert not found, "unmarked on the players' pages and the logins:\n" + "\n".join(dict.fromkeys(found))
    finally:
        context.close()


#: What a narrow screen must not do to a language's long words: the page wider than the screen, a
#: button's or a badge's text past its edge, a table scrolling sideways, a word split over two lines.
BROKEN = """() => {
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) found.push(`the page is ${root.scrollWidth} px wide`);
  for (const el of document.querySelectorAll("button, .badge, select, summary, .table-wrap, h1, h2")) {
    if (el.checkVisibility && !el.checkVisibility()) continue;
    const what = `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}"`;
    if (el.scrollWidth > el.clientWidth + 1) found.push(`${what} overflows`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    // (the log's lines and a file's path, #where, may break where they must)
    if (!el || el.closest("svg, script, style, #log-list, pre, #where")) continue;
    if (el.checkVisibility && !el.checkVisibility()) continue;
    for (const match of node.textContent.matchAll(/\\p{L}{4,}/gu)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) found.push(`"${match[0]}" split over ${lines.size} lines`);
    }
  }
  return found;
}"""


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_long_words_keep_the_layout_on_a_phone_and_a_tablet(pages_web, chromium, language):
    web = pages_web(
        make_config(state={"file": ""}, control={"socket": ""}, outputs=[LOCK], bomb={"timer_seconds": 300}),
        settings={"language": language},
    )
    web.rig.tap("player")
    web.rig.deal()
    web.daemon.wait_idle()
    broken = []
    for width, height in ((390, 844), (768, 1024)):
        context, page = new_page(chromium, width=width, height=height)
        context.add_cookies([{"name": "baccarat_lang", "value": language, "url": web.url}])
        try:
            for path, ready in (
                ("/", "#log-list li"),
                ("/history", "#games-table tbody tr"),
                ("/casing", "#casing #serial"),
                ("/play", ".panel-face .cap"),
            ):
                page.goto(web.url + path)
                page.wait_for_selector(ready)
                if path == "/":
                    page.click("#more-controls > summary") if width < 700 else None
                    page.wait_for_function("() => document.getElementById('fact-status').textContent.length > 3")
                broken += [f"{path} at {width} px: {what}" for what in page.evaluate(BROKEN)]
        finally:
            context.close()
    assert not broken, f"{language}:\n" + "\n".join(dict.fromkeys(broken))


def test_the_players_pick_their_language_and_the_tablet_keeps_it(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}))
    context = chromium.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    page = context.new_page()
    try:
        page.goto(web.url + "/casing")
        page.wait_for_selector("#casing #serial")
        assert page.get_attribute("html", "lang") == "en" and page.inner_text("#print") == "Print"
        with page.expect_navigation():
            page.select_option("#language", "de")
        page.wait_for_selector("#casing #serial")
        assert page.get_attribute("html", "lang") == "de" and page.inner_text("#print") == "Drucken"
        assert page.input_value("#language") == "de"
        page.wait_for_selector("#casing[data-shape]")
        assert "SERIENNR." in page.inner_text("#casing")
        page.goto(web.url + "/play")  # the choice stays with the tablet
        page.wait_for_selector(".panel-face .cap")
        assert page.get_attribute("html", "lang") == "de" and page.inner_text("#fullscreen") == "Vollbild"
        page.goto(web.url + "/")  # the console keeps its own language: the browser's
        assert page.get_attribute("html", "lang") == "en"
    finally:
        context.close()
