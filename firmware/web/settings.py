"""The ``[web]`` section of the config: the console, the room controllers' endpoints, webhooks.

``parse_web_section`` validates the table once, up front, and raises
:class:`WebConfigError` (a config error) with one line that names the key.
The password and the controller token never appear in a message or a repr.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from baccarat_core.records import field, record

from ..errors import ConfigError

#: Events a webhook can be sent on, as named in the config and in the event's JSON (``"event"``).
WEBHOOK_EVENTS: tuple[str, ...] = ("solved", "strike", "reset")
WEBHOOK_METHODS: tuple[str, ...] = ("GET", "POST")

DEFAULT_PORT = 8080
LOOPBACK_BIND = "127.0.0.1"

#: Longest console password, in characters. The login form is read up to 16 KiB
#: (``server.MAX_BODY``): 1,024 characters of 4 UTF-8 bytes each, percent-encoded, are
#: 12,288 bytes, so the longest password allowed can always be typed in, and a passphrase
#: of a few dozen words fits with room to spare.
MAX_PASSWORD = 1024
#: Characters a controller token may use: URL-safe, so it goes into ``?token=`` as typed.
_TOKEN = re.compile(r"[A-Za-z0-9._~-]{12,128}")
_KEYS = (
    "enabled",
    "bind",
    "port",
    "password",
    "controller_token",
    "front_panel",
    "webhooks",
    "webhook_timeout_seconds",
    "webhook_retries",
)


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
    if not isinstance(data, dict):
        raise WebConfigError(f"[web] must be a table, not {type(data).__name__}")
    for key in data:
        if key not in _KEYS:
            raise WebConfigError(f"[web] {key}: unknown key (known: {', '.join(_KEYS)})")

    enabled = _get(data, "enabled", bool, True)
    bind = _get(data, "bind", str, LOOPBACK_BIND)
    if not is_loopback(bind):
        try:
            ipaddress.ip_address(bind.strip("[]"))
        except ValueError:
            raise WebConfigError(
                f"[web] bind = {_show(bind)}: must be an IP address such as 127.0.0.1, 0.0.0.0 or ::, or localhost"
            ) from None
    port = _get(data, "port", int, DEFAULT_PORT)
    if not 1 <= port <= 65535:
        raise WebConfigError(f"[web] port = {port}: must be 1-65535")
    password = _secret(data, "password", minimum=8, maximum=MAX_PASSWORD)
    token = _secret(data, "controller_token", minimum=12)
    if token is not None and not _TOKEN.fullmatch(token):
        raise WebConfigError(
            "[web] controller_token: must be 12-128 letters, digits or . _ ~ - "
            "(it goes into the controllers' URLs as typed)"
        )
    front_panel = _get(data, "front_panel", bool, simulate)
    timeout = float(_get(data, "webhook_timeout_seconds", (int, float), 3.0))
    if not 0 < timeout <= 60:
        raise WebConfigError(f"[web] webhook_timeout_seconds = {timeout:g}: must be above 0 and at most 60")
    retries = _get(data, "webhook_retries", int, 3)
    if not 0 <= retries <= 10:
        raise WebConfigError(f"[web] webhook_retries = {retries}: must be 0-10")
    hooks = _webhooks(data.get("webhooks", []))
    settings = WebSettings(
        enabled=enabled,
        bind=bind,
        port=port,
        password=password,
        controller_token=token,
        front_panel=front_panel,
        webhooks=hooks,
        webhook_timeout_seconds=timeout,
        webhook_retries=retries,
    )
    if enabled:
        settings.check_listen()
    return settings


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value[:60]}"'
    return repr(value)[:60]


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    if key not in data:
        return default
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        wording = {str: "a string in quotes", int: "a whole number", float: "a number", bool: "true or false"}
        names = " or ".join(wording[k] for k in kinds if not (k is int and float in kinds))
        raise WebConfigError(f"[web] {key} = {_show(value)}: must be {names}")
    return value


def _secret(data: dict[str, Any], key: str, *, minimum: int, maximum: int | None = None) -> str | None:
    """A password or token; its value is never part of a message."""
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, str):
        raise WebConfigError(f"[web] {key}: must be a string in quotes")
    if value == "":
        return None
    if len(value) < minimum:
        raise WebConfigError(f"[web] {key}: must be at least {minimum} characters")
    if maximum is not None and len(value) > maximum:
        raise WebConfigError(f"[web] {key}: must be at most {maximum} characters (it has {len(value)})")
    if value != value.strip() or any(not c.isprintable() for c in value):
        raise WebConfigError(f"[web] {key}: must not start or end with spaces or hold control characters")
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
            raise WebConfigError(f"{where} event = {_show(event)}: must be one of {', '.join(WEBHOOK_EVENTS)}")
        url = item.get("url")
        if not isinstance(url, str):
            raise WebConfigError(f"{where} url: must be a string in quotes")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise WebConfigError(f"{where} url = {_show(redact_url(url))}: is not a valid URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise WebConfigError(
                f"{where} url = {_show(redact_url(url))}: must start with http:// or https:// and name a host"
            )
        method = item.get("method", "GET")
        if not isinstance(method, str) or method.upper() not in WEBHOOK_METHODS:
            raise WebConfigError(f"{where} method = {_show(method)}: must be GET or POST")
        hooks.append(Webhook(event, url, method.upper()))
    return tuple(hooks)
