"""The control socket: the shell's ``baccarat reset``, ``status``, ... on a Unix socket (``[control]``).

On by default; ``socket = ""`` turns it off. Docs: ``docs/run/commands.md``.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from firmware.plugin import Key, Prop, Running, Section, Service

if TYPE_CHECKING:
    from firmware.plugin import Config

log = logging.getLogger("baccarat")

#: Longest path a Unix socket binds to, in bytes: ``sun_path`` holds 108 with its closing NUL (unix(7)).
MAX_SOCKET_PATH = 107


def socket_path_problem(path: str) -> str | None:
    """Why a Unix socket cannot be bound at ``path`` (``~`` expanded), or None; ``""`` (no socket) is fine."""
    length = len(os.fsencode(os.path.expanduser(path)))
    if length > MAX_SOCKET_PATH:
        return (
            f"is {length} bytes long; a Unix socket's path holds at most {MAX_SOCKET_PATH} bytes: "
            "choose a shorter one (e.g. /run/baccarat/control.sock)"
        )
    return None


class Control(Service):
    """The control socket the ``baccarat`` command talks to."""

    name = "control"
    title = "Control socket"
    keys = (
        Key(
            "socket",
            str,
            None,
            check=socket_path_problem,
            help='the socket\'s path ("": no socket; unset: /run/baccarat/control.sock under systemd)',
        ),
    )
    always = True
    order = 30
    docs = "run/commands.md"

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> str | None:
        """The configured path (None: the default place, ``""``: off)."""
        socket: str | None = values["socket"]
        return socket

    def describe(self, settings: str | None) -> list[str]:
        """``Control socket: off``, or the path when the config names one."""
        if settings == "":
            return ["Control socket: off"]
        return [f"Control socket: {settings}"] if settings else []

    def start(self, prop: Prop, settings: str | None) -> Running | None:
        """Serve the socket; one that cannot be opened is one log line (the game matters more)."""
        from firmware.services.control.socket import ControlServer, socket_path

        path = socket_path(settings)
        if path is None:
            log.info("control socket off")
            return None
        try:
            server = ControlServer(prop.commands, path)
        except OSError as error:
            log.error(
                "control socket %s cannot be opened (%s); shell commands will not work", path, error.strerror or error
            )
            return None
        server.start()
        return Running(server.stop, server)
