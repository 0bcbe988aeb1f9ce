"""Webhooks against a real local HTTP server: delivered, retried, logged, never holding up the game."""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests import browser

web_factory = browser.web_factory  # the fixture


class Receiver:
    """A local HTTP server that records every request and answers from a script of statuses."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict | None]] = []
        self.ids: list[str | None] = []  # each request's Idempotency-Key
        self.statuses: list[int] = []
        self.gate = threading.Event()
        self.gate.set()
        self.seen = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                receiver.gate.wait(10)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                with receiver.seen:
                    receiver.requests.append((self.command, self.path, body))
                    receiver.ids.append(self.headers.get("Idempotency-Key"))
                    receiver.seen.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_for(self, count: int, timeout: float = 10.0) -> list:
        deadline = time.monotonic() + timeout
        with self.seen:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.requests)} requests within {timeout} s, not {count}")
                self.seen.wait(left)
            return list(self.requests)

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


def until(test, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def hooks(receiver: Receiver, *items: tuple[str, str, str]) -> dict:
    return {"webhooks": tuple(_hook(receiver, *item) for item in items)}


def _hook(receiver: Receiver, event: str, path: str, method: str):
    from firmware.services.webhooks.settings import Webhook

    return Webhook(event, receiver.url(path), method)


def test_delivered_on_solve_strike_and_reset(web_factory, receiver):
    web = web_factory(
        settings=hooks(
            receiver,
            ("solved", "/baccarat_solved", "GET"),
            ("strike", "/strike", "POST"),
            ("reset", "/reset?key=1", "POST"),
        )
    )
    web.rig.deal()  # no bet: a strike
    requests = receiver.wait_for(1)
    assert requests[0][:2] == ("POST", "/strike")
    assert requests[0][2] == {
        "prop": "test-prop",
        "event": "strike",
        "reason": "exclusive",
        "detail": "no bet on Player or Banker",
        "strikes": 1,
        "id": receiver.ids[0],  # the delivery's id, in the body and the Idempotency-Key header
    }
    assert len(receiver.ids[0]) == 32
    web.login()
    assert web.command({"command": "force_solve"})[1]["ok"]
    requests = receiver.wait_for(2)
    assert requests[1] == ("GET", "/baccarat_solved", None)
    assert web.command({"command": "reset"})[1]["ok"]
    requests = receiver.wait_for(3)
    assert requests[2][:2] == ("POST", "/reset?key=1") and requests[2][2]["event"] == "reset"
    until(lambda: web.webhooks.delivered == 3)
    time.sleep(0.2)
    assert len(receiver.requests) == 3, "a hook fired for an event it was not configured for"
    assert web.webhooks.failed == 0


def test_retried_when_it_fails_and_each_failure_logged(web_factory, receiver, caplog):
    caplog.set_level(logging.WARNING)
    receiver.statuses = [500, 503]
    web = web_factory(settings={**hooks(receiver, ("solved", "/s?secret=abc", "GET")), "webhook_retries": 3})
    web.login()
    web.command({"command": "force_solve"})
    receiver.wait_for(3)
    failures = [r.getMessage() for r in caplog.records if "webhook solved" in r.getMessage()]
    assert len(failures) == 2
    assert "failed (attempt 1 of 4): HTTP 500" in failures[0] and "failed (attempt 2 of 4): HTTP 503" in failures[1]
    assert all("secret=abc" not in message for message in failures)
    until(lambda: web.webhooks.delivered == 1)


def test_given_up_after_the_retries(web_factory, receiver, caplog):
    caplog.set_level(logging.WARNING)
    receiver.statuses = [500, 500, 500]
    web = web_factory(settings={**hooks(receiver, ("solved", "/s", "POST")), "webhook_retries": 2})
    web.login()
    web.command({"command": "force_solve"})
    receiver.wait_for(3)
    deadline = time.monotonic() + 5
    while not any("not delivered" in r.getMessage() for r in caplog.records) and time.monotonic() < deadline:
        time.sleep(0.02)
    messages = [r.getMessage() for r in caplog.records if "webhook solved" in r.getMessage()]
    assert sum("failed (attempt" in m for m in messages) == 3
    assert messages[-1] == f"webhook solved: POST http://127.0.0.1:{receiver.port}/s not delivered"


def test_unreachable_receiver(web_factory, caplog):
    caplog.set_level(logging.WARNING)
    import socket

    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    from firmware.services.webhooks.settings import Webhook

    web = web_factory(settings={"webhooks": (Webhook("strike", f"http://127.0.0.1:{port}/x"),), "webhook_retries": 1})
    web.rig.deal()
    deadline = time.monotonic() + 5
    while web.webhooks.failed < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert web.webhooks.failed == 2
    assert web.state()["strikes"] == 1


def test_a_hanging_receiver_never_holds_up_the_game(web_factory, receiver):
    receiver.gate.clear()  # the receiver answers nothing until the game has gone on
    web = web_factory(settings={**hooks(receiver, ("strike", "/strike", "POST")), "webhook_timeout_seconds": 10})
    web.rig.deal()  # a strike: its webhook now hangs
    for _ in range(3):
        web.rig.tap("banker")
    web.rig.deal()
    assert web.state()["strikes"] == 2, "the game stopped while a webhook hung"
    assert receiver.requests == []
    receiver.gate.set()
    assert [path for _, path, _ in receiver.wait_for(2)] == ["/strike", "/strike"]


@pytest.mark.parametrize(
    "path, secret",
    [
        ("/api/webhook/baccarat-solved-7Qx2", "baccarat-solved-7Qx2"),  # Home Assistant
        ("/services/T0123/B0456/slackSecretXYZ123", "slackSecretXYZ123"),  # Slack
        ("/api/webhooks/1234567/discord-token-abcdefgh", "discord-token-abcdefgh"),  # Discord
    ],
)
def test_a_secret_in_the_urls_path_is_never_logged(web_factory, receiver, caplog, path, secret):
    """Issue 41 item 17: the failure lines name the host and the path's harmless part only."""
    caplog.set_level(logging.DEBUG)
    receiver.statuses = [500, 500]
    web = web_factory(settings={**hooks(receiver, ("strike", path, "POST")), "webhook_retries": 1})
    web.rig.deal()  # a strike
    receiver.wait_for(2)
    until(lambda: any("not delivered" in r.getMessage() for r in caplog.records))
    lines = [r.getMessage() for r in caplog.records if "webhook strike" in r.getMessage()]
    assert len(lines) == 3 and all("<secret>" in line for line in lines), lines
    assert not [line for line in lines if secret in line], lines
    assert f"http://127.0.0.1:{receiver.port}/" in lines[-1]
