"""The bus: python-can's :class:`can.BusABC` on a thread of its own, feeding one role.

The thread opens the bus (``interface`` and ``channel`` as python-can takes them: ``socketcan``
on ``can0``, ``udp_multicast`` on a multicast group between processes, ``virtual`` within one),
reads frames, hands the role each message, its prop's events and the time, and sends what the
role says. python-can is imported here and nowhere else, when the thread opens the bus: a prop
without ``[obus]`` never loads it.

Bad input is noted by kind (:class:`~firmware.plugin.Noise`: the first line at once, then a count):
a frame that is no OBUS message (``short``, ``unknown``, ``reserved``, ``extended``, ``remote``,
``empty``, ``info``), an error frame, a frame claiming this prop's own address that it did not
send. A bus that fails (bus-off, the link taken down, a USB adapter pulled) is closed and opened
again every :data:`RETRY_SECONDS`, and the game goes on meanwhile.

The prop ignores its own frames: SocketCAN does not return them, but a multicast group does, so
each frame sent is remembered for :data:`ECHO_SECONDS` and the first identical frame heard in that
time is taken for its echo.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from baccarat_core.records import field, record

from . import protocol as p
from .roles import PropEvent

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

    import can

    from firmware.plugin import Noise

log = logging.getLogger("baccarat.obus")

#: How long the thread waits for a frame before it looks at the time again.
POLL_SECONDS = 0.05
#: A bus that failed is opened again this often.
RETRY_SECONDS = 1.0
#: A frame heard this soon after the same frame was sent is its echo.
ECHO_SECONDS = 2.0
#: Sent frames remembered for their echo, at most.
MAX_ECHOES = 64
#: Failed sends in a row that make the link close and open the bus again.
MAX_SEND_FAILURES = 20


class Role(Protocol):
    """What the link drives: a module or a controller (:mod:`.module_role`, :mod:`.controller_role`)."""

    def on_message(self, message: p.Message, now: float) -> None: ...  # noqa: D102
    def on_prop(self, event: PropEvent, now: float) -> None: ...  # noqa: D102
    def tick(self, now: float) -> None: ...  # noqa: D102


def open_bus(interface: str, channel: str, options: dict[str, Any]) -> can.BusABC:
    """python-can's bus (imported now): standard 11-bit frames only where the interface filters."""
    import can

    return can.Bus(interface=interface, channel=channel, **options)


@record(frozen=False, eq=False, repr=False)
class Link:
    """The bus's thread: see the module's text. ``node`` is this prop's address on the bus."""

    node: p.Node
    noise: Noise
    _: KW_ONLY
    interface: str
    channel: str
    options: dict[str, Any] = field(default_factory=dict)
    opener: Callable[[str, str, dict[str, Any]], can.BusABC] = open_bus
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.options = dict(self.options)  # a copy: the caller's dict may change
        self.role: Role | None = None
        self.bus: can.BusABC | None = None
        #: True while the bus is open and working; ``opened``: it was open once.
        self.up = self.opened = False
        self.events: queue.SimpleQueue[PropEvent | Callable[[float], None]] = queue.SimpleQueue()
        self._sent: deque[tuple[int, bytes, float]] = deque(maxlen=MAX_ECHOES)
        self._send_failures = 0
        self._stop = threading.Event()
        #: Held while the role is touched (the state document reads it from the game thread).
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None
        #: Frames read and sent since the start (for the benchmark and diagnostics).
        self.received = 0
        self.sent = 0

    @property
    def where(self) -> str:
        """``socketcan can0``."""
        return f"{self.interface} {self.channel}"

    # -- any thread ---------------------------------------------------------------------------
    def start(self, role: Role) -> None:
        """Run ``role`` on the link's thread."""
        self.role = role
        self._thread = threading.Thread(target=self._run, name="baccarat-obus", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the thread and close the bus."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        self._close()
        self.noise.close_all()

    def prop_event(self, event: PropEvent) -> None:
        """One of the prop's events, for the role (from the game thread)."""
        self.events.put(event)

    def later(self, call: Callable[[float], None]) -> None:
        """Run ``call(now)`` on the link's thread (the role is touched by that thread alone)."""
        self.events.put(call)

    # -- the link's thread --------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            if self.bus is None and not self._open():
                self._stop.wait(RETRY_SECONDS)
                continue
            try:
                frame = self.bus.recv(POLL_SECONDS) if self.bus is not None else None
            except Exception as error:  # noqa: BLE001 - python-can's CanError, OSError: the bus failed
                self._failed("read", error)
                continue
            now = self.clock()
            with self.lock:
                if frame is not None:
                    self._frame(frame, now)
                self._drain(now)
                self._tick(now)
            self.noise.tick()

    def _tick(self, now: float) -> None:
        if self.role is None:
            return
        try:
            self.role.tick(now)
        except Exception as error:  # noqa: BLE001 - a bug must not end the link: one line a kind
            self.noise.note("bug", f"obus: the role's clock failed ({type(error).__name__}: {error})", logging.ERROR)

    def _open(self) -> bool:
        try:
            self.bus = self.opener(self.interface, self.channel, self.options)
        except Exception as error:  # noqa: BLE001 - no such interface or device, no permission, no msgpack
            self.noise.note("down", f"obus: the bus {self.where} cannot be opened ({_why(error)}); trying again")
            return False
        if self.opened:  # again, after a failure: a bus that comes and goes is a line and a count
            self.noise.note("up", f"obus: the bus {self.where} is open again", logging.INFO)
        else:
            log.info("obus: on the bus %s as %s", self.where, self.node)
        self.opened = self.up = True
        self._send_failures = 0
        return True

    def _close(self) -> None:
        bus, self.bus = self.bus, None
        if bus is not None:
            try:
                bus.shutdown()
            except Exception as error:  # noqa: BLE001 - closing a bus that already failed
                log.debug("obus: closing the bus: %s", error)

    def _failed(self, what: str, error: BaseException) -> None:
        self.up = False
        self.noise.note("down", f"obus: the bus {self.where} failed to {what} ({_why(error)}); opening it again")
        self._close()

    def _drain(self, now: float) -> None:
        while True:
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return
            try:
                if isinstance(item, PropEvent):
                    if self.role is not None:
                        self.role.on_prop(item, now)
                else:
                    item(now)
            except Exception as error:  # noqa: BLE001 - a bug must not end the link: one line a kind
                self.noise.note(
                    "bug", f"obus: handling {item!r} failed ({type(error).__name__}: {error})", logging.ERROR
                )

    def _frame(self, frame: can.Message, now: float) -> None:
        self.received += 1
        if frame.is_error_frame:
            self.noise.note("error frame", f"obus: an error frame on {self.where} (id {frame.arbitration_id:#x})")
            return
        data = bytes(frame.data)
        if self._echo(frame.arbitration_id, data, now):
            return
        try:
            message = p.decode(frame.arbitration_id, data, extended=frame.is_extended_id, remote=frame.is_remote_frame)
            if message.sender == self.node:
                self.noise.note("same id", f"obus: another node sends as {self.node} (this prop's own address)")
                return
            if self.role is not None:
                self.role.on_message(message, now)
        except p.BadFrame as bad:
            self.noise.note(bad.kind, f"obus: ignored a frame {frame.arbitration_id:#x} [{data.hex(' ')}]: {bad.text}")
        except Exception as error:  # noqa: BLE001 - a bug must not end the link
            self.noise.note("bug", f"obus: a frame failed ({type(error).__name__}: {error})", logging.ERROR)

    def _echo(self, arbitration_id: int, data: bytes, now: float) -> bool:
        while self._sent and now - self._sent[0][2] > ECHO_SECONDS:
            self._sent.popleft()
        for entry in self._sent:
            if entry[0] == arbitration_id and entry[1] == data:
                self._sent.remove(entry)
                return True
        return False

    def send(self, message: p.Message) -> None:
        """Send ``message`` (the link's thread; a failure is a note, and many in a row reopen the bus)."""
        arbitration_id, data = p.encode(message)
        bus = self.bus
        if bus is None:
            self.noise.note("unsent", f"obus: {message.name()} not sent: the bus {self.where} is down")
            return
        import can

        frame = can.Message(arbitration_id=arbitration_id, data=data, is_extended_id=False)
        try:
            bus.send(frame, timeout=0.2)
        except Exception as error:  # noqa: BLE001 - CanOperationError (no ACK, buffer full), OSError
            self._send_failures += 1
            self.noise.note("unsent", f"obus: {message.name()} not sent on {self.where} ({_why(error)})")
            if self._send_failures >= MAX_SEND_FAILURES:
                self._failed("send", error)
            return
        self._send_failures = 0
        self.sent += 1
        self._sent.append((arbitration_id, data, self.clock()))


def _why(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:160]
