"""The cues: each event the game settled, as the OSC message ``[osc]`` names, sent to every target.

The game thread only picks the events out (:meth:`CueSender.on_settled`, after the frame is
out); the sender's own thread builds each message with python-osc's builder and sends it with
python-osc's UDP client to every target, in the order the events came. A target given by name
(``qlab.local``) is looked up by a third thread, at the start and every
:data:`RESOLVE_SECONDS` after, so that a slow name server never holds a cue back; while its
name is not known it misses its cues (one log line). A cue that cannot be sent (no route to the
host) is dropped with one log line: UDP has no delivery to wait for, and a sound cue played
late is worse than none.

>>> from baccarat_core import events as ev
>>> cue_of(ev.Strike("bet", "no bet", 2), "/cue/strike{strikes}/start", arguments=True)
('/cue/strike2/start', (2,))
>>> from firmware.devices.switching import OutputSwitched
>>> cue_of(OutputSwitched("lock", True, "solved"), "/prop/output", arguments=True)
('/prop/output', ('lock', 1))
>>> cue_of(OutputSwitched("lock", False, "reset"), "/cue/{name}-{state}/start", arguments=False)
('/cue/lock-off/start', ())
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
from typing import TYPE_CHECKING, Any

from baccarat_core import events as ev
from firmware.plugin import QUIET_SECONDS, Noise, OutputSwitched

from .settings import EVENTS, OscSettings, Target, fill

if TYPE_CHECKING:
    from pythonosc.osc_message import OscMessage
    from pythonosc.udp_client import UDPClient

    from baccarat_core import BaccaratModule

log = logging.getLogger("baccarat.osc")

#: How often a target's name is looked up again (its address may change with DHCP).
RESOLVE_SECONDS = 60.0
#: How soon a name that was not found is looked up again.
RETRY_SECONDS = 5.0


def cue_of(event: ev.Event, template: str, *, arguments: bool) -> tuple[str, tuple[int | str, ...]]:
    """The address (``template`` filled in) and the arguments of ``event``'s message: the values
    :data:`~.settings.EVENTS` names, an output's state as 1 or 0 (``on``/``off`` in the address)."""
    values: tuple[int | str, ...] = ()
    if isinstance(event, ev.Strike):
        values = (event.strikes,)
    elif isinstance(event, ev.Exploded):
        values = (event.cause,)
    elif isinstance(event, ev.DealStarted):
        values = (sum(event.bets.values()),)
    elif isinstance(event, OutputSwitched):
        values = (event.name, 1 if event.on else 0)
    words: dict[str, Any] = dict(zip(EVENTS[event.kind], values, strict=True))
    if isinstance(event, OutputSwitched):
        words["state"] = "on" if event.on else "off"
    return fill(template, words), values if arguments else ()


def build(address: str, arguments: tuple[int | str, ...]) -> OscMessage:
    """The OSC message, built by python-osc (its types: ``i`` for a whole number, ``s`` for text)."""
    from pythonosc.osc_message_builder import OscMessageBuilder

    builder = OscMessageBuilder(address=address)
    for value in arguments:
        builder.add_arg(value)
    return builder.build()


def _client(ip: str, port: int) -> UDPClient:
    from pythonosc.udp_client import UDPClient

    return UDPClient(ip, port, allow_broadcast=True)  # a broadcast target (192.168.1.255) is allowed


def _numeric(host: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        return False
    return True


class CueSender:
    """Sends the configured cue of each event to every target, from a thread of its own.

    Its ``on_settled`` is a daemon hook; here it is called as the game thread calls it, and
    python-osc's own server stands in for QLab:

    >>> from pythonosc.dispatcher import Dispatcher
    >>> from pythonosc.osc_server import BlockingOSCUDPServer
    >>> heard = Dispatcher()
    >>> heard.set_default_handler(lambda address, *args: print(address, args))
    >>> qlab = BlockingOSCUDPServer(("127.0.0.1", 0), heard)
    >>> qlab.timeout = 5
    >>> port = qlab.server_address[1]
    >>> settings = OscSettings((Target("127.0.0.1", port),), {"strike": "/cue/strike{strikes}/start"})
    >>> sender = CueSender(settings, Noise(log))
    >>> sender.start()
    >>> sender.on_settled([ev.DenominationChanged(25), ev.Strike("bet", "no bet", 2)], None)
    >>> qlab.handle_request()
    /cue/strike2/start (2,)
    >>> sender.stop()
    >>> qlab.server_close()
    """

    def __init__(self, settings: OscSettings, noise: Noise) -> None:
        self.settings = settings
        self.noise = noise
        self.kinds = frozenset(settings.addresses)
        self._queue: queue.SimpleQueue[list[ev.Event] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._clients: dict[Target, UDPClient] = {}  # made at the start, and by the resolver
        self._resolved: dict[Target, str] = {}
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        #: Datagrams sent since the start.
        self.sent = 0

    def on_settled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread, the frame is out): hand over the events that have a cue."""
        picked = [event for event in events if event.kind in self.kinds]
        if picked:
            self._queue.put(picked)

    def start(self) -> None:
        """Make the clients of the targets given by IP address (no look-up), then start the sender,
        and the resolver for the targets given by name (or whose client could not be made)."""
        numeric = [t for t in self.settings.targets if _numeric(t.host)]
        ready = [t for t in numeric if self._resolve(t)]
        self._threads = [threading.Thread(target=self._send_loop, name="baccarat-osc-out", daemon=True)]
        if len(ready) < len(self.settings.targets):
            self._threads.append(threading.Thread(target=self._resolve_loop, name="baccarat-osc-names", daemon=True))
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Send what was handed over, then close (a look-up in progress is left to end on its own)."""
        self._queue.put(None)
        self._stopping.set()
        for thread in self._threads:
            thread.join(5.0)
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()

    # -- the sender's thread ----------------------------------------------------------------
    def _send_loop(self) -> None:
        while True:
            try:
                events = self._queue.get(timeout=QUIET_SECONDS)
            except queue.Empty:
                self.noise.tick()
                continue
            if events is None:
                return
            for event in events:
                try:
                    address, arguments = cue_of(
                        event, self.settings.addresses[event.kind], arguments=self.settings.arguments
                    )
                    message = build(address, arguments)
                except Exception as error:  # noqa: BLE001 - a value python-osc cannot carry: one line, the rest go on
                    self.noise.note("build", f"osc: the {event.kind} cue cannot be built ({error})", logging.ERROR)
                    continue
                for target in self.settings.targets:
                    self._send(target, message)

    def _send(self, target: Target, message: OscMessage) -> None:
        with self._lock:
            client = self._clients.get(target)
            if client is None:
                self.noise.note(
                    f"unknown {target}",
                    f"osc: no address for {target} yet, so {message.address} was not sent",
                )
                return
            try:
                client.send(message)
                self.sent += 1
            except OSError as error:
                self.noise.note(
                    f"send {target}",
                    f"osc: cannot send {message.address} to {target} ({error.strerror or error}); the cue is dropped",
                )

    # -- the resolver's thread ----------------------------------------------------------------
    def _resolve_loop(self) -> None:
        """Names looked up again every :data:`RESOLVE_SECONDS`; a target without a client every
        :data:`RETRY_SECONDS` (an IP address's only until it has one)."""
        while not self._stopping.is_set():
            missing = 0
            for target in self.settings.targets:
                if _numeric(target.host) and target in self._resolved:
                    continue
                missing += not self._resolve(target)
            self._stopping.wait(RETRY_SECONDS if missing else RESOLVE_SECONDS)

    def _resolve(self, target: Target) -> bool:
        """Look ``target`` up; a new address gets a new client. False when it is not found, or its
        socket cannot be made (no IPv6 here, say)."""
        try:
            found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_DGRAM)
            ip = str(found[0][4][0])
            if self._resolved.get(target) == ip:
                return True
            client = _client(ip, target.port)
        except Exception as error:  # noqa: BLE001 - the name, the socket: one line, and a retry
            self.noise.note(f"resolve {target}", f"osc: target {target} cannot be reached now ({error})")
            return False
        with self._lock:
            if self._stopping.is_set():  # stopped while the name was looked up: nothing sends any more
                client.close()
                return True
            old = self._clients.get(target)
            self._clients[target] = client
            self._resolved[target] = ip
        if old is not None:
            old.close()
        if ip != target.host:
            log.info("osc: target %s is %s", target, ip)
        return True
