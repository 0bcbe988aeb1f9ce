"""Every page and view in French, German and Spanish, as a room reads it: no English left.

Each page is opened in Chromium in the language (the console with each of its panels open and a
dialog, the logins and a refused password, the History view with a replay, ``/play``,
``/casing``), and every text a person reads there is taken (tests/languages.py): a word that only
the catalog's English messages use, never the language's translations, is English left on the
page (a message not marked, a value shown as the code names it, a message built from pieces). The
casing's PDF is read the same way. The few English words right in every language (names, units)
are :data:`tests.languages.REVIEWED`. (The docs site is in English only and has no picker.)
"""

from __future__ import annotations

import pytest

from firmware.casing import Casing
from firmware.casing.drawing import write
from firmware.casing.layout import draw_casing
from tests import browser
from tests.browser import new_page
from tests.conftest import make_config
from tests.languages import LANGUAGES, english_in, memory_web, read

chromium = browser.chromium  # the fixtures
__all__ = ["memory_web"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

PASSWORD = "correct horse battery"
LOCK = {"name": "lock", "pin": 15, "on": "solved", "mode": "hold", "off_on": "reset", "max_on_seconds": 30}
OPEN_ALL = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


def console_texts(page, url: str) -> list[tuple[str, str]]:
    page.goto(url + "/")
    page.wait_for_selector("#connection.live")
    page.locator("#log-list li.strike").first.wait_for()
    page.wait_for_function("() => document.getElementById('answer-next').textContent.length > 3")
    page.evaluate(OPEN_ALL)
    page.click("button[data-command=hint]")
    page.wait_for_selector("#message.ok")
    texts = read(page)
    page.click("button[data-command=force_solve]")
    page.wait_for_selector("#confirm[open]")
    texts += read(page)
    page.click("#confirm button[value=yes]")
    page.wait_for_selector("#status-badge.solved")
    page.wait_for_function("() => document.querySelector('#output-list li') !== null")
    texts += read(page)
    return texts


def history_texts(page, url: str) -> list[tuple[str, str]]:
    page.goto(url + "/history")
    page.wait_for_selector("#games-table tbody tr")
    page.wait_for_function("() => document.getElementById('where').textContent.length > 3")
    page.locator("#games-table tbody tr button").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_function("() => document.getElementById('round-select').options.length > 0")
    texts = read(page)
    # every step's line of every chapter, as the page shows them (#replay-label is a step's label)
    labels = page.evaluate("""async () => {
      const id = document.querySelector("#games-table tbody tr").dataset.id;
      const get = async (n) => (await fetch(`/history/api/replay/${encodeURIComponent(id)}/${n}`)).json();
      const first = await get(0);
      const out = first.steps.map((s) => s.label);
      for (let n = 1; n < first.chapters; n++) out.push(...(await get(n)).steps.map((s) => s.label));
      return out;
    }""")
    assert len(labels) > 2, labels
    texts += [("#replay-label", label) for label in labels]
    return texts


def players_texts(page, url: str) -> list[tuple[str, str]]:
    page.goto(url + "/login?restarted")
    texts = read(page)
    page.fill("input[name=password]", "wrong password!")
    page.click("button[type=submit]")
    page.wait_for_selector("p.error")
    texts += read(page)
    page.goto(url + "/play/login?next=/casing")
    texts += read(page)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(url + "/casing")
    page.wait_for_selector("#casing[data-shape]")
    texts += read(page)
    page.goto(url + "/play")
    page.wait_for_selector("#connection.live")
    page.wait_for_selector(".panel-face .cap")
    texts += read(page)
    return texts


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_shows_english_in_the_rooms_language(memory_web, chromium, language):
    web = memory_web(
        make_config(state={"file": ""}, control={"socket": ""}, outputs=[LOCK], bomb={"timer_seconds": 300}),
        settings={"language": language, "password": PASSWORD},
    )
    web.rig.tap("player")
    web.rig.deal()  # $1 is below the table's minimum: a strike
    web.daemon.wait_idle()
    context, page = new_page(chromium, width=1280, height=1000)
    try:
        page.goto(web.url + "/login")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(web.url + "/")
        found = [f"console {text}" for text in english_in(language, console_texts(page, web.url))]
        found += [f"History {text}" for text in english_in(language, history_texts(page, web.url))]
    finally:
        context.close()
    context, page = new_page(chromium, width=1024, height=768)
    try:
        found += [f"players' {text}" for text in english_in(language, players_texts(page, web.url))]
    finally:
        context.close()
    assert not found, f"{language}: English on the pages:\n" + "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_casings_pdf_has_no_english_in_the_rooms_language(language, tmp_path):
    from pypdf import PdfReader

    from baccarat_core.bomb import RandomBombs

    edgework = RandomBombs(7).bomb(1)
    out = tmp_path / "casing.pdf"
    write(draw_casing(Casing.from_edgework(edgework, timer=300.0), language=language), out)
    text = "\n".join(page.extract_text() for page in PdfReader(out).pages)
    found = english_in(language, [("pdf", line) for line in text.splitlines()])
    assert not found, f"{language}: English in the casing's PDF:\n" + "\n".join(found)
