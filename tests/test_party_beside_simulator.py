"""``baccarat party`` beside the simulator the README's first command left running: the party takes
the next free port for its pages and no control socket (the simulator keeps its own), and starts;
a ``--port`` the simulator has is one plain sentence saying what to do.

The simulator here is a whole prop with its services (its console on a port, its control socket at
the default path of this test's own runtime directory), on pins of its own; the party is built as
``baccarat party`` builds it and started beside it.
"""

from __future__ import annotations

import socket
import time

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import cli
from firmware.cli import party
from firmware.cli.party import PORTS_TRIED, party_config, party_port
from firmware.i18n import translations
from firmware.services.control.socket import peer_pid, socket_path
from tests.conftest import RigPin, make_config, served_prop, short_dir
from tests.test_languages_commands import party_args

__all__ = ["short_dir"]

PASSWORD = "k7m3-x9p2"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int, timeout: float = 10.0) -> bool:
    """Something accepts on 127.0.0.1:``port`` within ``timeout`` (the console starts once the game is ready)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.05)
    return False


@pytest.fixture
def simulator(mock_factory, monkeypatch, short_dir):
    """A running prop as ``bash scripts/start.sh`` leaves it: its console on a port (the party's
    first choice) and its control socket at the default path (in this test's runtime directory)."""
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    port = free_port()
    monkeypatch.setattr(party, "PARTY_PORT", port)
    config = make_config(state={"file": ""}, web={"port": port})
    pins = MockFactory(pin_class=RigPin)  # its own, as another process has
    try:
        with served_prop(config, pins) as rig:
            path = socket_path(None)
            assert path is not None and peer_pid(path) is not None, "the simulator holds the default socket"
            assert listening(port), "the simulator's console listens"
            yield rig, port
    finally:
        pins.reset()


def test_a_party_starts_beside_a_running_simulator(simulator, mock_factory):
    _, taken = simulator
    port = party_port(None, translations("en"))
    assert taken < port < taken + PORTS_TRIED
    args = party_args(port=port)
    config = party_config(args, PASSWORD)
    assert config.settings.get("control") == ""  # the simulator keeps the shell's commands
    with served_prop(config, mock_factory) as rig:
        assert rig.daemon.ready.is_set()
        assert listening(port), "the party's pages listen on their own port"


def test_a_taken_port_is_one_plain_sentence(simulator, capsys):
    _, taken = simulator
    assert cli.main(["party", "--port", str(taken), "--no-wait"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"port {taken} is taken by another program (the simulator still running?): quit it (x in its" in err
