"""Escape Room Master's endpoints with a real HTTP client: every path, the token, the effect on the prop."""

from __future__ import annotations

import logging
import urllib.error
import urllib.request

import pytest

from firmware.web.server import CONTROLLER_ACTIONS
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
    web.service.wrong_secret_pause = 0  # the pause itself: test_web_hostile.py
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
