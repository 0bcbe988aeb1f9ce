"""The local control socket: game-master commands from the Pi's shell.

A Unix stream socket; each request is one JSON line in the form of an MQTT
command (``{"command": "set_solved", "solved": 3}``) and gets one JSON line
back, the same reply document as on MQTT. Commands run through
:mod:`gm_commands`, the one command path of the prop.

``baccarat solved N``, ``reset``, ``force-solve``, ``hint`` and ``status`` are
the client side.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import socketserver
import stat
import threading
from pathlib import Path
from typing import Any

from . import gm_commands
from .config import Config
from .errors import PropError

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


def socket_path(config: Config, env: dict[str, str] | None = None) -> Path | None:
    """The server's socket: ``[control] socket``, else the first writable candidate;
    ``socket = ""`` turns the socket off (None)."""
    if config.control_socket is not None:
        return Path(config.control_socket).expanduser() if config.control_socket else None
    for path in runtime_candidates(env):
        if path.parent.is_dir() and os.access(path.parent, os.W_OK):
            return path
    return None


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
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

    def __init__(self, daemon, path: Path) -> None:
        self.prop = daemon
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
        future = gm_commands.handle(self.prop, line)
        try:
            return future.result(COMMAND_TIMEOUT)
        except TimeoutError:
            return {"id": None, "ok": False, "command": None,
                    "error": f"the game did not answer within {COMMAND_TIMEOUT:g} s"}

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, args=(0.1,), name="baccarat-control", daemon=True)
        self._thread.start()
        log.info("control socket at %s", self.path)

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self.path.unlink(missing_ok=True)


# -- client -------------------------------------------------------------------------

def request(path: Path, payload: dict[str, Any], timeout: float = COMMAND_TIMEOUT + 5) -> dict[str, Any]:
    """Send one command to a running daemon and return its reply document."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except FileNotFoundError:
            raise PropError(f"no daemon is listening at {path} (is `baccarat run` running?)") from None
        except ConnectionRefusedError:
            raise PropError(f"no daemon is listening at {path} (a stale socket: is `baccarat run` "
                            "running?)") from None
        except PermissionError:
            raise PropError(f"no permission to use {path} (try sudo, or join the daemon's group)") from None
        sock.sendall((json.dumps(payload) + "\n").encode())
        with sock.makefile("rb") as stream:
            line = stream.readline()
    if not line:
        raise PropError(f"the daemon at {path} closed the connection without answering")
    return json.loads(line)


def _client_socket(args: argparse.Namespace) -> Path:
    if args.socket:
        return Path(args.socket)
    if os.environ.get("BACCARAT_SOCKET"):
        return Path(os.environ["BACCARAT_SOCKET"])
    if args.config:
        from .config import load_config

        path = socket_path(load_config(args.config))
        if path is None:
            raise PropError(f"{args.config} turns the control socket off ([control] socket = \"\")")
        return path
    candidates = runtime_candidates()
    for path in candidates:
        if path.exists():
            return path
    raise PropError("no daemon socket found (looked in " + ", ".join(map(str, candidates)) +
                    "); is `baccarat run` running? Use --socket PATH if it listens elsewhere")


def _send(args: argparse.Namespace, payload: dict[str, Any]) -> dict[str, Any]:
    reply = request(_client_socket(args), payload)
    if not reply.get("ok"):
        raise PropError(reply.get("error") or "the daemon refused the command")
    return reply["result"]


def cmd_solved(args: argparse.Namespace) -> int:
    _send(args, {"command": "set_solved", "solved": args.count})
    print(f"solved count set to {args.count}; the next deck uses it")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {"command": "reset"}
    if (args.min is None) != (args.max is None):
        raise PropError("give both --min and --max, or neither")
    if args.min is not None:
        payload |= {"min": args.min, "max": args.max}
    result = _send(args, payload)
    limits = next((e for e in result["events"] if e["event"] == "limits"), None)
    deck = next((e for e in result["events"] if e["event"] == "deck"), None)
    print(f"reset: limits ${limits['min']} - ${limits['max']}, {deck['color']} deck" if limits and deck
          else "reset")
    return 0


def cmd_force_solve(args: argparse.Namespace) -> int:
    result = _send(args, {"command": "force_solve"})
    already = any(e["event"] == "ignored" for e in result["events"])
    print("already solved" if already else "solved (forced)")
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    h = _send(args, {"command": "hint"})
    pairs = [name for name in ("player_pair", "banker_pair") if h[name]]
    print(f"next round: {h['winner']} wins ({h['advice']})")
    print(f"  player {' '.join(h['player'])} = {h['player_score']}, "
          f"banker {' '.join(h['banker'])} = {h['banker_score']}"
          + (f"; {', '.join(p.replace('_', ' ') for p in pairs)} wins" if pairs else ""))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    doc = _send(args, {"command": "status"})
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    e = doc["edgework"]
    bets = ", ".join(f"{a} ${v:,}" for a, v in doc["bets"].items() if v) or "none"
    print(f"{doc['status']}, {doc['strikes']} strike(s); limits ${doc['limits']['min']:,} - "
          f"${doc['limits']['max']:,}; {doc['deck']} deck, {doc['cards_left']} cards left "
          f"(appeared with {doc['deck_solved']} solved)")
    print(f"bets: {bets}; active chip ${doc['denomination']:,}")
    print(f"edgework: serial {e['serial']}, ports {', '.join(e['ports']) or 'none'}, lit "
          f"{', '.join(e['lit']) or 'none'}, unlit {', '.join(e['unlit']) or 'none'}, {e['solved']} solved")
    return 0


def _whole(text: str) -> int:
    try:
        value = int(text.lstrip("$").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def add_control_commands(sub: argparse._SubParsersAction) -> None:
    """``solved``, ``reset``, ``force-solve``, ``hint``, ``status``: talk to a running daemon."""
    def parser(name: str, help_text: str, handler) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--socket", help="the daemon's control socket (default: $BACCARAT_SOCKET, "
                                        "/run/baccarat/control.sock, $XDG_RUNTIME_DIR/baccarat.sock)")
        p.add_argument("--config", help="read the socket path from this config file's [control] socket")
        p.set_defaults(handler=handler)
        return p

    p = parser("solved", "tell a running daemon how many modules are solved on the bomb", cmd_solved)
    p.add_argument("count", type=_whole, help="solved modules (the next deck uses it)")
    p = parser("reset", "start a fresh game on a running daemon", cmd_reset)
    p.add_argument("--min", type=_whole, help="table minimum (default: the config's, else random)")
    p.add_argument("--max", type=_whole, help="table maximum")
    parser("force-solve", "mark the running module solved (status light green)", cmd_force_solve)
    parser("hint", "which bet wins the next round from the current deck", cmd_hint)
    p = parser("status", "the running module's state", cmd_status)
    p.add_argument("--json", action="store_true", help="the state document as JSON")
