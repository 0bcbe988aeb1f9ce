"""OSC for show control (``[osc]``): a cue to QLab (or any OSC receiver) on each game event, and
optionally the room controller's commands over OSC.

- :mod:`.settings`: the section's keys and checks (no network);
- :mod:`.cues`: the cues, sent from a thread of their own;
- :mod:`.listener`: the commands, heard on a UDP port from the senders ``allow`` lets in.

Importing this package does not import python-osc: starting the service does. Docs:
``docs/integrate/osc.md`` (what to set in QLab beside the prop's section).
"""

from __future__ import annotations

import logging
import socket
from typing import TYPE_CHECKING, Any

from firmware.plugin import FAIL, OK, WARN, Finding, Prop, Running, Service

from .settings import OSC_KEYS, OscConfigError, OscSettings, osc_settings, shown

if TYPE_CHECKING:
    from baccarat_core import BaccaratModule
    from baccarat_core.events import Event
    from firmware.plugin import Noise

    from .cues import CueSender
    from .listener import CommandListener

__all__ = ["Osc", "OscConfigError", "OscService", "OscSettings"]

log = logging.getLogger("baccarat.osc")


class OscService:
    """What the started service runs: the cue sender and the command listener (either may be None)."""

    def __init__(self, sender: CueSender | None, listener: CommandListener | None, noise: Noise) -> None:
        self.sender = sender
        self.listener = listener
        self.noise = noise

    def on_settled(self, events: list[Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread): the cues' events to the sender's thread."""
        if self.sender is not None:
            self.sender.on_settled(events, module)

    def stop(self) -> None:
        """Stop listening, then send what was handed over and close."""
        if self.listener is not None:
            self.listener.stop()
        if self.sender is not None:
            self.sender.stop()
        self.noise.close_all()


class Osc(Service):
    """Cues out over OSC (UDP) on the game's events; commands in from the senders allowed.

    The section as ``check-config`` reads it:

    >>> from firmware.config.sections import Section, read_keys
    >>> table = {"targets": ["192.168.1.20:53000"], "solved": "/cue/solved/start", "listen": 9000}
    >>> section = Section("osc", {**table, "allow": ["192.168.1.20"]})
    >>> osc = Osc()
    >>> settings = osc.configure(read_keys(section, osc.keys), section, None)
    >>> for line in osc.describe(settings):
    ...     print(line)
    OSC: cues to 192.168.1.20:53000 (UDP) on solved /cue/solved/start
    OSC: commands /baccarat/... on UDP 0.0.0.0:9000 from 192.168.1.20
    >>> section = Section("osc", table)  # listening beyond loopback, with no allow-list
    >>> osc.configure(read_keys(section, osc.keys), section, None)
    Traceback (most recent call last):
    ...
    firmware.services.osc.settings.OscConfigError: [osc] listen = 9000: takes commands from any sender ...
    """

    name = "osc"
    title = "OSC"
    keys = OSC_KEYS
    error = OscConfigError
    order = 45
    docs = "integrate/osc.md"
    reader = osc_settings

    def describe(self, settings: OscSettings) -> list[str]:
        """Where cues go and on which events; where commands are heard, and from whom."""
        lines = []
        if settings.targets:
            where = ", ".join(str(t) for t in settings.targets)
            cues = ", ".join(f"{kind} {address}" for kind, address in settings.addresses.items())
            bare = "" if settings.arguments else " (no arguments)"
            lines.append(f"OSC: cues to {where} (UDP) on {cues}{bare}")
        if settings.listen is not None:
            senders = ", ".join(shown(n) for n in settings.allow) or "this machine only"
            lines.append(f"OSC: commands {settings.prefix}/... on UDP {settings.listen} from {senders}")
        return lines

    def doctor(self, settings: OscSettings, host: Any) -> list[Finding]:
        """Whether each target's name resolves (UDP cannot tell whether anything listens), and
        whether the commands' port can be bound."""
        out = []
        for target in settings.targets:
            try:
                found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_DGRAM)
            except OSError as error:
                out.append(
                    Finding(
                        WARN,
                        f"OSC target {target}: the name is not known ({error}); its cues go nowhere",
                        "correct [osc] targets, or use the receiver's IP address",
                    )
                )
                continue
            ips = sorted({str(info[4][0]) for info in found})
            out.append(Finding(OK, f"OSC target {target} is {', '.join(ips)} (UDP: whether it listens is not known)"))
        if settings.listen is not None:
            out.append(_port_finding(settings.listen.host, settings.listen.port))
        return out

    def unit(self, settings: OscSettings) -> dict[str, str]:
        """A commands' port below 1024 needs the capability to bind it."""
        if settings.listen is not None and settings.listen.port < 1024:
            return {"AmbientCapabilities": "CAP_NET_BIND_SERVICE"}
        return {}

    def start(self, prop: Prop, settings: OscSettings) -> Running:
        """Send cues from the settled events; listen for commands (a port that cannot be bound is one
        log line, and the cues go out all the same)."""
        from firmware.plugin import Noise

        from .cues import CueSender
        from .listener import CommandListener

        noise = Noise(log)
        sender = None
        if settings.targets:
            sender = CueSender(settings, noise)
            sender.start()
            log.info("osc: cues to %s", ", ".join(str(t) for t in settings.targets))
        listener = None
        if settings.listen is not None:
            try:
                listener = CommandListener(prop.commands, settings, noise)
            except OSError as error:
                log.error(
                    "osc: UDP %s cannot be opened (%s); OSC commands will not work", settings.listen, error.strerror
                )
            else:
                listener.start()
                log.info("osc: commands on UDP %s", settings.listen)
        service = OscService(sender, listener, noise)
        if sender is not None:
            prop.daemon.on_settled.append(service.on_settled)
        return Running(service.stop, service)


def _port_finding(host: str, port: int) -> Finding:
    """Whether the UDP port can be bound now (the running prop holds it: then it is in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((host, port))
    except OSError as error:
        where = f"{host}:{port}" if family == socket.AF_INET else f"[{host}]:{port}"
        why = (error.strerror or str(error)).lower()
        if error.errno in (98, 48):  # EADDRINUSE (Linux, BSD)
            return Finding(
                WARN,
                f"OSC commands' UDP {where} is in use: by the running prop, or by another program",
                f"with the prop stopped, see who holds it: ss -ulpn 'sport = :{port}'",
            )
        return Finding(FAIL, f"OSC commands' UDP {where} cannot be bound ({why})", "choose another [osc] listen")
    return Finding(OK, f"OSC commands' UDP port {port} can be bound")
