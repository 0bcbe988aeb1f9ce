"""A stand-in for systemd's notify socket (``$NOTIFY_SOCKET``), for the watchdog's tests and the benchmark.

A Unix datagram socket bound at a path or an abstract name (``@name``) with
``SO_PASSCRED`` on, as systemd's own: every datagram arrives with the sender's
process id, which systemd compares with the service's main process under
``NotifyAccess=main``.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from dataclasses import dataclass, field

_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


@dataclass
class Message:
    """One datagram: its ``KEY=value`` fields, the sender's pid, and when it was read."""

    fields: dict[str, str]
    pid: int | None
    at: float = field(default_factory=time.monotonic)


def parse(data: bytes) -> dict[str, str]:
    """The ``KEY=value`` lines of a datagram."""
    fields = {}
    for line in data.decode().splitlines():
        key, _, value = line.partition("=")
        fields[key] = value
    return fields


class NotifyListener:
    """systemd's end of the notify protocol, recording what arrives."""

    def __init__(self, address: str) -> None:
        self.address = address  # what NOTIFY_SOCKET says: a path, or "@name"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(b"\0" + address[1:].encode() if address.startswith("@") else address)
        self.messages: list[Message] = []

    def receive(self, timeout: float) -> Message | None:
        """The next datagram within ``timeout`` seconds (0: only one already queued), or None."""
        if timeout > 0:
            self.sock.settimeout(timeout)
        else:
            self.sock.setblocking(False)
        try:
            data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(_CREDENTIALS.size))
        except (TimeoutError, BlockingIOError):
            return None
        pid = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = _CREDENTIALS.unpack(payload[: _CREDENTIALS.size])[0]
        message = Message(parse(data), pid)
        self.messages.append(message)
        return message

    def drain(self) -> list[Message]:
        """Every datagram queued now."""
        out = []
        while (message := self.receive(0)) is not None:
            out.append(message)
        return out

    def wait_for(self, key: str, timeout: float = 30.0, *, count: int = 1) -> list[Message]:
        """Read until ``count`` datagrams carrying ``key`` arrived (counting those read before)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [m for m in self.messages if key in m.fields]
            if len(found) >= count:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{count} x {key} did not arrive within {timeout} s: {self.messages}")
            self.receive(left)

    def close(self) -> None:
        """Close the socket (and remove a path socket's file)."""
        self.sock.close()
        if not self.address.startswith("@"):
            try:
                os.unlink(self.address)
            except FileNotFoundError:
                pass
