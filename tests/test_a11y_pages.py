"""Every page anyone can use: no serious or critical violation under axe-core in Chromium, in every
language, the keyboard alone enough, and no state shown by colour only.

axe-core (Deque's rules, from npm: ``scripts/_axe.sh`` puts it in ``.nodered/``) is injected into
each page as it is shown to a person (the console with every panel open and a dialog, the logins,
the History view with a replay, ``/play``, ``/casing``, the docs site), and its violations whose
impact is ``serious`` or ``critical`` fail the test, each named with its rule and the elements.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.web import docs_site
from tests import browser
from tests.browser import web_factory
from tests.conftest import make_config
from tests.pages import pages_web
from tests.test_docs_site import site as _site

chromium = browser.chromium  # the fixtures
site = _site  # the built site, once a module (tests/test_docs_site.py)
__all__ = ["pages_web", "site", "web_factory"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / ".nodered" / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "correct horse battery"
LOCK = {"name": "lock", "pin": 15, "on": "solved", "mode": "hold", "off_on": "reset", "max_on_seconds": 30}
OPEN_ALL = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
#: axe's run: the violations only, as ``rule (impact): the elements' selectors``.
RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 4).join(", ")}`);
}"""


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.is_file():
        pytest.skip("axe-core is not in .nodered/ (bash scripts/_axe.sh installs it; scripts/test.sh does)")
    return AXE.read_text(encoding="utf-8")


def violations(page: Any, axe: str) -> list[str]:
    """axe's serious and critical violations on ``page`` as it is now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe)
    return list(page.evaluate(RUN))


@pytest.fixture
def context(chromium) -> Iterator[Any]:
    """A browser context of 1280 x 900 that lets axe's script in (the pages' CSP forbids inline scripts)."""
    made = chromium.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1, bypass_csp=True)
    yield made
    made.close()


def new(context: Any) -> Any:
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_no_page_has_a_serious_accessibility_violation(pages_web, context, axe, language):
    web = pages_web(
        make_config(state={"file": ""}, control={"socket": ""}, outputs=[LOCK], bomb={"timer_seconds": 300}),
        settings={"language": language, "password": PASSWORD},
    )
    web.rig.tap("player")
    web.rig.deal()  # a strike: the log, the strikes and the History have something to show
    web.daemon.wait_idle()
    page = new(context)
    found = []
    page.goto(web.url + "/login?restarted")
    found += [f"/login: {v}" for v in violations(page, axe)]
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(web.url + "/")
    page.wait_for_selector("#connection.live")
    page.wait_for_selector("#output-list li")
    page.wait_for_function("() => document.getElementById('cheat-sheet').textContent.length > 40")
    page.evaluate(OPEN_ALL)
    page.wait_for_selector("#panel-face .cap")
    found += [f"/: {v}" for v in violations(page, axe)]
    page.click("button[data-command=force_solve]")
    page.wait_for_selector("#confirm[open]")
    found += [f"/ (dialog): {v}" for v in violations(page, axe)]
    page.click("#confirm button[value=cancel]")
    page.goto(web.url + "/history")
    page.wait_for_selector("#games-table tbody tr")
    page.locator("#games-table tbody tr button").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    found += [f"/history: {v}" for v in violations(page, axe)]
    page.goto(web.url + "/play/login?next=/casing")
    found += [f"/play/login: {v}" for v in violations(page, axe)]
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(web.url + "/casing")
    page.wait_for_selector("#casing[data-shape] svg text")
    found += [f"/casing: {v}" for v in violations(page, axe)]
    page.goto(web.url + "/play")
    page.wait_for_selector("#casing[data-shape] svg text")
    page.wait_for_selector(".panel-face .cap")
    found += [f"/play: {v}" for v in violations(page, axe)]
    assert not found, f"{language}:\n" + "\n".join(found)


#: The docs' pages axe reads: the home page, each section's first page (the site's every kind of
#: page: its tables, code, pictures, admonitions) and the pages of the console, the languages, the
#: tablet and the party (axe takes seconds a page: the whole site would take minutes).
DOCS_PAGES = ("", *(f"{index.parent.name}/" for index in sorted((ROOT / "docs").glob("*/index.md"))))
DOCS_PAGES += ("run/console/", "run/language/", "play/tablet/", "play/party/")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_docs_site_has_no_serious_accessibility_violation(site, web_factory, monkeypatch, chromium, axe, scheme):
    monkeypatch.setattr(docs_site, "SITE", site)
    web = web_factory(settings={"password": PASSWORD})
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, bypass_csp=True)
    found = []
    try:
        page = new(context)
        for path in DOCS_PAGES:
            page.goto(f"{web.url}/docs/{path}")
            page.wait_for_selector("article")
            found += [f"/docs/{path}: {v}" for v in violations(page, axe)]
    finally:
        context.close()
    assert not found, f"{scheme}:\n" + "\n".join(found)


def tab_to(page: Any, selector: str, most: int = 80) -> None:
    """Press Tab until ``selector`` has the focus (as a keyboard user gets there)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} is never reached with Tab ({most} presses)")


def test_the_console_and_the_panel_are_used_with_the_keyboard_alone(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}, bomb={"timer_seconds": 300}))
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = new(context)
        page.goto(web.url + "/play")
        page.wait_for_selector(".panel-face .cap")
        page.wait_for_selector("#connection.live")
        tab_to(page, ".cap[data-input=player]")
        page.keyboard.press("Space")  # a press and a release: a chip on Player
        web.rig.wait_for("chip", timeout=10)
        tab_to(page, "#casing")  # the casing's box scrolls with the arrows where it is larger than the screen
        page.goto(web.url + "/")
        page.wait_for_selector("#connection.live")
        tab_to(page, "button[data-command=force_solve]")
        page.keyboard.press("Enter")
        page.wait_for_selector("#confirm[open]")
        assert page.evaluate("() => document.activeElement.value") == "cancel"  # the safe answer first
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.value") == "yes"
        page.keyboard.press("Enter")
        page.wait_for_selector("#status-badge.solved")
        tab_to(page, "#answer summary")
        page.keyboard.press("Enter")  # the answer unfolds
        tab_to(page, "#cheat-sheet-box")
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_light_tells_its_state_by_colour_only(pages_web, chromium, language):
    web = pages_web(
        make_config(state={"file": ""}, control={"socket": ""}, bomb={"timer_seconds": 300}),
        settings={"language": language},
    )
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies([{"name": "baccarat_lang", "value": language, "url": web.url}])
    try:
        page = new(context)
        page.goto(web.url + "/play")
        page.wait_for_selector(".panel-face .cap")
        deck = web.state()["deck"]["color"] if isinstance(web.state().get("deck"), dict) else web.state()["deck"]
        name = {"fr": {"red": "rouge", "blue": "bleu", "green": "vert", "silver": "argent"}}.get(language, {})
        page.wait_for_function("() => document.querySelector('.led-state.right').textContent.length > 1")
        assert page.inner_text(".led-state.right").lower() == name.get(deck, deck)
        assert page.inner_text(".led-state.left") == ""  # the status light is off: nothing to tell
        web.login()
        assert web.command({"command": "force_solve"})[0] == 200
        solved = {"en": "SOLVED", "fr": "RÉSOLUE"}[language]
        page.wait_for_function("(s) => document.querySelector('.led-state.left').innerText === s", arg=solved)
        page.goto(web.url + "/")  # the console says both lights in words
        page.wait_for_function("() => document.getElementById('light-status-text').textContent.length > 2")
        assert page.inner_text("#light-status-text") not in ("", "-")
        assert page.inner_text("#light-deck-text").lower() == name.get(deck, deck)
    finally:
        context.close()
