"""The prop as a Modbus TCP client: a "trigger" in Clue Control, whose coils the prop writes.

On each change the prop writes one coil (function code 5) on the Clue Control computer:
solved, enabled, and each output (:class:`.protocol.Coils`). The numbers carry the
prop's number ``N``: ``coil_base`` when given, else the last octet of the prop's own
IPv4 address on the way to Clue Control (the kernel's choice of source address), found
again at each connection, so a new address moves the coils and they are all written
again.

Each change is an edge (a coil going on, or off) and Clue Control gets the edges in the
order they happened: a solve followed by a reset while Clue Control was down reaches it
as the solved coil on, then off, so its triggers fire as if it had been there. The edges
wait in a queue of at most ``max_edges`` (:data:`MAX_EDGES`); past it the oldest is
dropped (one log line for the spell, and the count when Clue Control answers again),
and once the queue is written each coil whose latest value Clue Control has not
acknowledged is written too, so its state is right even after a drop. While Clue
Control is down (refused, unreachable, silent past ``timeout``) the link retries with a
growing wait (``first_retry`` doubling up to ``longest_retry``), one log line when it
goes away and one when it answers again. At the start every coil is written once, so
Clue Control learns the prop's state. A coil Clue Control refuses (an exception
response) is logged (aggregated) and not tried again until it changes. The connection
stays open between writes; pymodbus opens it again when Clue Control closed it.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pymodbus.client import AsyncModbusTcpClient
from pymodbus.exceptions import ModbusException

from baccarat_core.records import field, record
from firmware.plugin import Noise

from .protocol import ENABLED, MODBUS_PORT, SOLVED, UNIT_ID, Coils, Key, last_octet, output_key, route_address

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

log = logging.getLogger("baccarat.clue_control")

#: Seconds to wait for Clue Control to accept a connection or answer a write.
TIMEOUT = 2.0
#: The first wait before trying a Clue Control that did not answer again; it doubles up to the longest.
FIRST_RETRY = 0.5
LONGEST_RETRY = 30.0
#: The changes (edges) that wait for Clue Control at most; past it the oldest is dropped.
MAX_EDGES = 64


class ControllerDown(Exception):
    """Clue Control cannot be reached or did not answer (the text says how)."""


@record(frozen=False, eq=False, repr=False)
class Trigger:
    """Writes the prop's state to Clue Control's coils; :meth:`start` and every call on one event loop.

    >>> import asyncio
    >>> async def demo():  # nothing listens on port 9: the values wait, and the link retries
    ...     trigger = Trigger("127.0.0.1", 9, coil_base=7, first_retry=60)
    ...     trigger.set_solved(True)
    ...     trigger.set_output(0, True)
    ...     trigger.start()
    ...     await asyncio.sleep(0.2)
    ...     await trigger.close()
    ...     return trigger.pending(), trigger.edges(), trigger.up
    >>> asyncio.run(demo())
    ({('solved', 0): True, ('output', 0): True}, [(('solved', 0), True), (('output', 0), True)], False)
    """

    host: str
    port: int = MODBUS_PORT
    _: KW_ONLY
    coil_base: int | None = None
    timeout: float = TIMEOUT
    first_retry: float = FIRST_RETRY
    longest_retry: float = LONGEST_RETRY
    max_edges: int = MAX_EDGES
    tally: Noise = field(default_factory=lambda: Noise(log))
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    route: Callable[[str, int], str] = route_address

    def __post_init__(self) -> None:
        self._want: dict[Key, bool] = {}  # the latest value of each coil, in the order they changed
        self._told: dict[Key, bool] = {}  # what Clue Control acknowledged (under the current coil numbers)
        self._edges: deque[tuple[Key, bool]] = deque()  # the changes not yet acknowledged, oldest first
        self._dropped = 0  # edges dropped since Clue Control last had them all
        self._settled = asyncio.Event()  # set while nothing waits to be written
        self._settled.set()
        self._coils: Coils | None = None  # the numbers of the last connection
        self._client: AsyncModbusTcpClient | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        #: None before the first try, then whether Clue Control answered the last one.
        self.up: bool | None = None
        #: Coils written and acknowledged, since the start.
        self.written = 0
        #: Edges dropped from a full queue, since the start.
        self.dropped = 0

    # -- the prop's state, from the loop's thread ----------------------------------------
    def set_solved(self, on: bool) -> None:
        """The prop is solved, or no longer."""
        self.set(SOLVED, on)

    def set_enabled(self, on: bool) -> None:
        """The prop is enabled, or disabled."""
        self.set(ENABLED, on)

    def set_output(self, index: int, on: bool) -> None:
        """Output ``index`` (config order, from 0) is on, or off."""
        self.set(output_key(index), on)

    def set(self, key: Key, on: bool) -> None:
        """The coil ``key`` stands for is ``on`` (:data:`.protocol.Key`); written unless it is so already."""
        if self._want.get(key) == on:
            return
        self._want.pop(key, None)
        self._want[key] = bool(on)  # the last to change goes last
        self._edges.append((key, bool(on)))
        if len(self._edges) > self.max_edges:
            self._edges.popleft()
            self.dropped += 1
            self._dropped += 1
            if self._dropped == 1:
                log.warning(
                    "Clue Control at %s:%d: more than %d changes wait for it: the oldest are dropped "
                    "(each coil's latest value is still written)",
                    self.host,
                    self.port,
                    self.max_edges,
                )
        self._settled.clear()
        self._wake.set()

    def pending(self) -> dict[Key, bool]:
        """The coils whose latest value Clue Control has not acknowledged, in the order they changed."""
        return {key: on for key, on in self._want.items() if self._told.get(key) != on}

    def edges(self) -> list[tuple[Key, bool]]:
        """The changes Clue Control has not acknowledged yet, oldest first (at most ``max_edges``)."""
        return list(self._edges)

    async def settled(self) -> None:
        """Return once Clue Control has acknowledged (or refused) every change so far."""
        await self._settled.wait()

    # -- life ----------------------------------------------------------------------------
    def start(self) -> None:
        """Begin writing (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="clue-control-trigger")

    async def close(self) -> None:
        """Stop writing and close the connection (what is pending stays unsent)."""
        self._closing = True  # (Python 3.11's wait_for can swallow a cancel that meets an answer)
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self._disconnect()

    async def _run(self) -> None:
        delay = self.first_retry
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            while (self._edges or self.pending()) and not self._closing:
                try:
                    await self._write_pending()
                except ControllerDown as down:
                    self._disconnect()
                    if self.up is not False:
                        log.warning(
                            "Clue Control at %s:%d: %s; trying again with a growing wait (up to %g s), "
                            "the changes are written in order when it answers",
                            self.host,
                            self.port,
                            down,
                            self.longest_retry,
                        )
                    self.up = False
                    await self.sleep(delay)
                    delay = min(2 * delay, self.longest_retry)
                    continue
                if self.up is False:
                    dropped = f" ({self._dropped} older changes were dropped)" if self._dropped else ""
                    log.info("Clue Control at %s:%d answers again%s", self.host, self.port, dropped)
                self._dropped = 0
                self.up = True
                delay = self.first_retry
            if not self._edges and not self.pending():
                self._settled.set()

    async def _write_pending(self) -> None:
        """The edges in order, then each coil whose latest value is not acknowledged (after a drop,
        or under new numbers); ControllerDown leaves the rest for the next try."""
        client, coils = await self._connection()
        while self._edges and not self._closing:
            key, on = self._edges[0]
            await self._write(client, coils, key, on)
            self._edges.popleft()
        for key, on in list(self._want.items()):
            if self._told.get(key) != on and not self._closing:
                await self._write(client, coils, key, on)

    async def _write(self, client: AsyncModbusTcpClient, coils: Coils, key: Key, on: bool) -> None:
        number = coils.number(key)
        try:
            reply = await client.write_coil(number, on, device_id=UNIT_ID)
        except (TimeoutError, ModbusException, OSError) as error:
            raise ControllerDown(f"writing coil {number} failed ({_reason(error)})") from None
        if reply.isError():
            self.tally.note(
                "refused coil",
                f"Clue Control at {self.host}:{self.port} refused coil {number} "
                f"(exception {reply.exception_code}): is it set up as a trigger there?",
            )
        else:
            self.written += 1
        self._told[key] = on

    async def _connection(self) -> tuple[AsyncModbusTcpClient, Coils]:
        """The open client and the coil numbers of this connection."""
        if self._client is not None and self._coils is not None:
            return self._client, self._coils
        loop = asyncio.get_running_loop()
        try:
            found = await loop.getaddrinfo(self.host, self.port, family=socket.AF_INET, type=socket.SOCK_STREAM)
            address = str(found[0][4][0])
            coils = Coils(self.coil_base if self.coil_base is not None else last_octet(self.route(address, self.port)))
        except OSError as error:
            raise ControllerDown(f"no IPv4 route to it ({_reason(error)})") from None
        client = AsyncModbusTcpClient(
            address, port=self.port, timeout=self.timeout, retries=0, reconnect_delay=0, name="clue_control"
        )
        if not await client.connect():
            client.close()
            raise ControllerDown("it does not accept a connection")
        if coils != self._coils:
            self._told.clear()  # new numbers: every coil is written again under them
            log.info(
                "Clue Control trigger: prop number %d, coils %d solved, %d enabled, %d + output index",
                coils.base,
                coils.solved,
                coils.enabled,
                coils.output(0),
            )
        self._client, self._coils = client, coils
        return client, coils

    def _disconnect(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
