"""The ``[clue_control]`` service: Clue Control commands the prop, and the prop tells Clue Control.

The config section::

    [clue_control]
    port = 502                      # the prop's Modbus server (Clue Control's "switch")
    controller = "192.168.1.10"     # Clue Control's computer, "host" or "host:port" (502 by default)
    # coil_base = 7                 # instead of the prop's last IPv4 octet
    # allow = ["192.168.1.11"]      # more computers that may command the prop
    # bind = "0.0.0.0"              # where the switch listens (default: where the controllers are)

Commands from Clue Control run through the prop's one command path (``prop.commands``), as
every other surface's do, refused there alike (during the self-test, after an explosion). The
prop's state as the players see it (solved, enabled, each output) is handed to the link from
the daemon's ``on_settled`` hook, which writes only what changed. Only the controller (and
``allow``) may command the prop: Modbus has no password, so an address list is its lock, and the
switch listens only where they are: on loopback when every one of them is on this machine
(:func:`derived_bind`), as the console does, unless ``bind`` says otherwise.
A port below 1024 asks the service unit for ``CAP_NET_BIND_SERVICE`` (:meth:`ClueControlService.unit`).
Docs: ``docs/integrate/clue-control.md``.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import TYPE_CHECKING, Any

from baccarat_core.records import record
from firmware.plugin import (
    FAIL,
    OK,
    WARN,
    ConfigError,
    Finding,
    Key,
    Prop,
    Running,
    Section,
    Service,
    port_problem,
    within,
)

from . import MAX_COIL_BASE

if TYPE_CHECKING:
    from concurrent.futures import Future

    from baccarat_core import BaccaratModule
    from baccarat_core import events as ev
    from firmware.plugin import Config

    from .link import ClueControl
    from .protocol import Command

log = logging.getLogger("baccarat.clue_control")

#: What a port below this needs from the unit.
PRIVILEGED_BELOW = 1024
#: The unit's settings for a privileged port: the capability in the bounding set (the unit's is
#: empty otherwise) and raised for the unprivileged user.
BIND_CAPABILITY = {"CapabilityBoundingSet": "CAP_NET_BIND_SERVICE", "AmbientCapabilities": "CAP_NET_BIND_SERVICE"}


class ClueControlConfigError(ConfigError):
    """A ``[clue_control]`` value the prop cannot use."""


def controller_problem(value: str) -> str | None:
    """``"host"`` or ``"host:port"`` (``"[v6]:port"``)."""
    from .protocol import split_host_port  # what the numbers mean: loaded when a config names them

    try:
        split_host_port(value)
    except ValueError as error:
        return f'{error} (Clue Control\'s computer: "host" or "host:port")'
    return None


def addresses_problem(value: list[Any]) -> str | None:
    """a list of IP addresses"""
    for item in value:
        try:
            ipaddress.ip_address(item if isinstance(item, str) else "")
        except ValueError:
            return f'{item!r} is not an IP address (a list of addresses, e.g. ["192.168.1.11"])'
    return None


#: Where the switch listens when every controller is on this machine, and when one is not.
LOOPBACK_BIND, ANY_BIND = "127.0.0.1", "0.0.0.0"


def bind_problem(value: str) -> str | None:
    """an IP address such as 0.0.0.0 or 192.168.1.123 ("": where the controllers are)"""
    if value == "":
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return 'must be an IP address such as 0.0.0.0, 127.0.0.1 or this prop\'s own ("": where the controllers are)'
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may be anywhere


def derived_bind(senders: tuple[str, ...]) -> str:
    """Where the switch listens for ``senders`` (the controller and allow): loopback when every one
    is on this machine (IPv4 loopback or ``localhost``), else every address.

    >>> derived_bind(("127.0.0.1", "127.0.0.2")), derived_bind(("127.0.0.1", "192.168.1.11"))
    ('127.0.0.1', '0.0.0.0')
    """
    if all(_is_loopback(host) and ":" not in host for host in senders):
        return LOOPBACK_BIND
    return ANY_BIND


@record
class ClueControlSettings:
    """``[clue_control]`` as the service runs it."""

    port: int
    controller: tuple[str, int]
    coil_base: int | None
    allow: tuple[str, ...]
    #: The prop's outputs in config order: output ``i`` is ``outputs[i]``.
    outputs: tuple[str, ...]
    #: Where the switch listens (``bind``, or :func:`derived_bind`).
    bind: str = ANY_BIND

    @property
    def where(self) -> str:
        """``192.168.1.10:502``."""
        host, port = self.controller
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class ClueControlService(Service):
    """Clue Control over Modbus TCP: the prop as its "switch" (a server) and its "trigger" (a client)."""

    name = "clue_control"
    title = "Clue Control"
    keys = (
        Key(
            "port",
            int,
            502,
            check=port_problem,
            help="the prop's Modbus TCP server, which Clue Control's switches write to (below 1024 the unit "
            "gets CAP_NET_BIND_SERVICE)",
        ),
        Key(
            "controller",
            str,
            check=controller_problem,
            help='Clue Control\'s computer, "host" or "host:port" (502 by default): the prop writes its '
            "triggers' coils there, and takes commands only from it (and allow)",
        ),
        Key(
            "coil_base",
            int,
            None,
            check=within(0, MAX_COIL_BASE),
            help="the prop's number in the coils (10*N solved, 10*N+1 enabled, 100*N+10+i output i) instead "
            "of the last octet of its IPv4 address",
        ),
        Key("allow", list, [], check=addresses_problem, help="more addresses that may command the prop"),
        Key(
            "bind",
            str,
            "",
            check=bind_problem,
            help="the address the switch listens on (default: 127.0.0.1 when controller and allow are all "
            "on this machine, else 0.0.0.0)",
        ),
    )
    order = 60
    docs = "integrate/clue-control.md"
    error = ClueControlConfigError

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> ClueControlSettings:
        """The settings, with the prop's outputs in config order."""
        from .protocol import split_host_port

        controller = split_host_port(values["controller"])
        allow = tuple(values["allow"])
        senders = (controller[0], *allow)
        bind = values["bind"] or derived_bind(senders)
        if _is_loopback(bind):
            away = [host for host in senders if not _is_loopback(host)]
            if away:
                raise section.fail(
                    "bind",
                    f"{away[0]} cannot reach a switch on loopback (bind to 0.0.0.0 or this prop's address there)",
                )
        return ClueControlSettings(
            port=values["port"],
            controller=controller,
            coil_base=values["coil_base"],
            allow=allow,
            outputs=tuple(output.name for output in config.outputs),
            bind=bind,
        )

    def describe(self, settings: ClueControlSettings) -> list[str]:
        """Both roles, with the numbers to enter in Clue Control."""
        from .protocol import Coils, output_value

        s = settings
        senders = ", ".join((s.controller[0], *s.allow))
        values = "1 solve, 2 reset, 3 enable, 4 disable, 5 reset+enable, 6 reset+disable"
        outputs = "".join(
            f", {output_value(i, False)}/{output_value(i, True)} {n} off/on" for i, n in enumerate(s.outputs)
        )
        capability = " (the unit gets CAP_NET_BIND_SERVICE)" if s.port < PRIVILEGED_BELOW else ""
        if s.coil_base is None:
            coils = "10N solved, 10N+1 enabled, 100N+10+i output i (N: this prop's last IPv4 octet toward it)"
        else:
            c = Coils(s.coil_base)
            coils = f"{c.solved} solved, {c.enabled} enabled" + "".join(
                f", {c.output(i)} {n}" for i, n in enumerate(s.outputs)
            )
        return [
            f"Clue Control switch: port {s.port} on {s.bind}{capability}, commands from {senders} "
            f"in holding register 1: {values}{outputs}",
            f"Clue Control trigger: coils on {s.where}: {coils}",
        ]

    def doctor(self, settings: ClueControlSettings, host: Any) -> list[Finding]:
        """Whether Clue Control answers, the prop's number there, and the unit's capability for a low port."""
        from firmware.plugin import tcp_reachable

        s = settings
        findings = []
        problem = tcp_reachable(*s.controller)
        if problem is None:
            findings.append(Finding(OK, f"Clue Control at {s.where} answers"))
        else:
            findings.append(
                Finding(
                    WARN,
                    f"Clue Control at {s.where} does not answer ({problem}): the prop runs, and writes its "
                    "coils once it does",
                    "start Clue Control, or correct [clue_control] controller",
                )
            )
        findings.append(self._number(s))
        if s.port < PRIVILEGED_BELOW:
            findings.extend(self._capability(s, host))
        return findings

    @staticmethod
    def _number(s: ClueControlSettings) -> Finding:
        from .protocol import Coils, last_octet, route_address

        if s.coil_base is not None:
            c = Coils(s.coil_base)
            return Finding(OK, f"Clue Control coils: {c.solved} solved, {c.enabled} enabled, {c.output(0)}+ outputs")
        try:
            address = route_address(s.controller[0], s.controller[1])
            c = Coils(last_octet(address))
        except (OSError, ValueError) as error:
            return Finding(
                WARN,
                f"no IPv4 route to Clue Control at {s.where} ({error}): the prop's number in the coils is unknown",
                "connect the prop to Clue Control's network, or set [clue_control] coil_base",
            )
        return Finding(
            OK,
            f"Clue Control coils: this prop is number {c.base} ({address}): {c.solved} solved, "
            f"{c.enabled} enabled, {c.output(0)}+ outputs",
        )

    @staticmethod
    def _capability(s: ClueControlSettings, host: Any) -> list[Finding]:
        done = host.command("systemctl", "show", "baccarat.service", "--property=LoadState,AmbientCapabilities")
        if done is None or done[0] != 0:
            return []  # no systemd here: the service's own check says so
        state = dict(line.split("=", 1) for line in done[1].splitlines() if "=" in line)
        if state.get("LoadState") != "loaded":
            return []
        if "cap_net_bind_service" in state.get("AmbientCapabilities", "").lower():
            return [Finding(OK, f"the service may listen on port {s.port} (CAP_NET_BIND_SERVICE)")]
        return [
            Finding(
                FAIL,
                f"the service cannot listen on port {s.port}: its unit does not give it CAP_NET_BIND_SERVICE",
                "sudo bash scripts/install-service.sh (it adds the capability for a port below 1024), "
                "or set [clue_control] port to 1024 or more",
            )
        ]

    def unit(self, settings: ClueControlSettings) -> dict[str, str]:
        """The capability to bind a port below 1024, and nothing for a higher port."""
        return dict(BIND_CAPABILITY) if settings.port < PRIVILEGED_BELOW else {}

    def start(self, prop: Prop, settings: ClueControlSettings) -> Running:
        """Listen to the daemon now; open the link once the prop is ready (after its first frame)."""
        from .link import ClueControl  # asyncio: loaded only for a prop that speaks to Clue Control

        s = settings
        commands = prop.commands

        def run(given: tuple[Command, ...], sender: str) -> list[Future[Any]]:
            # in order: reset, then enable; refused there as anywhere; the switch waits for the replies
            return [commands.handle(command.payload()) for command in given]

        link = ClueControl(
            run,
            s.outputs,
            port=s.port,
            host=s.bind,
            allow=(s.controller[0], *s.allow),
            controller=s.controller,
            coil_base=s.coil_base,
        )

        def settled(events: list[ev.Event], module: BaccaratModule) -> None:
            if events:
                _tell(link, commands.document())

        _tell(link, commands.document())  # the state at the start (the daemon has not started yet)
        prop.daemon.on_settled.append(settled)
        link.start(after=prop.daemon.ready)
        return Running(link.stop, link)


def _tell(link: ClueControl, document: dict[str, Any]) -> None:
    """The state document's solved, enabled and outputs to the link (it writes what changed)."""
    outputs = {o["name"]: bool(o["on"]) for o in document.get("outputs") or []}
    link.update(solved=bool(document["solved"]), enabled=bool(document["enabled"]), outputs=outputs)
