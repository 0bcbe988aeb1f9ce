"""The console as a game master uses it, in a real headless Chromium: a prop restart under an
open page, confirmations before force solve, reset and disable, and the edgework form."""

from __future__ import annotations

import pytest

from baccarat_core.records import replace
from firmware.web.server import WebService
from tests import browser as helpers
from tests.browser import console_parts

web_factory = helpers.web_factory  # the fixtures
chromium, page = helpers.chromium, helpers.page

PASSWORD = "correct horse battery"


def restart(web) -> None:
    """The prop restarts as the page sees it: the server goes away and comes back on the same port,
    a new start that knows no session (the daemon behind it carries on: only the page is tested)."""
    port = web.service.port
    web.service.stop()
    _, extensions = console_parts({})
    service = WebService(web.backend, replace(web.service.settings, port=port), extensions=extensions)
    service.start()
    web.service = service


def test_an_open_page_notices_a_restart_and_reconnects_by_itself(web_factory, page):
    web = web_factory(front_panel=False)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    page.locator("#log-list li").first.wait_for()
    restart(web)
    page.locator("#message", has_text="The prop restarted").wait_for(timeout=20_000)
    page.wait_for_selector("#connection.live")
    assert not page.is_hidden("#message")
    # The new session works: a command from the page reaches the prop.
    page.click("button[data-command=hint]")
    page.locator("#message", has_text="Hint:").wait_for()
    assert page.url == web.url + "/"


def test_with_a_password_a_restart_takes_the_page_to_the_login(web_factory, page):
    web = web_factory(front_panel=False, settings={"password": PASSWORD})
    page.goto(web.url + "/login")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#connection.live")
    restart(web)
    page.wait_for_url(web.url + "/login?restarted", timeout=20_000)
    assert "The prop restarted: log in again." in page.inner_text("body")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#connection.live")


@pytest.mark.parametrize(
    ("press", "question", "done"),
    [
        ("button[data-command=force_solve]", "Force solve the module?", lambda s: s["solved"]),
        ("#form-reset button[type=submit]", "Reset the module?", lambda s: s["strikes"] == 0),
        ("button[data-command=disable]", "Disable the module?", lambda s: not s["enabled"]),
    ],
    ids=["force_solve", "reset", "disable"],
)
def test_force_solve_reset_and_disable_ask_first(web_factory, page, press, question, done):
    web = web_factory(front_panel=False)
    web.rig.deal()  # no bet: a strike, which a reset clears
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    before = web.state()
    assert not done(before)
    page.click(press)
    page.wait_for_selector("#confirm[open]")
    assert question in page.inner_text("#confirm-text")
    page.click("#confirm button[value=cancel]")
    page.wait_for_selector("#confirm", state="hidden")
    page.click(press)
    page.wait_for_selector("#confirm[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#confirm", state="hidden")
    page.wait_for_timeout(300)  # a command sent anyway would have arrived by now
    web.daemon.wait_idle()
    assert web.state() == before, "the command ran without a yes"
    page.click(press)
    page.click("#confirm-yes")
    page.wait_for_selector("#message.ok")
    web.daemon.wait_idle()
    assert done(web.state())


def test_other_commands_need_no_confirmation(web_factory, page):
    web = web_factory(front_panel=False)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    page.click("button[data-command=disable]")
    page.click("#confirm-yes")
    page.wait_for_selector("#message.ok")
    page.click("button[data-command=enable]")
    page.locator("#message", has_text="Enable: done.").wait_for()
    assert page.is_hidden("#confirm")
    assert web.state()["enabled"]


def fill_edgework(page, **values: str) -> None:
    page.evaluate("() => document.getElementById('form-edgework').reset()")
    for name, value in values.items():
        page.fill(f"#form-edgework input[name={name}]", value)
    page.evaluate("() => { document.getElementById('message').className = ''; }")
    page.click("#form-edgework button[type=submit]")
    page.wait_for_selector("#message.ok, #message.error")


def test_an_empty_edgework_field_keeps_and_none_empties(web_factory, page):
    web = web_factory(front_panel=False)
    page.goto(web.url + "/")
    page.wait_for_selector("#connection.live")
    page.locator("#fact-edgework", has_text="AB3DE4").wait_for()
    start = web.state()["edgework"]
    assert start["lit"] == ["FRK"] and start["unlit"] == ["CAR"] and start["ports"]

    fill_edgework(page, serial="XY9ZW1")  # only the serial: everything else stays
    assert page.get_attribute("#message", "class") == "ok", page.inner_text("#message")
    web.daemon.wait_idle()
    assert web.state()["edgework"] == {**start, "serial": "XY9ZW1"}
    page.locator("#fact-edgework", has_text="XY9ZW1").wait_for()

    fill_edgework(page, lit="none", unlit="BOB, CLR")  # "none" empties one list, another is replaced
    assert page.get_attribute("#message", "class") == "ok", page.inner_text("#message")
    web.daemon.wait_idle()
    assert web.state()["edgework"] == {**start, "serial": "XY9ZW1", "lit": [], "unlit": ["BOB", "CLR"]}
    page.locator("#fact-edgework", has_text="; lit none;").wait_for()

    fill_edgework(page, ports="none", solved="2")
    web.daemon.wait_idle()
    assert web.state()["edgework"] == {"serial": "XY9ZW1", "ports": [], "lit": [], "unlit": ["BOB", "CLR"], "solved": 2}
