"""The simulator says where its console is, or that its port is taken, on its own screen while it
runs (under tmux), and ``--port`` chooses the port."""

from __future__ import annotations

import re
import socket
import urllib.request

import pytest

from firmware.cli import main
from firmware.simulator.screenlog import PIN, RecentLog
from firmware.web.attach import CONSOLE_LINE
from tests import test_simulator_terminal as terminal

simulator = terminal.simulator  # the fixture


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_console_address_is_on_screen_while_it_runs(simulator):
    port = free_port()
    session = simulator(80, 24, "--view text", f"--port {port}")
    screen = terminal._wait_for(session, "ready: inputs armed")
    assert f"web console at http://127.0.0.1:{port}/" in screen
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
        assert b"<title>Baccarat prop</title>" in page.read()
    terminal._keys(session, ".", ".", "1", "2", "3")  # many log lines later ...
    screen = terminal._wait_for(session, "chip \\$25 on tie")
    assert f"web console at http://127.0.0.1:{port}/" in screen, "the address scrolled away"
    terminal._keys(session, "x")


def test_a_taken_port_is_said_on_screen_at_start(simulator):
    with socket.socket() as taken:  # another simulator, or anything else, has the port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        session = simulator(80, 24, "--view text", f"--port {port}")
        screen = terminal._wait_for(session, "ready: inputs armed")
        flat = re.sub(r"\s+", " ", screen.replace("\nLog:", " ").replace("\n     ", " "))
        assert f"web console: port {port} on 127.0.0.1 is taken" in flat, screen
        assert "--port" in flat and "without its web console" in flat
        terminal._keys(session, "x")


def test_the_console_line_is_the_one_the_screen_keeps():
    assert set(CONSOLE_LINE) == {PIN}
    recent = RecentLog(size=3)
    import logging

    logger = logging.getLogger("test.pinned")
    logger.addHandler(recent)
    logger.propagate = False
    logger.warning("first")
    logger.warning("the console is here", extra=CONSOLE_LINE)
    for n in range(5):
        logger.warning("line %d", n)
    assert recent.shown() == ["line 2", "line 3", "line 4", "the console is here"]


@pytest.mark.parametrize("value", ["0", "65536", "http", "-1", "80 80"])
def test_a_bad_port_is_one_line(value, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--simulate", "--port", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and "--port" in err[-1], err


def test_port_on_a_pi_needs_a_web_section(capsys, tmp_path):
    from firmware.config import DEFAULT_CONFIG

    config = tmp_path / "pi.toml"
    config.write_text(DEFAULT_CONFIG.read_text())
    assert main(["run", "--config", str(config), "--port", "8081"]) != 0
    err = capsys.readouterr().err
    assert "--port 8081: the console is off on a Pi until" in err and "[web]" in err


def test_the_text_view_keeps_the_console_line_at_80x24_with_everything_at_its_longest():
    from firmware.simulator.textview import text_lines
    from tests.test_simulator_text import LOG, crowded

    taken = (
        "web console: port 8080 on 127.0.0.1 is taken (another simulator?); choose another with --port N "
        "or [web] port; the prop runs without its web console"
    )
    lines = text_lines(crowded(), LOG, 80, 24, unicode=True, pinned=[taken])
    assert len(lines) == 24 and all(len(line) < 80 for line in lines)
    assert lines[2].startswith("web console: port 8080") and "--port N" in lines[2] + lines[3]
    assert "GM: next round banker wins" in "\n".join(lines) and lines[-1].startswith(("Log: ", "     "))
