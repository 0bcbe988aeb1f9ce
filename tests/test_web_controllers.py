"""Escape Room Master's endpoints with a real HTTP client: every path, the token, the effect on the prop."""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request

import pytest

from firmware.services.erm.endpoints import CONTROLLER_ACTIONS
from tests import browser
from tests.browser import TOKEN

web_factory = browser.web_factory  # the fixture

PATHS = ["status", "enable_status", *CONTROLLER_ACTIONS]


def get(web, path: str, token: str | None = TOKEN) -> tuple[int, str]:
    url = f"{web.url}/{path}" + (f"?token={token}" if token is not None else "")
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.parametrize("path", PATHS)
def test_every_path_refuses_a_missing_or_wrong_token(web_factory, path, caplog):
    web = web_factory()
    web.service.wrong_secret_pause = 0  # the pause itself: test_web_guessing.py
    before = web.state()
    for token in (None, "", "wrong-token-0123456789", TOKEN + "x", TOKEN[:-1]):
        status, body = get(web, path, token)
        assert status == 403, (path, token, status, body)
        assert body.startswith("forbidden")
    assert web.state() == before
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


def test_no_token_configured_refuses_everything(web_factory):
    web = web_factory(settings={"controller_token": None})
    for path in PATHS:
        status, body = get(web, path)
        assert status == 403 and "set [web] controller_token" in body


def test_status_trigger_reset(web_factory, caplog):
    caplog.set_level(logging.INFO)
    web = web_factory()
    assert get(web, "status") == (200, "not_triggered")
    assert get(web, "enable_status") == (200, "enabled")
    web.rig.deal()  # no bet: a strike
    assert web.state()["strikes"] == 1
    assert get(web, "trigger") == (200, "ok")
    assert get(web, "status") == (200, "triggered")
    assert web.state()["solved"] and web.rig.led("green")
    assert get(web, "trigger") == (200, "ok"), "a second trigger is harmless"
    assert get(web, "reset") == (200, "ok")
    web.daemon.wait_idle()
    state = web.state()
    assert get(web, "status") == (200, "not_triggered")
    assert not state["solved"] and state["strikes"] == 0 and not web.rig.led("green")
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


def test_disable_and_enable_change_a_physical_press(web_factory):
    web = web_factory()
    assert get(web, "disable") == (200, "ok")
    assert get(web, "enable_status") == (200, "disabled")
    web.rig.tap("player")
    assert web.state()["bets"]["player"] == 0, "a disabled module took a chip"
    assert get(web, "enable") == (200, "ok")
    assert get(web, "enable_status") == (200, "enabled")
    web.rig.tap("player")
    assert web.state()["bets"]["player"] == 1
    assert get(web, "reset_disable") == (200, "ok")
    assert get(web, "enable_status") == (200, "disabled")
    assert web.state()["bets"]["player"] == 0
    web.rig.tap("banker")
    assert web.state()["bets"]["banker"] == 0
    assert get(web, "reset_enable") == (200, "ok")
    assert get(web, "enable_status") == (200, "enabled")
    web.rig.tap("banker")
    assert web.state()["bets"]["banker"] == 1


def test_post_and_unknown_paths(web_factory):
    web = web_factory()
    status, _, _ = web.request("POST", f"/trigger?token={TOKEN}")
    assert status == 405
    assert not web.state()["solved"]
    status, _, _ = web.request("GET", f"/explode?token={TOKEN}")
    assert status == 404


# -- reachable from a controller's page in a browser (CORS) ---------------------------------------

CONSOLE_ROUTES = [
    ("GET", "/"),
    ("GET", "/login"),
    ("GET", "/api/session"),
    ("GET", "/events"),
    ("POST", "/api/command"),
    ("POST", "/api/panel"),
    ("POST", "/logout"),
    ("GET", "/static/console.js"),
    ("GET", "/sound/chip.wav"),
    ("GET", "/explode"),
]


@pytest.mark.parametrize("path", [*PATHS, "json"])
def test_every_controller_answer_allows_any_origin(web_factory, path):
    """A browser lets Escape Room Master's page read the answer: success and refusal alike."""
    web = web_factory()
    origin = {"Origin": "http://erm.example:8000"}
    for token in (TOKEN, "wrong-token-0123456789"):
        status, headers, _ = web.request("GET", f"/{path}?token={token}", headers=origin)
        assert status == (200 if token == TOKEN else 403)
        assert headers.get("access-control-allow-origin") == "*", (path, status, headers)
        assert "access-control-allow-credentials" not in headers
    status, headers, _ = web.request("POST", f"/{path}?token={TOKEN}", headers=origin)
    assert status == 405 and headers.get("access-control-allow-origin") == "*"


@pytest.mark.parametrize("path", [*PATHS, "json"])
def test_a_preflight_is_answered_and_runs_nothing(web_factory, path):
    web = web_factory()
    before = web.state()
    status, headers, body = web.request(
        "OPTIONS",
        f"/{path}?token={TOKEN}",
        headers={
            "Origin": "http://erm.example:8000",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "cache-control, x-requested-with",
            "Access-Control-Request-Private-Network": "true",
        },
    )
    assert status == 204 and body == b""
    assert headers["access-control-allow-origin"] == "*"
    assert "GET" in headers["access-control-allow-methods"].split(", ")
    assert headers["access-control-allow-headers"] == "cache-control, x-requested-with"
    assert headers["access-control-allow-private-network"] == "true"
    web.daemon.wait_idle()
    assert web.state() == before


def test_a_preflight_echoes_no_bad_header_names(web_factory):
    web = web_factory()
    bad = "x-ok, bad header"
    status, headers, _ = web.request("OPTIONS", "/status", headers={"Access-Control-Request-Headers": bad})
    assert status == 204 and "access-control-allow-headers" not in headers
    status, headers, _ = web.request("OPTIONS", "/status")
    assert status == 204 and "access-control-allow-private-network" not in headers


@pytest.mark.parametrize(("method", "path"), CONSOLE_ROUTES)
def test_the_console_allows_no_other_origin(web_factory, method, path):
    """The console's pages, session, event stream and commands keep the same-origin rule."""
    web = web_factory()
    web.login()
    headers = {"Origin": "http://erm.example:8000", "Cookie": web.cookie or ""}
    if path == "/events":  # a stream: the headers are enough
        connection = http.client.HTTPConnection("127.0.0.1", web.service.port, timeout=10)
        try:
            connection.request(method, path, headers=headers)
            response = connection.getresponse()
            status, answer = response.status, {k.lower(): v for k, v in response.getheaders()}
        finally:
            connection.close()
        assert status == 200 and answer["content-type"] == "text/event-stream"
    else:
        status, answer, _ = web.request(method, path, b"{}" if method == "POST" else None, headers)
    assert not any(name.startswith("access-control-") for name in answer), (path, status, answer)
    status, answer, _ = web.request("OPTIONS", path, headers={**headers, "Access-Control-Request-Method": "POST"})
    assert status in (403, 404, 405), (path, status)
    assert not any(name.startswith("access-control-") for name in answer), (path, status, answer)


def test_json_is_the_frameworks_state(web_factory):
    """``GET /json`` as Escape Room Techs' framework answers it: numbers, and the outputs (the
    reference build's lock, which the solve opens)."""
    web = web_factory()
    status, headers, body = web.request("GET", f"/json?token={TOKEN}")
    assert status == 200 and headers["content-type"].startswith("application/json")
    locked = [{"name": "lock", "on": 0}]
    assert json.loads(body) == {"status": 0, "enabled": 1, "strikes": 0, "outputs": locked}
    web.rig.deal()  # no bet: a strike
    assert get(web, "disable") == (200, "ok")
    assert json.loads(web.request("GET", f"/json?token={TOKEN}")[2]) == {
        "status": 0,
        "enabled": 0,
        "strikes": 1,
        "outputs": locked,
    }
    assert get(web, "trigger") == (200, "ok")
    state = json.loads(web.request("GET", f"/json?token={TOKEN}")[2])
    assert (state["status"], state["outputs"]) == (1, [{"name": "lock", "on": 1}])


def test_json_lists_outputs_from_the_state_document():
    from firmware.services.erm.endpoints import controller_json

    state = {"solved": True, "enabled": True, "strikes": 2, "outputs": [{"name": "door", "on": True}]}
    assert controller_json(state) == {
        "status": 1,
        "enabled": 1,
        "strikes": 2,
        "outputs": [{"name": "door", "on": 1}],
    }


@pytest.mark.parametrize("action", ["trigger", "reset", "disable", "reset_disable"])
def test_head_runs_no_action(web_factory, action):
    web = web_factory()
    web.rig.deal()  # a strike, which a reset would clear
    before = web.state()
    status, headers, _ = web.request("HEAD", f"/{action}?token={TOKEN}")
    assert status == 405 and headers["allow"] == "GET"
    web.daemon.wait_idle()
    assert web.state() == before
    assert web.request("HEAD", f"/status?token={TOKEN}")[0] == 200, "polling may use HEAD"
