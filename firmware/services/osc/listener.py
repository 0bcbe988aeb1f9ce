"""The commands: OSC messages from the room's controller, run through the one command path.

The addresses, under ``prefix`` (``/baccarat``):

- ``/baccarat/reset``, ``/baccarat/solve``, ``/baccarat/enable``, ``/baccarat/disable``: no
  argument, or one number or boolean, where 0 (false) is a button's release and runs nothing
  (TouchOSC's buttons send 1 when pressed and 0 when let go);
- ``/baccarat/output <name> <state>`` and ``/baccarat/output/<name> <state>``: the state as
  ``"on"``, ``"off"`` or ``"pulse"``, or as a number or boolean (0 or false: off, else on);
- ``/baccarat/command "<words>"``: any command as the shell's ``baccarat`` takes it
  (``"set-solved 3"``, ``"add-time -60"``).

Each runs as :meth:`~firmware.room.commands.GameMaster.handle` runs every surface's: the same
checks, the same waiting for a self-test's end, the same refusals after an explosion. Nothing
is answered over OSC: the prop's own cues and its log say what happened.

The server is python-osc's :class:`~pythonosc.osc_server.BlockingOSCUDPServer` (one thread,
one datagram at a time); the packets are read by python-osc's parser. Bad input (a sender not
in ``allow``, a datagram that is not OSC, an address or arguments the prop does not take, more
than :data:`MAX_PENDING` commands waiting for the game) is logged once and then counted
(:class:`~firmware.system.noise.Noise`), and the next datagram is read as if nothing happened.
A bundle's time tag is not waited for: its messages run as they arrive.

>>> request_for("/baccarat", "/baccarat/output/lock", [1])
({'command': 'output', 'name': 'lock', 'state': 'on'}, False)
>>> request_for("/baccarat", "/baccarat/reset", [0.0]) is None  # a button let go
True
>>> request_for("/baccarat", "/baccarat/explode", [])
Traceback (most recent call last):
...
firmware.services.osc.listener.BadMessage: unknown address "/baccarat/explode" (known: /baccarat/reset, \
/baccarat/solve, /baccarat/enable, /baccarat/disable, /baccarat/output, /baccarat/output/<name>, /baccarat/command)
"""

from __future__ import annotations

import ipaddress
import logging
import math
import socket
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from pythonosc.dispatcher import Dispatcher
from pythonosc.osc_packet import OscPacket
from pythonosc.osc_server import BlockingOSCUDPServer

from baccarat_core import strict
from baccarat_core.numbers import show_value
from firmware.plugin import Noise

from .settings import OscSettings

if TYPE_CHECKING:
    from firmware.plugin import GameMaster

log = logging.getLogger("baccarat.osc")

#: The commands without arguments: address (after the prefix) -> command.
SIMPLE: dict[str, str] = {"reset": "reset", "solve": "force_solve", "enable": "enable", "disable": "disable"}
#: Commands from OSC waiting for the game at most; more are dropped (one log line for the flood).
MAX_PENDING = 32
#: How often the server's loop comes round (and says the counts of bad input that are due).
POLL_SECONDS = 0.5


class BadMessage(ValueError):
    """An OSC message the prop does not take: the text says why."""


def _known(prefix: str) -> str:
    names = [*SIMPLE, "output", "output/<name>", "command"]
    return ", ".join(f"{prefix}/{name}" for name in names)


def _pressed(address: str, args: Sequence[Any]) -> bool:
    """False for a button's release (0, false); True with no argument or any other number."""
    if len(args) > 1:
        raise BadMessage(f"{address} takes no argument, or one number (0: a button let go)")
    if not args:
        return True
    value = args[0]
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and math.isfinite(value):
        return value != 0
    raise BadMessage(f"{address}: {show_value(value, 40)} is no number (1: run, 0: a button let go)")


def _state(address: str, value: Any) -> str:
    """An output's state: a word the command table checks, or a number or boolean (0: off, else on)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float) and math.isfinite(value):
        return "on" if value != 0 else "off"
    raise BadMessage(f"{address}: the state {show_value(value, 40)} is none of on, off, pulse, 1 or 0")


def request_for(prefix: str, address: str, args: Sequence[Any]) -> tuple[dict[str, Any] | str, bool] | None:
    """The request an OSC message makes of the command path, and whether it is words (``/command``);
    None for a button's release. :class:`BadMessage` says why a message is not taken."""
    name = address[len(prefix) + 1 :] if address.startswith(prefix + "/") else None
    if name in SIMPLE:
        return ({"command": SIMPLE[name]}, False) if _pressed(address, args) else None
    if name == "output":
        if len(args) != 2 or not isinstance(args[0], str):
            raise BadMessage(f"{address} takes an output's name and its state (on, off, pulse, 1 or 0)")
        return {"command": "output", "name": args[0], "state": _state(address, args[1])}, False
    if name is not None and name.startswith("output/") and "/" not in name[7:]:
        if len(args) != 1:
            raise BadMessage(f"{address} takes the output's state (on, off, pulse, 1 or 0)")
        return {"command": "output", "name": name[7:], "state": _state(address, args[0])}, False
    if name == "command":
        if len(args) != 1 or not isinstance(args[0], str):
            raise BadMessage(f'{address} takes the command as one string, as "set-solved 3"')
        return args[0], True
    raise BadMessage(f"unknown address {show_value(address, 60)} (known: {_known(prefix)})")


class _ParserLines(logging.Filter):
    """On the root logger, where python-osc's parser logs what it skips (``Unhandled parameter type``,
    ``Could not identify content type``): on a listener's thread, while it reads a datagram, each
    such line becomes a note of that listener's (a flood of them is a line and a count), and the
    datagram is dropped whole (a message missing an argument it was sent with does not run)."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        """False (dropped) for a line that became a note."""
        reading: tuple[Noise, str] | None = getattr(self.local, "reading", None)
        if reading is None:
            return True
        noise, who = reading
        self.local.skipped = True
        noise.note("bad", f"osc: a datagram from {who}: {strict.one_line(record.getMessage(), 120)}")
        return False


_parser_lines = _ParserLines()
logging.getLogger().addFilter(_parser_lines)


class _Dispatch(Dispatcher):
    """python-osc's server hands each datagram here (the packets are read by the listener)."""

    def __init__(self, listener: CommandListener) -> None:
        super().__init__()
        self.listener = listener

    def call_handlers_for_packet(self, data: bytes, client_address: tuple[str, int]) -> list[Any]:
        """Read one datagram; nothing is sent back."""
        self.listener.packet(data, client_address)
        return []


class _Server(BlockingOSCUDPServer):
    """python-osc's server, with the allow-list, and bad input as notes instead of tracebacks."""

    def __init__(self, address: tuple[str, int], listener: CommandListener) -> None:
        self.listener = listener
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Dispatch(listener), family=self.address_family)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Only the senders ``allow`` lets in (any datagram, OSC or not, is then read)."""
        return self.listener.allowed(client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A datagram whose handling failed: one note, never a traceback; the server reads on."""
        error = sys.exc_info()[1]
        self.listener.noise.note(
            "error", f"osc: a datagram from {client_address[0]} failed ({type(error).__name__}: {error})", logging.ERROR
        )

    def service_actions(self) -> None:
        """Each pass of the loop: say the counts of bad input that are due."""
        self.listener.noise.tick()


class CommandListener:
    """OSC commands on a UDP port, from the senders ``allow`` lets in, into the one command path."""

    def __init__(self, commands: GameMaster, settings: OscSettings, noise: Noise) -> None:
        if settings.listen is None:
            raise ValueError("the settings listen nowhere")
        self.commands = commands
        self.prefix = settings.prefix
        self.allow = settings.allow
        self.noise = noise
        self._pending = 0
        self._lock = threading.Lock()
        self.server = _Server((settings.listen.host, settings.listen.port), self)
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        """Where it listens (host, port)."""
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def pending(self) -> int:
        """Commands from OSC handed to the command path whose reply has not come yet."""
        return self._pending

    def start(self) -> None:
        """Serve on a thread of its own."""
        self._thread = threading.Thread(
            target=self.server.serve_forever,
            kwargs={"poll_interval": POLL_SECONDS},
            name="baccarat-osc-in",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop reading and close the port."""
        if self._thread is not None:
            self.server.shutdown()
            self._thread.join(5.0)
            self._thread = None
        self.server.server_close()

    def allowed(self, sender: Any) -> bool:
        """Whether ``sender`` ((host, port, ...)) may send commands; a refused one is a note."""
        if not self.allow:
            return True
        try:
            ip = ipaddress.ip_address(str(sender[0]).split("%")[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # a dual-stack socket's view of an IPv4 sender
        if any(ip in network for network in self.allow):
            return True
        self.noise.note("refused", f"osc: ignored datagrams from {ip}: not in [osc] allow")
        return False

    def packet(self, data: bytes, sender: Any) -> None:
        """One datagram: each message in it (a bundle's in order, its time tags not waited for)."""
        who = str(sender[0])
        _parser_lines.local.reading, _parser_lines.local.skipped = (self.noise, who), False
        try:
            messages = [timed.message for timed in OscPacket(data).messages]
        except Exception as error:  # noqa: BLE001 - python-osc's ParseError, or worse: the datagram is dropped
            text = strict.one_line(str(error), 80)
            self.noise.note("bad", f"osc: a datagram from {who} is not OSC ({len(data)} bytes: {text})")
            return
        finally:
            _parser_lines.local.reading = None
        if _parser_lines.local.skipped:  # the parser left something out (and said so: a note)
            return
        for message in messages:
            try:
                request = request_for(self.prefix, message.address, message.params)
            except BadMessage as error:
                self.noise.note("bad", f"osc: ignored a message from {who}: {error}")
                continue
            if request is not None:
                self.run(*request, who=who)

    def run(self, request: dict[str, Any] | str, words: bool, *, who: str) -> Future[dict[str, Any]] | None:
        """Hand ``request`` to the command path (its refusals become notes); None when too many wait."""
        with self._lock:
            if self._pending >= MAX_PENDING:
                self.noise.note("flood", f"osc: more than {MAX_PENDING} commands from {who} wait for the game: dropped")
                return None
            self._pending += 1
        log.debug("osc: %s from %s", request, who)
        with self.noise.capturing(f"osc from {who}"):
            reply = self.commands.handle(request, words=words)
        reply.add_done_callback(self._done)
        return reply

    def _done(self, reply: Future[dict[str, Any]]) -> None:
        with self._lock:
            self._pending -= 1
