"""Clue Control (issue 31, part 1): the numbers, and the prop as a Modbus TCP server ("switch").

The switch is driven by pymodbus's own client on loopback (tests/test_clue_control_mbpoll.py
drives it with Debian's mbpoll; tests/test_clue_control_hostile.py with raw bytes).
"""

from __future__ import annotations

import asyncio
import doctest
import importlib
import logging
import subprocess
import sys
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pymodbus.client import AsyncModbusTcpClient, ModbusTcpClient

from firmware.services.clue_control.link import ClueControl, ClueControlError
from firmware.services.clue_control.protocol import (
    Coils,
    Command,
    commands_for,
    last_octet,
    output_value,
    route_address,
    split_host_port,
)
from firmware.services.clue_control.switch import Switch

OUTPUTS = ["lock", "siren", "fog"]


# -- the numbers --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "names"),
    [
        (1, ["force_solve"]),
        (2, ["reset"]),
        (3, ["enable"]),
        (4, ["disable"]),
        (5, ["reset", "enable"]),
        (6, ["reset", "disable"]),
    ],
)
def test_the_framework_values_are_the_prop_commands(value: int, names: list[str]) -> None:
    commands = commands_for(value, OUTPUTS)
    assert commands is not None
    assert [c.payload() for c in commands] == [{"command": n} for n in names]


def test_output_values_count_the_outputs_in_config_order() -> None:
    assert commands_for(100, OUTPUTS) == (Command("output", "lock", "off"),)
    assert commands_for(101, OUTPUTS) == (Command("output", "lock", "on"),)
    assert commands_for(121, OUTPUTS) == (Command("output", "fog", "on"),)
    assert commands_for(120, OUTPUTS)[0].payload() == {"command": "output", "name": "fog", "state": "off"}


@pytest.mark.parametrize("value", [0, 7, 8, 99, 102, 109, 115, 130, 131, 200, 65535])
def test_other_values_are_no_command(value: int) -> None:
    assert commands_for(value, OUTPUTS) is None


def test_a_prop_without_outputs_takes_no_output_value() -> None:
    assert commands_for(100, []) is None
    assert commands_for(101, []) is None


@given(st.integers(0, 0xFFFF), st.integers(0, 12))
def test_every_register_value_is_one_thing_or_nothing(value: int, count: int) -> None:
    outputs = [f"out{i}" for i in range(count)]
    commands = commands_for(value, outputs)
    if commands is None:
        return
    assert 1 <= len(commands) <= 2
    for command in commands:
        if command.name == "output":
            index = outputs.index(command.output)
            assert output_value(index, command.state == "on") == value
        else:
            assert value <= 6


def test_the_coils_of_prop_123_are_the_framework_readme_s() -> None:
    coils = Coils(123)  # the FX framework's README: 1230 solved, 1231 enabled, 12310 + i output i
    assert (coils.solved, coils.enabled, coils.output(0), coils.output(5)) == (1230, 1231, 12310, 12315)
    assert Coils(255).output(9) == 25519
    with pytest.raises(ValueError, match="past coil 65535"):
        Coils(655).output(30)
    with pytest.raises(ValueError):
        Coils(1).output(-1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.168.1.10", ("192.168.1.10", 502)),
        (" 192.168.1.10:1502 ", ("192.168.1.10", 1502)),
        ("cluecontrol.local", ("cluecontrol.local", 502)),
    ],
)
def test_controller_addresses(text: str, expected: tuple[str, int]) -> None:
    assert split_host_port(text) == expected


@pytest.mark.parametrize(
    "text", ["", ":502", "host:", "host:0", "host:65536", "host:x", "two words", "[::1]:502", "fe80::1", "[::1"]
)
def test_bad_controller_addresses_name_the_fault(text: str) -> None:
    with pytest.raises(ValueError, match="host|port"):
        split_host_port(text)


def test_the_prop_number_is_the_route_s_source_octet() -> None:
    assert route_address("127.0.0.1") == "127.0.0.1"
    assert last_octet(route_address("127.0.0.1")) == 1
    assert last_octet("10.20.30.254") == 254


@pytest.mark.parametrize(
    "name",
    [
        "firmware.services.clue_control.protocol",
        "firmware.services.clue_control.switch",
        "firmware.services.clue_control.trigger",
        "firmware.services.clue_control.link",
    ],
)
def test_the_examples_run(name: str) -> None:
    failed, attempted = doctest.testmod(importlib.import_module(name), report=False)
    assert attempted >= 1 and failed == 0, f"{name}: {failed} of {attempted} examples failed"


def test_the_service_s_entry_point_loads_neither_pymodbus_nor_asyncio() -> None:
    """Every prop loads the service's module (its entry point), with [clue_control] or not: it must
    cost nothing at start-up. pymodbus and asyncio come with the link, once the service starts."""
    probe = (
        "import sys; import firmware.services.clue_control.service; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'asyncio', 'pymodbus'}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


# -- the switch, driven by pymodbus's client -----------------------------------------------
class Recorder:
    """``on_commands``: keeps what came, in order."""

    def __init__(self) -> None:
        self.got: list[tuple[Command, ...]] = []
        self.senders: list[str] = []

    def __call__(self, commands: tuple[Command, ...], sender: str) -> None:
        self.got.append(commands)
        self.senders.append(sender)


async def _with_switch(body, *, outputs=OUTPUTS, **kwargs):
    recorder = Recorder()
    switch = Switch(recorder, outputs, host="127.0.0.1", port=0, **kwargs)
    await switch.start()
    client = AsyncModbusTcpClient("127.0.0.1", port=switch.port, timeout=10, retries=0)
    assert await client.connect()
    try:
        return await body(client, recorder, switch)
    finally:
        client.close()
        await switch.close()


def test_each_command_is_echoed_and_handed_on_in_order() -> None:
    async def body(client, recorder, switch):
        replies = [await client.write_register(1, value) for value in (1, 2, 3, 4, 5, 6, 101, 110)]
        return replies, recorder

    replies, recorder = asyncio.run(_with_switch(body))
    assert [r.isError() for r in replies] == [False] * 8
    assert [(r.address, r.registers) for r in replies] == [(1, [v]) for v in (1, 2, 3, 4, 5, 6, 101, 110)]
    assert [[c.payload() for c in commands] for commands in recorder.got] == [
        [{"command": "force_solve"}],
        [{"command": "reset"}],
        [{"command": "enable"}],
        [{"command": "disable"}],
        [{"command": "reset"}, {"command": "enable"}],
        [{"command": "reset"}, {"command": "disable"}],
        [{"command": "output", "name": "lock", "state": "on"}],
        [{"command": "output", "name": "siren", "state": "off"}],
    ]
    assert set(recorder.senders) == {"127.0.0.1"}


@pytest.mark.parametrize("unit", [0, 1, 17, 255])
def test_any_unit_id_is_answered_with_its_own(unit: int) -> None:
    async def body(client, recorder, switch):
        return await client.write_register(1, 3, device_id=unit), recorder

    reply, recorder = asyncio.run(_with_switch(body))
    assert not reply.isError() and reply.dev_id == unit
    assert len(recorder.got) == 1


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (lambda c: c.write_register(1, 7), 3),  # no command
        (lambda c: c.write_register(1, 131), 3),  # output 3 of a prop with three
        (lambda c: c.write_register(1, 0), 3),
        (lambda c: c.write_register(0, 1), 2),  # another register
        (lambda c: c.write_register(2, 1), 2),
        (lambda c: c.write_register(40001, 1), 2),
        (lambda c: c.read_holding_registers(1, count=1), 1),  # another function code
        (lambda c: c.read_coils(0, count=8), 1),
        (lambda c: c.write_coil(1, True), 1),
        (lambda c: c.write_registers(1, [1]), 1),
        (lambda c: c.read_device_information(), 1),
        (lambda c: c.diag_read_diagnostic_register(), 1),
    ],
    ids=[
        "value-7",
        "value-131",
        "value-0",
        "register-0",
        "register-2",
        "register-40001",
        "fc3",
        "fc1",
        "fc5",
        "fc16",
        "fc43",
        "fc8",
    ],
)
def test_everything_else_is_a_modbus_exception_and_changes_nothing(request_, code: int) -> None:
    async def body(client, recorder, switch):
        reply = await request_(client)
        after = await client.write_register(1, 3)  # and the switch still serves
        return reply, after, recorder, switch

    reply, after, recorder, switch = asyncio.run(_with_switch(body))
    assert reply.isError()
    assert reply.exception_code == code
    assert not after.isError()
    assert [c for commands in recorder.got for c in commands] == [Command("enable")]
    assert sum(switch.tally.totals.values()) == 1


def test_a_failing_receiver_is_a_device_failure_and_the_switch_serves_on(caplog) -> None:
    calls = []

    def broken(commands, sender):
        calls.append(commands)
        if len(calls) == 1:
            raise RuntimeError("the prop is busy")

    async def main():
        switch = Switch(broken, OUTPUTS, host="127.0.0.1", port=0)
        await switch.start()
        client = AsyncModbusTcpClient("127.0.0.1", port=switch.port, timeout=10, retries=0)
        await client.connect()
        first, second = await client.write_register(1, 1), await client.write_register(1, 1)
        client.close()
        await switch.close()
        return first, second

    with caplog.at_level(logging.WARNING, logger="baccarat.clue_control"):
        first, second = asyncio.run(main())
    assert first.isError() and first.exception_code == 4
    assert not second.isError()
    assert len(calls) == 2
    assert "RuntimeError: the prop is busy" in caplog.text
    assert "Traceback" not in caplog.text


def test_a_thousand_bad_requests_are_two_log_lines(caplog) -> None:
    async def body(client, recorder, switch):
        for value in range(1000):
            await client.write_register(2, value)  # every one to the wrong register
        return recorder

    with caplog.at_level(logging.DEBUG):
        recorder = asyncio.run(_with_switch(body))
    lines = [r for r in caplog.records if r.name.startswith(("baccarat", "pymodbus"))]
    assert recorder.got == []
    assert len(lines) == 2, [r.getMessage() for r in lines]
    assert "refused a write to register 2 (value 0) from 127.0.0.1 (exception 2" in lines[0].getMessage()
    assert lines[1].getMessage().startswith("999 more like it in 60 s, the last:")
    assert "(value 999)" in lines[1].getMessage()


def test_a_stranger_is_closed_unanswered() -> None:
    async def main():
        recorder = Recorder()
        switch = Switch(recorder, OUTPUTS, host="127.0.0.1", port=0, allow=["192.168.1.10"])
        await switch.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", switch.port)
        writer.write(bytes.fromhex("0001 0000 0006 01 06 0001 0001"))
        answer = await asyncio.wait_for(reader.read(100), 20)
        writer.close()
        await switch.close()
        return answer, recorder, switch

    answer, recorder, switch = asyncio.run(main())
    assert answer == b""
    assert recorder.got == []
    assert switch.tally.totals == {"stranger": 1}


def test_the_allowed_address_is_served() -> None:
    async def body(client, recorder, switch):
        return await client.write_register(1, 1), recorder

    reply, recorder = asyncio.run(_with_switch(body, allow=["127.0.0.1", "::ffff:10.0.0.1"]))
    assert not reply.isError() and len(recorder.got) == 1


def test_the_link_runs_on_its_own_thread_and_says_why_it_cannot_listen() -> None:
    got = []
    link = ClueControl(lambda commands, sender: got.append(commands), OUTPUTS, host="127.0.0.1", port=0)
    link.start()
    try:
        taken = ClueControl(lambda commands, sender: None, OUTPUTS, host="127.0.0.1", port=link.port)
        with pytest.raises(ClueControlError, match=rf"^Clue Control: cannot listen on 127.0.0.1 port {link.port}: "):
            taken.start()
        assert link.listening and not taken.listening  # what the benchmark asks before it measures
        client = ModbusTcpClient("127.0.0.1", port=link.port, timeout=10, retries=0)
        assert client.write_register(1, 4).registers == [4]
        client.close()
    finally:
        link.stop()
    assert got == [(Command("disable"),)]


def test_a_start_that_fails_any_way_is_reported_as_what_happened(monkeypatch) -> None:
    """Issue 41 item 2: ready says what happened. A failure to open that is no OSError (here
    bind()'s OverflowError) was a traceback on the link's thread, and the link said it listened."""
    crashes: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: crashes.append(args.exc_value))
    link = ClueControl(lambda commands, sender: None, OUTPUTS, host="127.0.0.1", port=70000)
    with pytest.raises(ClueControlError) as caught:
        link.start()
    link.stop()
    assert str(caught.value) == "Clue Control: cannot listen on 127.0.0.1 port 70000: bind(): port must be 0-65535."
    assert link.ready.is_set() and not link.listening and link.outcome == str(caught.value)
    assert crashes == []
    good = ClueControl(lambda commands, sender: None, OUTPUTS, host="127.0.0.1", port=0)
    good.start()
    try:
        assert good.listening and good.outcome == f"listening on 127.0.0.1 port {good.port}"
    finally:
        good.stop()


def test_a_privileged_port_without_the_capability_names_it() -> None:
    from firmware.services.clue_control.link import _listen_problem

    error = PermissionError(13, "Permission denied")
    text = _listen_problem("0.0.0.0", 502, error)
    assert text.startswith("Clue Control: cannot listen on 0.0.0.0 port 502: permission denied")
    assert "CAP_NET_BIND_SERVICE" in text and "\n" not in text
