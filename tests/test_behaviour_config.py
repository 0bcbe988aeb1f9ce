"""Behaviour no other test held (issue 35 item 3): settings that are only read with another one.

A certificate, a key or a CA file in ``[mqtt]`` without ``tls = true`` would be silently ignored: the
prop would talk to the broker in the clear while its owner believes it is protected. The config is
refused in one line naming the key and what it needs."""

from __future__ import annotations

import pytest

from firmware.config import ConfigError, parse_config
from tests.conftest import config_data

MQTT = {"host": "127.0.0.1", "port": 8883}


@pytest.mark.parametrize(
    "keys",
    [
        {"ca_file": "/etc/ssl/certs/room-ca.pem"},
        {"cert_file": "/etc/baccarat/prop.crt", "key_file": "/etc/baccarat/prop.key"},
        {"key_file": "/etc/baccarat/prop.key", "cert_file": "/etc/baccarat/prop.crt", "tls": False},
    ],
    ids=["ca_file", "client-certificate", "tls-false"],
)
def test_tls_files_without_tls_true_are_refused_in_one_line(keys):
    with pytest.raises(ConfigError) as refused:
        parse_config(config_data(mqtt={**MQTT, **keys}), check_pins=False)
    message = str(refused.value)
    assert "\n" not in message
    assert "[mqtt]" in message and "is only read with tls = true" in message
    assert any(key in message for key in keys if key != "tls")
