"""The ``[osc]`` section: where the cues go, the address each event sends, and who may send commands.

Each event key (:data:`EVENTS`) names the OSC address its message goes to; its arguments are the
event's values in the order :data:`EVENTS` lists them, and the same names in braces are replaced
in the address itself (``/cue/strike{strikes}/start`` starts QLab's cue ``strike2`` at the
second strike). ``listen`` opens a UDP port for commands; beyond loopback only the senders in
``allow`` are heard.

>>> from firmware.config.sections import read_keys
>>> table = {"targets": ["192.168.1.20:53000"], "output": "/cue/{name}-{state}/start"}
>>> values = read_keys(Section("osc", table), OSC_KEYS)
>>> settings = osc_settings(values, Section("osc", table))
>>> str(settings.targets[0]), settings.addresses
('192.168.1.20:53000', {'output': '/cue/{name}-{state}/start'})
>>> osc_settings({**values, "listen": 9000}, Section("osc", {**table, "listen": 9000}))
Traceback (most recent call last):
...
firmware.services.osc.settings.OscConfigError: [osc] listen = 9000: takes commands from any sender on the network: \
add allow = ["<the controller's IP address>"], or listen on "127.0.0.1:9000" (this machine only)
"""

from __future__ import annotations

import ipaddress
from typing import Any

from baccarat_core.patterns import Pattern
from baccarat_core.records import record
from firmware.plugin import ConfigError, Key, Section, is_loopback, port_problem, show_setting

__all__ = [
    "EVENTS",
    "OSC_KEYS",
    "Listen",
    "OscConfigError",
    "OscSettings",
    "Target",
    "address_problem",
    "fill",
    "osc_settings",
    "shown",
    "split_host_port",
]

#: The event keys (each one an event's kind) and the values each message carries, in order: its
#: arguments, and the ``{name}`` placeholders its address may hold.
EVENTS: dict[str, tuple[str, ...]] = {
    "solved": (),
    "strike": ("strikes",),
    "exploded": ("cause",),
    "reset": (),
    "deal": ("bet",),
    "output": ("name", "state"),
}
#: Longest OSC address, placeholders filled in.
MAX_ADDRESS = 200
#: Most targets (each event is one datagram to each).
MAX_TARGETS = 16
#: Most entries in ``allow``.
MAX_ALLOW = 64
#: A placeholder in an address: ``{name}`` (``{a,b}``, with a comma, is OSC's own pattern and stays).
PLACEHOLDER = Pattern(r"\{([a-z_]+)\}")
#: A host name as DNS and mDNS spell one (``qlab.local``, ``sound-mac``).
_HOST_NAME = Pattern(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?")
_PAIRS = {"[": "]", "{": "}"}


class OscConfigError(ConfigError):
    """An ``[osc]`` value that cannot work: the message names the key and the value."""


@record
class Target:
    """Where cues go: a host (an IP address or a name) and its UDP port."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@record
class Listen:
    """The UDP address the commands are heard on."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """True when only this machine can reach it."""
        return is_loopback(self.host)

    def __str__(self) -> str:
        return str(Target(self.host, self.port))


@record
class OscSettings:
    """The checked ``[osc]`` section."""

    targets: tuple[Target, ...]
    #: event kind -> the address template its cue goes to (only the events the file names).
    addresses: dict[str, str]
    #: False: every message is its address alone (no arguments).
    arguments: bool = True
    listen: Listen | None = None
    #: The senders heard (addresses and networks); empty: every sender (``listen`` on loopback only).
    allow: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    #: The commands' addresses start with it: ``/baccarat/reset``.
    prefix: str = "/baccarat"


def address_problem(text: str) -> str | None:
    """Why ``text`` is no OSC address (pattern) to send, or None.

    >>> address_problem("/cue/solved/start") is None, address_problem("/cue/{a,b}/start") is None
    (True, True)
    >>> address_problem("cue/1/start"), address_problem("/cue//start"), address_problem("/cue 1/start")
    ('must start with "/" (an OSC address such as "/cue/solved/start")', \
'has an empty part ("//", or "/" at the end)', "has ' ': OSC addresses are printable ASCII without spaces or #")
    """
    if not text.startswith("/"):
        return 'must start with "/" (an OSC address such as "/cue/solved/start")'
    if len(text) > MAX_ADDRESS:
        return f"is {len(text)} characters long; at most {MAX_ADDRESS}"
    odd = next((c for c in text if not "!" <= c <= "~" or c == "#"), None)
    if odd is not None:
        return f"has {odd!r}: OSC addresses are printable ASCII without spaces or #"
    parts = text[1:].split("/")
    if not all(parts):
        return 'has an empty part ("//", or "/" at the end)'
    for part in parts:
        closing = None
        for char in part:
            if char in _PAIRS and closing is None:
                closing = _PAIRS[char]
            elif char == closing:
                closing = None
            elif char in "[]{}":
                return f"has an unmatched or nested {char!r} in {part!r}"
        if closing is not None:
            return f"has {part!r} without its closing {closing!r}"
    return None


def fill(template: str, values: dict[str, Any]) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]`` (other braces stay).

    >>> fill("/cue/{name}-{state}/start", {"name": "lock", "state": "on"})
    '/cue/lock-on/start'
    """
    return PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)


def _event_address_problem(kind: str) -> Any:
    names = EVENTS[kind]

    def check(value: str) -> str | None:
        for name in PLACEHOLDER.findall(value):
            if name not in names:
                offers = f"it offers {', '.join('{' + n + '}' for n in names)}" if names else "it offers none"
                return f"has {{{name}}}, which the {kind} message has no value for ({offers})"
        return address_problem(fill(value, dict.fromkeys(names, "x")))

    check.__doc__ = "an OSC address" + (f" that may hold {', '.join('{' + n + '}' for n in names)}" if names else "")
    return check


def split_host_port(text: str) -> tuple[str, int]:
    """``"host:port"`` (``"[v6]:port"``) -> (host, port); ValueError says what is wrong.

    >>> split_host_port("192.168.1.20:53000"), split_host_port("[fe80::1]:53000")
    (('192.168.1.20', 53000), ('fe80::1', 53000))
    """
    host, colon, port = text.rpartition(":")
    if not colon or not host:
        raise ValueError(f"{show_setting(text)} needs a port: {show_setting(text + ':53000')}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        _ip(host)  # raises for "[name]"
    elif ":" in host:
        raise ValueError(f"{show_setting(text)}: write an IPv6 address in brackets, as [::1]:53000")
    elif not _HOST_NAME.fullmatch(host):
        raise ValueError(f"{show_setting(host)} is no IP address or host name")
    if not port.isdigit() or port_problem(int(port)):
        raise ValueError(f"{show_setting(text)}: the port must be 1-65535")
    return host, int(port)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{show_setting(host)} is no IP address") from None


def _targets_problem(value: list[Any]) -> str | None:
    if len(value) > MAX_TARGETS:
        return f"has {len(value)} targets; at most {MAX_TARGETS}"
    for item in value:
        if not isinstance(item, str):
            return f'each target must be "host:port" in quotes, not {show_setting(item)}'
        try:
            split_host_port(item)
        except ValueError as error:
            return str(error)
    return None


_targets_problem.__doc__ = f'up to {MAX_TARGETS} "host:port" strings'


def _listen(value: int | str) -> Listen:
    if isinstance(value, int):
        if port_problem(value):
            raise ValueError("the port must be 1-65535")
        return Listen("0.0.0.0", value)
    host, port = split_host_port(value)
    if host == "localhost":
        return Listen("127.0.0.1", port)  # not ::1, which a sender to 127.0.0.1 never reaches
    _ip(host)
    return Listen(host, port)


def _listen_problem(value: int | str) -> str | None:
    try:
        _listen(value)
    except ValueError as error:
        return f'{error} (a port, as 9000, or "address:port", as "127.0.0.1:9000")'
    return None


_listen_problem.__doc__ = 'a UDP port (every interface), or "address:port"'


def _network(text: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    if not isinstance(text, str):
        raise ValueError(f"{show_setting(text)} is not an address in quotes")
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(
            f'{show_setting(text)} is no IP address or network (e.g. "192.168.1.20" or "192.168.1.0/24")'
        ) from None
    if network.prefixlen == 0:
        raise ValueError(f"{show_setting(text)} lets every sender in: that is no allow-list")
    return network


def shown(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """An allow-list entry as the file gave it: ``192.168.1.20`` (one address), ``10.0.0.0/24``."""
    return str(network.network_address) if network.num_addresses == 1 else str(network)


def _allow_problem(value: list[Any]) -> str | None:
    if len(value) > MAX_ALLOW:
        return f"has {len(value)} entries; at most {MAX_ALLOW}"
    for item in value:
        try:
            _network(item)
        except ValueError as error:
            return str(error)
    return None


_allow_problem.__doc__ = 'IP addresses or networks ("192.168.1.0/24")'


def _prefix_problem(value: str) -> str | None:
    problem = address_problem(value)
    if problem is None and any(c in value for c in "*?,[]{}"):
        problem = "is a pattern; the commands' prefix is a plain address, as /baccarat"
    return problem


_prefix_problem.__doc__ = "a plain OSC address"

OSC_KEYS: tuple[Key, ...] = (
    Key("targets", list, [], check=_targets_problem, help="where the cues go (QLab listens on port 53000)"),
    *(
        Key(
            kind,
            str,
            None,
            check=_event_address_problem(kind),
            help=f"the cue sent at each {kind} event; " + (f"arguments: {', '.join(args)}" if args else "no arguments"),
        )
        for kind, args in EVENTS.items()
    ),
    Key("arguments", bool, True, help="false: send each address alone, without the event's values"),
    Key("listen", (int, str), None, check=_listen_problem, help="where OSC commands are heard"),
    Key("allow", list, [], check=_allow_problem, help="the senders heard (needed unless listen is on loopback)"),
    Key("prefix", str, "/baccarat", check=_prefix_problem, help="the commands' addresses start with it"),
)


def osc_settings(values: dict[str, Any], section: Section) -> OscSettings:
    """The settings from the keys' checked ``values``; what spans keys is checked here, each
    problem one :class:`OscConfigError` naming a key."""
    section.error = OscConfigError
    targets = tuple(Target(*split_host_port(text)) for text in values["targets"])
    addresses = {kind: values[kind] for kind in EVENTS if values[kind] is not None}
    listen = None if values["listen"] is None else _listen(values["listen"])
    allow = tuple(_network(text) for text in values["allow"])
    if targets and not addresses:
        raise section.fail("targets", f"no event key is set, so nothing is sent: set one of {', '.join(EVENTS)}")
    if addresses and not targets:
        key = next(iter(addresses))
        raise section.fail(key, 'goes nowhere without targets: add targets = ["host:port"]')
    if listen is None and allow:
        raise section.fail("allow", "lets senders in, but nothing listens: set listen = <a UDP port> too")
    if listen is not None and not listen.loopback and not allow:
        raise section.fail(
            "listen",
            'takes commands from any sender on the network: add allow = ["<the controller\'s IP address>"], '
            f'or listen on "127.0.0.1:{listen.port}" (this machine only)',
        )
    if not targets and listen is None:
        raise section.fail("targets", "is empty and nothing listens: [osc] does nothing (remove it, or set targets)")
    return OscSettings(targets, addresses, values["arguments"], listen, allow, values["prefix"])
