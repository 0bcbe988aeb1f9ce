"""``baccarat support --out FILE`` (issue 33, item 18): the bundle a supplier asks for, on a made-up
Pi (tests/fakehost.py: files, command outputs, the fake kernel under smbus2), with a real state file
and a history the prop's own keeper wrote. Nothing secret may be in it: not the console's password,
the controllers' token, the MQTT password, nor a webhook URL's credentials or query, even where the
log (wrongly) quoted them."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from baccarat_core import BaccaratModule
from firmware import cli, doctor
from firmware.cli.support import redact_config, removed_secrets
from firmware.config import DEFAULT_CONFIG, load_config
from firmware.history.store import FileStore
from firmware.room import saved_state
from tests import fakeos
from tests.fakehost import FakePi
from tests.test_history import play_games

PASSWORD = "correct horse battery staple"
TOKEN = "tok-0123456789abcdef"
MQTT_PASSWORD = "mqtt-pass-XYZ-42"
HOOK_USER, HOOK_PASSWORD, HOOK_QUERY = "hookuser", "hookpass123", "key=webhook-query-secret"
HOOK_ID = "baccarat-solved-7Qx2"  # Home Assistant's webhook id: the secret is the path (issue 41 item 17)
HOOK_URL = f"http://{HOOK_USER}:{HOOK_PASSWORD}@hooks.example:8123/api/webhook/{HOOK_ID}?{HOOK_QUERY}#fragment-secret"
SLACK_SECRET, DISCORD_TOKEN = "slackSecretXYZ123", "discord-token-abcdefgh"
SLACK_URL = f"https://hooks.slack.com/services/T0123/B0456/{SLACK_SECRET}"
DISCORD_URL = f"https://discord.com/api/webhooks/1234567/{DISCORD_TOKEN}"
SECRETS = (
    PASSWORD,
    TOKEN,
    MQTT_PASSWORD,
    HOOK_USER,
    HOOK_PASSWORD,
    HOOK_QUERY,
    "fragment-secret",
    HOOK_URL,
    HOOK_ID,
    SLACK_SECRET,
    DISCORD_TOKEN,
    "T0123",
    "1234567",
)


@pytest.fixture
def prop(monkeypatch, tmp_path):
    """A Pi running the service with secrets in its config, a saved game and three games of history."""
    config = tmp_path / "config.toml"
    config.write_text(
        DEFAULT_CONFIG.read_text()
        + f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
        + f'\n[web]\nbind = "0.0.0.0"\npassword = "{PASSWORD}"\ncontroller_token = "{TOKEN}"\n'
        + f'webhooks = [{{ event = "solved", url = "{HOOK_URL}" }}, {{ event = "strike", url = "{SLACK_URL}" }},\n'
        + f'  {{ event = "reset", url = "{DISCORD_URL}" }}]\n'
        + f'\n[mqtt]\nhost = "broker.example"\nusername = "prop"\npassword = "{MQTT_PASSWORD}"\n'
    )
    loaded = load_config(config)
    module = BaccaratModule(loaded.edgework, loaded.limits, rng=random.Random(1), first_color="red")
    module.start()
    module.strikes = 2
    document = {"version": saved_state.VERSION, "config": saved_state.fingerprint(loaded), "module": module.snapshot()}
    (tmp_path / "state.json").write_text(json.dumps(document))
    store = FileStore(tmp_path / "history.jsonl")
    play_games(store, 3)
    store.close()
    with fakeos.installed(monkeypatch) as kernel:
        pi = FakePi(tmp_path / "root", kernel)
        pi.write("/etc/os-release", 'PRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n')
        pi.commands["journalctl"] = (
            0,
            "2026-11-27T10:00:00+0000 pi baccarat[812]: ready: inputs armed, displays drawn\n"
            f"2026-11-27T10:05:00+0000 pi baccarat[812]: a line that should never be: {MQTT_PASSWORD} {HOOK_URL}\n"
            # an older version's failure lines kept the URL's path
            "2026-11-27T10:06:00+0000 pi baccarat[812]: webhook strike: GET "
            f"{SLACK_URL} failed (attempt 1 of 4): HTTP 500\n"
            f"2026-11-27T10:07:00+0000 pi baccarat[812]: webhook solved: GET {HOOK_URL.split('?')[0]} not delivered\n"
            # a hook the config no longer has, its id short: hidden as a URL's path
            "2026-11-27T10:08:00+0000 pi baccarat[812]: webhook reset: GET "
            "http://ha.example/api/webhook/gone not delivered\n",
        )
        monkeypatch.setattr(doctor, "Host", pi.host)
        yield pi, config


def bundle(path) -> dict[str, str]:
    with zipfile.ZipFile(path) as archive:
        return {name.removeprefix("baccarat-support/"): archive.read(name).decode() for name in archive.namelist()}


def test_the_bundle_holds_what_a_supplier_asks_for_and_no_secret(prop, tmp_path, capsys):
    pi, config = prop
    out = tmp_path / "support.zip"
    assert cli.main(["support", "--out", str(out), "--config", str(config)]) == 0
    printed = capsys.readouterr().out
    files = bundle(out)
    assert sorted(files) == [
        "README.txt",
        "baccarat.service",
        "config.json",
        "doctor.txt",
        "history-last-games.jsonl",
        "history.json",
        "journal.txt",
        "os.txt",
        "state.json",
        "version.txt",
    ]
    everything = "\n".join(files.values()) + printed + out.read_bytes().decode("latin-1")
    leaked = [secret for secret in SECRETS if secret in everything]
    assert leaked == []
    assert files["version.txt"].startswith("baccarat ")
    assert files["doctor.txt"].splitlines()[0] == "OK   this is a Raspberry Pi 4 Model B Rev 1.5"
    assert files["doctor.txt"].splitlines()[-1].startswith("doctor: 0 FAIL")
    assert (
        "ready: inputs armed" in files["journal.txt"]
        and "a line that should never be: <secret>" in files["journal.txt"]
    )
    assert ("journalctl", "-u", "baccarat", "--since=-1d", "--no-pager", "-o", "short-iso") in pi.asked
    web = json.loads(files["config.json"])["web"]
    assert web["password"] == web["controller_token"] == "<secret>" and web["bind"] == "0.0.0.0"
    assert web["webhooks"] == [
        {"event": "solved", "url": "http://hooks.example:8123/api/webhook/<secret>"},
        {"event": "strike", "url": "https://hooks.slack.com/services/<secret>/<secret>/<secret>"},
        {"event": "reset", "url": "https://discord.com/api/webhooks/<secret>/<secret>"},
    ]
    assert "webhook reset: GET http://ha.example/api/webhook/<secret> not" in files["journal.txt"]
    assert "webhook strike: GET <secret> failed" in files["journal.txt"]  # the whole URL was in the config
    assert (
        "webhook solved: GET http://<secret>:<secret>@hooks.example:8123/api/webhook/<secret> not"
        in (files["journal.txt"])
    )
    assert json.loads(files["config.json"])["mqtt"] == {
        "host": "broker.example",
        "username": "prop",
        "password": "<secret>",
    }
    assert json.loads(files["state.json"])["module"]["strikes"] == 2
    history = json.loads(files["history.json"])
    assert history["total"] == 4 and len(history["games"]) == 4  # three reset, the fourth being played
    assert {json.loads(line)["id"] for line in files["history-last-games.jsonl"].splitlines()} == {
        game["id"] for game in history["games"]
    }
    assert files["baccarat.service"] == pi.unit
    assert "VERSION_CODENAME=bookworm" in files["os.txt"] and "model: Raspberry Pi 4 Model B Rev 1.5" in files["os.txt"]
    assert out.stat().st_mode & 0o777 == 0o600
    assert printed.splitlines()[-1].startswith(f"support bundle: {out} (")


def test_without_systemd_it_says_there_is_no_journal(prop, tmp_path, capsys):
    pi, config = prop
    (pi.root / "run" / "systemd" / "system").rmdir()  # a chroot, a container, a PC without systemd
    pi.commands["journalctl"] = (0, "-- No entries --\n")  # what journalctl says there
    pi.commands["systemctl"] = None
    out = tmp_path / "support.zip"
    assert cli.main(["support", "--out", str(out), "--config", str(config)]) == 0
    files = bundle(out)
    why = "no systemd here (not booted with it: a PC without it, a chroot or a container)"
    assert files["journal.txt"] == f"{why}: no log is included\n"
    assert files["baccarat.service"] == "no unit installed (not a service here)\n"
    assert f"journal.txt: {why}" in capsys.readouterr().out
    assert not [argv for argv in pi.asked if argv[0] == "journalctl"]


def test_a_bad_out_is_one_line(prop, tmp_path, capsys):
    _, config = prop
    assert cli.main(["support", "--out", str(tmp_path / "missing" / "x.zip"), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"baccarat support: error: --out {tmp_path / 'missing' / 'x.zip'}: give a file in a directory that exists\n"
    )


def test_redaction_is_by_key_name_at_any_depth():
    data = {
        "mqtt": {"password": "p4ssw0rd", "username": "u"},
        "web": {"controller_token": "t0k3n-t0k3n", "password": "", "webhooks": [{"url": HOOK_URL, "event": "x"}]},
        "list": [{"password": "deep-one"}],
    }
    redacted = redact_config(data)
    assert redacted == {
        "mqtt": {"password": "<secret>", "username": "u"},
        "web": {
            "controller_token": "<secret>",
            "password": "",
            "webhooks": [{"url": "http://hooks.example:8123/api/webhook/<secret>", "event": "x"}],
        },
        "list": [{"password": "<secret>"}],
    }
    assert data["mqtt"]["password"] == "p4ssw0rd"  # the input is left as it was
    assert removed_secrets(data, redacted) == {
        "p4ssw0rd",
        "t0k3n-t0k3n",
        "deep-one",
        HOOK_URL,
        HOOK_USER,
        HOOK_PASSWORD,
        HOOK_QUERY,
        "fragment-secret",
        HOOK_ID,
    }


def test_a_short_path_secret_is_hidden_in_urls_but_not_everywhere():
    """Home Assistant's webhook id ``solved`` is hidden in the URL, but the word stays in the
    history's events (only a secret of 8 characters or more is scrubbed from every text)."""
    redacted = redact_config({"url": "http://ha:8123/api/webhook/solved"})
    assert redacted == {"url": "http://ha:8123/api/webhook/<secret>"}
    assert removed_secrets({"url": "http://ha:8123/api/webhook/solved"}, redacted) == {
        "http://ha:8123/api/webhook/solved"
    }


def _out_refused(config, out, capsys) -> str:
    """``baccarat support --out OUT``: exit 2 and one line on stderr, which is returned."""
    assert cli.main(["support", "--out", str(out), "--config", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


def test_a_device_a_fifo_or_a_link_is_never_replaced(prop, tmp_path, capsys):
    """Issue 41 item 18: as root, ``--out /dev/null`` replaced /dev/null with a regular file. A
    FIFO, a symbolic link to the machine's /dev/null and a socket in a temp dir stand for it (the real
    /dev/null is only looked at)."""
    _, config = prop
    fifo = tmp_path / "fifo.zip"
    os.mkfifo(fifo)
    null = tmp_path / "null.zip"
    null.symlink_to("/dev/null")
    sock_path = Path(tempfile.mkdtemp(prefix="bs", dir="/tmp")) / "s.zip"  # a socket's path must be short
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        for out, what in ((fifo, "a FIFO"), (null, "a symbolic link"), (sock_path, "a socket")):
            err = _out_refused(config, out, capsys)
            assert (
                err
                == f"baccarat support: error: --out {out}: is {what}; give a new file's name (it is never replaced)\n"
            )
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    shutil.rmtree(sock_path.parent)
    assert os.readlink(null) == "/dev/null" and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp file left


def test_a_name_the_system_refuses_is_one_line(prop, tmp_path, capsys):
    _, config = prop
    long = tmp_path / ("b" * 296 + ".zip")  # 300 bytes: more than a name may have (ENAMETOOLONG)
    err = _out_refused(config, long, capsys)
    assert err.startswith("baccarat support: error: --out ") and err.endswith(": File name too long\n"), err
    assert len(err) < 200
    assert "give a file" in _out_refused(config, tmp_path / "a-file" / "x.zip", capsys)
    longest = tmp_path / ("c" * 251 + ".zip")  # 255 bytes: allowed, and written
    assert cli.main(["support", "--out", str(longest), "--config", str(config)]) == 0
    assert zipfile.is_zipfile(longest)


@pytest.mark.parametrize("name", ["bundle.tar.gz", "bundle.tgz", "bundle.zip"])
def test_the_archive_is_what_its_name_says(prop, tmp_path, capsys, name):
    """Issue 41 item 12: ``--out bundle.tar.gz`` wrote a zip file."""
    _, config = prop
    out = tmp_path / name
    (tmp_path / "a-file").write_text("x")
    assert cli.main(["support", "--out", str(out), "--config", str(config)]) == 0
    if name.endswith(".zip"):
        files = bundle(out)
    else:
        assert out.read_bytes()[:2] == b"\x1f\x8b" and not zipfile.is_zipfile(out)
        with tarfile.open(out, "r:gz") as archive:
            files = {
                member.name.removeprefix("baccarat-support/"): archive.extractfile(member).read().decode()
                for member in archive.getmembers()
            }
    assert "config.json" in files and "journal.txt" in files and files["version.txt"].startswith("baccarat ")
    assert out.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("name", ["bundle.tar", "bundle.gz", "bundle", "bundle.zip.txt", ".zip"])
def test_another_name_is_refused_with_one_line(prop, tmp_path, capsys, name):
    _, config = prop
    err = _out_refused(config, tmp_path / name, capsys)
    assert err.endswith("name the file .zip, .tar.gz, .tgz (the archive's format follows its name)\n"), err
    assert not (tmp_path / name).exists()
