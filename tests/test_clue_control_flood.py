"""Clue Control (issue 41 item 14): a Modbus client that writes commands and never reads.

A real flood over loopback from a client process of its own, against the prop as ``baccarat
run`` attaches the service (the daemon on mock pins, the real command path). What it may cost is
checked by counting, never by the clock: the commands waiting for the game, the bytes read and
not parsed, the answers unsent; and the game master and Clue Control are still served while
the flooder holds its connection.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from pymodbus.client import ModbusTcpClient

from firmware.room.commands import GameMaster
from firmware.services.clue_control.session import BATCH, MAX_LENGTH, SOCKET_BUFFER, WRITE_HIGH
from firmware.services.clue_control.switch import MAX_PENDING
from tests.clue_control_peer import PATIENCE
from tests.test_clue_control_service import ClueControlPC, prop_with_clue_control

#: asyncio's largest read (selector_events: ``max_size``); the buffer holds at most that and a frame.
READ_SIZE = 256 * 1024

#: The flooder: writes ``enable`` (value 3) frames back to back and reads nothing; when the prop has
#: stopped reading for ``idle`` seconds (its buffers and ours are full) it says how many frames it got
#: out, and holds the connection open until its stdin closes.
FLOODER = textwrap.dedent(
    """
    import socket, struct, sys
    port, frames, idle = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    batch = b"".join(struct.pack(">HHHBBHH", i, 0, 6, 1, 6, 1, 3) for i in range(1000))
    sock.settimeout(idle)
    sent = 0
    try:
        while sent < frames:
            sock.sendall(batch)
            sent += 1000
    except TimeoutError:
        pass
    print(sent, flush=True)
    sys.stdin.read()
    """
)


@pytest.fixture
def clue():
    pc = ClueControlPC()
    yield pc
    pc.stop()


def test_a_client_that_writes_and_never_reads_costs_a_bounded_amount(mock_factory, clue: ClueControlPC) -> None:
    frames = 2_000_000  # 24 MB: far past what the prop reads before it stops reading
    with prop_with_clue_control(mock_factory, clue.port) as (daemon, link, port):
        flooder = subprocess.Popen(
            [sys.executable, "-c", FLOODER, str(port), str(frames), "5"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert flooder.stdout is not None
            sent = int(flooder.stdout.readline())  # the prop stopped reading it (or it sent them all)
            queues = kernel_queues(port)  # the flooder's connection, as the prop's kernel holds it
            # while the flooder holds its connection, Clue Control and the game master are served
            client = ModbusTcpClient("127.0.0.1", port=port, timeout=PATIENCE, retries=0)
            assert client.write_register(1, 4).registers == [4]  # disable
            client.close()
            status = GameMaster(daemon).handle({"command": "status"}).result(PATIENCE)
        finally:
            flooder.stdin.close()  # type: ignore[union-attr]
            flooder.wait(PATIENCE)
        stats = link.switch.stats
        handed = link.switch.commands
        daemon.wait_idle()
        assert not daemon.module.enabled  # Clue Control's disable ran, after the flood's enables
    assert status["ok"] is True, status
    assert sent < frames  # the prop stopped reading: the rest waited in the flooder
    assert stats.most_pending <= MAX_PENDING  # the commands that waited for the game
    assert stats.busy > 0  # (the flood did outrun the game: the cap was reached)
    assert stats.most_buffered <= READ_SIZE + 6 + MAX_LENGTH  # one read and a frame
    assert stats.most_unsent <= WRITE_HIGH + BATCH + 6 + MAX_LENGTH  # the answers a write may leave
    assert handed < sent  # what it handed on is what fits the buffers, not the flood
    # in the prop's kernel: the connection's buffers as set (SOCKET_BUFFER, which Linux doubles), not
    # grown to megabytes; the rest of the flood waits in the flooder's
    assert len(queues) == 1 and all(size <= 4 * SOCKET_BUFFER for size in queues[0]), queues


def kernel_queues(port: int) -> list[tuple[int, int]]:
    """(unsent, unread) bytes of each established TCP connection on local ``port`` (/proc/net/tcp)."""
    found = []
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            local, state, queues = fields[1], fields[3], fields[4]
            if int(local.split(":")[1], 16) == port and state == "01":
                tx, rx = (int(part, 16) for part in queues.split(":"))
                found.append((tx, rx))
    return found
