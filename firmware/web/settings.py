"""The ``[web]`` section of the config: the console, the room controllers' endpoints, webhooks.

``parse_web_section`` validates the table once, up front, with the config's
section validator (:class:`firmware.config.Section`), and raises
:class:`WebConfigError` (a config error) with one line that names the key.
The password and the controller token never appear in a message or a repr.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from baccarat_core.records import field, record

from ..config import MAX_STRING, Section, port_problem, show_setting, within
from ..errors import ConfigError

#: Events a webhook can be sent on, as named in the config and in the event's JSON (``"event"``).
WEBHOOK_EVENTS: tuple[str, ...] = ("solved", "strike", "reset", "exploded")
WEBHOOK_METHODS: tuple[str, ...] = ("GET", "POST")

DEFAULT_PORT = 8080
LOOPBACK_BIND = "127.0.0.1"

#: Longest console password: the config's longest string (1,024 characters), which the section
#: validator enforces. The login form is read up to 16 KiB (``server.MAX_BODY``): 1,024
#: characters of 4 UTF-8 bytes each, percent-encoded, are 12,288 bytes, so the longest password
#: allowed can always be typed in, and a passphrase of a few dozen words fits with room to spare.
MAX_PASSWORD = MAX_STRING
#: Characters a controller token may use: URL-safe, so it goes into ``?token=`` as typed.
_TOKEN = re.compile(r"[A-Za-z0-9._~-]{12,128}")


class WebConfigError(ConfigError):
    """A ``[web]`` value that cannot work; the message is one line naming the key."""


@record
class Webhook:
    """One URL to call when ``event`` happens."""

    event: str
    url: str
    method: str = "GET"

    def redacted_url(self) -> str:
        """The URL without credentials or query string, fit for a log line."""
        return redact_url(self.url)


@record
class WebSettings:
    """What the web service needs from the config (plain values, no Config object)."""

    enabled: bool = False
    bind: str = LOOPBACK_BIND
    port: int = DEFAULT_PORT
    password: str | None = field(default=None, repr=False)
    controller_token: str | None = field(default=None, repr=False)
    front_panel: bool = False
    casing_public: bool = False  # /casing for anyone on the network, read-only (players' pages: players.py)
    webhooks: tuple[Webhook, ...] = ()
    webhook_timeout_seconds: float = 3.0
    webhook_retries: int = 3

    @property
    def loopback_only(self) -> bool:
        """True when the server is reachable from this machine only."""
        return is_loopback(self.bind)

    def check_listen(self) -> None:
        """Refuse settings that would listen beyond localhost without a password."""
        if not self.loopback_only and not self.password:
            raise WebConfigError(
                f'[web] bind = "{self.bind}": listening beyond localhost needs [web] password (or bind = "127.0.0.1")'
            )


def is_loopback(bind: str) -> bool:
    """True for ``localhost`` and the loopback addresses (127.0.0.0/8, ::1)."""
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_loopback
    except ValueError:
        return False


def redact_url(url: str) -> str:
    """``http://user:pw@host:1/p?key=x`` -> ``http://host:1/p`` (no secrets in logs)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparsable URL>"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}"


def parse_web_section(data: dict[str, Any] | None, *, simulate: bool) -> WebSettings:
    """Validate the ``[web]`` table (``None`` when the file has no such section).

    The console is on by default in the simulator (bound to localhost, no
    password); on a Pi it is off until a ``[web]`` section exists.
    """
    if data is None:
        return WebSettings(enabled=simulate, front_panel=simulate)
    section = Section("web", data, error=WebConfigError)
    enabled = section.get("enabled", bool, True)
    bind = section.get("bind", str, LOOPBACK_BIND, check=_bind_problem)
    port = section.get("port", int, DEFAULT_PORT, check=port_problem)
    password = _secret(section, "password", minimum=8)
    token = _secret(section, "controller_token", minimum=12)
    if token is not None and not _TOKEN.fullmatch(token):
        raise section.fail(
            "controller_token",
            "must be 12-128 letters, digits or . _ ~ - (it goes into the controllers' URLs as typed)",
        )
    front_panel = section.get("front_panel", bool, simulate)
    casing_public = section.get("casing_public", bool, False)
    if casing_public and is_loopback(bind):
        raise section.fail(
            "casing_public",
            f'with bind = "{bind}" only this machine reaches the casing; '
            'set bind = "0.0.0.0" (and a password, which the console then asks for)',
        )
    timeout = float(section.get("webhook_timeout_seconds", float, 3.0, check=within(0, 60, above=True)))
    retries = section.get("webhook_retries", int, 3, check=lambda v: None if 0 <= v <= 10 else "must be 0-10")
    hooks = _webhooks(section.value("webhooks", []))
    section.finish()
    settings = WebSettings(
        enabled=enabled,
        bind=bind,
        port=port,
        password=password,
        controller_token=token,
        front_panel=front_panel,
        casing_public=casing_public,
        webhooks=hooks,
        webhook_timeout_seconds=timeout,
        webhook_retries=retries,
    )
    if enabled:
        settings.check_listen()
    return settings


def _bind_problem(bind: str) -> str | None:
    if is_loopback(bind):
        return None
    try:
        ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return "must be an IP address such as 127.0.0.1, 0.0.0.0 or ::, or localhost"
    return None


def _secret(section: Section, key: str, *, minimum: int) -> str | None:
    """A password or token; its value is never part of a message (the section shows only its key)."""
    value: str = section.get(key, str, "")
    if value == "":
        return None
    if len(value) < minimum:
        raise section.fail(key, f"must be at least {minimum} characters")
    if value != value.strip() or any(not c.isprintable() for c in value):
        raise section.fail(key, "must not start or end with spaces or hold control characters")
    return value


def _webhooks(raw: Any) -> tuple[Webhook, ...]:
    if not isinstance(raw, list):
        raise WebConfigError(
            "[web] webhooks: must be a list of tables, e.g. "
            'webhooks = [{ event = "solved", url = "http://houdini:14999/baccarat_solved" }]'
        )
    hooks = []
    for number, item in enumerate(raw):
        where = f"[web] webhooks[{number}]"
        if not isinstance(item, dict):
            raise WebConfigError(f"{where}: must be a table with event, url and method")
        for key in item:
            if key not in ("event", "url", "method"):
                raise WebConfigError(f"{where} {key}: unknown key (known: event, url, method)")
        event = item.get("event")
        if event not in WEBHOOK_EVENTS:
            raise WebConfigError(f"{where} event = {show_setting(event)}: must be one of {', '.join(WEBHOOK_EVENTS)}")
        url = item.get("url")
        if not isinstance(url, str):
            raise WebConfigError(f"{where} url: must be a string in quotes")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise WebConfigError(f"{where} url = {show_setting(redact_url(url))}: is not a valid URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise WebConfigError(
                f"{where} url = {show_setting(redact_url(url))}: must start with http:// or https:// and name a host"
            )
        method = item.get("method", "GET")
        if not isinstance(method, str) or method.upper() not in WEBHOOK_METHODS:
            raise WebConfigError(f"{where} method = {show_setting(method)}: must be GET or POST")
        hooks.append(Webhook(event, url, method.upper()))
    return tuple(hooks)
