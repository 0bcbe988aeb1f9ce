"""The service manager's side of the prop: systemd's notify protocol, without a library.

Under ``Type=notify`` systemd hands the service ``$NOTIFY_SOCKET`` (a Unix datagram
socket: a path, or an abstract name written ``@name``) and, with ``WatchdogSec=``,
``$WATCHDOG_USEC``. Each message is one datagram of ``KEY=value`` lines, as
``sd_notify(3)`` sends it:

- ``READY=1`` once the daemon logged "ready": the first frames are on the displays
  and the inputs are armed (the first beat of :meth:`Daemon.heartbeat`);
- ``WATCHDOG=1`` every half ``WatchdogSec``, sent *by the game thread itself* from its
  loop, so a ping proves that the thread that shows the game still comes round: one
  stuck in a display write or a deadlock stops pinging, and systemd kills the process
  (SIGABRT; :mod:`faulthandler` writes every thread's stack to the journal first) and
  restarts it (``Restart=on-failure``). A thread that pinged on a timer of its own
  would prove nothing. It costs one wakeup a ping: the game thread sleeps until the
  next one is due when nothing else wakes it;
- ``STATUS=`` a short line for ``systemctl status`` (``armed, 0 strikes``, ``solved``,
  ``...; display table not answering``), sent when it changes;
- ``STOPPING=1`` on SIGTERM (from :func:`firmware.app.run_forever`).

Nothing here runs unless ``$NOTIFY_SOCKET`` is set: a foreground run, the simulator
and the tests without a listener send nothing.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from baccarat_core import BaccaratModule
    from baccarat_core.events import Event
    from firmware.devices.displays import Screen
    from firmware.game.daemon import Daemon
    from firmware.game.scene import Shown

log = logging.getLogger("baccarat")

#: The variables systemd sets for the protocol (removed from the environment once read, as
#: ``sd_notify``'s ``unset_environment`` does, so a child process cannot speak for the daemon).
VARIABLES = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")


def socket_address(value: str) -> str | bytes:
    """``$NOTIFY_SOCKET`` as ``sendto`` takes it: a path, or ``@name`` as an abstract address."""
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    return value


def watchdog_seconds(env: Mapping[str, str], pid: int) -> float | None:
    """Half of ``$WATCHDOG_USEC`` in seconds (how often to ping), or None without a watchdog
    (unset, not a positive number, or ``$WATCHDOG_PID`` names another process)."""
    text = env.get("WATCHDOG_USEC", "")
    if not text.isdigit() or int(text) == 0:
        return None
    owner = env.get("WATCHDOG_PID", "")
    if owner and owner != str(pid):
        return None
    return int(text) / 2_000_000


def status_line(module: BaccaratModule, screens: Mapping[str, Screen], shown: Shown | None = None) -> str:
    """What ``systemctl status`` shows: the game (as the players see it, ``shown``: a deal's strike,
    solve or explosion once its result is on the table), and any display that does not answer."""
    seen = shown if shown is not None else Shown.of(module)
    strikes = seen.strikes
    line = "solved" if seen.solved else f"armed, {strikes} strike{'' if strikes == 1 else 's'}"
    if seen.exploded:
        line = f"exploded ({'time ran out' if seen.exploded == 'timer' else 'strike limit'})"
    failing = [role for role, screen in screens.items() if screen.failing]
    missing = [role for role, screen in screens.items() if screen.device is None and not screen.failing]
    if failing:
        line += f"; display{'s' if len(failing) > 1 else ''} {', '.join(failing)} not answering"
    if missing:
        line += f"; display{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing"
    return line


class Notifier:
    """Messages to the service manager: one datagram each to its notify socket, never blocking."""

    def __init__(self, address: str | bytes, *, watchdog: float | None = None) -> None:
        self.address = address
        self.watchdog = watchdog  # seconds between pings, or None
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self._socket.setblocking(False)  # a busy service manager drops a ping, never stalls the game
        self._ready = False
        self._status: str | None = None
        self._failed = False

    @classmethod
    def from_environment(cls, env: dict[str, str] | None = None) -> Notifier | None:
        """A notifier for ``$NOTIFY_SOCKET``, or None when the process was not started by a service
        manager that listens. Reading ``os.environ`` removes the protocol's variables from it."""
        source = os.environ if env is None else env
        values = {name: source.get(name, "") for name in VARIABLES}
        if env is None:
            for name in VARIABLES:
                os.environ.pop(name, None)
        if not values["NOTIFY_SOCKET"]:
            return None
        return cls(socket_address(values["NOTIFY_SOCKET"]), watchdog=watchdog_seconds(values, os.getpid()))

    def send(self, *fields: str) -> bool:
        """One datagram of ``KEY=value`` lines; False if it could not be sent (logged once)."""
        try:
            self._socket.sendto("\n".join(fields).encode() + b"\n", self.address)
        except OSError as error:
            if not self._failed:
                log.warning("cannot notify the service manager (%s)", error.strerror or error)
            self._failed = True
            return False
        self._failed = False
        return True

    def attach(self, daemon: Daemon) -> None:
        """Send READY=1 after the first frames, then the watchdog's pings and the status line,
        all from the game thread. Call before the daemon starts."""
        if self.watchdog is not None and not faulthandler.is_enabled():
            # systemd's watchdog kills with SIGABRT: the journal then shows where each thread was.
            faulthandler.enable(all_threads=True)
        daemon.heartbeat(self.watchdog if self.watchdog is not None else float("inf"), lambda: self._beat(daemon))
        daemon.on_settled.append(lambda events, module: self._settled(daemon, events, module))

    def stopping(self) -> None:
        """STOPPING=1 (SIGTERM): the service manager stops expecting pings."""
        self.send("STOPPING=1", "STATUS=stopping: lights off, displays blank")

    def close(self) -> None:
        """Close the socket."""
        self._socket.close()

    def _beat(self, daemon: Daemon) -> None:
        fields = [] if self._ready else ["READY=1"]
        if self.watchdog is not None:
            fields.append("WATCHDOG=1")
        status = status_line(daemon.module, daemon.screens, daemon.shown())
        if status != self._status:
            fields.append(f"STATUS={status}")
        if fields and self.send(*fields):
            self._ready = True
            self._status = status

    def _settled(self, daemon: Daemon, events: list[Event], module: BaccaratModule) -> None:
        if not self._ready:  # the first beat says READY=1 with the first status line
            return
        status = status_line(module, daemon.screens, daemon.shown())
        if status != self._status and self.send(f"STATUS={status}"):
            self._status = status


def attach(daemon: Daemon, env: dict[str, str] | None = None) -> Notifier | None:
    """A :class:`Notifier` attached to ``daemon`` when a service manager listens, else None."""
    notifier = Notifier.from_environment(env)
    if notifier is not None:
        notifier.attach(daemon)
        log.info(
            "service manager notified at %s%s",
            "@" + notifier.address[1:].decode(errors="replace")
            if isinstance(notifier.address, bytes)
            else notifier.address,
            f"; watchdog pings every {notifier.watchdog:g} s" if notifier.watchdog is not None else "",
        )
    return notifier
