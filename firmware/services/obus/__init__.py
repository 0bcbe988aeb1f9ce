"""OBUS (``[obus]``): the prop as a module of an OBUS bomb over CAN, or as the controller of one.

OBUS (ZeusWPI/OBUS) is a KTANE bomb of Arduino modules on a CAN bus with a controller that owns
the timer, the strikes and the edgework. With ``role = "module"`` the prop is one of its puzzle
modules; with ``role = "controller"`` it runs the bomb, the other modules on the bus.

- :mod:`.protocol`: the frames (ids, payloads), no bus; :mod:`.serial`: KTANE's serial and OBUS's;
- :mod:`.module_role`, :mod:`.controller_role`: the two roles, driven by :mod:`.link`'s thread
  (python-can, imported only there, when the service starts);
- :mod:`.game`: the ``obus_sync`` command that brings the prop's game to the bomb's state.

Docs: ``docs/integrate/obus.md``.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from baccarat_core.records import record
from baccarat_core.timer import BombRules
from firmware.plugin import (
    ConfigError,
    Finding,
    Key,
    PinUse,
    Prop,
    Running,
    Section,
    Service,
    one_of,
    port_problem,
    within,
)

from .roles import COUNTS

if TYPE_CHECKING:
    from .service import ObusService

__all__ = ["Obus", "ObusConfigError", "ObusSettings"]

log = logging.getLogger("baccarat.obus")

ROLES = ("module", "controller")
#: Interfaces whose speed is set outside python-can (``ip link`` for SocketCAN) or that have none.
NO_BITRATE = ("socketcan", "udp_multicast", "virtual")
_NAME = re.compile(r"[A-Za-z0-9_.:/@-]{1,64}")


class ObusConfigError(ConfigError):
    """An ``[obus]`` value the prop cannot use."""


def _name_problem(value: str) -> str | None:
    """a python-can name: letters, digits and _ . : / @ -"""
    return None if _NAME.fullmatch(value) else f"{value!r} is no interface or channel name"


@record
class ObusSettings:
    """``[obus]`` as the service runs it, with the bomb's rules (``[bomb]``)."""

    role: str
    interface: str
    channel: str
    id: int
    count: str
    port: int | None
    bitrate: int
    rules: BombRules
    interrupt: int | None = None

    @property
    def options(self) -> dict[str, Any]:
        """python-can's keyword arguments beyond the interface and the channel."""
        out: dict[str, Any] = {}
        if self.interface not in NO_BITRATE:
            out["bitrate"] = self.bitrate
        if self.port is not None:
            out["port"] = self.port
        return out

    @property
    def where(self) -> str:
        """``socketcan can0``, ``udp_multicast 239.74.163.2:43113``."""
        return f"{self.interface} {self.channel}" + (f":{self.port}" if self.port is not None else "")


class Obus(Service):
    """The prop on an OBUS bomb's CAN bus, as a puzzle module or as the controller.

    >>> from firmware.plugin import read_keys
    >>> from firmware.config import load_config
    >>> section = Section("obus", {"role": "module", "id": 4})
    >>> obus = Obus()
    >>> settings = obus.configure(read_keys(section, obus.keys), section, load_config())
    >>> print(*obus.describe(settings), sep="\\n")
    OBUS: puzzle module 4 of an OBUS bomb on socketcan can0 (50 kbit/s: ip link set can0 up type can bitrate 50000)
    OBUS: STATE's byte 7 read as puzzle modules left (protocol.txt, OBUS's Python controller)
    OBUS: the bomb's countdown is not shown: set [bomb] timer_seconds
    """

    name = "obus"
    title = "OBUS bomb"
    keys = (
        Key(
            "role",
            str,
            "module",
            check=one_of(*ROLES),
            help='"module": a puzzle module of an OBUS bomb; "controller": the prop runs the bomb',
        ),  # fmt: skip
        Key(
            "interface",
            str,
            "socketcan",
            check=_name_problem,
            help="python-can's interface (socketcan on a Pi "
            "with an MCP2515 board; udp_multicast between processes on one machine; virtual in one)",
        ),  # fmt: skip
        Key(
            "channel",
            str,
            "can0",
            check=_name_problem,
            help="the interface's channel: can0, or a multicast group such as 239.74.163.2 for udp_multicast",
        ),  # fmt: skip
        Key("id", int, 1, check=within(0, 255), help="this prop's puzzle-module id on the bus (module role)"),
        Key(
            "count",
            str,
            "left",
            check=one_of(*COUNTS),
            help='STATE\'s byte 7: "left" (puzzle modules left, '
            'protocol.txt) or "solved" (bombs run by OBUS\'s Arduino controller)',
        ),  # fmt: skip
        Key("port", int, None, check=port_problem, help="udp_multicast's UDP port (python-can's 43113 by default)"),
        Key(
            "interrupt",
            int,
            None,
            check=within(2, 27),
            help="an MCP2515 board on the GPIO header: its INT pin, as its dtoverlay line says (the prop checks "
            "it and SPI0's pins against its own); unset for a USB CAN adapter",
        ),
        Key(
            "bitrate",
            int,
            50_000,
            check=within(10_000, 1_000_000),
            help="the bus's speed for interfaces python-can sets it on (SocketCAN's comes from ip link)",
        ),  # fmt: skip
    )
    order = 70
    docs = "integrate/obus.md"
    error = ObusConfigError

    def configure(self, values: dict[str, Any], section: Section, config: Any) -> ObusSettings:
        """The settings; a controller needs the bomb's timer and strike limit (``[bomb]``)."""
        rules = getattr(config, "bomb", None) or BombRules()
        if values["role"] == "controller" and (rules.timer_seconds is None or rules.strike_limit is None):
            raise section.fail(
                "role",
                "an OBUS controller runs the bomb's timer and strikes: set [bomb] timer_seconds and strike_limit",
            )
        if values["role"] == "module" and rules.strike_limit is not None:
            raise section.fail(
                "role",
                "a module's bomb explodes when its controller says so: remove [bomb] strike_limit "
                "(the controller's strike limit counts)",
            )
        if values["port"] is not None and values["interface"] != "udp_multicast":
            raise section.fail("port", 'is udp_multicast\'s alone: remove it, or set interface = "udp_multicast"')
        if values["interface"] == "udp_multicast" and not _multicast(values["channel"]):
            raise section.fail("channel", 'udp_multicast needs a multicast group, such as "239.74.163.2"')
        return ObusSettings(
            values["role"], values["interface"], values["channel"], values["id"], values["count"],
            values["port"], values["bitrate"], rules, values["interrupt"],
        )  # fmt: skip

    def describe(self, settings: ObusSettings) -> list[str]:
        """The role, the bus, and how byte 7 is read."""
        s = settings
        speed = (
            f"50 kbit/s: ip link set {s.channel} up type can bitrate {s.bitrate}"
            if s.interface == "socketcan"
            else f"{s.bitrate // 1000} kbit/s"
            if s.interface not in NO_BITRATE
            else "frames between processes on this machine"
            if s.interface == "udp_multicast"
            else "within this process"
        )
        count = (
            "puzzle modules left (protocol.txt, OBUS's Python controller)"
            if s.count == "left"
            else "puzzle modules solved (OBUS's Arduino controller)"
        )
        if s.role == "controller":
            return [
                f"OBUS: the prop runs an OBUS bomb on {s.where} ({speed}): {s.rules.describe()}",
                f"OBUS: STATE's byte 7 written as {count}",
            ]
        lines = [
            f"OBUS: puzzle module {s.id} of an OBUS bomb on {s.where} ({speed})",
            f"OBUS: STATE's byte 7 read as {count}",
        ]
        if s.rules.timer_seconds is None:
            lines.append("OBUS: the bomb's countdown is not shown: set [bomb] timer_seconds")
        return lines

    def doctor(self, settings: ObusSettings, host: Any) -> list[Finding]:
        """The CAN link (SocketCAN: up, at 50 kbit/s), and whether the bus's controller is heard."""
        from .checks import bus_findings

        return bus_findings(settings, host)

    def gpios(self, settings: ObusSettings) -> list[PinUse]:
        """An MCP2515 board's (``interrupt`` set): SPI0's lines and its interrupt pin."""
        if settings.interface != "socketcan" or settings.interrupt is None:
            return []
        spi = {"MOSI": 10, "MISO": 9, "SCLK": 11, "CE0": 8, "CE1": 7}
        return [
            *(PinUse(gpio, f"SPI0 {name}", "bus") for name, gpio in spi.items()),
            PinUse(settings.interrupt, "[obus] interrupt (the MCP2515's INT)", "input"),
        ]

    def start(self, prop: Prop, settings: ObusSettings) -> Running:
        """Open the bus on a thread of its own and play the role (a bus that cannot be opened is one
        log line, tried again every second)."""
        from .game import sync_command
        from .service import start_service

        # obus_sync is added here, not by commands(): a prop without [obus] neither imports this
        # service nor builds its command table at start for it
        prop.commands.add(sync_command())
        service: ObusService = start_service(prop, settings)
        return Running(service.stop, service)


def _multicast(channel: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(channel).is_multicast
    except ValueError:
        return False
