"""The prop as a Modbus TCP server: a "switch" in Clue Control, which writes commands to it.

Clue Control writes holding register 1 with function code 6; the value is a command
(:func:`.protocol.commands_for`). A command is answered at once, as Modbus answers a
write (the request echoed), and handed to ``on_commands`` as the prop's own command
names, in order: the caller runs them through the prop's one command path, which
refuses them there as it does for every other surface (during the self-test, after an
explosion) and logs why. Everything else is answered as Modbus answers it and changes
nothing: another function code (exception 1, illegal function), another register (2,
illegal data address), a value that is no command or a write of the wrong length (3,
illegal data value).

The frames are read and written by pymodbus (its socket framer, its PDUs); the server
around them is this module's, because what a stranger on the room network can send
must cost little and say little:

- the MBAP header is checked first (protocol id 0, a length from 2 to 254): a stream
  that breaks it is not Modbus TCP, and the connection is closed (it cannot be resynced);
- a frame must be whole within ``frame_seconds`` of its first byte, else the connection
  is closed; frames sent back to back are each answered, in order;
- at most ``max_connections`` at once: a new one closes the one idle the longest;
- at most ``max_pending`` commands wait for the game; a connection with another stops being
  read until one is done (and one whose answers go unread stops being read): :mod:`.session`;
- with ``allow``, a connection from any other address is closed unanswered;
- each of these is a :class:`~firmware.system.noise.Noise` note: one log line, then one count per spell,
  never a traceback, and the server serves on.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections import deque
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from pymodbus.constants import ExcCodes
from pymodbus.pdu import DecodePDU, ExceptionResponse, ModbusPDU

from firmware.plugin import Noise, stop_accepting

from .protocol import COMMAND_REGISTER, MODBUS_PORT, Command, commands_for
from .session import Busy, Session, _address

log = logging.getLogger("baccarat.clue_control")

#: Function code 6, write single register: Clue Control's only request.
WRITE_REGISTER = 6
#: A write-single-register PDU: the function code, the address and the value (two bytes each).
WRITE_REGISTER_BYTES = 5
#: Connections served at once (Clue Control needs one).
MAX_CONNECTIONS = 8
#: A frame must be whole this many seconds after its first byte.
FRAME_SECONDS = 5.0
#: Writes whose commands wait for the game at most (as OSC's); a further one waits unread.
MAX_PENDING = 32

#: ``on_commands(commands, sender)``: the commands of one write, in order, and the sender's address;
#: it returns the replies to come (the command path's futures), or None when nothing is left to wait for.
CommandSink = Callable[[tuple[Command, ...], str], Iterable["Future[Any]"] | None]


class Stats:
    """Counts of what the connections cost at most, since the start (the tests' bounds)."""

    def __init__(self) -> None:
        #: The most bytes read and not yet parsed on a connection, after a read.
        self.most_buffered = 0
        #: The most bytes of answers waiting in a transport, after a write.
        self.most_unsent = 0
        #: The most writes whose commands waited for the game at once.
        self.most_pending = 0
        #: Times a connection waited for a command to be done before it was read further.
        self.busy = 0

    def note_buffer(self, size: int) -> None:
        """A connection's unparsed bytes."""
        self.most_buffered = max(self.most_buffered, size)

    def note_unsent(self, size: int) -> None:
        """A connection's unsent answers."""
        self.most_unsent = max(self.most_unsent, size)


class Switch:
    """The Modbus TCP server; :meth:`start` on a running event loop, :meth:`close` on the same loop.

    >>> import asyncio
    >>> from pymodbus.client import AsyncModbusTcpClient
    >>> async def demo():
    ...     got = []
    ...     switch = Switch(lambda commands, sender: got.extend(commands), ["lock"], host="127.0.0.1", port=0)
    ...     await switch.start()
    ...     client = AsyncModbusTcpClient("127.0.0.1", port=switch.port)
    ...     await client.connect()
    ...     echo = await client.write_register(1, 101)  # output 0 on
    ...     refused = await client.write_register(1, 7)  # no command
    ...     client.close()
    ...     await switch.close()
    ...     return got, echo.registers, refused.exception_code
    >>> asyncio.run(demo())
    ([Command(name='output', output='lock', state='on')], [101], 3)
    """

    def __init__(
        self,
        on_commands: CommandSink,
        outputs: Sequence[str],
        *,
        host: str = "0.0.0.0",
        port: int = MODBUS_PORT,
        allow: Collection[str] | None = None,
        tally: Noise | None = None,
        max_connections: int = MAX_CONNECTIONS,
        frame_seconds: float = FRAME_SECONDS,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self.on_commands = on_commands
        self.outputs = tuple(outputs)
        self.host = host
        #: The port asked for; once listening, the port bound (a port of 0 asks the system for one).
        self.port = port
        #: The addresses that may connect (None: any); host names among them are looked up at :meth:`start`.
        self.allow: set[str] | None = None if allow is None else set()
        self._allow_given = tuple(allow or ())
        self.tally = tally or Noise(log)
        self.max_connections = max_connections
        self.frame_seconds = frame_seconds
        self.max_pending = max_pending
        self._decoder = DecodePDU(True)
        self._server: asyncio.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sessions: set[Session] = set()
        self._waiting: deque[Session] = deque()  # connections with a command that waits for room, in order
        #: Commands handed on, since the start.
        self.commands = 0
        #: Writes whose commands wait for the game now.
        self.pending = 0
        self.stats = Stats()

    async def start(self) -> None:
        """Listen; an OSError (the port taken, a port below 1024 without the capability) goes to the caller."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self.tally.bind(loop)
        if self.allow is not None:
            self.allow = await _addresses(loop, self._allow_given)
        self._server = await loop.create_server(lambda: Session(self), self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Where it listens: (address, port) of each listening socket ([] before :meth:`start`)."""
        if self._server is None:
            return []
        return [tuple(sock.getsockname()[:2]) for sock in self._server.sockets]

    async def close(self) -> None:
        """Stop listening and close every connection (those just accepted too)."""
        if self._server is not None:
            await stop_accepting(self._server)
            self._server.close()
            self._waiting.clear()
            for session in list(self._sessions):
                session.drop()
            await self._server.wait_closed()
            self._server = None
        self.tally.close_all()

    def admit(self, session: Session) -> bool:
        """Take a new connection (closing the one idle the longest at the cap); False for a stranger."""
        if self.allow is not None and session.peer not in self.allow:
            self.tally.note("stranger", f"Clue Control switch: closed a connection from {session.peer} (not allowed)")
            return False
        if len(self._sessions) >= self.max_connections:
            oldest = min(self._sessions, key=lambda s: s.last_seen)
            self.tally.note("busy", f"Clue Control switch: {self.max_connections} connections open, closed the idlest")
            oldest.drop()
        self._sessions.add(session)
        return True

    def forget(self, session: Session) -> None:
        """A connection closed."""
        self._sessions.discard(session)
        if session in self._waiting:
            self._waiting.remove(session)

    def wait_for_room(self, session: Session) -> None:
        """``session`` has a command and the game has :attr:`max_pending`: it is served again, in
        turn, when one is done."""
        self.stats.busy += 1
        if session not in self._waiting:
            self._waiting.append(session)

    def _track(self, replies: Iterable[Future[Any]]) -> None:
        """Count a write as pending until each of its commands' replies is done (on any thread)."""
        left = [reply for reply in replies if not reply.done()]
        if not left:
            return
        self.pending += 1
        self.stats.most_pending = max(self.stats.most_pending, self.pending)
        count, lock, loop = [len(left)], threading.Lock(), self._loop

        def one_done(_: Future[Any]) -> None:
            with lock:
                count[0] -= 1
                last = count[0] == 0
            if last and loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(self._done)
                except RuntimeError:  # the loop closed meanwhile: the switch is gone
                    pass

        for reply in left:
            reply.add_done_callback(one_done)

    def _done(self) -> None:
        """A write's commands are done: the connections that wait are served, in turn."""
        self.pending -= 1
        waiting, self._waiting = self._waiting, deque()
        for session in waiting:
            session.resume()

    def answer(self, pdu: bytes, unit: int, transaction: int, sender: str) -> ModbusPDU:
        """The answer to one request's PDU; a command in it goes to ``on_commands`` first."""
        try:
            request = self._run(pdu, sender)
        except _Refused as refused:
            code = refused.code
            self.tally.note(
                _WORDS[code],
                f"Clue Control switch: refused {refused.what} from {sender} "
                f"(exception {int(code)}, {_WORDS[code]}); nothing changed",
            )
            return ExceptionResponse(pdu[0] & 0x7F, code, device_id=unit, transaction=transaction)
        request.dev_id, request.transaction_id = unit, transaction
        return request  # a write single register is answered with the request itself

    def _run(self, pdu: bytes, sender: str) -> ModbusPDU:
        """Hand on the commands of a write to the command register (the request); else :class:`_Refused`."""
        function = pdu[0]
        if function != WRITE_REGISTER:
            raise _Refused(ExcCodes.ILLEGAL_FUNCTION, f"function code {function}")
        request = self._decoder.decode(pdu) if len(pdu) == WRITE_REGISTER_BYTES else None
        if request is None:
            raise _Refused(ExcCodes.ILLEGAL_VALUE, f"a {len(pdu)}-byte write")
        value = request.registers[0]
        if request.address != COMMAND_REGISTER:
            raise _Refused(ExcCodes.ILLEGAL_ADDRESS, f"a write to register {request.address} (value {value})")
        commands = commands_for(value, self.outputs)
        if commands is None:
            raise _Refused(ExcCodes.ILLEGAL_VALUE, f"value {value}")
        if self.pending >= self.max_pending:
            raise Busy
        try:
            self._track(self.on_commands(commands, sender) or ())
        except Exception as error:  # noqa: BLE001 - the caller's fault: answered, and logged in one line
            raise _Refused(ExcCodes.DEVICE_FAILURE, f"value {value}: {type(error).__name__}: {error}") from None
        self.commands += 1
        return request


class _Refused(Exception):
    """A request answered with an exception response."""

    def __init__(self, code: ExcCodes, what: str) -> None:
        super().__init__(what)
        self.code = code
        self.what = what


_WORDS = {
    ExcCodes.ILLEGAL_FUNCTION: "illegal function",
    ExcCodes.ILLEGAL_ADDRESS: "illegal data address",
    ExcCodes.ILLEGAL_VALUE: "illegal data value",
    ExcCodes.DEVICE_FAILURE: "server device failure",
}


async def _addresses(loop: asyncio.AbstractEventLoop, given: Sequence[str]) -> set[str]:
    """The addresses of ``given`` (IP addresses as they are, host names looked up); a name that is
    not found is one log line, and nobody connects as it."""
    found: set[str] = set()
    for item in given:
        try:
            found.add(_address(item))
            continue
        except ValueError:
            pass
        try:
            infos = await loop.getaddrinfo(item, None, type=socket.SOCK_STREAM)
        except OSError as error:
            log.warning("Clue Control switch: %s is not found (%s): commands from it are refused", item, error)
            continue
        found.update(_address(str(info[4][0])) for info in infos)
    return found
