"""One connection to the switch: MBAP frames in, answers out, at the pace the peer and the game allow.

What one connection may cost is bounded, whoever is at the other end (issue 41 items 14, 19):

- **Reading** stops while answers wait unsent (the transport's write buffer is past
  :data:`WRITE_HIGH`: a peer that writes and does not read) and while the switch has
  :data:`~.switch.MAX_PENDING` commands waiting for the game; it goes on when they are
  sent or run. Until then the peer's bytes wait in the kernel, whose buffers for the
  connection are set to :data:`SOCKET_BUFFER` each way.
- **Parsing** is linear: the frames of one read are taken from a ``bytearray`` by offset,
  and what was used is cut off once, at the end (never a copy of the rest per frame). A read
  is at most asyncio's 256 KiB, so the buffer holds at most that and one frame.
- **Answers** of one read are written together (one ``write`` per :data:`BATCH` bytes), and
  nothing is written into a transport that is closing (a peer that reset the connection):
  asyncio would log a warning for each.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from typing import TYPE_CHECKING, Protocol

from pymodbus.framer import FramerSocket

if TYPE_CHECKING:
    from pymodbus.pdu import DecodePDU, ModbusPDU

    from firmware.plugin import Noise

#: The MBAP header: transaction id, protocol id, length (two bytes each), unit id.
MBAP_BYTES = 7
#: The MBAP length field counts the unit id and the PDU (at most 253 bytes).
MIN_LENGTH, MAX_LENGTH = 2, 254
#: Answers waiting in the transport past this many bytes stop the reading (it resumes at a quarter).
WRITE_HIGH = 16 * 1024
#: Answers are handed to the transport in pieces of about this many bytes.
BATCH = 4 * 1024
#: The kernel's send and receive buffer for each connection (Clue Control's frames are 12 bytes).
SOCKET_BUFFER = 16 * 1024


def _address(text: str) -> str:
    """An address as a peer's is compared: IPv4-mapped IPv6 as plain IPv4."""
    address = ipaddress.ip_address(text.split("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


class Busy(Exception):
    """Raised by :meth:`.switch.Switch.answer` for a command while too many wait for the game: the
    frame stays unread until one is done."""


class Counts(Protocol):
    """Where a session notes what it holds (:class:`.switch.Stats`)."""

    def note_buffer(self, size: int) -> None:
        """Bytes read and not yet parsed."""

    def note_unsent(self, size: int) -> None:
        """Bytes of answers not yet sent."""


class Switch(Protocol):
    """What a session needs of its switch (:class:`.switch.Switch`), named by its shape: the switch
    imports this module, not the other way round."""

    @property
    def tally(self) -> Noise:
        """The quiet log for hostile peers."""

    @property
    def stats(self) -> Counts:
        """What the connections hold at most."""

    @property
    def frame_seconds(self) -> float:
        """How long a frame may take to arrive whole."""

    @property
    def _decoder(self) -> DecodePDU:
        """pymodbus's request decoder."""

    def admit(self, session: Session) -> bool:
        """Whether another connection may come in."""

    def forget(self, session: Session) -> None:
        """The connection is gone."""

    def wait_for_room(self, session: Session) -> None:
        """Call the session back when a command may wait for the game again."""

    def answer(self, pdu: bytes, unit: int, transaction: int, sender: str) -> ModbusPDU:
        """The answer to one request (raises :class:`Busy` while too many wait)."""


class Session(asyncio.Protocol):
    """One connection: MBAP frames in, answers out."""

    def __init__(self, switch: Switch) -> None:
        self.switch = switch
        self.framer = FramerSocket(switch._decoder)
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.buffer = bytearray()
        self.last_seen = time.monotonic()
        self._frame_timer: asyncio.TimerHandle | None = None
        self._answers_wait = False  # the transport's buffer is past WRITE_HIGH
        self._commands_wait = False  # a command waits for the switch's pending ones
        self._reading = True

    # -- asyncio's calls -------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Admit the peer (or close it), and set the connection's buffers."""
        assert isinstance(transport, asyncio.Transport)  # a TCP server's
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = _address(peer[0]) if peer else "?"
        if not self.switch.admit(self):
            transport.abort()
            self.transport = None
            return
        transport.set_write_buffer_limits(high=WRITE_HIGH)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                sock.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER)

    def connection_lost(self, exc: Exception | None) -> None:
        """Closed, by either side: forgotten."""
        self._stop_timer()
        self.transport = None
        self.switch.forget(self)

    def pause_writing(self) -> None:
        """Answers wait unsent past :data:`WRITE_HIGH`: read no more until they are sent."""
        self._answers_wait = True  # a peer that sends and does not read
        self._update_reading()

    def resume_writing(self) -> None:
        """The answers went out: serve what waits, and read again."""
        self._answers_wait = False
        self.serve()

    def data_received(self, data: bytes) -> None:
        """Bytes from the peer: served at once, as far as they make whole frames."""
        self.last_seen = time.monotonic()
        self.buffer += data
        self.switch.stats.note_buffer(len(self.buffer))
        self.serve()

    # -- the switch's ----------------------------------------------------------------------
    def drop(self) -> None:
        """Close at once (over the cap, stopping, a broken stream)."""
        self._stop_timer()
        if self.transport is not None:
            self.transport.abort()
            self.transport = None
        self.switch.forget(self)

    def resume(self) -> None:
        """The switch has room for a command again: serve what waits."""
        self._commands_wait = False
        self.serve()

    def serve(self) -> None:
        """Answer the whole frames in the buffer, in order, while the peer and the game keep up."""
        buffer, at, out = self.buffer, 0, bytearray()
        while self._open() and not self._answers_wait and len(buffer) - at >= MBAP_BYTES:
            protocol = int.from_bytes(buffer[at + 2 : at + 4], "big")
            length = int.from_bytes(buffer[at + 4 : at + 6], "big")
            if protocol != 0 or not MIN_LENGTH <= length <= MAX_LENGTH:
                self._write(out)  # the frames before it are answered
                self._garbage(protocol, length)
                return
            size = 6 + length
            if len(buffer) - at < size:
                break
            _, unit, transaction, pdu = self.framer.decode(bytes(buffer[at : at + size]))
            try:
                answer = self.switch.answer(pdu, unit, transaction, self.peer)
            except Busy:
                self._commands_wait = True
                self.switch.wait_for_room(self)
                break
            at += size
            self._stop_timer()  # the frame that was waiting is whole
            out += self.framer.buildFrame(answer)
            if len(out) >= BATCH:
                self._write(out)
                out = bytearray()
        self._write(out)
        del buffer[:at]
        if not self._open():
            return
        self._update_reading()
        waiting = self._answers_wait or self._commands_wait
        if buffer and not waiting and self._frame_timer is None:
            loop = asyncio.get_running_loop()  # a new frame begins: it has frame_seconds from now
            self._frame_timer = loop.call_later(self.switch.frame_seconds, self._stalled)
        elif waiting:
            self._stop_timer()  # the wait is the prop's, not the peer's

    # -- inside ----------------------------------------------------------------------------
    def _open(self) -> bool:
        """Whether answers can still go out (not closed, not a reset peer's closing transport)."""
        return self.transport is not None and not self.transport.is_closing()

    def _write(self, out: bytearray) -> None:
        if out and self.transport is not None and not self.transport.is_closing():
            self.transport.write(bytes(out))
            self.switch.stats.note_unsent(self.transport.get_write_buffer_size())

    def _update_reading(self) -> None:
        """Read while nothing waits (answers unsent, commands for the game); else let the kernel hold it."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        reading = not (self._answers_wait or self._commands_wait)
        if reading != self._reading:
            self._reading = reading
            if reading:
                transport.resume_reading()
            else:
                transport.pause_reading()

    def _garbage(self, protocol: int, length: int) -> None:
        self._close("garbage", f"not Modbus TCP (protocol id {protocol}, length {length})")

    def _stalled(self) -> None:
        self._frame_timer = None
        self._close("stalled", f"a frame not whole within {self.switch.frame_seconds:g} s")

    def _close(self, kind: str, why: str) -> None:
        """Drop the connection, the reason counted in the switch's tally by ``kind``."""
        self.switch.tally.note(kind, f"Clue Control switch: closed a connection from {self.peer}: {why}")
        self.drop()

    def _stop_timer(self) -> None:
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
