"""Both Clue Control roles on the services' shared event loop, for a caller that has threads, not a loop.

:class:`ClueControl` runs the :class:`~.switch.Switch` (Clue Control commands the prop)
and the :class:`~.trigger.Trigger` (the prop writes Clue Control's coils) on the one asyncio
loop the prop's services share (:func:`firmware.plugin.event_loop`; the console runs there too),
on its own thread. pymodbus is imported there (about 0.1 s on a PC, more on a small Pi), so
the caller's thread does not wait for it; :meth:`ClueControl.start` returns once the
switch listens, or raises :class:`ClueControlError` with one line saying why it cannot.
:meth:`ClueControl.update` may be called from any thread. pymodbus's own log lines are
silenced below CRITICAL: the link says what matters in its own words
(``baccarat.clue_control``), aggregated (:class:`~firmware.system.noise.Noise`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import threading
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from firmware.plugin import Noise, PropError

from .protocol import ENABLED, MODBUS_PORT, SOLVED, Key, output_key

if TYPE_CHECKING:
    from .switch import CommandSink, Switch
    from .trigger import Trigger

log = logging.getLogger("baccarat.clue_control")

#: How long :meth:`ClueControl.start` waits for the switch to listen.
START_SECONDS = 15.0
#: How long a clean stop waits for Clue Control to acknowledge the stopped prop's coils.
FAREWELL_SECONDS = 3.0


class ClueControlError(PropError):
    """The Clue Control link cannot start (the message is one line naming the port and why)."""


class ClueControl:
    """The prop's Clue Control link: a switch on ``port`` (None: none), a trigger to ``controller``
    (``(host, port)``; None: none).

    ``on_commands(commands, sender)`` runs on the link's thread for each command Clue Control
    writes (:data:`.switch.CommandSink`): hand the commands on, do not wait for them there.

    >>> from pymodbus.client import ModbusTcpClient
    >>> got = []
    >>> link = ClueControl(lambda commands, sender: got.extend(commands), ["lock"], host="127.0.0.1", port=0)
    >>> link.start()
    >>> client = ModbusTcpClient("127.0.0.1", port=link.port)
    >>> client.write_register(1, 2).registers  # reset: echoed
    [2]
    >>> client.close(); link.stop()
    >>> [command.payload() for command in got]
    [{'command': 'reset'}]
    """

    def __init__(
        self,
        on_commands: CommandSink,
        outputs: Sequence[str],
        *,
        port: int | None = MODBUS_PORT,
        host: str = "0.0.0.0",
        allow: Collection[str] | None = None,
        controller: tuple[str, int] | None = None,
        coil_base: int | None = None,
    ) -> None:
        self.on_commands = on_commands
        self.outputs = tuple(outputs)
        self.host = host
        #: The switch's port; once started, the port bound (0 asks the system for one).
        self.port = port
        self.allow = allow
        self.controller = controller
        self.coil_base = coil_base
        self.tally = Noise(log)
        self.switch: Switch | None = None
        self.trigger: Trigger | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The link's work on the services' shared event loop, once started.
        self._running: Future[None] | None = None
        #: Set once the link's thread has opened what it could, after :attr:`outcome` says what happened.
        self.ready = threading.Event()
        #: What the start came to, once :attr:`ready`: "listening on 0.0.0.0 port 502", or the one
        #: line saying why the switch cannot listen ("": not yet).
        self.outcome = ""
        self._error: BaseException | None = None
        self._say_failure = False  # started after the daemon: a failure is a log line, not an exception
        self._lock = threading.Lock()  # guards _state and _loop between update() and the thread
        self._state: dict[Key, bool] = {}  # the prop's state as update() said it last
        self._stopped = threading.Event()
        self._stopping: asyncio.Event | None = None  # set on the loop: the thread closes everything and ends

    def start(self, after: threading.Event | None = None) -> None:
        """Start the thread; return once the switch listens (ClueControlError: it cannot).

        With ``after`` (the daemon's ``ready``), return at once: the link starts on a thread of its
        own once ``after`` is set (pymodbus is not imported before the prop's first frame), and a
        switch that cannot listen is one log line.
        """
        if after is None:
            self._start_now()
            return
        threading.Thread(
            target=self._start_after, args=(after,), name="baccarat-clue-control-start", daemon=True
        ).start()

    def _start_after(self, after: threading.Event) -> None:
        after.wait()
        if self._stopped.is_set():
            return
        self._say_failure = True  # the link's thread logs it, before ready
        try:
            self._start_now()
        except ClueControlError as error:
            if self._error is None:  # the thread did not start in time: nobody said so
                log.error("%s; the prop runs without Clue Control", error)

    def _start_now(self) -> None:
        with self._lock:
            if self._stopped.is_set() or self._running is not None:
                return
            from firmware.plugin import event_loop

            loop = event_loop()
            self._running = asyncio.run_coroutine_threadsafe(self._main(loop), loop)
        if not self.ready.wait(START_SECONDS):
            raise ClueControlError(f"Clue Control: the link did not start within {START_SECONDS:g} s")
        if self._error is not None:
            raise ClueControlError(self.outcome)

    @property
    def listening(self) -> bool:
        """Whether the link started and its switch (if it has one) listens: False until
        :attr:`ready`, and after a port it could not take (:attr:`outcome` says why)."""
        return self.ready.is_set() and self._error is None

    def stop(self, *, farewell: bool = True) -> None:
        """Close the switch and the trigger, end the thread (at once, or as soon as it has started).

        With ``farewell`` (a clean stop), Clue Control is told first that the prop stopped: its
        solved, enabled and output coils off; the stop waits for its answer at most
        :data:`FAREWELL_SECONDS`, and not at all while it is known to be down.
        """
        if farewell:
            self.update(solved=False, enabled=False, outputs=dict.fromkeys(self.outputs, False))
        with self._lock:
            self._stopped.set()
            loop, running, stopping = self._loop, self._running, self._stopping
            if loop is not None and stopping is not None:
                loop.call_soon_threadsafe(stopping.set)
        if running is not None:
            from firmware.plugin import release_event_loop

            try:
                running.result(10)
            except Exception as error:  # noqa: BLE001 - a stop goes on whatever the link did
                log.warning("Clue Control: the link did not end cleanly (%s: %s)", type(error).__name__, error)
            finally:
                release_event_loop()

    def update(
        self, *, solved: bool | None = None, enabled: bool | None = None, outputs: Mapping[str, bool] | None = None
    ) -> None:
        """The prop's state now (any thread); only what changed is written to Clue Control.

        ``outputs`` by name; a name that is not one of the prop's outputs is ignored.
        """
        if self.controller is None:
            return
        changes = [(key, bool(on)) for key, on in ((SOLVED, solved), (ENABLED, enabled)) if on is not None]
        for name, on in (outputs or {}).items():
            if name in self.outputs:
                changes.append((output_key(self.outputs.index(name)), bool(on)))
        with self._lock:
            self._state.update(changes)
            if self._loop is not None:  # else the thread takes them from _state when it starts
                self._loop.call_soon_threadsafe(self._push, changes)

    def _push(self, changes: list[tuple[Key, bool]]) -> None:
        if self.trigger is not None:
            for key, on in changes:
                self.trigger.set(key, on)

    # -- on the shared loop ----------------------------------------------------------------
    async def _main(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            try:
                await self._open(loop)
            except Exception as error:  # noqa: BLE001 - whatever it is, the outcome: one line, no traceback
                self._error = error
                self.outcome = _listen_problem(self.host, self.port, error)
                if self._say_failure:
                    log.error("%s; the prop runs without Clue Control", self.outcome)
                self.ready.set()
                return
            self.ready.set()
            assert self._stopping is not None  # made by _open
            await self._stopping.wait()
            await self._farewell()
        finally:
            with self._lock:  # update() and stop() no longer reach this loop
                self._loop = None
            await self._close()

    async def _open(self, loop: asyncio.AbstractEventLoop) -> None:
        logging.getLogger("pymodbus").setLevel(logging.CRITICAL)  # said here, in the link's words
        from .switch import Switch
        from .trigger import Trigger

        self.tally.bind(loop)
        with self._lock:  # the state so far now; what update() says from here on, through the loop
            if self.controller is not None:
                host, port = self.controller
                self.trigger = Trigger(host, port, coil_base=self.coil_base, tally=self.tally)
                self._push(list(self._state.items()))
            self._stopping = asyncio.Event()
            if self._stopped.is_set():  # stop() came first: open nothing
                self._stopping.set()
            self._loop = loop
        if self.trigger is not None:
            self.trigger.start()
        if self.port is not None:
            self.switch = Switch(
                self.on_commands, self.outputs, host=self.host, port=self.port, allow=self.allow, tally=self.tally
            )
            await self.switch.start()
            self.port = self.switch.port
            self.outcome = f"listening on {self.host} port {self.port}"
            log.info("Clue Control switch %s", self.outcome)
        else:
            self.outcome = "writing to Clue Control only (no switch)"

    async def _farewell(self) -> None:
        """Wait for Clue Control to acknowledge what stop() wrote, unless it is known to be down."""
        if self.trigger is None or self.trigger.up is False:
            return
        try:
            await asyncio.wait_for(self.trigger.settled(), FAREWELL_SECONDS)
        except TimeoutError:
            log.warning(
                "Clue Control at %s:%d did not acknowledge the stopped prop's coils within %g s",
                self.trigger.host,
                self.trigger.port,
                FAREWELL_SECONDS,
            )

    async def _close(self) -> None:
        if self.switch is not None:
            await self.switch.close()
        if self.trigger is not None:
            await self.trigger.close()
        self.tally.close_all()


def _listen_problem(host: str, port: int | None, error: BaseException) -> str:
    """One line: why the switch cannot listen on ``host`` ``port``."""
    number = getattr(error, "errno", None)
    where = f"Clue Control: cannot listen on {host} port {port}"
    if number == errno.EACCES and port is not None and port < 1024:
        return (
            f"{where}: permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE, which the "
            "service unit gives when [clue_control] port is below 1024; or choose a port from 1024)"
        )
    if number == errno.EADDRINUSE:
        return f"{where}: the port is taken (another program, or another prop on this machine)"
    reason = getattr(error, "strerror", None) or str(error).strip().partition("\n")[0] or type(error).__name__
    if not isinstance(error, OSError | ValueError | OverflowError):  # not the address's fault: say what it was
        reason = f"{type(error).__name__}: {reason}"
    return f"{where}: {reason}"
