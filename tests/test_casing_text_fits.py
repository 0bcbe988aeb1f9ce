"""Every word of the casing stays inside its box, in every language and orientation, as Chromium
draws it: ``/casing`` and ``/play`` on a portrait and a landscape screen (the wide and the tall
sheets), each ``<text>`` of the SVG measured against the box it is written on (the first background
rectangle under the text's middle, from its own group outwards: a widget, a band, the front) and against the sheet.

A translation is longer than the English (German's "DAS HANDBUCH (AUF ENGLISCH)" lost its ")" at
the tall sheet's right edge): the layout sizes a label by the font's own advance widths
(:func:`firmware.casing.widgets.text_width`), never by a guess per character.
``BACCARAT_SCREENSHOT_DIR=docs/pictures`` saves the French and German casings (the wide sheet) as
``casing-fr.png`` and ``casing-de.png`` (docs/run/language.md shows them).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import browser
from tests.browser import new_page
from tests.conftest import make_config
from tests.pages import pages_web

chromium = browser.chromium  # the fixtures
__all__ = ["pages_web"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

#: Each text past its box's left or right edge (or the sheet's), in CSS pixels, with the box's name.
OUTSIDE = """() => {
  const svg = document.querySelector("#casing svg");
  const sheet = svg.getBoundingClientRect();
  const found = [];
  for (const text of svg.querySelectorAll("text")) {
    if (!text.textContent.trim()) continue;
    const r = text.getBoundingClientRect();
    // Its box: the first background rectangle, from its own group outwards, under the text's middle.
    const [cx, cy] = [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
    let rect = sheet;
    let name = "sheet";
    for (let group = text.parentElement; group && group !== svg; group = group.parentElement) {
      const under = [...group.querySelectorAll(":scope > rect")].map((el) => el.getBoundingClientRect())
        .find((b) => b.left <= cx && cx <= b.right && b.top <= cy && cy <= b.bottom);
      if (under) { rect = under; name = group.id || group.getAttribute("class") || "group"; break; }
    }
    const slack = 0.5;
    const past = Math.max(rect.left - r.left, r.right - rect.right, sheet.left - r.left, r.right - sheet.right,
      sheet.top - r.top, r.bottom - sheet.bottom);
    if (past > slack) found.push(`"${text.textContent}" ${past.toFixed(1)} px past ${name}`);
  }
  return found;
}"""

SCREENS = {"portrait": (600, 1000), "landscape": (1280, 720)}


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_no_text_leaves_its_box_in_any_language_or_orientation(pages_web, chromium, language):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}, bomb={"timer_seconds": 300}))
    found = []
    for orientation, (width, height) in SCREENS.items():
        context, page = new_page(chromium, width=width, height=height)
        context.add_cookies([{"name": "baccarat_lang", "value": language, "url": web.url}])
        try:
            for path in ("/casing", "/play"):
                page.goto(web.url + path)
                page.wait_for_selector("#casing[data-shape] svg text")
                shape = page.get_attribute("#casing", "data-shape")
                found += [f"{path} {orientation} ({shape}): {what}" for what in page.evaluate(OUTSIDE)]
        finally:
            context.close()
    assert not found, f"{language}:\n" + "\n".join(found)
    shots = os.environ.get("BACCARAT_SCREENSHOT_DIR")
    if shots and language in ("fr", "de"):  # the docs' pictures, the whole wide sheet at 12 px letters
        context, page = new_page(chromium, width=1500, height=1100)
        context.add_cookies([{"name": "baccarat_lang", "value": language, "url": web.url}])
        try:
            page.goto(web.url + "/casing")
            page.wait_for_selector("#casing[data-shape=wide] svg text")
            assert page.get_attribute("#casing", "class") == "casing", "the sheet is zoomed: a larger screen"
            page.locator("#casing svg").screenshot(path=str(Path(shots) / f"casing-{language}.png"))
        finally:
            context.close()
