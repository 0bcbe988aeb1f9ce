"""The configs ``instructions.py`` and ``start_profile.py`` measure: the reference config of a
checkout, and the sections ``--with`` adds; the console's first answer, in the child.

``--with web``: the console on a free loopback port, no password (this machine only);
``--with clue_control``: Clue Control's switch on a free loopback port, its controller this
machine; ``--with osc``: OSC cues to a loopback target and commands heard on a free loopback port.
Each is what a room turns on; none needs its far end to answer for a start.
"""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

EXTRAS = ("web", "clue_control", "osc")


def reference_config(root: Path) -> Path:
    """The reference config of the checkout at ``root`` (``firmware/config/`` since the packages'
    move, ``firmware/`` before it)."""
    moved = root / "firmware" / "config" / "default-config.toml"
    return moved if moved.is_file() else root / "firmware" / "default-config.toml"


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A loopback port free now."""
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def extra_sections(extras: tuple[str, ...]) -> str:
    """The TOML sections of ``extras`` (names of :data:`EXTRAS`)."""
    text = ""
    if "web" in extras:
        text += f"\n[web]\nport = {free_port()}\n"
    if "clue_control" in extras:
        text += f'\n[clue_control]\nport = {free_port()}\ncontroller = "127.0.0.1"\n'
    if "osc" in extras:
        text += (
            f'\n[osc]\ntargets = ["127.0.0.1:{free_port(socket.SOCK_DGRAM)}"]\n'
            'solved = "/cue/1/start"\n'
            f'listen = "127.0.0.1:{free_port(socket.SOCK_DGRAM)}"\n'
        )
    return text


class FirstAnswer(logging.Handler):
    """In the child: once the console logs where it listens (``web console on URL``), one ``GET /``
    over a plain socket (no HTTP client to load), and the process ends when the answer has come in:
    callgrind then writes every thread's counts, the start to the console's first answer."""

    def emit(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith("web console on ") or not record.args:
            return
        url = str(record.args[0] if isinstance(record.args, tuple) else record.args)
        host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        import threading

        threading.Thread(target=_ask, args=(host, int(port)), name="bench-answer", daemon=True).start()


def _ask(host: str, port: int) -> None:
    with socket.create_connection((host, port), timeout=600) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    status = answer.split(b"\r\n", 1)[0]
    os.write(2, b"bench: first answer " + status + b"\n")
    os._exit(0 if b" 200 " in status else 3)
