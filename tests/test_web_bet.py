"""The console's bet box in a real headless Chromium (issue 25 part 2): a game master types the
players' words, the prop plays them; on a prop without a front panel too, and behind the password."""

from __future__ import annotations

from tests import browser
from tests import test_web_browser as web_tests

# The fixtures of the console's browser tests: the daemon with its console, Chromium, a page.
web_factory, chromium, page = browser.web_factory, browser.chromium, browser.page

PASSWORD = "correct horse battery"


def test_the_bet_box_plays_the_players_words_on_a_prop_without_a_front_panel(web_factory, page):
    web = web_factory(front_panel=False, settings={"password": PASSWORD})
    status, _, _ = web.request("POST", "/api/command", {"command": "bet", "bets": "25 on banker"})
    assert status == 401 and web.state()["bets"]["banker"] == 0  # behind the password, like every command
    page.goto(web.url + "/")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#connection.live")
    # The panel only mirrors the prop's (its buttons cannot be pressed); the bet box is there.
    page.wait_for_selector("#panel-face button[data-input=player]")
    assert page.is_disabled("button[data-input=player]") and page.is_visible("#form-bet")
    web.rig.tap("tie")  # a chip on the table, that the bet clears

    page.fill("#bet-words", "bet 25 on player, $25 on banker")
    page.press("#bet-words", "Enter")
    page.wait_for_selector("#message.ok")
    strike = "STRIKE 1: bets on both Player ($25) and Banker ($25); no deal, the chips stay"
    assert page.inner_text("#message") == f"bet $25 on Player, $25 on Banker: {strike}"
    assert web.state()["stacks"] == {"player": [25], "banker": [25], "tie": [], "player_pair": [], "banker_pair": []}
    web_tests.assert_page_shows(page, web, "bets")
    page.wait_for_function("document.getElementById('log-list').textContent.includes('tie cleared (held)')")

    # Words no chips can place: the reason on the page, and nothing changes.
    before = web.state()
    page.evaluate("() => { document.getElementById('message').className = ''; }")
    page.fill("#bet-words", "bet 2.5 on tie")
    page.click("#form-bet button[type=submit]")
    page.wait_for_selector("#message.error")
    assert page.inner_text("#message") == 'Bet: bet: the amount on Tie "2.5" is not a whole number of dollars'
    web.daemon.wait_idle()
    assert web.state() == before

    # The winning bet: the cards come and the module is solved.
    winner = web.daemon.call(lambda: web_tests.hint(web.daemon.module)).result(5)["winner"]
    words = f"100 on {winner}" if winner != "tie" else "100 on player, 100 on tie"
    page.evaluate("() => { document.getElementById('message').className = ''; }")
    page.fill("#bet-words", words)
    page.click("#form-bet button[type=submit]")
    page.wait_for_selector("#message.ok")
    assert page.inner_text("#message").endswith(": SOLVED")
    web.rig.wait_for("solved")
    assert web.state()["status"] == "solved"
    web_tests.assert_page_shows(page, web, "table")
