"""What the M3/BAC and node-redscape tests share: a prop with two outputs, and its convention."""

from __future__ import annotations

import logging
import time

import pytest

from tests.conftest import Rig, make_config, start_served
from tests.mosquitto import Broker
from tests.test_mqtt import connected, mqtt_section

#: Two outputs: the reference build's lock (on at a solve, off at a reset) and a horn only commands switch.
OUTPUTS = [
    {"name": "lock", "pin": 15, "on": "solved", "off_on": "reset"},
    {"name": "horn", "pin": 14, "on": "none"},
]


@pytest.fixture
def convention_prop(mock_factory, broker: Broker):
    """``make(**sections)``: a running daemon with its services (MQTT on the test's broker, and
    the sections given), connected and listening."""
    stops: list = []

    def make(**sections) -> Rig:
        sections.setdefault("state", {"file": ""})
        sections.setdefault("control", {"socket": ""})
        sections.setdefault("outputs", OUTPUTS)
        config = make_config(mqtt=mqtt_section(broker), **sections)
        rig, stop = start_served(config, mock_factory)
        stops.append(stop)
        connected(rig)
        return rig

    yield make
    for stop in stops:
        stop()


def convention_of(rig: Rig, cls: type):
    """The running convention of class ``cls`` (found by its hook on the daemon)."""
    for listener in rig.daemon.on_settled:
        owner = getattr(listener, "__self__", None)
        if isinstance(owner, cls):
            return owner
    raise AssertionError(f"no {cls.__name__} attached")


def output_on(rig: Rig, name: str) -> bool:
    return bool(rig.daemon.board.outputs.pins()[name])


def until(test, timeout: float = 5.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.02)


def lines(caplog, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= level]
