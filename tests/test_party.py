"""``baccarat party`` (issue 32, newcomers' paths 1 and 2): a party in one step, with the players'
page at this machine's address on the network, a QR code of it, and a password."""

from __future__ import annotations

import argparse
import http.cookiejar
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.parse
import urllib.request
import uuid

import pytest

from firmware.cli import main
from firmware.cli.party import banner as party_banner
from firmware.cli.party import new_password, party_config, party_data
from firmware.config import DEFAULT_CONFIG, parse_config
from firmware.system.netaddr import lan_addresses, reachable_urls
from tests import test_simulator_terminal as terminal
from tests.test_simulator_console import free_port


def _args(**options) -> argparse.Namespace:
    defaults = {"config": str(DEFAULT_CONFIG), "minutes": 5, "strikes": 3, "seed": None, "port": 8080}
    return argparse.Namespace(**{**defaults, **options})


def test_a_party_config_is_a_random_bomb_a_clock_and_a_console_for_the_network():
    config = party_config(_args(seed=7, minutes=4, strikes=2), "k7m3-x9p2")
    assert config.edgework is None and config.bombs is not None and config.bombs.seed == 7
    assert (config.bomb.timer_seconds, config.bomb.strike_limit) == (240.0, 2)
    web = config.settings["web"].resolved(simulate=True)
    assert (web.enabled, web.bind, web.port, web.password) == (True, "0.0.0.0", 8080, "k7m3-x9p2")
    assert config.state_file == ""  # each party starts fresh
    none = party_config(_args(minutes=0, strikes=0), "k7m3-x9p2")
    assert none.bomb.timer_seconds is None and none.bomb.strike_limit is None


def test_the_reference_config_becomes_a_party_without_a_failed_check():
    """The shipped config's fixed edgework (serial, ports, lit, unlit) is what made turning it random
    take four failed check-config runs: the party leaves them out."""
    base = tomllib.loads(DEFAULT_CONFIG.read_text())
    assert {"serial", "ports", "lit", "unlit"} <= set(base["edgework"])
    data = party_data(base, minutes=5, strikes=3, seed=None, port=9000, password="abcd-efgh")
    parse_config(data)  # no ConfigError


def test_a_new_password_is_long_enough_and_easy_to_type():
    passwords = {new_password() for _ in range(50)}
    assert len(passwords) == 50
    for password in passwords:
        assert re.fullmatch(r"[a-km-np-z2-9]{4}-[a-km-np-z2-9]{4}", password), password


def test_the_banner_gives_the_tablet_the_network_address_and_its_qr_code():
    config = party_config(_args(), "k7m3-x9p2")
    urls = reachable_urls("0.0.0.0", 8080, "/", addresses=lambda: ["192.168.1.23", "10.0.0.7"])
    text = party_banner(config, "k7m3-x9p2", urls)
    assert "The players' tablet (same Wi-Fi as this computer): http://192.168.1.23:8080/play" in text
    assert "or http://10.0.0.7:8080/play" in text
    assert "127.0.0.1:8080/play" not in text  # a tablet cannot reach this machine's loopback
    assert "Password (the tablet asks once): k7m3-x9p2" in text
    assert "console, on this computer: http://127.0.0.1:8080/" in text
    assert "5 minutes on the clock, explodes at strike 3" in text
    assert sum("▄" in line or "█" in line for line in text.splitlines()) >= 10  # the QR code's rows
    alone = party_banner(config, "k7m3-x9p2", reachable_urls("0.0.0.0", 8080, "/", addresses=list))
    assert "No network address found" in alone and "/play" not in alone


def test_the_interfaces_a_tablet_cannot_reach_are_left_out():
    found = {"lo": "127.0.0.1", "docker0": "172.17.0.1", "eth0": "8.8.4.4", "wlan0": "192.168.1.23", "eth1": None}
    addresses = lan_addresses(
        interfaces=lambda: list(enumerate(found)),
        address=found.get,
    )
    assert addresses == ["192.168.1.23", "8.8.4.4"]  # the private (room) network first
    assert lan_addresses(interfaces=lambda: (_ for _ in ()).throw(OSError(19, "No such device"))) == []


@pytest.mark.parametrize(
    ("option", "named"),
    [("--minutes=601", "minutes"), ("--strikes=-1", "strikes"), ("--port=0", "port"), ("--password=short", "8 or")],
)
def test_bad_party_options_are_one_line(option, named, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["party", option])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and named in err and "Traceback" not in err


@pytest.fixture
def party_session(tmp_path, short_dir):
    """``baccarat party`` under tmux, with its own control socket and port (beside a running simulator)."""
    assert shutil.which("tmux"), "tmux is needed (scripts/test.sh installs it)"
    config = tmp_path / "party.toml"
    config.write_text(DEFAULT_CONFIG.read_text() + f'\n[control]\nsocket = "{short_dir / "c.sock"}"\n')
    port = free_port()
    name = f"party-{uuid.uuid4().hex[:8]}"
    command = (
        f"{sys.executable} -m firmware.cli party --config {config} --port {port} --password secret-123 --view text"
    )
    terminal._tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "50", "-c", str(terminal.ROOT), command)
    yield name, port
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_the_party_prints_the_tablets_address_and_serves_it_there(party_session):
    session, port = party_session
    lan = lan_addresses()
    screen = terminal._wait_for(session, "Press Enter to start the game")
    flat = " ".join(screen.split())
    if lan:
        assert f"http://{lan[0]}:{port}/play" in flat, screen
        host = lan[0]
    else:  # a machine with no network but loopback: the banner says so
        assert "No network address found" in flat, screen
        host = "127.0.0.1"
    assert "Password (the tablet asks once): secret-123" in flat
    jar = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login = urllib.parse.urlencode({"password": "secret-123", "next": "/play"}).encode()
    with jar.open(f"http://{host}:{port}/play/login", data=login, timeout=10) as page:
        assert page.url.endswith("/play") and b"<html" in page.read().lower()
    terminal._keys(session, "Enter")
    screen = terminal._wait_for(session, "ready: inputs armed")
    assert f"web console at http://{host}:{port}/" in " ".join(screen.split()), screen
    terminal._keys(session, "x")
