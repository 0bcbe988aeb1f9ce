"""The local control socket and the ``baccarat solved/reset/force-solve/hint/status`` commands."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.cli.gm import request
from firmware.services.control import socket as control
from tests.conftest import make_config, served_prop


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solved_sets_the_count_on_the_running_daemon(served, capsys):
    rig, sock = served
    code, out, _ = run(capsys, "solved", "4", "--socket", str(sock))
    assert code == 0 and "4" in out
    assert rig.daemon.module.edgework.solved == 4
    assert rig.kinds()[-1] == "solved_count"


def test_reset_with_and_without_limits(served, capsys):
    rig, sock = served
    rig.chips("player", 5)
    code, out, _ = run(capsys, "reset", "--min", "50", "--max", "3000", "--socket", str(sock))
    m = rig.daemon.module
    assert code == 0 and "$50 - $3000" in out
    assert (m.limits.minimum, m.limits.maximum) == (50, 3000) and m.bets()["player"] == 0
    code, out, _ = run(capsys, "reset", "--socket", str(sock))
    assert code == 0 and (m.limits.minimum, m.limits.maximum) == (25, 1000)  # the config's fixed limits


def test_force_solve_and_status(served, capsys):
    rig, sock = served
    code, out, _ = run(capsys, "force-solve", "--socket", str(sock))
    assert code == 0 and out.strip() == "solved (forced)"
    assert rig.daemon.module.solved and rig.led("green")
    code, out, _ = run(capsys, "force-solve", "--socket", str(sock))
    assert out.strip() == "already solved"
    code, out, _ = run(capsys, "status", "--socket", str(sock))
    assert code == 0 and out.startswith("solved, 0 strike(s); limits $25 - $1000; red deck, 52 cards left")
    code, out, _ = run(capsys, "status", "--json", "--socket", str(sock))
    assert json.loads(out)["status"] == "solved"


def test_hint_matches_the_next_round(served, capsys):
    rig, sock = served
    code, out, _ = run(capsys, "hint", "--socket", str(sock))
    assert code == 0
    game = rig.daemon.module.next_round()
    assert out.startswith(f"next round: {game.winner} wins")
    assert f"player {' '.join(map(str, game.player))} = {game.player_score}" in out


def test_socket_path_from_environment(served, capsys, monkeypatch):
    rig, sock = served
    monkeypatch.setenv("BACCARAT_SOCKET", str(sock))
    assert run(capsys, "solved", "2")[0] == 0
    assert rig.daemon.module.edgework.solved == 2


def test_no_daemon_is_a_one_line_error(capsys, short_dir):
    code, out, err = run(capsys, "solved", "3", "--socket", str(short_dir / "none.sock"))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "no daemon is listening" in err


def test_stale_socket_is_a_one_line_error(capsys, short_dir):
    stale = short_dir / "stale.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(stale))
    s.close()  # the file stays, nobody listens: a daemon killed with -9
    code, _, err = run(capsys, "status", "--socket", str(stale))
    assert code != 0 and err.count("\n") == 1 and "stale socket" in err


def test_a_new_daemon_takes_over_a_stale_socket(mock_factory, short_dir):
    stale = short_dir / "control.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(stale))
    s.close()
    config = make_config(control={"socket": str(stale)}, state={"file": ""})
    with served_prop(config, mock_factory):
        assert request(stale, {"command": "status"})["ok"]


def test_bad_values_are_refused_by_the_daemon_and_change_nothing(served, capsys):
    rig, sock = served
    before = rig.daemon.module.snapshot()
    code, _, err = run(capsys, "reset", "--min", "7", "--max", "100", "--socket", str(sock))
    assert code != 0 and "minimum $7" in err and err.count("\n") == 1
    code, _, err = run(capsys, "reset", "--min", "25", "--socket", str(sock))
    assert code != 0 and "both" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["solved", "-1", "--socket", str(sock)])
    assert exit_info.value.code == 2 and "negative" in capsys.readouterr().err
    assert rig.daemon.module.snapshot() == before


def test_raw_protocol_one_json_line_each_way(served):
    rig, sock = served
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))
        stream = s.makefile("rwb")
        for request in (
            b'{"id": 1, "command": "set_solved", "solved": 6}\n',
            b"garbage\n",
            b'{"id": 3, "command": "hint"}\n',
        ):
            stream.write(request)
            stream.flush()
        replies = [json.loads(stream.readline()) for _ in range(3)]
    assert replies[0] == {
        "id": 1,
        "ok": True,
        "command": "set_solved",
        "result": {"events": [{"event": "solved_count", "solved": 6}]},
    }
    assert replies[1]["ok"] is False and "not JSON" in replies[1]["error"]
    assert replies[2]["id"] == 3 and replies[2]["result"]["winner"] in ("player", "banker", "tie")
    assert rig.daemon.module.edgework.solved == 6


def test_socket_path_defaults(tmp_path, monkeypatch):
    assert control.socket_path(make_config(control={"socket": ""}).settings["control"]) is None
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    default = make_config().settings["control"]
    assert control.socket_path(default, {"RUNTIME_DIRECTORY": str(run_dir)}) == run_dir / "control.sock"
    # The service's directory, when it exists, comes before a session's: a shell finds the service.
    monkeypatch.setattr(control, "SERVICE_RUNTIME", run_dir)
    assert control.socket_path(default, {"XDG_RUNTIME_DIR": "/run/user/1000"}) == run_dir / "control.sock"
    monkeypatch.setattr(control, "SERVICE_RUNTIME", tmp_path / "absent")
    assert control.socket_path(default, {"XDG_RUNTIME_DIR": "/run/user/1000"}) == Path("/run/user/1000/baccarat.sock")
    # No session: the user's own private directory, never /tmp.
    state = tmp_path / "state"
    assert control.socket_path(default, {"XDG_STATE_HOME": str(state)}) == state / "baccarat" / "control.sock"
