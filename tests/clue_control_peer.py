"""The other side for the Clue Control tests: a Clue Control computer made of pymodbus's own server.

:class:`FakeClueControl` is a pymodbus ``ModbusTcpServer`` with coils 0-29999 (the range a
prop's coils fall in), on loopback, that records every coil write (function code 5) in the
order it came and lets a test wait for the next one without racing the clock.
"""

from __future__ import annotations

import asyncio
import logging
import socket

from pymodbus.server import ModbusTcpServer
from pymodbus.simulator import DataType, SimData, SimDevice

from firmware.plugin import stop_accepting

logging.getLogger("pymodbus").setLevel(logging.CRITICAL)

#: The coils the fake Clue Control has (0 to COILS - 1); a write past them is answered with exception 2.
COILS = 30000
#: How long a test waits for something that should come at once (generous: a busy machine).
PATIENCE = 20.0


class FakeClueControl:
    """A Modbus TCP server on 127.0.0.1 that records coil writes; ``port`` 0 asks for a free port."""

    def __init__(self, port: int = 0, *, coils: int = COILS) -> None:
        self.port = port
        self.coils = coils
        #: (coil, value) of each write, in order.
        self.writes: list[tuple[int, bool]] = []
        self._changed = asyncio.Condition()
        self._server: ModbusTcpServer | None = None

    async def _action(self, function, start, address, count, registers, values):
        if function == 5 and values is not None:
            self.writes.append((address, bool(values[0])))
            async with self._changed:
                self._changed.notify_all()
        return None

    async def start(self) -> FakeClueControl:
        device = SimDevice(
            id=0,
            simdata=(
                [SimData(0, values=[False] * self.coils, datatype=DataType.BITS)],  # (count= is slow)
                [SimData(0, values=False, datatype=DataType.BITS)],
                [SimData(0, datatype=DataType.REGISTERS)],
                [SimData(0, datatype=DataType.REGISTERS)],
            ),
            action=self._action,
        )
        self._server = ModbusTcpServer(device, address=("127.0.0.1", self.port))
        await self._server.serve_forever(background=True)
        self.port = self._server.transport.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Stop as the prop's own servers do: the accepts under way finish first (CPython issue
        109564; a prop reconnecting as the peer stopped left a half-made transport on 3.13)."""
        if self._server is not None:
            if isinstance(self._server.transport, asyncio.Server):
                await stop_accepting(self._server.transport)
            await self._server.shutdown()
            self._server = None

    async def wait_writes(self, count: int, patience: float = PATIENCE) -> list[tuple[int, bool]]:
        """The writes once there are ``count`` of them (a timeout after ``patience`` fails the test)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(self.writes) >= count), patience)
        return list(self.writes)

    def latest(self) -> dict[int, bool]:
        """Each coil's last written value."""
        return dict(self.writes)


def closed_port() -> socket.socket:
    """A loopback port bound and not listening (a connection is refused, as by a computer whose Clue
    Control is not running); close the socket to free the port for :class:`FakeClueControl`."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    return holder
