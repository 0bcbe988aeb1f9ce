"""Issue 11 on the control socket: hostile lines, over-long lines, idle clients, the connection cap,
one socket per daemon, and paths no other user can squat."""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from firmware.app import attach_services
from firmware.cli import main
from firmware.cli.gm import request
from firmware.errors import PropError
from firmware.room.commands import GameMaster
from firmware.services.control import socket as control
from tests.conftest import make_config
from tests.hostile import Hostile


def connect(path: Path, timeout: float = 10.0) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(str(path))
    return s


# -- generated: 1,000+ hostile lines over one connection -------------------------------------------------


def test_1000_hostile_lines_get_one_reply_each_and_change_nothing(served, caplog):
    rig, sock = served
    hostile = Hostile(31)
    lines = [hostile.command().replace(b"\n", b"\x01").replace(b"\r", b"\x01") for _ in range(1100)]
    lines = [line for line in lines if line.strip()]
    assert len(lines) > 1050 and any(len(line) > control.MAX_LINE for line in lines)
    before, events = rig.daemon.module.snapshot(), len(rig.events)
    replies = []
    with caplog.at_level(logging.INFO, logger="baccarat"), connect(sock) as s:
        stream = s.makefile("rwb")

        def read_all() -> None:
            for _ in lines:
                replies.append(stream.readline())

        reader = threading.Thread(target=read_all)
        reader.start()
        for line in lines:
            s.sendall(line + b"\n")
        reader.join(60)
        rig.daemon.wait_idle()
    assert len(replies) == len(lines)
    for raw in replies:
        reply = json.loads(raw)
        assert reply["ok"] is False and len(reply["error"]) <= 300
    assert rig.daemon.module.snapshot() == before and len(rig.events) == events
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == len(lines)
    assert not [r for r in caplog.records if r.exc_info or len(r.getMessage()) > 300]


# -- item 7: line length, idle clients, the connection cap, the backlog ------------------------------------


def test_a_line_over_the_limit_is_refused_whole(served):
    rig, sock = served
    with connect(sock) as s:
        s.sendall(b"x" * 65536 + b'{"command":"force_solve"}\n' + b'{"id": 2, "command": "status"}\n')
        stream = s.makefile("rb")
        first, second = json.loads(stream.readline()), json.loads(stream.readline())
    assert first["ok"] is False and "longer than 65536 bytes" in first["error"]
    assert second["id"] == 2 and second["ok"] is True
    assert not rig.daemon.module.solved


def test_a_deep_id_gets_one_short_reply(served, caplog):
    rig, sock = served
    with caplog.at_level(logging.WARNING), connect(sock) as s:
        s.sendall(b'{"id": ' + b"[" * 990 + b"]" * 990 + b', "command": "hint"}\n')
        reply = json.loads(s.makefile("rb").readline())
    assert reply["ok"] is False and reply["id"] is None and len(reply["error"]) < 300
    assert not [r for r in caplog.records if r.exc_info]


@pytest.fixture
def bare_server(rig_factory, short_dir):
    made = []

    def make(**kwargs) -> control.ControlServer:
        rig = rig_factory()
        server = control.ControlServer(GameMaster(rig.daemon), short_dir / f"s{len(made)}.sock", **kwargs)
        server.start()
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


def test_an_idle_connection_is_closed(bare_server, caplog):
    server = bare_server(idle_seconds=0.3)
    with caplog.at_level(logging.INFO, logger="baccarat.control"), connect(server.path, timeout=5) as s:
        started = time.monotonic()
        assert s.recv(100) == b""  # the server closed it
        assert time.monotonic() - started < 3
    assert any("idle" in r.getMessage() for r in caplog.records)


def test_connections_over_the_cap_are_answered_and_closed(bare_server, caplog):
    server = bare_server(max_connections=4)
    threads_before = threading.active_count()
    idle = [connect(server.path) for _ in range(4)]
    deadline = time.monotonic() + 5
    while server.active < 4:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with caplog.at_level(logging.WARNING, logger="baccarat.control"):
        extra = [connect(server.path) for _ in range(30)]
        for s in extra:
            reply = json.loads(s.makefile("rb").readline())
            assert reply["ok"] is False and "too many connections (4)" in reply["error"]
            assert s.recv(10) == b""
    assert threading.active_count() <= threads_before + 4
    assert len([r for r in caplog.records if "connections open" in r.getMessage()]) == 1
    for s in idle + extra:
        s.close()
    deadline = time.monotonic() + 5
    while server.active:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert request(server.path, {"command": "status"})["ok"]


def test_a_command_refused_for_a_full_server_is_sent_again_until_it_is_taken(bare_server):
    """The server refuses a connection over its cap unread, with ``busy``; ``baccarat``'s client
    sends the same request again until a connection closes, and gets the command's own reply."""
    server = bare_server(max_connections=1)
    held = connect(server.path)
    deadline = time.monotonic() + 5
    while server.active < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with connect(server.path) as other:
        refused = json.loads(other.makefile("rb").readline())
    assert refused["ok"] is False and refused["busy"] is True
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(request, server.path, {"id": 7, "command": "status"})
        time.sleep(0.3)  # a few refusals in the meantime
        assert not pending.done()
        held.close()
        reply = pending.result(timeout=10)
    assert reply["ok"] is True and reply["id"] == 7 and "busy" not in reply


def test_many_clients_at_once_all_get_through(served):
    rig, sock = served
    with ThreadPoolExecutor(max_workers=64) as pool:
        replies = list(pool.map(lambda i: request(sock, {"id": i, "command": "status"}), range(64)))
    assert sorted(r["id"] for r in replies) == list(range(64)) and all(r["ok"] for r in replies)


# -- item 8: one socket per daemon, no squatting --------------------------------------------------------


def test_a_second_daemon_refuses_to_start_naming_the_first_ones_pid(served, mock_factory, capsys):
    rig, sock = served
    config = make_config(control={"socket": str(sock)}, state={"file": ""})
    commands = GameMaster(rig.daemon)
    with pytest.raises(PropError, match=f"another daemon \\(pid {os.getpid()}\\) is listening at {sock}"):
        control.ControlServer(commands, sock)
    with pytest.raises(PropError, match="another daemon"):
        attach_services(rig.daemon, config)
    # The first one still has its socket.
    assert request(sock, {"command": "status"})["ok"]


def test_the_default_path_is_never_in_a_world_writable_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(control, "SERVICE_RUNTIME", tmp_path / "absent", raising=False)
    path = control.socket_path(None, {})  # no systemd, no session: the user's own directory
    assert path == Path.home() / ".local" / "state" / "baccarat" / "control.sock"
    for parent in path.parents:
        if parent.exists():
            assert not parent.stat().st_mode & stat.S_IWOTH, parent
    state = tmp_path / "state"
    assert control.socket_path(None, {"XDG_STATE_HOME": str(state)}) == state / "baccarat" / "control.sock"


def test_the_fallback_directory_is_made_private(rig_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setattr(control, "SERVICE_RUNTIME", tmp_path / "absent", raising=False)
    rig = rig_factory()
    path = control.socket_path(None)
    path.parent.mkdir(mode=0o755)
    path.parent.chmod(0o755)
    server = control.ControlServer(GameMaster(rig.daemon), path)
    try:
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) == 0o660
    finally:
        server.server_close()


def test_the_client_uses_exactly_the_daemons_path_and_never_tmp(short_dir, monkeypatch, capsys):
    """A fake daemon at /tmp/baccarat-<uid>.sock (another user's squat) never hears the game master."""
    monkeypatch.setattr(control, "SERVICE_RUNTIME", short_dir / "absent", raising=False)
    monkeypatch.delenv("BACCARAT_SOCKET", raising=False)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    runtime = short_dir / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    squat = Path(f"/tmp/baccarat-{os.getuid()}.sock")
    heard: list[bytes] = []
    fake = None
    if not (squat.exists() or squat.is_symlink()):  # else something is there already: it must not be asked either
        fake = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        fake.bind(str(squat))
        fake.listen(5)
        fake.settimeout(0.5)

    def answer() -> None:
        try:
            conn, _ = fake.accept()
        except OSError:
            return
        heard.append(conn.recv(1000))
        conn.sendall(b'{"id": null, "ok": true, "command": "status", "result": {}}\n')
        conn.close()

    thread = threading.Thread(target=answer if fake else lambda: None)
    thread.start()
    try:
        code = main(["force-solve"])
        err = capsys.readouterr().err
    finally:
        thread.join()
        if fake is not None:
            fake.close()
            squat.unlink()
    assert code == 2 and heard == []
    assert f"no daemon is listening at {runtime / 'baccarat.sock'}" in err and len(err.splitlines()) == 1


def test_a_stale_socket_is_replaced_but_a_file_is_not(rig_factory, short_dir):
    rig = rig_factory()
    stale = short_dir / "stale.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(stale))
    s.close()
    server = control.ControlServer(GameMaster(rig.daemon), stale)
    server.start()
    try:
        assert request(stale, {"command": "status"})["ok"]
    finally:
        server.stop()
    assert not stale.exists()
    plain = short_dir / "plain.sock"
    plain.write_text("not a socket")
    with pytest.raises(PropError, match="not a socket"):
        control.ControlServer(GameMaster(rig.daemon), plain)
