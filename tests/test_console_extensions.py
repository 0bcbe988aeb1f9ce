"""What a service adds to the web console (issue 40): routes on its port, cross-origin paths, trust,
the loop; the prop's own Escape Room Master endpoints and webhooks ride on it; a late or broken
extension is one line, and the console serves without it."""

from __future__ import annotations

import logging
import socket

import pytest

from firmware.config import parse_config
from firmware.plugin import ConsoleExtension, Prop
from firmware.services.erm import Erm
from firmware.services.webhooks import Webhooks
from firmware.services.webhooks.settings import Webhook, WebhookSettings
from firmware.web.server import WebService
from firmware.web.settings import WebSettings
from tests import browser
from tests.conftest import config_data

web_factory = browser.web_factory  # the fixture


class Ping(ConsoleExtension):
    """``/ping`` answers ``pong`` to a page of any origin; a request is trusted with ``?key=right``."""

    def __init__(self) -> None:
        self.loops: list[object] = []

    def register(self, app) -> None:
        from aiohttp import web

        async def pong(request):
            return web.Response(text="pong")

        app.router.add_get("/ping", pong)

    def cross_origin(self, path: str) -> bool:
        return path == "/ping"

    def trusted(self, request) -> bool | None:
        return request.query.get("key") == "right" if request.path == "/ping" else None

    def bind(self, loop) -> None:
        self.loops.append(loop)


def console(web, *factories) -> WebService:
    """A second console for ``web``'s prop, with these extensions only."""
    service = WebService(web.backend, WebSettings(enabled=True, port=0), extensions=factories)
    service.start()
    return service


def test_an_extension_serves_its_routes_to_any_origin_and_its_loop_is_bound(web_factory):
    web = web_factory()
    ping = Ping()
    service = console(web, lambda host: ping)
    try:
        other = browser.WebRig(web.rig, web.backend, service)
        status, headers, body = other.request("GET", "/ping", headers={"Origin": "http://erm.local"})
        assert (status, body) == (200, b"pong")
        assert headers.get("access-control-allow-origin") == "*"
        status, headers, _ = other.request(
            "OPTIONS", "/ping", headers={"Origin": "http://erm.local", "Access-Control-Request-Method": "GET"}
        )
        assert status == 204 and headers.get("access-control-allow-origin") == "*"
        status, headers, _ = other.request("GET", "/", headers={"Origin": "http://erm.local"})
        assert "access-control-allow-origin" not in headers  # the console's own pages stay same-origin
        assert len(ping.loops) == 1
    finally:
        service.stop()


def test_without_the_erm_extension_the_console_has_no_controller_endpoints(web_factory):
    web = web_factory()
    service = console(web)
    try:
        status, headers, _ = browser.WebRig(web.rig, web.backend, service).request(
            "GET", f"/status?token={browser.TOKEN}"
        )
        assert status == 404 and "access-control-allow-origin" not in headers
    finally:
        service.stop()


def test_an_extension_that_cannot_be_made_is_one_line_and_the_console_serves(web_factory, caplog):
    web = web_factory()

    def broken(host):
        raise RuntimeError("no such thing")

    service = console(web, broken, lambda host: Ping())
    try:
        assert browser.WebRig(web.rig, web.backend, service).request("GET", "/ping")[2] == b"pong"
    finally:
        service.stop()
    lines = [r.getMessage() for r in caplog.records if "console extension" in r.getMessage()]
    assert len(lines) == 1 and "no such thing" in lines[0]


def test_the_prop_refuses_an_extension_once_the_console_took_them(caplog):
    prop = Prop(None, None, None)  # type: ignore[arg-type] - only the console's list is used
    first = lambda host: Ping()  # noqa: E731
    assert prop.extend_console(first)
    assert prop.console_extensions() == [first]
    with caplog.at_level(logging.WARNING):
        assert not prop.extend_console(lambda host: Ping())
    assert prop.console_extensions() == []
    assert any("refused: the console has started" in r.getMessage() for r in caplog.records)


def test_the_token_and_the_webhooks_are_their_services_settings_in_web():
    data = config_data(state={"file": ""}, control={"socket": ""})
    data["web"] = {"controller_token": "erm-token-0123456789", "webhooks": [{"event": "solved", "url": "http://h/x"}]}
    config = parse_config(data)
    assert Erm().table == Webhooks().table == "web"
    assert Erm().describe(config.settings["erm"]) == ["Escape Room Master: controllers' token set"]
    assert Webhooks().describe(config.settings["webhooks"]) == ["Webhooks: 1 (solved)"]
    assert "erm-token" not in repr(config.settings["erm"])


@pytest.fixture
def listening():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_doctor_says_which_webhook_receiver_answers(listening):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        dead = closed.getsockname()[1]  # bound, never listening: refused
        hooks = WebhookSettings(
            (
                Webhook("solved", f"http://127.0.0.1:{listening}/api/webhook/my-s3cret-hook-id-123?key=k"),
                Webhook("strike", f"http://127.0.0.1:{dead}/x", "POST"),
            )
        )
        found = Webhooks().doctor(hooks, None)
    assert [f.status for f in found] == ["OK", "WARN"]
    assert found[0].text.endswith("the receiver answers") and "s3cret" not in found[0].text
    assert "key=k" not in found[0].text and "/api/webhook/<secret>" in found[0].text
    assert "does not answer" in found[1].text and "POST" in found[1].text
