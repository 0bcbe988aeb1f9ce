"""Attaching the console to a daemon as the app will: on, off, a taken port, the announcement."""

from __future__ import annotations

import io
import logging
import random
import socket
import urllib.request

import pytest

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster
from firmware.simulator.pins import PinDriver
from firmware.web.attach import announce, attach_web
from firmware.web.settings import WebConfigError, WebSettings
from tests.conftest import make_config


@pytest.fixture
def daemon(mock_factory):
    made = build_daemon(
        make_config(state={"file": ""}, control={"socket": ""}),
        pin_factory=mock_factory,
        device_factory=open_dummy_device,
        rng=random.Random(1),
    )
    yield made
    made.stop()
    close_daemon(made)


def test_off_attaches_nothing(daemon):
    listeners = list(daemon.on_handled)
    assert attach_web(daemon, GameMaster(daemon), WebSettings(enabled=False)) is None
    assert daemon.on_handled == listeners


def test_on_serves_the_page(daemon):
    service = attach_web(
        daemon,
        GameMaster(daemon),
        WebSettings(enabled=True, port=0, front_panel=True),
        pin_driver=PinDriver(daemon.board),
    )
    try:
        daemon.start()
        assert daemon.ready.wait(5)
        with urllib.request.urlopen(service.url, timeout=5) as response:
            assert b"Baccarat" in response.read()
        assert service.front_panel
    finally:
        service.stop()


def test_beyond_localhost_without_password_is_a_config_error(daemon):
    with pytest.raises(WebConfigError, match="needs \\[web\\] password"):
        attach_web(daemon, GameMaster(daemon), WebSettings(enabled=True, bind="0.0.0.0"))


def test_a_taken_port_is_logged_and_the_prop_goes_on(daemon, caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with caplog.at_level(logging.ERROR):
            assert attach_web(daemon, GameMaster(daemon), WebSettings(enabled=True, port=port)) is None
    assert any("runs without its web console" in r.getMessage() for r in caplog.records)


def test_announce_prints_the_address():
    out = io.StringIO()
    announce("http://127.0.0.1:8080/", open_browser=False, out=out)
    assert out.getvalue() == "Console: http://127.0.0.1:8080/\n"


def test_pin_driver_names(daemon):
    pins = PinDriver(daemon.board)
    with pytest.raises(KeyError, match="no input 'lever'"):
        pins.press("lever")
    pin = daemon.board.areas["player"].button.pin
    pins.press("player")
    assert pin.state is False  # pull-up wiring: pressed is low
    pins.release("player")
    assert pin.state is True
