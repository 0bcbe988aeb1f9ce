"""The prop as the controller of an OBUS bomb (issue 43, part 2), with the model's modules.

The prop runs the bomb (``role = "controller"``): the info and registration rounds at its start and
after each reset, GAME START at the game master's ``start``, STATE every half second, the end by
solve, strikes or time. Its modules are the model's (tests/obus_model, each a process of its own on
python-can's udp_multicast); every frame the prop sends is checked against the spec page's tables
by each of them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.services.obus.serial import readings
from tests.conftest import make_config
from tests.obus_model.harness import Proc, new_group
from tests.test_obus_module import Prop

CONTROLLER = 0x400


@contextmanager
def controller_prop(group: str, port: int, mock_factory: Any, **bomb: Any) -> Iterator[Prop]:
    config = make_config(
        obus={"role": "controller", "interface": "udp_multicast", "channel": group, "port": port},
        bomb={"timer_seconds": 600, "strike_limit": 3, **bomb},
        state={"file": ""},
        control={"socket": ""},
    )
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(5))
    attached = attach_services(daemon, config)
    try:
        daemon.start()
        assert daemon.ready.wait(30)
        yield Prop(attached.prop.commands, attached.prop.service("obus"))
    finally:
        daemon.stop()
        for close in attached:
            close()
        close_daemon(daemon)


@pytest.fixture
def modules() -> Iterator[tuple[str, int, dict[str, Proc]]]:
    group, port = new_group()
    nodes: dict[str, Proc] = {}
    try:
        nodes["m2"] = Proc("puzzle", 2, group, port)
        nodes["m3"] = Proc("puzzle", 3, group, port)
        nodes["needy"] = Proc("needy", 1, group, port)
        yield group, port, nodes
    finally:
        for node in nodes.values():
            node.stop()


def registered(prop: Prop, nodes: dict[str, Proc], since: dict[str, int]) -> None:
    for name, node in nodes.items():
        node.wait(lambda line: line.get("acked") is True, since=since.get(name, 0))
    prop.until(lambda s: s["obus"]["phase"] == "registering" and len(s["obus"]["modules"]) == len(nodes))


def marks(nodes: dict[str, Proc]) -> dict[str, int]:
    return {name: len(node.lines) for name, node in nodes.items()}


def test_a_bomb_of_the_prop_and_three_modules_solved(mock_factory: Any, modules: Any) -> None:
    group, port, nodes = modules
    with controller_prop(group, port, mock_factory) as prop:
        registered(prop, nodes, {})
        m2 = nodes["m2"]
        # no info module 1 on the bus: the prop's serial (AB3DE4), as seven characters read alike
        info = m2.wait(lambda line: line.get("info") == 1)
        assert len(info["text"]) == 7 and readings(info["text"]) == readings("AB3DE4")
        prop.run(command="start")
        start = m2.wait(lambda line: line.get("game") == "start")
        assert 599_000 <= start["left_ms"] <= 600_000 and start["max_strikes"] == 3
        assert start["count"] == 3 and start["strikes"] == 0  # two puzzle modules and the prop
        m2.wait(lambda line: "state" in line)
        nodes["m2"].tell(solve=1)
        m2.wait(lambda line: line.get("state", {}).get("count") == 2)  # puzzle modules left
        assert prop.until(lambda s: s["edgework"]["solved"] == 1)
        nodes["m3"].tell(strike=1)  # strikes count against one limit, and speed the timer
        status = prop.until(lambda s: s["obus"]["bomb"]["strikes"] == 1)
        assert status["strikes"] == 1 and status["timer"]["rate"] == 1.25
        m2.wait(lambda line: line.get("state", {}).get("strikes") == 1)
        nodes["needy"].tell(strike=1)
        m2.wait(lambda line: line.get("state", {}).get("strikes") == 2)
        prop.run(command="force_solve")
        nodes["m3"].tell(solve=1)
        end = m2.wait(lambda line: "end" in line)
        assert end["end"] == "solved" and end["count"] == 0 and end["strikes"] == 2
        status = prop.until(lambda s: s["obus"]["ended"] == "solved")
        assert status["solved"] is True and status["exploded"] is None
        modules_seen = {(m["type"], m["id"]): m for m in status["obus"]["modules"]}
        assert modules_seen[(1, 2)]["solved"] and modules_seen[(1, 3)]["strikes"] == 1
        # the multicast group returns the prop's own frames to it: each taken for its echo, none
        # for another node sending as the controller
        assert prop.service.noise.totals == {}, prop.service.noise.totals
    sent = [line["rx"] for line in m2.lines if "rx" in line and line["rx"][0] == CONTROLLER]
    names = [line["name"] for line in m2.lines if "rx" in line and line["rx"][0] == CONTROLLER]
    assert names[:2] == ["INFO START", "HELLO"] and len(sent[0][1]) == 10  # 5 bytes
    assert [CONTROLLER, "000102"] in sent and [CONTROLLER, "000202"] not in sent  # ACK: type 1, id 2
    assert names[-1] == "SOLVED" and "GAME START" in names and names.count("STATE") >= 2
    assert [node.problems() for node in nodes.values()] == [[]] * len(nodes)


def test_after_a_reset_games_strike_out_and_time_out(mock_factory: Any, modules: Any) -> None:
    group, port, nodes = modules
    m2 = nodes["m2"]
    with controller_prop(group, port, mock_factory) as prop:
        registered(prop, nodes, {})
        prop.run(command="start")
        for _ in range(3):
            nodes["m3"].tell(strike=1)
        end = m2.wait(lambda line: "end" in line)
        assert end["end"] == "strikeout" and end["strikes"] == 3
        status = prop.until(lambda s: s["exploded"] is not None)
        assert status["exploded"] == "strikes"
        # a reset runs the rounds again, so the modules are registered before the next start
        since = marks(nodes)
        prop.run(command="reset")
        registered(prop, nodes, since)
        prop.run(command="start")
        m2.wait(lambda line: line.get("game") == "start", since=since["m2"])
        prop.run(command="add_time", seconds=-598)  # the game master takes time: the bomb's clock too
        end = m2.wait(lambda line: "end" in line, since=since["m2"])
        assert end["end"] == "timeout" and end["left_ms"] == 0
        status = prop.until(lambda s: s["obus"]["ended"] == "timer")
        assert status["exploded"] == "timer"
    assert [node.problems() for node in nodes.values()] == [[]] * len(nodes)


def test_modules_that_misbehave_are_a_log_line_each(
    mock_factory: Any, modules: Any, caplog: pytest.LogCaptureFixture
) -> None:
    group, port, nodes = modules
    caplog.set_level(logging.INFO, "baccarat.obus")
    with controller_prop(group, port, mock_factory) as prop:
        twin = Proc("puzzle", 2, group, port)  # a second module with module 2's id
        stranger = None
        try:
            since = marks(nodes)
            prop.run(command="reset")
            registered(prop, nodes, since)
            twin.wait(lambda line: line.get("acked") is True)
            # the state document every surface shows (the console, MQTT) has the bomb's modules as they
            # register, though no game event comes with it
            master = prop.commands
            before = master.daemon.call(master.document).result(30)
            assert [(m["type"], m["id"]) for m in before["obus"]["modules"]] == [(1, 2), (1, 3), (2, 1)]
            late = Proc("puzzle", 5, group, port)
            late.tell(register=1)
            late.wait(lambda line: line.get("acked") is True)
            prop.until(lambda s: len(s["obus"]["modules"]) == 4)
            after = master.daemon.call(master.document).result(30)
            late.stop()
            assert (1, 5) in [(m["type"], m["id"]) for m in after["obus"]["modules"]]
            nodes["m3"].tell(register=1)  # registers twice
            nodes["m3"].wait(lambda line: line.get("acked") is True, since=len(nodes["m3"].lines) - 1)
            prop.run(command="start")
            stranger = Proc("puzzle", 9, group, port)  # never registered
            stranger.tell(strike=1)
            stranger.tell(solve=1)
            stranger.tell(strike=1)
            nodes["m2"].wait(lambda line: line.get("game") == "start", since=since["m2"])
            stranger.wait(lambda line: line.get("tx", [0, ""])[1] == "0102")
            nodes["m2"].wait(lambda line: "state" in line, since=len(nodes["m2"].lines))
            status = prop.status()
            assert status["obus"]["phase"] == "playing" and status["exploded"] is None  # the game goes on
            assert status["obus"]["bomb"]["strikes"] == 0
        finally:
            twin.stop()
            if stranger is not None:
                stranger.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "baccarat.obus"]
    twice = [line for line in lines if "registered twice" in line]
    assert any("puzzle module 2" in line for line in twice) and any("puzzle module 3" in line for line in twice)
    never = [line for line in lines if "never registered" in line]
    # three frames: one line, and the count of the others when the quiet log closes
    assert len(never) == 2 and "puzzle module 9" in never[0] and never[1].startswith("2 more like it")
    assert not [r for r in caplog.records if r.exc_info]


def test_the_bus_s_info_modules_are_the_prop_s_edgework_too(mock_factory: Any, modules: Any) -> None:
    group, port, nodes = modules
    nodes["serial"] = Proc("info", 1, group, port, data=b"KT4ZPX7".hex())
    nodes["ports"] = Proc("info", 3, group, port, data=f"{0xFF & ~8:02x}")  # VGA only
    with controller_prop(group, port, mock_factory) as prop:
        registered(prop, {k: v for k, v in nodes.items() if k in ("m2", "m3", "needy")}, {})
        status = prop.until(lambda s: s["edgework"]["serial"] == "KT4PX7")
        assert status["edgework"]["ports"] == ["VGA"]
        serials = [line for line in nodes["m2"].lines if line.get("info") == 1]
        assert [line["text"] for line in serials] == ["KT4ZPX7"]  # the info module's, not the prop's own
