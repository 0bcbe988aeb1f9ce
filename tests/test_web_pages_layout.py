"""The pages on a phone and a tablet at 1x, in a real headless Chromium (issue 32, newcomers' paths
3-5): the players' displays crisp at whole pixels, the casing filling a phone held upright (and
printing wide), the console's Force solve and Reset on a phone's first screen, the History table
within a phone's width, the edgework form's placeholders the live values, 24-hour dates, no
"0 min ago" before anyone moved, and the reset dialog's warning for a random bomb."""

from __future__ import annotations

import io
import re

import pytest

from baccarat_core import TableLimits, build_deck
from baccarat_core.cheatsheet import cheat_sheet
from baccarat_core.edgework import Edgework
from tests import browser
from tests.browser import new_page, png_image
from tests.conftest import make_config
from tests.pages import assert_crisp, box, pages_web, random_config

chromium, page, web_factory = browser.chromium, browser.page, browser.web_factory  # the fixtures
__all__ = ["pages_web"]

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")
pypdf = pytest.importorskip("pypdf", reason="pip install pypdf (scripts/test.sh does)")

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 768, "height": 1024}


def test_the_players_displays_are_crisp_whole_pixels_on_a_1x_tablet(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}))
    web.rig.tap("player")
    web.daemon.wait_idle()
    for size in (TABLET, {"width": 1024, "height": 768}):
        context, page = new_page(chromium, **size)
        try:
            page.goto(web.url + "/play")
            page.wait_for_selector("#connection.live")
            for role in web.backend.roles:
                frame = web.backend.frame(role)
                page.wait_for_function(
                    "(id) => { const img = document.getElementById(id); return img.complete && img.dataset.scale; }",
                    arg=f"panel-display-{role}",
                )
                shot = png_image(page.screenshot())
                area = box(page, f"#panel-display-{role}")
                scale = assert_crisp(shot, area, frame, f"/play's {role} display at {size['width']} px")
                window = box(page, f".window[data-role={role}]")
                assert window["width"] >= area["width"] and window["height"] >= area["height"]
                assert scale == 1 or area["width"] >= 200, "a larger scale than its board allows"
        finally:
            context.close()


def test_the_casing_fills_a_phone_held_upright_and_prints_wide(web_factory, chromium):
    web = web_factory(front_panel=False)
    context, page = new_page(chromium, **PHONE)
    try:
        page.goto(web.url + "/casing")
        page.wait_for_selector("#connection.live")
        page.wait_for_selector("#casing[data-shape=tall]")
        drawn = box(page, "#casing svg")
        assert drawn["height"] >= 0.6 * PHONE["height"], f"the casing is a band {drawn['height']:.0f} px high"
        assert page.locator("#casing #serial").count() == 1 and page.locator("#casing #qr").count() == 1
        pdf = pypdf.PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True)))
        assert len(pdf.pages) == 1
        sheet = pdf.pages[0].mediabox
        assert float(sheet.width) > float(sheet.height), "printed from a phone, the sheet is not landscape"
        assert "SIDE 4" in pdf.pages[0].extract_text()
        assert page.get_attribute("#casing", "data-shape") == "tall", "the screen did not get its drawing back"
        page.set_viewport_size({"width": PHONE["height"], "height": PHONE["width"]})  # turned sideways
        page.wait_for_selector("#casing[data-shape=wide]")
        drawn = box(page, "#casing svg")
        assert drawn["height"] >= 0.8 * (PHONE["width"] - 60)
    finally:
        context.close()


def test_a_printed_casing_from_a_phone_is_the_wide_sheet(web_factory, chromium):
    web = web_factory(front_panel=False)
    context, page = new_page(chromium, **PHONE)
    try:
        page.goto(web.url + "/casing")
        page.wait_for_selector("#casing[data-shape=tall]")
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        assert page.get_attribute("#casing", "data-shape") == "wide"
        assert page.get_attribute("#casing svg", "viewBox") == "0 0 256 180"
        page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
        assert page.get_attribute("#casing", "data-shape") == "tall"
    finally:
        context.close()


def test_on_a_phone_force_solve_and_reset_are_on_the_first_screen(web_factory, chromium):
    web = web_factory(front_panel=True)
    context, page = new_page(chromium, **PHONE)
    try:
        page.goto(web.url + "/")
        page.wait_for_selector("#connection.live")
        page.wait_for_function("() => document.getElementById('display-table').dataset.scale")
        for button in ("button[data-command=force_solve]", "#form-reset button[type=submit]"):
            where = box(page, button)
            assert where["y"] + where["height"] <= PHONE["height"], f"{button} is {where['y']:.0f} px down"
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height <= 2700, f"the console is {height} px tall on a phone (3,453 before the phone layout)"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the console is {width} px wide on a {PHONE['width']} px phone"
        # The folded parts unfold with a tap.
        assert page.is_hidden("#form-edgework") and page.is_hidden("#panel-face")
        page.click("#more-controls > summary")
        assert page.is_visible("#form-edgework button[type=submit]")
    finally:
        context.close()


def test_the_history_table_fits_a_phone_its_figures_named(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}))
    web.rig.tap("player")
    web.rig.deal()
    web.daemon.wait_idle()
    context, page = new_page(chromium, **PHONE)
    try:
        page.goto(web.url + "/")  # the console's session, which the History view asks for
        page.goto(web.url + "/history")
        page.wait_for_selector("#games-table tbody tr")
        wrap = page.evaluate(
            "() => { const w = document.querySelector('.table-wrap'); return [w.scrollWidth, w.clientWidth]; }"
        )
        assert wrap[0] <= wrap[1], f"the table is {wrap[0]} px wide in a {wrap[1]} px box"
        row = page.locator("#games-table tbody tr").first
        assert "Rounds 0" in row.inner_text() and "Strikes 1" in row.inner_text(), row.inner_text()
        assert box(page, "#games")["y"] < box(page, "#averages")["y"], "the games are below the averages"
    finally:
        context.close()


def test_dates_are_on_the_24_hour_clock_as_the_log_is(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}))
    context = chromium.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(web.url + "/")
        page.goto(web.url + "/history")
        started = page.locator("#games-table tbody tr td").nth(1)
        started.wait_for()
        assert re.search(r"\b\d\d:\d\d:\d\d\b", started.inner_text()), started.inner_text()
        assert not re.search(r"\b[AP]M\b", started.inner_text()), started.inner_text()
    finally:
        context.close()


def test_the_edgework_forms_placeholders_are_the_bombs_values_now(web_factory, page):
    web = web_factory(front_panel=False)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    form = "#form-edgework input[name={}]"
    page.wait_for_function("(s) => document.querySelector(s).placeholder === 'AB3DE4'", arg=form.format("serial"))
    now = web.state()["edgework"]
    assert page.get_attribute(form.format("ports"), "placeholder") == ", ".join(now["ports"])
    assert page.get_attribute(form.format("lit"), "placeholder") == "FRK"
    assert page.get_attribute(form.format("unlit"), "placeholder") == "CAR"
    web.login()
    status, reply = web.command({"command": "set_edgework", "serial": "ZZ9ZZ9", "ports": [], "lit": "BOB, SND"})
    assert status == 200, reply
    page.wait_for_function("(s) => document.querySelector(s).placeholder === 'ZZ9ZZ9'", arg=form.format("serial"))
    assert page.get_attribute(form.format("ports"), "placeholder") == "none"
    assert page.get_attribute(form.format("lit"), "placeholder") == "BOB, SND"


def test_no_minutes_since_progress_before_anyone_moved(pages_web, chromium):
    web = pages_web(make_config(state={"file": ""}, control={"socket": ""}))
    context, page = new_page(chromium)
    try:
        page.goto(web.url + "/")
        page.wait_for_selector("#connection.live")
        page.wait_for_function("() => document.getElementById('stuck-minutes').textContent !== '-'")
        assert page.inner_text("#stuck-minutes") == "none yet (game started 0 min ago)"
        web.rig.tap("player")
        page.wait_for_function("() => document.getElementById('stuck-minutes').textContent === '0 min ago'")
    finally:
        context.close()


@pytest.mark.parametrize("random_bomb", [True, False], ids=["random", "fixed"])
def test_the_reset_dialog_says_a_random_bomb_is_drawn_anew(pages_web, page, random_bomb):
    config = random_config() if random_bomb else make_config(state={"file": ""}, control={"socket": ""})
    web = pages_web(config)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    page.wait_for_function("() => document.getElementById('status-badge').textContent !== '-'")
    page.click("#form-reset button[type=submit]")
    page.wait_for_selector("#confirm[open]")
    said = page.inner_text("#confirm-text")
    assert said.startswith("Reset the module?")
    assert ("a casing printed for this one no longer matches" in said) is random_bomb, said
    page.click("#confirm button[value=cancel]")


def test_the_cheat_sheet_lists_names_with_a_space():
    limits = TableLimits(25, 1000)
    edgework = Edgework("AB3DE4", ("Parallel", "Serial"), ("SND", "FRQ"), ())
    sheet = cheat_sheet(edgework, limits, build_deck(edgework, limits, "red"))
    assert "ports Parallel, Serial, lit SND, FRQ, unlit none" in sheet, sheet.splitlines()[1]
