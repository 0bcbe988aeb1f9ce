"""Clue Control (issue 31, part 1): what a stranger on the room network can send the prop's Modbus port.

Raw sockets against the switch on its own thread (the link, as the prop runs it): garbage,
broken MBAP headers, huge lengths, frames cut short or dripped a byte at a time, requests
piled up unread, a flood of connections. Each costs at most a closed connection and a
counted log line: never a traceback, never a command, and the switch serves on.
"""

from __future__ import annotations

import logging
import random
import socket
import struct
import time

import pytest

from firmware.services.clue_control.link import ClueControl
from firmware.services.clue_control.protocol import Command
from firmware.services.clue_control.switch import MAX_CONNECTIONS

PATIENCE = 20.0  # seconds a socket waits for an answer or a close that should come at once


def frame(pdu: bytes, transaction: int = 1, unit: int = 1, protocol: int = 0, length: int | None = None) -> bytes:
    """One Modbus TCP frame (``length`` and ``protocol`` may lie)."""
    size = len(pdu) + 1 if length is None else length
    return struct.pack(">HHHB", transaction, protocol, size, unit) + pdu


def write(value: int, register: int = 1, transaction: int = 1) -> bytes:
    return frame(struct.pack(">BHH", 6, register, value), transaction)


class Prop:
    """The switch on its thread, the commands it handed on, and raw connections to it."""

    def __init__(self, frame_seconds: float = 5.0) -> None:
        self.got: list[tuple[Command, ...]] = []
        self.link = ClueControl(lambda commands, sender: self.got.append(commands), ["lock"], host="127.0.0.1", port=0)
        self.frame_seconds = frame_seconds

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.link.port), timeout=PATIENCE)
        return sock

    def ask(self, data: bytes, sock: socket.socket | None = None) -> bytes:
        """Send ``data`` on a new (or the given) connection and read one answer (b"": closed)."""
        own = sock is None
        sock = sock or self.connect()
        try:
            sock.sendall(data)
            return read_answer(sock)
        finally:
            if own:
                sock.close()


def read_answer(sock: socket.socket) -> bytes:
    """One whole Modbus TCP answer, or b"" when the switch closed the connection."""
    head = read_exactly(sock, 6)
    if len(head) < 6:
        return b""
    return head + read_exactly(sock, struct.unpack(">H", head[4:6])[0])


def read_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        try:
            chunk = sock.recv(count - len(data))
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk
    return data


def closed(sock: socket.socket) -> bool:
    """The switch closed it (EOF or reset) within the patience."""
    try:
        while chunk := sock.recv(4096):
            if not chunk:
                break
    except ConnectionResetError:
        pass
    return True


@pytest.fixture
def prop():
    prop = Prop()
    prop.link.start()
    switch = prop.link.switch
    assert switch is not None
    switch.frame_seconds = 0.3  # a frame cut short is closed quickly here (5 s in the prop)
    yield prop
    prop.link.stop()


def still_serves(prop: Prop) -> None:
    before = len(prop.got)
    assert prop.ask(write(6, transaction=77)) == write(6, transaction=77)
    assert (Command("reset"), Command("disable")) in prop.got[before:]


@pytest.mark.parametrize(
    "data",
    [
        b"GET / HTTP/1.1\r\nHost: prop\r\n\r\n",  # another protocol
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(40),  # a TLS hello
        frame(b"\x06\x00\x01\x00\x01", protocol=1),  # protocol id not 0
        frame(b"\x06\x00\x01\x00\x01", length=0xFFFF),  # a huge length: not waited for
        frame(b"\x06\x00\x01\x00\x01", length=255),  # one over the longest frame
        frame(b"", length=1),  # no function code
        frame(b"", length=0),
        b"\x00" * 7,
        b"\xff" * 300,
    ],
    ids=["http", "tls", "protocol-1", "length-65535", "length-255", "length-1", "length-0", "zeros", "ones"],
)
def test_what_is_not_modbus_tcp_closes_the_connection(prop: Prop, data: bytes, caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        assert prop.ask(data) == b""
    still_serves(prop)
    assert prop.got == [(Command("reset"), Command("disable"))]
    assert prop.link.tally.totals == {"garbage": 1}
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "not Modbus TCP" in lines[0].getMessage(), [r.getMessage() for r in lines]


@pytest.mark.parametrize(
    ("pdu", "answer"),
    [
        (b"\x06\x00\x01\x00\x01\x00", b"\x86\x03"),  # a write one byte too long
        (b"\x06\x00\x01\x00", b"\x86\x03"),  # one byte short
        (b"\x06", b"\x86\x03"),
        (b"\x08\x00\x04\x00\x00", b"\x88\x01"),  # diagnostics: force listen-only mode
        (b"\x2b\x0e\x01\x00", b"\xab\x01"),  # read device identification
        (b"\x11", b"\x91\x01"),  # report server id
        (b"\x86\x03", b"\x86\x01"),  # an exception, sent as a request
        (b"\x00", b"\x80\x01"),
        (b"\x06" + bytes(252), b"\x86\x03"),  # the longest frame there is
    ],
    ids=["long", "short", "bare", "listen-only", "identify", "server-id", "exception", "fc0", "longest"],
)
def test_well_framed_nonsense_is_a_modbus_exception(prop: Prop, pdu: bytes, answer: bytes) -> None:
    assert prop.ask(frame(pdu, transaction=9, unit=4)) == frame(answer, transaction=9, unit=4)
    still_serves(prop)
    assert len(prop.got) == 1


def test_frames_back_to_back_are_each_answered_in_order(prop: Prop) -> None:
    sock = prop.connect()
    sock.sendall(write(1, transaction=1) + write(7, transaction=2) + write(3, transaction=3))
    answers = [read_answer(sock) for _ in range(3)]
    sock.close()
    assert answers == [write(1, transaction=1), frame(b"\x86\x03", transaction=2), write(3, transaction=3)]
    assert prop.got == [(Command("force_solve"),), (Command("enable"),)]


def test_a_frame_in_single_bytes_is_answered_once_whole(prop: Prop) -> None:
    sock = prop.connect()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for byte in write(4):
        sock.send(bytes([byte]))
    assert read_answer(sock) == write(4)
    sock.close()
    assert prop.got == [(Command("disable"),)]


def test_a_frame_cut_short_is_closed_after_frame_seconds(prop: Prop) -> None:
    sock = prop.connect()
    sock.sendall(write(1)[:9])
    assert read_answer(sock) == b""  # closed, unanswered
    sock.close()
    assert prop.got == []
    assert prop.link.tally.totals == {"stalled": 1}
    still_serves(prop)


def test_a_frame_dripped_slowly_gets_no_more_time(prop: Prop) -> None:
    sock = prop.connect()
    try:
        for byte in write(1):  # a byte every 0.15 s: 1.8 s for the frame, which has 0.3 s from its first byte
            sock.send(bytes([byte]))
            time.sleep(0.15)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert read_answer(sock) == b""
    sock.close()
    assert prop.got == []
    assert prop.link.tally.totals == {"stalled": 1}


def test_requests_piled_up_unread_cost_no_more_than_the_socket_buffers(prop: Prop) -> None:
    sock = prop.connect()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    batch = b"".join(write(3, transaction=i % 65536) for i in range(20000))  # 240 KB of requests, none read
    sock.settimeout(2.0)
    try:
        sock.sendall(batch)
    except (TimeoutError, BlockingIOError):
        pass  # the switch stopped reading: the requests wait in the kernel's buffers
    sock.settimeout(PATIENCE)
    answered = 0
    while answered < 100:
        assert read_answer(sock) == write(3, transaction=answered)
        answered += 1
    sock.close()
    still_serves(prop)


def test_a_flood_of_connections_keeps_the_newest(prop: Prop, caplog) -> None:
    socks = [prop.connect() for _ in range(3 * MAX_CONNECTIONS)]
    newest = socks[-1]
    assert prop.ask(write(2), newest) == write(2)
    survivors = 0
    for sock in socks[:-1]:
        sock.setblocking(False)
        try:
            survivors += sock.recv(1) != b""
        except BlockingIOError:
            survivors += 1  # still open
        except ConnectionResetError:
            pass
        sock.close()
    newest.close()
    assert survivors <= MAX_CONNECTIONS - 1
    assert (Command("reset"),) in prop.got


def test_random_bytes_never_break_the_switch(prop: Prop, caplog) -> None:
    rng = random.Random(31)
    with caplog.at_level(logging.DEBUG):
        for _ in range(200):
            blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
            if rng.random() < 0.5:  # a believable header with a random body
                blob = frame(blob, transaction=rng.randrange(65536))
            sock = prop.connect()
            sock.sendall(blob)
            sock.shutdown(socket.SHUT_WR)
            closed(sock)
            sock.close()
        still_serves(prop)
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) <= 2, [r.getMessage() for r in records]  # the first, and at most one count so far
    assert not any(r.exc_info or "Traceback" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.name in ("asyncio", "pymodbus") and r.levelno >= logging.WARNING]


def test_a_client_that_resets_mid_burst_costs_no_line_per_frame(prop: Prop, caplog) -> None:
    """Issue 41 item 19: bursts of frames, each connection reset (RST) right after; nothing is
    written into a closing transport (asyncio logged one warning per frame for it)."""
    burst = b"".join(write(1000, transaction=i % 65536) for i in range(20000))  # 240 KB of refused values
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            sock = prop.connect()
            sock.sendall(burst)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()  # a reset, with the answers unread
        still_serves(prop)
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [r for r in loud if r.name == "asyncio"], [r.getMessage() for r in loud][:5]
    assert len(loud) <= 2, [r.getMessage() for r in loud]  # "refused value 1000", at most one count so far
