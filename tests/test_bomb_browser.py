"""The countdown in a real headless Chromium (issue 24 part 3): the casing page and the console show
it and follow it second by second while they are open (the prop's own ticks: no script counts on the
page), and the casing shows the explosion. The prop's clock is a manual one."""

from __future__ import annotations

import os

import pytest

from firmware.simulator.pins import ManualClock
from tests import browser
from tests.browser import new_page, png_image

web_factory, chromium = browser.web_factory, browser.chromium  # the fixtures

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")


def open_page(chromium, url: str):
    context, page = new_page(chromium)
    page.goto(url)
    page.wait_for_selector("#connection.live")
    assert page.text_content("#connection") == "live"
    return context, page


def red_share(page, selector: str) -> float:
    """The share of bright red pixels in an element's box on a screenshot."""
    area = page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect(); "
        "return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }",
        selector,
    )
    shot = png_image(page.screenshot(full_page=True))
    if os.environ.get("DEBUG_SHOT"):
        shot.save(f"/tmp/shot-timer-{selector.strip('#').replace(' ', '-')}.png")
    hits = total = 0
    for y in range(int(area["y"]) + 1, int(area["y"] + area["height"]) - 1):
        for x in range(int(area["x"]) + 1, int(area["x"] + area["width"]) - 1):
            r, g, b = shot.getpixel((x, y))
            total += 1
            hits += r > 200 and g < 110 and b < 110
    return hits / max(total, 1)


def timer_text(page) -> str:
    return page.evaluate("() => document.querySelector('#casing #timer text').textContent")


def test_the_casing_page_counts_down_with_the_prop_and_shows_the_explosion(web_factory, chromium):
    clock = ManualClock()
    web = web_factory(front_panel=False, bomb={"timer_seconds": 300, "strike_limit": 3}, clock=clock)
    context, page = open_page(chromium, web.url + "/casing")
    try:
        assert timer_text(page) == "05:00"
        assert red_share(page, "#casing #timer") > 0.01, "the digits are lit red (no timer draws them dark)"
        web.daemon.apply(lambda module: module.start_timer()).result(5)
        clock.advance(61.0)
        # No input and no command: the prop's own tick (the page watches) brings the new second.
        page.wait_for_function("() => document.querySelector('#casing #timer text').textContent === '03:59'")
        for shown in ("03:58", "03:57"):
            clock.advance(1.0)
            page.wait_for_function("(t) => document.querySelector('#casing #timer text').textContent === t", arg=shown)
        clock.advance(1000.0)
        page.wait_for_selector("#casing #timer.exploded")
        assert timer_text(page) == "00:00"
        assert page.locator("#casing #timer text").nth(1).text_content() == "EXPLODED"
        if os.environ.get("DEBUG_SHOT"):
            page.screenshot(path="/tmp/shot-casing-exploded.png")
    finally:
        context.close()


def test_the_console_shows_the_countdown_and_the_game_master_adds_time(web_factory, chromium):
    clock = ManualClock()
    web = web_factory(front_panel=False, bomb={"timer_seconds": 300}, clock=clock)
    context, page = open_page(chromium, web.url + "/")  # on this machine, without a password: no login
    try:
        page.wait_for_selector("#timer-badge:not([hidden])")
        assert page.text_content("#timer-badge") == "05:00"
        assert "waits for the first input" in page.text_content("#fact-timer")
        page.click("#form-timer button[data-command=start]")
        page.wait_for_function("() => document.getElementById('fact-timer').textContent.includes('running')")
        clock.advance(30.0)
        page.wait_for_function("() => document.getElementById('timer-badge').textContent === '04:30'")
        page.fill("#form-timer input[name=seconds]", "-90")
        page.click("#form-timer button[type=submit]")
        page.wait_for_function("() => document.getElementById('timer-badge').textContent === '03:00'")
        assert "running" in page.get_attribute("#timer-badge", "class")
        if os.environ.get("DEBUG_SHOT"):
            page.screenshot(path="/tmp/shot-console-timer.png", full_page=True)
    finally:
        context.close()
