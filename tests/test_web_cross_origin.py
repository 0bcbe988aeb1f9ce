"""Escape Room Master's view, in a real headless Chromium: a page of another origin polls the prop.

Escape Room Master runs in a browser and polls props with ``fetch`` from its own
page. Here that page is served from another loopback port (another origin, the
same site), in the same browser that has the console open: the browser holds a
live console session for the prop's address, and sends its cookie wherever the
rules let it. The page reads the controllers' endpoints, and cannot read the
console's state, its event stream or post a command.
"""

from __future__ import annotations

import http.server
import logging
import threading
from collections.abc import Iterator

import pytest

from tests import browser as web_browser
from tests.browser import TOKEN

web_factory, chromium = web_browser.web_factory, web_browser.chromium  # the fixtures

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

ERM_PAGE = b"<!doctype html><html><head><title>room controller</title></head><body>room controller</body></html>"

# The page's own polling loop, as Escape Room Master polls: every 100 ms, each answer kept in order.
POLL = """([url]) => {
    window.answers = [];
    window.failures = [];
    window.poller = setInterval(async () => {
        try {
            const response = await fetch(url);
            window.answers.push(await response.text());
        } catch (error) {
            window.failures.push(String(error));
        }
    }, 100);
}"""

# Each attempt on the console answers "read: ..." if the page could read it, "blocked: ..." if not.
READ_CONSOLE = """async ([base, credentials]) => {
    try {
        const response = await fetch(base + "/api/session", {credentials});
        return "read: " + await response.text();
    } catch (error) {
        return "blocked: " + error.name;
    }
}"""
POST_COMMAND = """async ([base]) => {
    try {
        const response = await fetch(base + "/api/command", {
            method: "POST", credentials: "include",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({command: "force_solve"}),
        });
        return "read: " + response.status;
    } catch (error) {
        return "blocked: " + error.name;
    }
}"""
# A "simple" request needs no preflight: the browser sends it with the session's cookie (the same
# site), and the page only may not read the answer. The prop must refuse it itself.
POST_BLIND = """async ([base]) => {
    const response = await fetch(base + "/api/command", {
        method: "POST", mode: "no-cors", credentials: "include",
        headers: {"Content-Type": "text/plain"},
        body: JSON.stringify({command: "force_solve"}),
    });
    return response.type;
}"""
LISTEN = """([base, withCredentials]) => new Promise((resolve) => {
    const source = new EventSource(base + "/events", {withCredentials});
    source.addEventListener("update", () => { source.close(); resolve("read"); });
    source.onerror = () => { source.close(); resolve("blocked"); };
})"""


class PageServer:
    """Another origin on this machine: one page on a free loopback port of its own."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(ERM_PAGE)))
                self.end_headers()
                self.wfile.write(ERM_PAGE)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/erm.html"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def context(chromium) -> Iterator:
    context = chromium.new_context()
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def erm_site() -> Iterator[PageServer]:
    site = PageServer()
    yield site
    site.close()


def test_a_page_of_another_origin_polls_the_prop_and_cannot_touch_the_console(web_factory, context, erm_site, caplog):
    caplog.set_level(logging.WARNING, logger="baccarat.web")
    web = web_factory()
    # The game master's console, open in this browser: it holds a session cookie for 127.0.0.1.
    console = context.new_page()
    console.goto(web.url + "/")
    console.wait_for_function("document.cookie !== undefined")
    assert any(cookie["name"] == "baccarat_session" for cookie in context.cookies(web.url))

    erm = context.new_page()
    erm.goto(erm_site.url)
    assert erm.evaluate("location.origin") != web.url, "the page must be of another origin"
    erm.evaluate(POLL, [f"{web.url}/status?token={TOKEN}"])
    erm.wait_for_function("window.answers.length >= 2")
    assert set(erm.evaluate("window.answers")) == {"not_triggered"}, erm.evaluate("window.failures")

    # The console's state, its event stream, a command: none for this page.
    for credentials in ("include", "omit"):
        answer = erm.evaluate(READ_CONSOLE, [web.url, credentials])
        assert answer.startswith("blocked: "), f"another origin read the console ({credentials}): {answer}"
    for with_credentials in (True, False):
        answer = erm.evaluate(LISTEN, [web.url, with_credentials])
        assert answer == "blocked", "another origin read the console's event stream"
    assert erm.evaluate(POST_COMMAND, [web.url]).startswith("blocked: "), "another origin posted a command"
    assert erm.evaluate(POST_BLIND, [web.url]) == "opaque"
    web.daemon.wait_idle()
    assert not web.state()["solved"], "a command from another origin ran"
    refused = [r.getMessage() for r in caplog.records if "refused: missing or wrong CSRF token" in r.getMessage()]
    assert refused, "the prop logged no refusal of the blind POST (with its cookie, the CSRF check must say no)"
    count = erm.evaluate("window.answers.length")
    erm.wait_for_function(f"window.answers.length >= {count + 2}")
    assert set(erm.evaluate("window.answers")) == {"not_triggered"}

    # The game master force-solves from the console: the page's polling sees it.
    web.login()
    assert web.command({"command": "force_solve"})[1]["ok"]
    erm.wait_for_function("window.answers.includes('triggered')")
    assert erm.evaluate("window.failures") == []
    state = erm.evaluate(f"async () => (await fetch('{web.url}/json?token={TOKEN}')).json()")
    assert state == {"status": 1, "enabled": 1, "strikes": 0, "outputs": [{"name": "lock", "on": 1}]}
    # Escape Room Master's own requests work too: reset from the page.
    assert erm.evaluate(f"async () => (await fetch('{web.url}/reset?token={TOKEN}')).text()") == "ok"
    count = erm.evaluate("window.answers.length")
    erm.wait_for_function(f"window.answers.slice({count}).includes('not_triggered')")
    erm.evaluate("clearInterval(window.poller)")
