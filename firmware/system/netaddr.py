"""The addresses a phone or a tablet on the room's network can reach this machine at.

A console bound to ``0.0.0.0`` listens on every interface, but ``127.0.0.1`` is only this
machine's: the simulator's screen, the log and ``baccarat party`` show the IPv4 addresses of the
machine's interfaces instead (read from the kernel with ``SIOCGIFADDR``, no command run), leaving
out loopback and the bridges that containers and virtual machines make, which no tablet reaches.

>>> reachable_urls("127.0.0.1", 8080, "/play", addresses=lambda: ["192.168.1.23"])
['http://127.0.0.1:8080/play']
>>> reachable_urls("0.0.0.0", 8080, "/play", addresses=lambda: ["192.168.1.23"])
['http://192.168.1.23:8080/play', 'http://127.0.0.1:8080/play']
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Callable

#: ``SIOCGIFADDR`` (linux/sockios.h): an interface's IPv4 address.
SIOCGIFADDR = 0x8915
#: Interfaces no device on the room's network reaches (containers', virtual machines' bridges).
VIRTUAL_PREFIXES = ("lo", "docker", "veth", "br-", "virbr", "vnet", "cni", "flannel", "tun", "wg")


def _ioctl_address(name: str) -> str | None:
    import fcntl  # Linux (and macOS): the prop's platforms

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            packed = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
        except OSError:  # no IPv4 address on it (EADDRNOTAVAIL), or down
            return None
    return socket.inet_ntoa(packed[20:24])


def lan_addresses(
    interfaces: Callable[[], list[tuple[int, str]]] = socket.if_nameindex,
    address: Callable[[str], str | None] = _ioctl_address,
) -> list[str]:
    """This machine's IPv4 addresses on its real interfaces, private ones (a room's network) first."""
    found = []
    try:
        names = [name for _, name in interfaces()]
    except OSError:
        return []
    for name in names:
        if name.startswith(VIRTUAL_PREFIXES):
            continue
        text = address(name)
        if text is None:
            continue
        ip = ipaddress.ip_address(text)
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
            continue
        found.append(text)
    return sorted(dict.fromkeys(found), key=lambda a: not ipaddress.ip_address(a).is_private)


def is_every_interface(bind: str) -> bool:
    """True for the wildcard binds: ``0.0.0.0``, ``::`` (and ``""``)."""
    return bind.strip("[]") in ("0.0.0.0", "::", "")


def reachable_urls(
    bind: str, port: int, path: str = "/", *, addresses: Callable[[], list[str]] = lan_addresses
) -> list[str]:
    """The URLs of ``path`` on a server bound to ``bind``: each LAN address then this machine's for a
    wildcard bind; the bound address alone otherwise."""
    if is_every_interface(bind):
        hosts = [*addresses(), "127.0.0.1"]
    else:
        hosts = [bind.strip("[]")]
    return [f"http://{f'[{h}]' if ':' in h else h}:{port}{path}" for h in hosts]
