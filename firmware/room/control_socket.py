"""The local control socket: game-master commands from the Pi's shell.

A Unix stream socket; each request is one JSON line in the form of an MQTT
command (``{"command": "set_solved", "solved": 3}``) and gets one JSON line
back, the same reply document as on MQTT. Commands run through the one
command path (:class:`.commands.GameMaster`).

The client side is :mod:`firmware.cli.gm` (``baccarat solved N``, ``reset``,
``force-solve``, ``hint``, ``status``); both find the socket with
:func:`socket_path`.
"""

from __future__ import annotations

import json
import logging
import os
import socketserver
import stat
import threading
from pathlib import Path
from typing import Any

from ..errors import PropError
from .commands import GameMaster

log = logging.getLogger("baccarat.control")

#: Longest request line the server reads.
MAX_LINE = 64 * 1024
#: How long a command may wait for the game thread (a deal in progress).
COMMAND_TIMEOUT = 30.0


def runtime_candidates(env: dict[str, str] | None = None) -> list[Path]:
    """Where a socket may be, most specific first: systemd's ``$RUNTIME_DIRECTORY``,
    ``/run/baccarat``, ``$XDG_RUNTIME_DIR``, then ``/tmp``."""
    env = os.environ if env is None else env
    out = []
    if env.get("RUNTIME_DIRECTORY"):
        out.append(Path(env["RUNTIME_DIRECTORY"].split(":")[0]) / "control.sock")
    out.append(Path("/run/baccarat/control.sock"))
    if env.get("XDG_RUNTIME_DIR"):
        out.append(Path(env["XDG_RUNTIME_DIR"]) / "baccarat.sock")
    out.append(Path(f"/tmp/baccarat-{os.getuid()}.sock"))
    return out


def socket_path(configured: str | None, env: dict[str, str] | None = None) -> Path | None:
    """The server's socket: ``configured`` (``[control] socket``), else the first writable
    candidate; ``socket = ""`` turns the socket off (None)."""
    if configured is not None:
        return Path(configured).expanduser() if configured else None
    for path in runtime_candidates(env):
        if path.parent.is_dir() and os.access(path.parent, os.W_OK):
            return path
    return None


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        """Answer each request line with one reply line."""
        server: ControlServer = self.server  # type: ignore[assignment]
        while True:
            line = self.rfile.readline(MAX_LINE)
            if not line:
                return
            if not line.strip():
                continue
            reply = server.run(line)
            self.wfile.write((json.dumps(reply) + "\n").encode())
            self.wfile.flush()


class ControlServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Serves the socket on a thread of its own; one thread per connection."""

    daemon_threads = True

    def __init__(self, commands: GameMaster, path: Path) -> None:
        self.commands = commands
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            if not stat.S_ISSOCK(path.lstat().st_mode):
                raise PropError(f"{path} exists and is not a socket; remove it or set [control] socket")
            path.unlink()  # left by a daemon that was killed
        super().__init__(str(path), _Handler)
        os.chmod(path, 0o660)
        self._thread: threading.Thread | None = None

    def run(self, line: bytes) -> dict[str, Any]:
        """One request line in, one reply document out."""
        future = self.commands.handle(line)
        try:
            return future.result(COMMAND_TIMEOUT)
        except TimeoutError:
            return {
                "id": None,
                "ok": False,
                "command": None,
                "error": f"the game did not answer within {COMMAND_TIMEOUT:g} s",
            }

    def start(self) -> None:
        """Serve on a thread of its own."""
        self._thread = threading.Thread(target=self.serve_forever, args=(0.1,), name="baccarat-control", daemon=True)
        self._thread.start()
        log.info("control socket at %s", self.path)

    def stop(self) -> None:
        """Stop serving and remove the socket file."""
        self.shutdown()
        self.server_close()
        self.path.unlink(missing_ok=True)
