"""Clue Control (issue 31, part 1): the prop's switch driven by Debian's ``mbpoll``, a Modbus client
written apart from pymodbus (libmodbus), as the independent other side.

``mbpoll`` numbers registers from 1 unless given ``-0``: Clue Control's register 1 (the PDU
address 1, as the FX framework reads it) is mbpoll's ``-0 -r 1`` or plain ``-r 2``.
scripts/test.sh installs it (the ``mbpoll`` package).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from firmware.services.clue_control.link import ClueControl
from firmware.services.clue_control.protocol import Command

MBPOLL = shutil.which("mbpoll")


@pytest.fixture
def switch():
    assert MBPOLL, "mbpoll is missing: apt-get install mbpoll (scripts/test.sh installs it)"
    got: list[tuple[Command, ...]] = []
    link = ClueControl(lambda commands, sender: got.append(commands), ["lock", "siren"], host="127.0.0.1", port=0)
    link.start()
    yield link, got
    link.stop()


def mbpoll(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    """One mbpoll request (``-1``: once) to the switch on loopback, 10 s to answer (a busy machine)."""
    command = [MBPOLL, "-m", "tcp", "-p", str(port), "-a", "1", "-t", "4", "-o", "10", "-1", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["1"], [("force_solve",)]),
        (["5"], [("reset", "enable")]),
        (["6"], [("reset", "disable")]),
        (["111"], [("output",)]),
    ],
)
def test_mbpoll_writes_a_command(switch, values: list[str], expected: list[tuple[str, ...]]) -> None:
    link, got = switch
    done = mbpoll(link.port, "-0", "-r", "1", "127.0.0.1", *values)
    assert done.returncode == 0, done
    assert "Written 1 references." in done.stdout
    assert [tuple(c.name for c in commands) for commands in got] == expected


def test_mbpoll_s_one_based_register_2_is_clue_control_s_register_1(switch) -> None:
    link, got = switch
    done = mbpoll(link.port, "-r", "2", "127.0.0.1", "110")
    assert done.returncode == 0, done
    assert got == [(Command("output", "siren", "off"),)]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["-0", "-r", "1", "127.0.0.1", "7"], "Write output (holding) register failed: Illegal data value"),
        (["-0", "-r", "1", "127.0.0.1", "121"], "Write output (holding) register failed: Illegal data value"),
        (["-0", "-r", "5", "127.0.0.1", "1"], "Write output (holding) register failed: Illegal data address"),
        (["-r", "1", "127.0.0.1", "1"], "Write output (holding) register failed: Illegal data address"),
        (["-0", "-r", "1", "127.0.0.1"], "Read output (holding) register failed: Illegal function"),
        (["-0", "-r", "1", "127.0.0.1", "1", "2"], "Write output (holding) register failed: Illegal function"),
    ],
    ids=["value-7", "output-2-of-2", "register-5", "register-0", "read", "write-two"],
)
def test_mbpoll_gets_modbus_exceptions_for_the_rest(switch, args: list[str], error: str) -> None:
    link, got = switch
    done = mbpoll(link.port, *args)
    assert done.returncode != 0
    assert error in done.stderr + done.stdout
    assert got == []
    again = mbpoll(link.port, "-0", "-r", "1", "127.0.0.1", "3")  # and it serves on
    assert again.returncode == 0 and got == [(Command("enable"),)]
