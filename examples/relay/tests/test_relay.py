"""The relay's tests, on a prop of mock pins and dummy displays (the prop's ``baccarat_prop``
fixture), against a real HTTP server that stands for the webhook."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from firmware.plugin import ConfigError, Solved, Strike

from baccarat_relay import Relay


class Webhook(ThreadingHTTPServer):
    """An HTTP server on this machine that keeps what is POSTed to it."""

    def __init__(self, status: int = 200) -> None:
        super().__init__(("127.0.0.1", 0), Hook)
        self.status = status
        self.posted: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hooks/private-path"

    def kinds(self) -> list[str]:
        return [document["event"] for document in self.posted]


class Hook(BaseHTTPRequestHandler):
    server: Webhook

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.posted.append(json.loads(body))
        self.server.headers.append(dict(self.headers))
        self.send_response(self.server.status)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test's output stays quiet


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    server = Webhook()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_solve_is_posted_with_the_token(baccarat_prop, webhook):
    prop = baccarat_prop(Relay(), {"url": webhook.url, "token": "s3cret"})
    assert prop.send({"command": "force_solve"})["ok"]
    assert webhook.kinds() == ["solved"]  # the hooks have run: no wait needed
    assert webhook.posted[0] == {"event": "solved", "forced": True}
    assert webhook.headers[0]["Authorization"] == "Bearer s3cret"
    assert prop.value.sent == 1


def test_only_the_kinds_asked_for_are_posted(baccarat_prop, webhook):
    prop = baccarat_prop(Relay(), {"url": webhook.url, "events": ["strike"]})
    prop.fire(Solved(), Strike("loss", "the round lost $26.00", 1))
    assert webhook.posted == [{"event": "strike", "reason": "loss", "detail": "the round lost $26.00", "strikes": 1}]


def test_a_chip_press_is_relayed_when_asked_for(baccarat_prop, webhook):
    prop = baccarat_prop(Relay(), {"url": webhook.url, "events": ["chip"]})
    prop.press("player")
    assert "chip" in prop.kinds()
    assert webhook.posted == [{"event": "chip", "area": "player", "chip": 1, "stack": [1], "total": 1}]  # a $1 chip


def test_the_test_command_says_what_the_webhook_answered(baccarat_prop, webhook):
    prop = baccarat_prop(Relay(), {"url": webhook.url})
    webhook.status = 503
    reply = prop.send("relay-test", words=True)
    assert reply["ok"] and reply["result"] == {"status": 503}, reply


def test_a_webhook_that_is_down_costs_the_game_nothing(baccarat_prop, webhook, caplog):
    url = webhook.url
    webhook.shutdown()
    webhook.server_close()  # nothing listens there any more
    prop = baccarat_prop(Relay(), {"url": url, "events": ["chip", "solved"]})
    with caplog.at_level(logging.INFO, logger="baccarat.relay"):
        prop.press("player")
        prop.press("banker")
        assert prop.send({"command": "force_solve"})["ok"]
    assert prop.kinds().count("chip") == 2 and "solved" in prop.kinds()
    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 1 and said[0].startswith("relay: cannot reach http://127.0.0.1:"), said
    assert "private-path" not in said[0]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"url": "ftp://example.com"}, '[relay] url = "ftp://example.com": must be an http:// or https:// URL'),
        ({"url": "http://example.com", "token": "s3cret"}, "[relay] token: would be sent in the clear"),
        ({"url": "https://example.com", "event": ["solved"]}, "[relay] event: unknown key (did you mean events?)"),
        ({"url": "https://example.com", "timeout": 0}, "[relay] timeout"),
    ],
)
def test_a_bad_section_is_one_line_naming_the_key(baccarat_prop, section, message):
    with pytest.raises(ConfigError) as refused:
        baccarat_prop.configure(Relay(), section)
    assert str(refused.value).startswith(message), refused.value
    assert "s3cret" not in str(refused.value)


def test_check_config_shows_neither_the_path_nor_the_token(baccarat_prop):
    relay = Relay()
    settings = baccarat_prop.configure(relay, {"url": "https://example.com/hooks/abc123", "token": "s3cret"})
    assert relay.describe(settings) == ["Webhook relay: exploded, solved, strike to https://example.com"]
