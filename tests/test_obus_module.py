"""The prop as a puzzle module of an OBUS bomb (issue 43, part 1), against the model bomb.

The model (tests/obus_model: a controller, two puzzle modules, three info modules, each a process
of its own on python-can's udp_multicast, written from the spec page's tables) runs whole games
with the prop as puzzle module 1: one the bomb's modules solve, one a module strikes out, one that
times out, and one whose controller goes silent for a while. Every frame the prop sends is checked
against the tables by the model's nodes, and the ones the issue names byte for byte.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.services.obus.serial import from_obus
from tests.conftest import make_config
from tests.obus_model.harness import PATIENCE, Proc, new_group

PROP = 0x501  # puzzle module 1: priority 1, type 1, id 1
#: The bomb's serial (info module 1): five letters and two digits; without its Z (26, which the
#: manual's letter sum counts round 26) the prop reads it alike as KT4PX7.
SERIAL = "KT4ZPX7"
#: Info module 3's byte: Serial (4) and Parallel (1) shown (a bit is 0 when its port is shown).
PORTS = 0xFF & ~4 & ~1


class Prop:
    """The prop (in this process) with ``[obus]``, its state read through ``status``."""

    def __init__(self, commands: Any, service: Any) -> None:
        self.commands = commands
        self.service = service

    def run(self, **request: Any) -> dict[str, Any]:
        reply = self.commands.handle(request).result(PATIENCE)
        assert reply["ok"], reply
        return reply["result"]

    def status(self) -> dict[str, Any]:
        return self.run(command="status")

    def until(self, check: Any, patience: float = PATIENCE) -> dict[str, Any]:
        """The status once ``check(status)`` holds (polled: the prop's state has no event to wait on
        from this thread)."""
        end = time.monotonic() + patience
        while True:
            status = self.status()
            if check(status):
                return status
            if time.monotonic() > end:
                raise AssertionError(f"not reached in {patience} s: {status.get('obus')} {status.get('timer')}")
            threading.Event().wait(0.05)


@contextmanager
def prop_on(group: str, port: int, mock_factory: Any, **obus: Any) -> Iterator[Prop]:
    config = make_config(
        obus={"role": "module", "interface": "udp_multicast", "channel": group, "port": port, **obus},
        bomb={"timer_seconds": 600},
        state={"file": ""},
        control={"socket": ""},
    )
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(5))
    attached = attach_services(daemon, config)
    try:
        daemon.start()
        assert daemon.ready.wait(PATIENCE)
        prop = Prop(attached.prop.commands, attached.prop.service("obus"))
        prop.until(lambda s: s["obus"]["bus"]["up"])
        yield prop
    finally:
        daemon.stop()
        for close in attached:
            close()
        close_daemon(daemon)


@pytest.fixture
def bomb(mock_factory: Any) -> Iterator[tuple[Prop, dict[str, Proc]]]:
    group, port = new_group()
    nodes: dict[str, Proc] = {}
    try:
        nodes["serial"] = Proc("info", 1, group, port, data=SERIAL.encode().hex())
        nodes["indicators"] = Proc("info", 2, group, port, data="1234567881")
        nodes["ports"] = Proc("info", 3, group, port, data=f"{PORTS:02x}")
        nodes["m2"] = Proc("puzzle", 2, group, port)
        nodes["m3"] = Proc("puzzle", 3, group, port)
        nodes["controller"] = Proc("controller", 0, group, port, info_seconds=2.0)
        with prop_on(group, port, mock_factory) as prop:
            yield prop, nodes
    finally:
        for node in nodes.values():
            node.stop()


def new_game(prop: Prop, nodes: dict[str, Proc], seed: int, **start: Any) -> None:
    """The info round, the registration round (the prop and modules 2 and 3), then GAME START."""
    controller = nodes["controller"]
    before = len(controller.lines)
    controller.tell(info=seed)
    for number in (1, 2, 3):
        controller.wait(lambda line, n=number: line.get("registered") == [1, n], since=before)
    status = prop.until(lambda s: s["obus"]["phase"] == "registered")
    assert status["enabled"] is False  # the table waits for the bomb
    controller.tell(start={"ms": 600_000, "max": 3, **start})
    prop.until(lambda s: s["obus"]["phase"] == "playing" and s["enabled"])


def test_a_game_the_bomb_s_modules_solve(bomb: tuple[Prop, dict[str, Proc]]) -> None:
    prop, nodes = bomb
    controller = nodes["controller"]
    new_game(prop, nodes, 7)
    status = prop.status()
    # the edgework the info modules sent; what they do not send stays the prop's
    assert from_obus(SERIAL) == "KT4PX7" and status["edgework"]["serial"] == "KT4PX7"
    assert status["edgework"]["ports"] == ["Serial", "Parallel"]
    assert status["edgework"]["lit"] == ["WPI", "DRV"] and "ZEUS" in status["edgework"]["unlit"]
    # the countdown follows the controller's
    assert status["timer"]["running"] and 590 < status["timer"]["seconds_left"] <= 600
    controller.wait(lambda line: line.get("tx", [0, ""])[1].startswith("03"))  # a STATE went out
    # a module solves: the prop's solved count (for its next deck) follows byte 7, modules left
    nodes["m2"].tell(solve=1)
    prop.until(lambda s: s["edgework"]["solved"] == 1)
    # a strike on the prop: STRIKE with its own count
    prop.run(command="bet", bets={"player": 25, "banker": 25})
    controller.wait(lambda line: line.get("rx") == [PROP, "0101"])
    # the prop solves: SOLVED once
    prop.run(command="force_solve")
    controller.wait(lambda line: line.get("rx") == [PROP, "02"])
    nodes["m3"].tell(solve=1)
    controller.wait(lambda line: line.get("end") == "solved")
    status = prop.until(lambda s: s["obus"]["ended"] == "solved")
    assert status["solved"] is True and status["exploded"] is None
    prop.run(command="force_solve")  # solved again by hand: nothing more on the bus
    time.sleep(0.3)
    assert prop.service.noise.totals == {}, prop.service.noise.totals  # its own frames' echoes included
    frames = [line["rx"] for line in controller.lines if "rx" in line and line["rx"][0] == PROP]
    assert frames == [[PROP, "00"], [PROP, "0101"], [PROP, "02"]]
    assert [node.problems() for node in nodes.values()] == [[]] * len(nodes)


def test_games_that_strike_out_time_out_and_lose_their_controller(bomb: tuple[Prop, dict[str, Proc]]) -> None:
    prop, nodes = bomb
    controller = nodes["controller"]
    # strikes: module 2 strikes three times; the bomb's strikes show on the prop
    new_game(prop, nodes, 8)
    nodes["m2"].tell(strike=1)
    prop.until(lambda s: s["strikes"] == 1)
    nodes["m2"].tell(strike=1)
    nodes["m2"].tell(strike=1)
    controller.wait(lambda line: line.get("end") == "strikeout")
    ended = len(controller.lines)
    status = prop.until(lambda s: s["exploded"] is not None)
    assert status["exploded"] == "strikes" and status["obus"]["ended"] == "strikes"
    # the next HELLO forgets that game
    new_game(prop, nodes, 9, ms=2500)
    status = prop.status()
    assert status["exploded"] is None and status["strikes"] == 0
    controller.wait(lambda line: line.get("end") == "timeout", since=ended)
    status = prop.until(lambda s: s["obus"]["ended"] == "timer")
    assert status["exploded"] == "timer"
    # a controller that goes silent mid-game: shown, and the prop goes on when it is back
    new_game(prop, nodes, 10)
    controller.tell(quiet=4.5)
    silent = prop.until(lambda s: s["obus"]["controller_silent"])
    assert silent["obus"]["phase"] == "playing" and silent["timer"]["running"]
    back = prop.until(lambda s: not s["obus"]["controller_silent"])
    assert back["exploded"] is None and back["obus"]["phase"] == "playing"
    # the game master resets the prop mid-game: the bomb goes on, and so does the prop's countdown
    prop.run(command="reset")
    again = prop.until(lambda s: s["timer"]["running"] and s["timer"]["seconds_left"] < 590)
    assert again["obus"]["phase"] == "playing"
    assert [node.problems() for node in nodes.values()] == [[]] * len(nodes)


def test_a_prop_the_controller_does_not_ack_stays_out(mock_factory: Any) -> None:
    group, port = new_group()
    controller = Proc("controller", 0, group, port, info_seconds=0.5, no_ack=[[1, 1]])
    module = Proc("puzzle", 2, group, port)
    try:
        with prop_on(group, port, mock_factory) as prop:
            controller.tell(info=1)
            controller.wait(lambda line: line.get("unacked") == [1, 1])
            controller.wait(lambda line: line.get("registered") == [1, 2])
            controller.tell(start={"ms": 60_000, "max": 3})
            module.wait(lambda line: line.get("game") == "start")  # the game runs, without the prop
            module.wait(lambda line: "state" in line)
            status = prop.status()
            assert status["obus"]["phase"] == "waiting" and status["enabled"] is False
            assert status["timer"]["state"] != "running"
    finally:
        controller.stop()
        module.stop()


def test_a_bomb_run_by_obus_s_arduino_controller_counts_solved_modules(mock_factory: Any) -> None:
    group, port = new_group()
    controller = Proc("controller", 0, group, port, info_seconds=0.5, count="solved")
    modules = [Proc("puzzle", n, group, port) for n in (2, 3)]
    try:
        with prop_on(group, port, mock_factory, count="solved") as prop:
            controller.tell(info=3)
            for n in (1, 2, 3):
                controller.wait(lambda line, n=n: line.get("registered") == [1, n])
            controller.tell(start={"ms": 60_000, "max": 3})
            started = prop.until(lambda s: s["obus"]["phase"] == "playing")
            assert started["edgework"]["solved"] == 0  # GAME START's byte 7 is the bomb's 3 puzzle modules
            modules[0].tell(solve=1)
            controller.wait(lambda line: line.get("tx", [0, ""])[1].startswith("03") and line["tx"][1].endswith("01"))
            # byte 7 says 1 solved; read as modules left it would be 3 - 1 = 2 solved
            # The bus's view and the game's solved count are two updates: wait for the game's.
            status = prop.until(lambda s: s["obus"]["bomb"].get("solved") == 1 and s["edgework"]["solved"] >= 1)
            assert status["edgework"]["solved"] == 1  # not 2: byte 7 read as the number solved
    finally:
        controller.stop()
        for module in modules:
            module.stop()
