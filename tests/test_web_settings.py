"""The [web] section: defaults per platform, one clear line per bad value, secrets never shown.

The table is read as a config file's is: the console's keys by the web service, the controller
token by Escape Room Master's (:mod:`firmware.services.erm`), the webhooks' by theirs
(:mod:`firmware.services.webhooks`)."""

from __future__ import annotations

import pytest

from firmware.config import Config, parse_config
from firmware.errors import ConfigError
from firmware.system.redact import redact_url
from firmware.web.settings import WebConfigError, WebSettings, is_loopback, parse_web_section
from tests.conftest import config_data

SECRET = "hunter2-very-secret"
TOKEN = "erm-token-0123456789"


def read(web: dict | None) -> Config:
    """A whole config with this ``[web]`` table (None: none)."""
    data = config_data(state={"file": ""}, control={"socket": ""})
    if web is not None:
        data["web"] = web
    return parse_config(data)


def test_defaults_simulator_on_pi_off():
    sim = parse_web_section(None, simulate=True)
    assert sim.enabled and sim.front_panel and sim.bind == "127.0.0.1" and sim.port == 8080
    assert sim.password is None
    # Escape Room Master's service reads [web] with or without it (its /status says which key to
    # set); the webhooks' is not even imported without it.
    assert read(None).settings["erm"].token is None and "webhooks" not in read(None).settings
    config = read({})
    assert config.settings["erm"].token is None and config.settings["webhooks"].hooks == ()
    pi = parse_web_section(None, simulate=False)
    assert not pi.enabled and not pi.front_panel
    configured = parse_web_section({}, simulate=False)
    assert configured.enabled and configured.bind == "127.0.0.1" and not configured.front_panel


def test_a_full_section():
    config = read(
        {
            "bind": "0.0.0.0",
            "port": 8081,
            "password": SECRET,
            "controller_token": TOKEN,
            "front_panel": True,
            "webhook_timeout_seconds": 2,
            "webhook_retries": 5,
            "webhooks": [
                {"event": "solved", "url": "http://houdini:14999/baccarat_solved"},
                {"event": "strike", "url": "https://nodered.local/hook", "method": "post"},
            ],
        }
    )
    settings = config.settings["web"].resolved(simulate=False)
    erm, hooks = config.settings["erm"], config.settings["webhooks"]
    assert settings.bind == "0.0.0.0" and settings.port == 8081 and settings.front_panel
    assert settings.password == SECRET and erm.token == TOKEN
    assert hooks.timeout_seconds == 2.0 and hooks.retries == 5
    assert [(h.event, h.method) for h in hooks.hooks] == [("solved", "GET"), ("strike", "POST")]
    assert SECRET not in repr(settings) and TOKEN not in repr(erm) and TOKEN not in repr(config)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"bind": "0.0.0.0"}, '[web] bind = "0.0.0.0": listening beyond localhost needs [web] password'),
        ({"bind": "::"}, '[web] bind = "::": listening beyond localhost needs [web] password'),
        ({"bind": "192.168.1.20", "password": ""}, "listening beyond localhost needs [web] password"),
        ({"bind": "prop.local", "password": SECRET}, '[web] bind = "prop.local": must be an IP address'),
        ({"port": 0}, "[web] port = 0: must be 1-65535"),
        ({"port": "8080"}, '[web] port = "8080": must be a whole number'),
        ({"port": True}, "[web] port = true: must be a whole number"),
        ({"enabled": "yes"}, '[web] enabled = "yes": must be true or false'),
        ({"front_panel": 1}, "[web] front_panel = 1: must be true or false"),
        ({"passwd": "x"}, "[web] passwd: unknown key"),
        ({"password": 12345678}, "[web] password: must be a string in quotes"),
        ({"password": "short"}, "[web] password: must be at least 8 characters"),
        ({"password": " padded password "}, "[web] password: must not start or end with spaces"),
        ({"password": "x" * 1025}, "[web] password: must be at most 1024 characters"),
        ({"controller_token": "abc"}, "[web] controller_token: must be at least 12 characters"),
        ({"controller_token": "has spaces in it"}, "[web] controller_token: must be 12-128 letters, digits"),
        ({"controller_token": "with/slash&amp=1"}, "[web] controller_token: must be 12-128 letters, digits"),
        ({"webhook_timeout_seconds": 0}, "[web] webhook_timeout_seconds = 0: must be above 0"),
        ({"webhook_retries": -1}, "[web] webhook_retries = -1: must be 0-10"),
        ({"webhooks": {"event": "solved"}}, "[web] webhooks: must be a list of tables"),
        ({"webhooks": ["http://x/"]}, "[web] webhooks[0]: must be a table"),
        ({"webhooks": [{"event": "win", "url": "http://x/"}]}, '[web] webhooks[0] event = "win": must be one of'),
        ({"webhooks": [{"event": "solved"}]}, "[web] webhooks[0] url: must be a string"),
        ({"webhooks": [{"event": "solved", "url": "ftp://x/"}]}, "must start with http:// or https://"),
        ({"webhooks": [{"event": "solved", "url": "http:///nohost"}]}, "must start with http:// or https://"),
        ({"webhooks": [{"event": "solved", "url": "http://x:99999/"}]}, "is not a valid URL"),
        ({"webhooks": [{"event": "reset", "url": "http://x/", "method": "PUT"}]}, 'method = "PUT": must be GET or'),
        ({"webhooks": [{"event": "reset", "url": "http://x/", "verb": "GET"}]}, "[web] webhooks[0] verb: unknown"),
    ],
)
def test_bad_values_name_the_key(section, message):
    with pytest.raises(ConfigError) as caught:
        read(section)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text
    assert isinstance(caught.value, ConfigError) and not isinstance(caught.value, ValueError)


@pytest.mark.parametrize("key", ["password", "controller_token"])
def test_secrets_never_in_messages(key):
    for value in ("xyz", " " + SECRET, SECRET + "\x07", "short"):
        with pytest.raises(ConfigError) as caught:
            read({key: value})
        assert value.strip() not in str(caught.value)


def test_webhook_urls_are_redacted_in_messages():
    url = "ftp://user:pa55word@example.net/hook?key=s3cret"
    with pytest.raises(ConfigError) as caught:
        read({"webhooks": [{"event": "solved", "url": url}]})
    assert "pa55word" not in str(caught.value) and "s3cret" not in str(caught.value)
    assert redact_url("http://u:p@host:81/path?token=1") == "http://host:81/path"


def test_disabled_section_may_bind_anywhere():
    assert not parse_web_section({"enabled": False, "bind": "0.0.0.0"}, simulate=True).enabled


def test_loopback():
    assert all(is_loopback(b) for b in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(b) for b in ("0.0.0.0", "::", "192.168.1.2", "prop.local"))
    with pytest.raises(WebConfigError, match="needs \\[web\\] password"):
        WebSettings(enabled=True, bind="0.0.0.0").check_listen()
    WebSettings(enabled=True, bind="0.0.0.0", password=SECRET).check_listen()
