"""The local control socket: game-master commands from the Pi's shell.

A Unix stream socket; each request is one JSON line in the form of an MQTT
command (``{"command": "set_solved", "solved": 3}``) and gets one JSON line
back, the same reply document as on MQTT. Commands run through the one
command path (:class:`.commands.GameMaster`).

One socket per daemon, in a directory no other user can write to
(:func:`socket_path`, the same rule for the daemon and the client): a daemon
refuses to start, naming the pid, when a live daemon answers at its path, and
replaces a stale socket file. A request line over :data:`MAX_LINE` is refused
whole; an idle connection is closed after :data:`IDLE_SECONDS`; at most
:data:`MAX_CONNECTIONS` are served at once.

The client side is :mod:`firmware.cli.gm` (``baccarat solved N``, ``reset``,
``force-solve``, ``hint``, ``status``).
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import socketserver
import stat
import struct
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from baccarat_core import strict
from firmware.plugin import GameMaster, PropError, private_dir

log = logging.getLogger("baccarat.control")

#: Longest request line the server reads (without its newline); a longer one is refused whole.
MAX_LINE = strict.MAX_BYTES
#: A connection that sends nothing for this long is closed.
IDLE_SECONDS = 60.0
#: Connections served at once; more are answered with an error and closed.
MAX_CONNECTIONS = 16
#: Connections the kernel holds for the server before it accepts them.
BACKLOG = 128
#: The service's runtime directory (systemd's ``RuntimeDirectory=baccarat``): only root makes it.
SERVICE_RUNTIME = Path("/run/baccarat")


def socket_path(configured: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """The control socket, for the daemon and the client alike; ``socket = ""`` turns it off (None).

    1. ``[control] socket`` when set;
    2. ``$RUNTIME_DIRECTORY/control.sock`` (under systemd: ``/run/baccarat/control.sock``);
    3. ``/run/baccarat/control.sock`` when that directory exists (the service runs: a shell finds it);
    4. ``$XDG_RUNTIME_DIR/baccarat.sock`` (a login session's own 0700 directory);
    5. ``control.sock`` in :func:`private_dir`, a 0700 directory of the user's own.

    Never a world-writable directory such as ``/tmp``, where another user could squat the name.
    """
    env = os.environ if env is None else env
    if configured is not None:
        return Path(configured).expanduser() if configured else None
    if env.get("RUNTIME_DIRECTORY"):
        return Path(env["RUNTIME_DIRECTORY"].split(":")[0]) / "control.sock"
    if SERVICE_RUNTIME.is_dir():
        return SERVICE_RUNTIME / "control.sock"
    if env.get("XDG_RUNTIME_DIR"):
        return Path(env["XDG_RUNTIME_DIR"]) / "baccarat.sock"
    return private_dir(env) / "control.sock"


def make_private_dir(path: Path) -> None:
    """Create ``path`` (mode 0700) if missing; refuse one that is not the user's own and private."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PropError(f"{path} is not a directory of this user's own; remove it or set [control] socket")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
        log.info("control: made %s private (mode 0700)", path)


def peer_pid(path: Path, timeout: float = 2.0) -> int | None:
    """The pid of the process listening at ``path``, or None when nobody answers (a stale socket)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(timeout)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return None
        except BlockingIOError:  # its backlog is full: it is alive, and busy
            return 0
        except OSError as error:
            raise PropError(f"cannot check the socket {path} ({error.strerror or error})") from None
        creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid: int = struct.unpack("3i", creds)[0]  # struct ucred: pid, uid, gid
        return pid


def _error_line(message: str, *, busy: bool = False) -> bytes:
    reply: dict[str, Any] = {"id": None, "ok": False, "command": None, "error": message}
    if busy:
        reply["busy"] = True  # refused unread: the same request may be sent again shortly
    return (strict.dumps(reply) + "\n").encode()


class _Handler(socketserver.StreamRequestHandler):
    server: ControlServer  # the only server that makes these

    def setup(self) -> None:
        """The connection's timeout is the server's idle limit: an idle client is dropped."""
        # typeshed declares timeout a ClassVar, but socketserver reads it from the instance
        self.timeout = self.server.idle_seconds  # type: ignore[misc]
        super().setup()

    def handle(self) -> None:
        """Answer each request line with one reply line; a line over :data:`MAX_LINE` is refused whole."""
        server: ControlServer = self.server
        try:
            while True:
                line = self.rfile.readline(MAX_LINE + 1)
                if not line:
                    return
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    if not self._skip_line():
                        return
                    message = f"request line longer than {MAX_LINE} bytes; refused whole"
                    log.warning("control: %s", message)
                    self.wfile.write(_error_line(message))
                    self.wfile.flush()
                    continue
                if not line.strip():
                    continue
                reply = server.run(line.rstrip(b"\r\n"))
                self.wfile.write((strict.dumps(reply) + "\n").encode())
                self.wfile.flush()
        except TimeoutError:
            log.info("control: closed a connection idle for %g s", self.timeout)
        except OSError:  # the client went away mid-reply
            return

    def _skip_line(self) -> bool:
        """Read up to the end of an over-long line; False at the end of the stream."""
        while True:
            chunk = self.rfile.readline(MAX_LINE)
            if not chunk:
                return False
            if chunk.endswith(b"\n"):
                return True


class ControlServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Serves the socket on a thread of its own; one thread per connection, at most :data:`MAX_CONNECTIONS`."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(
        self,
        commands: GameMaster,
        path: Path,
        *,
        idle_seconds: float = IDLE_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.commands = commands
        self.path = path
        self.idle_seconds = idle_seconds
        self.max_connections = max_connections
        self._active = 0
        self._count_lock = threading.Lock()
        self._full_said = False
        if path.parent == private_dir():
            make_private_dir(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            if not stat.S_ISSOCK(path.lstat().st_mode):
                raise PropError(f"{path} exists and is not a socket; remove it or set [control] socket")
            pid = peer_pid(path)
            if pid is not None:
                who = f"pid {pid}" if pid else "a busy process"
                raise PropError(
                    f"another daemon ({who}) is listening at {path}; stop it, or give this one another [control] socket"
                )
            path.unlink()  # left by a daemon that was killed
        super().__init__(str(path), _Handler)
        os.chmod(path, 0o660)
        self._inode = path.lstat().st_ino
        self._thread: threading.Thread | None = None

    def run(self, line: bytes) -> dict[str, Any]:
        """One request line in, one reply document out."""
        future = self.commands.handle(line)
        try:
            return future.result(future.timeout)  # COMMAND_TIMEOUT, or as long as a self-test may last
        except TimeoutError:
            return {
                "id": None,
                "ok": False,
                "command": None,
                "error": f"the game did not answer within {future.timeout:g} s",
            }

    # -- connections ----------------------------------------------------------------
    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve a connection on a thread of its own, or refuse it when :data:`MAX_CONNECTIONS` are open."""
        with self._count_lock:
            full = self._active >= self.max_connections
            if not full:
                self._active += 1
                self._full_said = False
            say = full and not self._full_said
            self._full_said = self._full_said or full
        if full:
            if say:
                log.warning("control: %d connections open; refusing more until one closes", self.max_connections)
            try:
                request.settimeout(1.0)
                request.sendall(_error_line(f"too many connections ({self.max_connections}); try again", busy=True))
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection, then count it closed."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._count_lock:
                self._active -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One log line, never a traceback on stderr, for a connection that failed."""
        log.warning("control: a connection failed and was closed")

    @property
    def active(self) -> int:
        """Connections being served now."""
        with self._count_lock:
            return self._active

    # -- life -----------------------------------------------------------------------
    def start(self) -> None:
        """Serve on a thread of its own."""
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="baccarat-control", daemon=True)
        self._thread.start()
        log.info("control socket at %s", self.path)

    def _serve(self) -> None:
        """Accept connections until :meth:`stop`. Unlike ``serve_forever``, which polls ten
        times a second to notice a shutdown, this sleeps until a client or the stop arrives."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj == self._wake_r for key, _ in ready):
                    return
                self._handle_request_noblock()  # type: ignore[attr-defined]  # socketserver's, not in typeshed

    def stop(self) -> None:
        """Stop serving and remove the socket file (only if it is still this server's)."""
        if self._thread is not None:
            os.write(self._wake_w, b"\0")
            self._thread.join()
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._thread = None
        self.server_close()
        try:
            if self.path.lstat().st_ino == self._inode:
                self.path.unlink()
        except FileNotFoundError:
            pass


def read_reply(stream: Any, limit: int = 16 * strict.MAX_BYTES) -> dict[str, Any]:
    """One reply line from a daemon, strictly: at most ``limit`` bytes of a JSON object."""
    line = stream.readline(limit + 1)
    if not line:
        raise PropError("the daemon closed the connection without answering")
    if len(line) > limit:
        raise PropError(f"the daemon's reply is longer than {limit} bytes")
    try:
        reply = strict.loads(line, "reply", max_bytes=limit)
    except strict.InputError as error:
        raise PropError(f"the daemon's reply is not a reply: {error}") from None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise PropError("the daemon's reply is not a reply document")
    return reply
