"""MQTT over TLS and with a password, against a real Mosquitto: check-config checks the files,
and each failure is one log line with its reason (issue 11, item 6)."""

from __future__ import annotations

import json
import logging
import random
import re
import subprocess
import time
from pathlib import Path

import pytest

from baccarat_core.records import replace
from firmware.app import attach_services, build_daemon, close_daemon
from firmware.config import ConfigError, load_config
from firmware.devices.displays import open_dummy_device
from tests import test_mqtt
from tests.conftest import make_config
from tests.mosquitto import Broker

broker = test_mqtt.broker


# -- item 6: TLS files and failures, auth failures ----------------------------------------------------------


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Path:
    """A CA, a server certificate for 127.0.0.1, a client certificate, and a second, unrelated CA."""
    if subprocess.run(["openssl", "version"], capture_output=True).returncode != 0:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("pki")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    # The extensions Python 3.13's default contexts ask for (ssl.VERIFY_X509_STRICT): a CA's key usage,
    # a certificate's authority key identifier. 3.11 and 3.12 accept them as well as their absence.
    ca = ["-x509", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-days", "9"]
    for name in ("ca", "other"):
        run("req", *ca, *ec, "-keyout", f"{name}.key", "-out", f"{name}.crt", "-subj", f"/CN={name}")
    (d / "san.cnf").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth,clientAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n"
    )
    for name in ("server", "client"):
        run("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.crt", "-days", "9", "-extfile", "san.cnf")  # fmt: skip
    (d / "garbage.crt").write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    return d


def write_config(tmp_path: Path, mqtt: dict) -> Path:
    def value(v):
        return json.dumps(v) if not isinstance(v, bool) else str(v).lower()

    import tomllib

    from tests.conftest import ROOT

    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    text += "\n[mqtt]\n" + "".join(f"{k} = {value(v)}\n" for k, v in mqtt.items())
    tomllib.loads(text)
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "files, key, problem",
    [
        ({"ca_file": "missing.crt"}, "ca_file", "cannot be read (No such file or directory)"),
        ({"ca_file": "garbage.crt"}, "ca_file", "is not a PEM certificate"),
        ({"ca_file": "ca.key"}, "ca_file", "is not a PEM certificate"),
        ({"ca_file": "ca.crt", "cert_file": "client.crt", "key_file": "missing.key"}, "key_file", "cannot be read"),
        ({"ca_file": "ca.crt", "cert_file": "client.crt", "key_file": "server.key"}, "key_file", "does not load"),
        ({"ca_file": "ca.crt", "cert_file": "garbage.crt", "key_file": "client.key"}, "key_file", "does not load"),
    ],
)
def test_check_config_checks_that_the_tls_files_exist_and_load(pki, tmp_path, capsys, files, key, problem):
    from firmware import cli

    path = write_config(tmp_path, {"host": "127.0.0.1", "tls": True, **{k: str(pki / v) for k, v in files.items()}})
    with pytest.raises(ConfigError, match=f"\\[mqtt\\] {key} = .*{re.escape(problem)}"):
        load_config(path)
    assert cli.main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and key in err and "Traceback" not in err


def test_good_tls_files_pass_check_config(pki, tmp_path):
    files = {"ca_file": "ca.crt", "cert_file": "client.crt", "key_file": "client.key"}
    path = write_config(tmp_path, {"host": "127.0.0.1", "tls": True, **{k: str(pki / v) for k, v in files.items()}})
    assert load_config(path).settings["mqtt"].tls


@pytest.fixture
def tls_broker(pki, tmp_path):
    listener = f"cafile {pki / 'ca.crt'}\ncertfile {pki / 'server.crt'}\nkeyfile {pki / 'server.key'}\n"
    b = Broker(tmp_path, listener=listener)
    b.start()
    yield b
    b.stop()


def run_until_logged(
    mock_factory, mqtt: dict, caplog, needle: str, timeout: float = 8.0, *, unchecked: dict | None = None
) -> list[str]:
    """Run a daemon with these ``[mqtt]`` settings until a log line holds ``needle``; its warnings.

    ``unchecked``: ``[mqtt]`` values put in after the config's checks, which would refuse them."""
    config = make_config(mqtt=mqtt, state={"file": ""}, control={"socket": ""})
    if unchecked:
        config = config.with_settings("room2", replace(config.settings["room2"], **unchecked))
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    with caplog.at_level(logging.INFO, logger="baccarat.mqtt"):
        closers = attach_services(daemon, config)
        daemon.start()
        try:
            deadline = time.monotonic() + timeout
            while not any(needle in r.getMessage() for r in caplog.records):
                assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
                time.sleep(0.05)
        finally:
            daemon.stop()
            for close in closers:
                close()
            close_daemon(daemon)
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def quick(broker: Broker, **extra) -> dict:
    return {
        "host": broker.host,
        "port": broker.port,
        "reconnect_min_seconds": 0.1,
        "reconnect_max_seconds": 0.3,
        **extra,
    }


def test_tls_with_the_wrong_ca_is_logged_as_certificate_verify_failed(pki, tls_broker, mock_factory, caplog):
    said = run_until_logged(
        mock_factory, quick(tls_broker, tls=True, ca_file=str(pki / "other.crt")), caplog, "certificate verify failed"
    )
    assert len(said) == 1 and "cannot connect" in said[0] and "unreachable" not in said[0]


def test_tls_with_the_right_ca_connects(pki, tls_broker, mock_factory, caplog):
    run_until_logged(mock_factory, quick(tls_broker, tls=True, ca_file=str(pki / "ca.crt")), caplog, "listening")


def test_a_plain_client_on_a_tls_port_is_told_so(tls_broker, mock_factory, caplog):
    said = run_until_logged(mock_factory, quick(tls_broker), caplog, "without answering")
    assert len(said) == 1 and "the port speaks TLS: set tls = true" in said[0], said


def test_a_connect_the_broker_drops_unanswered_is_not_blamed_on_tls(broker, mock_factory, caplog):
    """Mosquitto hangs up on a CONNECT whose will topic holds a wildcard, with no CONNACK to say why
    (here the Room 2.0 link's, from a room check-config refuses): the log says the broker refused the
    CONNECT, with paho's reason, and does not send the game master hunting for TLS on a plain port."""
    said = run_until_logged(mock_factory, quick(broker), caplog, "without answering", unchecked={"room": "Casino/+"})
    assert len(said) == 1, said
    assert "refused what the prop sent" in said[0] and "will topic" in said[0], said
    assert "tls" not in said[0].lower(), said


def test_tls_to_a_plain_port_is_a_failed_handshake(pki, broker, mock_factory, caplog):
    said = run_until_logged(
        mock_factory, quick(broker, tls=True, ca_file=str(pki / "ca.crt")), caplog, "TLS handshake failed"
    )
    assert len(said) == 1


def test_a_wrong_password_is_logged_as_not_authorised(tmp_path, mock_factory, caplog):
    passwords = tmp_path / "passwords"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwords), "prop", "right"], check=True, capture_output=True)
    passwords.chmod(0o600)
    b = Broker(tmp_path, listener=f"allow_anonymous false\npassword_file {passwords}\n")
    b.start()
    try:
        said = run_until_logged(
            mock_factory, quick(b, username="prop", password="wrong"), caplog, "refused the connection"
        )
    finally:
        b.stop()
    # Usually one line; when paho sees the close before it reads the CONNACK, a second says that first.
    assert 1 <= len(said) <= 2 and any("refused the connection: Not authori" in line for line in said), said
    assert not any("wrong" in line for line in said)
