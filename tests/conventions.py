"""What the M3/BAC and node-redscape tests share: a prop with two outputs, and its convention."""

from __future__ import annotations

import doctest
import importlib
import logging
import time

import pytest

from tests.conftest import Rig
from tests.test_mqtt import connected

#: Two outputs: the reference build's lock (on at a solve, off at a reset) and a horn only commands switch.
OUTPUTS = [
    {"name": "lock", "pin": 15, "on": "solved", "off_on": "reset"},
    {"name": "horn", "pin": 14, "on": "none"},
]


@pytest.fixture
def convention_prop(prop_factory):
    """``make(**sections)``: test_mqtt's prop (MQTT on the test's broker) with two outputs and the
    sections given, connected and listening."""

    def make(**sections) -> Rig:
        sections.setdefault("outputs", OUTPUTS)
        rig = prop_factory(**sections)
        connected(rig)
        return rig

    return make


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


def run_examples(name: str) -> None:
    """The docstring examples of module ``name`` run."""
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert attempted >= 2 and failed == 0, f"{name}: {failed} of {attempted} examples failed"


def count_line(noise, caplog) -> str:
    """The line that counts a flood's repeats, said once ``noise``'s quiet time has passed (moved on
    here: the link ticks at least once a second); inside ``caplog.at_level``."""
    noise.clock = lambda: time.monotonic() + noise.quiet
    until(lambda: any("more like it" in line for line in lines(caplog)), what="the count")
    return next(line for line in lines(caplog) if "more like it" in line)
