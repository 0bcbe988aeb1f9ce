"""What Clue Control's numbers mean: the values it writes to the prop, the coils the prop writes back.

Pure functions and constants, no network: :mod:`.switch` and :mod:`.trigger` speak Modbus
TCP with them. The numbering follows the Anidea FX framework's Clue Control network
(``network_cluecontrol.cpp``, ``CCModBus.h``), which the prop boards sold for Clue
Control use:

- **Switch** (Clue Control commands the prop): Clue Control writes holding register 1
  (function code 6). 1 force solve, 2 reset, 3 enable, 4 disable, 5 reset then enable,
  6 reset then disable; ``100 + 10*i`` turns output ``i`` off, ``100 + 10*i + 1`` on (``i``
  counts the prop's outputs in config order, from 0).
- **Trigger** (the prop tells Clue Control): the prop writes coils (function code 5) on
  the Clue Control computer: ``10*N`` solved, ``10*N + 1`` enabled, ``100*N + 10 + i``
  output ``i``, where ``N`` is the last octet of the prop's IPv4 address (Clue Control
  cannot tell senders apart, so the address is in the coil number) or a ``coil_base``.

>>> [c.payload() for c in commands_for(5, ["lock", "siren"])]
[{'command': 'reset'}, {'command': 'enable'}]
>>> commands_for(111, ["lock", "siren"])
(Command(name='output', output='siren', state='on'),)
>>> commands_for(7, ["lock"]) is None
True
>>> Coils(123).solved, Coils(123).enabled, Coils(123).output(2)
(1230, 1231, 12312)
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

from baccarat_core.records import record

#: Modbus TCP's port, Clue Control's for both roles.
MODBUS_PORT = 502
#: The holding register Clue Control writes its commands to (the PDU address, as sent).
COMMAND_REGISTER = 1
#: The unit id the prop puts on the coils it writes (the FX framework's; Clue Control ignores it).
UNIT_ID = 1

#: The values Clue Control writes for the prop's own commands, as the prop's command names, in order.
VALUE_COMMANDS: dict[int, tuple[str, ...]] = {
    1: ("force_solve",),
    2: ("reset",),
    3: ("enable",),
    4: ("disable",),
    5: ("reset", "enable"),
    6: ("reset", "disable"),
}
#: ``OUTPUT_BASE + OUTPUT_STEP*i`` turns output ``i`` off, one more turns it on.
OUTPUT_BASE = 100
OUTPUT_STEP = 10
#: The largest coil number Modbus can address.
MAX_COIL = 0xFFFF


@record
class Command:
    """One of the prop's own commands, as the one command path takes it (:meth:`payload`)."""

    name: str
    output: str | None = None
    state: str | None = None

    def payload(self) -> dict[str, str]:
        """The command's JSON form: ``{"command": "reset"}``, ``{"command": "output", "name": ..., "state": ...}``.

        >>> Command("output", "lock", "off").payload()
        {'command': 'output', 'name': 'lock', 'state': 'off'}
        """
        if self.output is None or self.state is None:
            return {"command": self.name}
        return {"command": self.name, "name": self.output, "state": self.state}


def commands_for(value: int, outputs: Sequence[str]) -> tuple[Command, ...] | None:
    """The commands a value in the command register stands for, in order; None for a value that is none.

    ``outputs`` are the prop's output names in config order (output ``i`` is ``outputs[i]``).
    """
    names = VALUE_COMMANDS.get(value)
    if names is not None:
        return tuple(Command(name) for name in names)
    index, state = divmod(value - OUTPUT_BASE, OUTPUT_STEP)
    if value < OUTPUT_BASE or state > 1 or index >= len(outputs):
        return None
    return (Command("output", outputs[index], "on" if state else "off"),)


def output_value(index: int, on: bool) -> int:
    """The value that switches output ``index`` (0-based) on or off: what to enter in Clue Control.

    >>> output_value(0, True), output_value(3, False)
    (101, 130)
    """
    return OUTPUT_BASE + OUTPUT_STEP * index + int(on)


#: What a coil stands for: :data:`SOLVED`, :data:`ENABLED`, or output ``i`` (:func:`output_key`).
Key = tuple[str, int]
SOLVED: Key = ("solved", 0)
ENABLED: Key = ("enabled", 0)


def output_key(index: int) -> Key:
    """The coil of output ``index`` (config order, from 0)."""
    return ("output", index)


@record
class Coils:
    """The coil numbers of one prop on the Clue Control computer, for its number ``base`` (its octet)."""

    base: int

    @property
    def solved(self) -> int:
        """Set while the prop is solved."""
        return 10 * self.base

    @property
    def enabled(self) -> int:
        """Set while the prop is enabled."""
        return 10 * self.base + 1

    def output(self, index: int) -> int:
        """Set while output ``index`` (0-based, config order) is on; ValueError past Modbus's last coil."""
        coil = 100 * self.base + 10 + index
        if index < 0 or coil > MAX_COIL:
            raise ValueError(f"output {index} has no coil for prop number {self.base} (past coil {MAX_COIL})")
        return coil

    def number(self, key: Key) -> int:
        """The coil ``key`` stands for.

        >>> Coils(7).number(SOLVED), Coils(7).number(output_key(1))
        (70, 711)
        """
        kind, index = key
        if kind == "output":
            return self.output(index)
        return self.solved if kind == "solved" else self.enabled


def split_host_port(text: str, default_port: int = MODBUS_PORT) -> tuple[str, int]:
    """``"host"`` or ``"host:port"`` -> (host, port); ValueError says what is wrong. Clue Control is
    reached over IPv4 (the coils carry an IPv4 octet), so an IPv6 address is refused.

    >>> split_host_port("192.168.1.10"), split_host_port("cluecontrol.local:1502")
    (('192.168.1.10', 502), ('cluecontrol.local', 1502))
    """
    host, colon, number = text.strip().partition(":")
    if ":" in number or host.startswith("["):
        raise ValueError("is not host or host:port (an IPv4 address or a name: Clue Control speaks IPv4)")
    if not host or any(c.isspace() for c in host):
        raise ValueError("names no host")
    if colon and (not number.isdigit() or not 1 <= int(number) <= 65535):
        raise ValueError("the port must be a number from 1 to 65535")
    return host, int(number) if colon else default_port


def route_address(host_address: str, port: int = MODBUS_PORT) -> str:
    """The prop's own IPv4 address on the way to ``host_address`` (an IPv4 address): the kernel's
    choice of source address, read from a UDP socket connected there (which sends nothing).

    >>> route_address("127.0.0.1")
    '127.0.0.1'
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((host_address, port))
        address: str = probe.getsockname()[0]
    return address


def last_octet(address: str) -> int:
    """The last octet of an IPv4 address: the prop's number in Clue Control's coils.

    >>> last_octet("192.168.1.123")
    123
    """
    return int(ipaddress.IPv4Address(address)) & 0xFF
