"""Bad input on the OSC port, as raw UDP datagrams (issue 31, part 4): garbage, truncated packets,
wrong argument types, unknown and pattern addresses, bundles timed far ahead or nested deep, a
datagram larger than the server reads, and floods of all of them. Each is a note of the log (a
line, then a count), never a traceback, never a change to the game and never a dead listener."""

from __future__ import annotations

import logging
import random
import socket
import struct
import time

from pythonosc.osc_bundle_builder import OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder

from tests.test_osc import cues, listening, osc_of, osc_prop, port_of, send, until  # noqa: F401 - fixtures


def message(address: str, *args) -> bytes:
    builder = OscMessageBuilder(address=address)
    for value in args:
        builder.add_arg(value)
    return builder.build().dgram


def padded(text: bytes) -> bytes:
    """An OSC string: NUL-terminated, padded to 4 bytes."""
    return text + b"\0" * (4 - len(text) % 4)


def bundle(seconds_ahead: float, *contents: bytes) -> bytes:
    """A bundle timed ``seconds_ahead`` from now, of raw elements (messages or bundles)."""
    stamp = OscBundleBuilder(time.time() + seconds_ahead).build().dgram[:16]  # "#bundle\0" and the time tag
    return stamp + b"".join(struct.pack(">i", len(c)) + c for c in contents)


def hostile() -> list[bytes]:
    """One of every kind of bad datagram."""
    valid = message("/baccarat/output", "lock", "on")
    deep = message("/baccarat/explode")
    for _ in range(300):  # a bundle in a bundle in a bundle...
        deep = bundle(0, deep) if len(deep) < 8000 else deep
    rng = random.Random(31)
    return [
        b"",
        b"\x00" * 7,
        b"hello, prop",
        bytes(rng.randrange(256) for _ in range(200)),
        b"/baccarat/solve",  # no padding, no type tags
        padded(b"/baccarat/solve") + padded(b",i"),  # an int announced, none there
        valid[: len(valid) - 3],  # cut short
        padded(b"/baccarat/output") + padded(b",sb") + padded(b"lock") + struct.pack(">i", 10_000_000),  # a huge blob
        padded(b"/baccarat/\xff\xfe") + padded(b","),  # not UTF-8
        padded(b"/baccarat/reset") + padded(b",[[[[[[[[[["),  # arrays never closed
        message("/baccarat/output", 1, 2),
        message("/baccarat/output", "lock", "sideways"),
        message("/baccarat/output", "trapdoor", "on"),  # no such output: refused by the command path
        message("/baccarat/output/lock"),
        message("/baccarat/reset", "now"),
        message("/baccarat/reset", 1, 2),
        message("/baccarat/solve", float("nan")),
        message("/baccarat/command", 5),
        message("/baccarat/command", "explode"),  # no such command: refused by the command path
        message("/baccarat/command", "x" * 6000),
        message("/baccarat/explode"),
        message("/*"),
        message("/baccarat/*"),
        message("/" + "*" * 60 + "x"),  # a pattern that backtracks for ever in a regex matcher
        message("/{" + ",".join("a" * 30 for _ in range(40)) + "}"),
        message("/baccarat/solve/extra"),
        b"#bundle\0" + b"\x00" * 4,  # a time tag cut short
        bundle(0, b"\x00\x00"),  # an element that is no message (python-osc's parser logs it)
        padded(b"/baccarat/disable") + padded(b",X"),  # a type python-osc does not know (it logs it, skips it)
        deep,
        b"/" + b"A" * 65_000,  # more than the server reads at once
    ]


def osc_lines(caplog) -> list[str]:
    """Every warning and error logged (the prop logs none of its own in these tests), python-osc's own included."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_every_kind_of_bad_datagram_is_a_note_and_the_listener_reads_on(osc_prop, cues, caplog, capsys):  # noqa: F811
    rig = osc_prop(**listening())
    port = port_of(rig)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        for datagram in hostile():
            raw.sendto(datagram, ("127.0.0.1", port))
        raw.sendto(message("/baccarat/solve"), ("127.0.0.1", port))  # read after all the others
    assert until(lambda: rig.daemon.module.solved, timeout=10), "the listener died or fell behind"
    module = rig.daemon.module
    assert module.enabled and module.strikes == 0, "bad input changed the game"
    assert rig.daemon.board.outputs.states() == [{"name": "lock", "on": True}]  # the solve's, nothing else
    lines = osc_lines(caplog)
    assert 1 <= len(lines) <= 2, lines  # the first bad message; the first refusal of the command path
    assert all(not r.exc_info for r in caplog.records), "a traceback was logged"
    assert "Traceback" not in capsys.readouterr().err


def test_a_flood_of_garbage_is_a_few_lines_and_costs_no_command(osc_prop, caplog):  # noqa: F811
    """2,000 bad datagrams of every kind from one sender: the log grows by a line or two."""
    rig = osc_prop(**listening())
    port = port_of(rig)
    kinds = hostile()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        for i in range(2000):
            raw.sendto(kinds[i % len(kinds)], ("127.0.0.1", port))
            if i % 100 == 99:
                time.sleep(0.01)  # the kernel's buffer for the port holds about 200 of them
        for _ in range(60):  # sent again until heard: a busy machine's kernel may drop it as the buffer fills
            raw.sendto(message("/baccarat/disable"), ("127.0.0.1", port))
            if until(lambda: not rig.daemon.module.enabled, timeout=0.5):
                break
    assert not rig.daemon.module.enabled, "the listener died or fell behind"
    assert len(osc_lines(caplog)) <= 3, osc_lines(caplog)
    assert not rig.daemon.module.solved


def test_a_bundle_timed_an_hour_ahead_runs_at_once_and_blocks_nothing(osc_prop):  # noqa: F811
    """python-osc's dispatcher would sleep until a bundle's time: here the time tag is not waited for."""
    rig = osc_prop(**listening())
    port = port_of(rig)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.sendto(bundle(3600, message("/baccarat/disable")), ("127.0.0.1", port))
    assert until(lambda: not rig.daemon.module.enabled), "the bundle's message did not run at once"
    send(port, "/baccarat/enable")
    assert until(lambda: rig.daemon.module.enabled), "the listener sleeps"


def test_a_flood_of_commands_is_bounded_by_what_waits_for_the_game(osc_prop, caplog):  # noqa: F811
    """An allowed sender's 500 resets while the game thread is busy: 32 wait, the rest are dropped
    with one line, and the listener hears the next command once the game is free."""
    import threading

    rig = osc_prop(**listening())
    port = port_of(rig)
    busy, free = threading.Event(), threading.Event()
    held = rig.daemon.call(lambda: (busy.set(), free.wait(20)), during_round=True)
    assert busy.wait(5)
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
            for _ in range(500):
                raw.sendto(message("/baccarat/reset"), ("127.0.0.1", port))
                time.sleep(0.0005)
        assert until(lambda: any("wait for the game: dropped" in line for line in osc_lines(caplog)), timeout=10)
    finally:
        free.set()
    held.result(5)
    listener = osc_of(rig).listener
    assert until(lambda: listener.pending == 0, timeout=20), "the commands that waited did not run"
    assert len([e for e in rig.events if e.kind == "reset"]) == 32
    send(port, "/baccarat/solve")  # heard again once the game is free
    assert until(lambda: rig.daemon.module.solved)
    assert len([line for line in osc_lines(caplog) if "dropped" in line]) == 1


def test_bad_input_lines_say_the_count_at_the_end(osc_prop, caplog):  # noqa: F811
    rig = osc_prop(**listening())
    port = port_of(rig)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        for _ in range(10):
            raw.sendto(b"garbage", ("127.0.0.1", port))
        raw.sendto(message("/baccarat/solve"), ("127.0.0.1", port))
    assert until(lambda: rig.daemon.module.solved)
    from firmware.services.osc import OscService

    service = next(h.__self__ for h in rig.daemon.on_settled if isinstance(getattr(h, "__self__", None), OscService))
    service.noise.close_all()
    lines = [line for line in osc_lines(caplog) if "garbage" in line or "not OSC" in line]
    assert lines[0].startswith("osc: a datagram from 127.0.0.1 is not OSC (7 bytes")
    assert lines[1].startswith("9 more like it in 60 s, the last: osc: a datagram from 127.0.0.1 is not OSC")
    assert logging.WARNING in {r.levelno for r in caplog.records if r.name == "baccarat.osc"}
