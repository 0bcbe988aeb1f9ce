"""The game master and the room controller keep the console while strangers spend it (issue 33).

- Another site's page, open in the browser on the controller's PC, sends wrong tokens as
  ``<img>`` requests (no ``Origin``): it locks itself out, never Escape Room Master polling
  from its own page in the same browser, from the same address (a real Chromium).
- Four addresses hold every connection they may with public event streams and login bodies
  that never end, reopening each one the console closes: the game master's requests and the
  controller's polls are still answered (real connections against the real server).
"""

from __future__ import annotations

import selectors
import socket
import threading
import time

import pytest

from firmware.web.guard import MAX_CONNECTIONS, MAX_PER_ADDRESS
from tests import browser as web_browser
from tests.browser import TOKEN
from tests.test_web_api import Stream
from tests.test_web_cross_origin import POLL, PageServer, context, erm_site  # noqa: F401 - the fixtures
from tests.test_web_hostile import PASSWORD, http, until

web_factory, chromium = web_browser.web_factory, web_browser.chromium  # the fixtures

pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")

# Another site's page: wrong tokens as images, one every 20 ms, until 40 have been answered.
IMAGES = """([url]) => new Promise((resolve) => {
    let answered = 0;
    const timer = setInterval(() => {
        const img = new Image();
        img.onload = img.onerror = () => { if (++answered === 40) { clearInterval(timer); resolve(answered); } };
        img.src = url + "&n=" + Math.random();
    }, 20);
})"""


def test_another_sites_images_lock_out_that_page_not_the_controller(web_factory, context, erm_site):  # noqa: F811
    web = web_factory()
    web.service.wrong_secret_pause = 0.05  # the counting is tested, not the pause
    erm = context.new_page()
    erm.goto(erm_site.url)
    erm.evaluate(POLL, [f"{web.url}/status?token={TOKEN}"])
    erm.wait_for_function("window.answers.length >= 2")
    other_site = PageServer()
    try:
        page = context.new_page()
        page.goto(other_site.url)
        assert page.evaluate("location.origin") != erm.evaluate("location.origin")
        before = erm.evaluate("window.answers.length")
        assert page.evaluate(IMAGES, [f"{web.url}/status?token=wrong-token-0000"]) == 40
        erm.wait_for_function(f"window.answers.length >= {before + 5}")
    finally:
        other_site.close()
    erm.evaluate("clearInterval(window.poller)")
    answers = erm.evaluate("window.answers")
    assert set(answers) == {"not_triggered"}, [a for a in answers if a != "not_triggered"][:3]
    assert erm.evaluate("window.failures") == []
    # The images' guesser (this address, naming no page) is locked: a wrong token is not compared.
    status, _, body = http(web.service.port, "GET", "/status?token=wrong-token-0001")
    assert status == 429 and b"too many wrong tokens" in body


class Squatters:
    """Every connection four addresses may hold: on each, a public casing stream or a login whose
    body never comes; a connection the console closes (a ``503``, a ``408``) is opened again."""

    def __init__(
        self, port: int, sources: list[str], *, streams_only: bool = False, each: int = MAX_PER_ADDRESS
    ) -> None:
        self.port = port
        self.slots = [(source, streams_only or n % 2 == 0) for source in sources for n in range(each)]
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.reopened = 0
        for slot in range(len(self.slots)):
            self._open(slot)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self, slot: int) -> None:
        source, stream = self.slots[slot]
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", self.port))
        if stream:
            sock.sendall(b"GET /casing/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        else:
            sock.sendall(
                b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\npass"
            )
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, slot)

    def _run(self) -> None:
        while not self.stopping.is_set():
            for key, _ in self.selector.select(0.1):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except ConnectionError:
                    data = b""
                if not data:  # closed by the console: open it again, at once
                    self.selector.unregister(sock)
                    sock.close()
                    self.reopened += 1
                    if not self.stopping.is_set():
                        self._open(key.data)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
        self.selector.close()


def test_squatted_connections_leave_the_game_master_and_the_controller_served(web_factory):
    web = web_factory(settings={"password": PASSWORD, "casing_public": True})
    web.login(PASSWORD)
    console = Stream(web)  # the console page's own live stream
    console.update()
    port = web.service.port
    squatters = Squatters(port, [f"127.0.40.{n}" for n in range(1, 5)])
    try:
        until(lambda: len(web.service.guard) >= MAX_CONNECTIONS - 1, what="every connection squatted")
        time.sleep(0.5)
        command = {"Cookie": web.cookie, "X-CSRF-Token": web.csrf, "Content-Type": "application/json"}
        answers = []
        for _ in range(20):
            answers.append(http(port, "GET", "/api/session", headers={"Cookie": web.cookie}, source="127.0.0.1")[0])
            answers.append(http(port, "POST", "/api/command", b'{"command": "status"}', command)[0])
            answers.append(http(port, "GET", f"/status?token={TOKEN}", source="127.0.41.1")[0])
        web.rig.tap("player")
        assert console.update(), "the console's stream stopped"
        # A guesser among them learns nothing from the kept connections: a wrong token is counted
        # (and refused), so that after ten the right one is not compared either.
        wrong = [http(port, "GET", f"/status?token=wrong-{n:04d}", source="127.0.42.1")[0] for n in range(10)]
        assert set(wrong) <= {403, 503}, wrong
        assert http(port, "GET", f"/status?token={TOKEN}", source="127.0.42.1")[0] in (429, 503)
    finally:
        squatters.close()
        console.close()
    assert answers == [200] * len(answers), f"{answers.count(503)} of {len(answers)} answered 503"
    assert squatters.reopened > 0, "the console never closed a squatter's connection"
