"""The ``[web]`` section of the config: the console, the room controllers' endpoints, webhooks.

The web service (:mod:`firmware.services.web`) declares the table's keys (:data:`WEB_KEYS`) and
reads it once, up front, with the config's section validator (:class:`firmware.config.sections.Section`):
every problem is a :class:`WebConfigError` (a config error) with one line that names the key.
What depends on the simulator (on by default there, off on a Pi until ``[web]`` exists) is decided
at start from what was read (:meth:`WebSection.resolved`). The password and the controller token
never appear in a message or a repr.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from baccarat_core.patterns import Pattern
from baccarat_core.records import field, record, replace
from firmware.config.sections import MAX_STRING, Key, Section, port_problem, read_keys, show_setting, within

from ..errors import ConfigError
from ..i18n import language_problem

#: Events a webhook can be sent on, as named in the config and in the event's JSON (``"event"``).
WEBHOOK_EVENTS: tuple[str, ...] = ("solved", "strike", "reset", "exploded")
WEBHOOK_METHODS: tuple[str, ...] = ("GET", "POST")

#: The webhooks' outbox (:mod:`.outbox`), beside the state file.
OUTBOX_NAME = "webhooks-outbox.json"

DEFAULT_PORT = 8080
LOOPBACK_BIND = "127.0.0.1"

#: Longest console password: the config's longest string (1,024 characters), which the section
#: validator enforces. The login form is read up to 16 KiB (``server.MAX_BODY``): 1,024
#: characters of 4 UTF-8 bytes each, percent-encoded, are 12,288 bytes, so the longest password
#: allowed can always be typed in, and a passphrase of a few dozen words fits with room to spare.
MAX_PASSWORD = MAX_STRING
#: Characters a controller token may use: URL-safe, so it goes into ``?token=`` as typed.
_TOKEN = Pattern(r"[A-Za-z0-9._~-]{12,128}")


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
    language: str = ""  # the console's language ("": the browser's Accept-Language; firmware/i18n)
    webhooks: tuple[Webhook, ...] = ()
    webhook_timeout_seconds: float = 3.0
    webhook_retries: int = 3
    #: Where the solve, strike and explosion webhooks wait until answered (:mod:`.outbox`; beside the
    #: state file, set at start), or None: in memory.
    webhook_outbox: Path | None = None

    def with_outbox(self, state_file: Path | None) -> WebSettings:
        """These settings with the webhooks' outbox beside ``state_file`` (in memory when None)."""
        return replace(self, webhook_outbox=None if state_file is None else state_file.with_name(OUTBOX_NAME))

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
    """``http://user:pw@host:1/p?key=x`` -> ``http://host:1/p`` (no secrets in logs), the path's
    secrets hidden too (:func:`redact_path`)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparsable URL>"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{redact_path(parts.path)}"


#: What a secret part of a URL's path becomes.
PATH_SECRET = "<secret>"
#: A path segment after which the rest of the path is a secret: Home Assistant's
#: ``/api/webhook/<id>``, Discord's ``/api/webhooks/<id>/<token>``, Slack's ``/services/T/B/<secret>``,
#: Zapier's ``/hooks/catch/<n>/<key>``, IFTTT's ``/trigger/<event>/with/key/<key>``.
SECRET_PATH_AFTER = frozenset({"webhook", "webhooks", "services", "hooks", "key", "token", "secret"})
#: A path segment that looks like a key wherever it is: 16 characters or more with a letter and a
#: digit, or 24 or more of a token's characters (a Houdini hook's ``/baccarat_solved`` stays).
_KEY_LIKE = Pattern(r"(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[^/]{16,}|[A-Za-z0-9_.~-]{24,}")
#: A URL in a text (a log line, an error's message).
_URL_IN_TEXT = Pattern(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s'\"<>)?#]*)(/[^\s'\"<>)?#]*)")


def redact_path(path: str) -> str:
    """``path`` with its secrets replaced by ``<secret>``: every segment after one of
    :data:`SECRET_PATH_AFTER`, and any segment that looks like a key. The one rule for a URL's path.

    >>> redact_path("/api/webhook/-Ab3kQ_solved")
    '/api/webhook/<secret>'
    >>> redact_path("/services/T0AB/B0CD/xoxb7d8Kq")
    '/services/<secret>/<secret>/<secret>'
    >>> redact_path("/baccarat_solved")
    '/baccarat_solved'
    """
    out: list[str] = []
    after = False
    for segment in path.split("/"):
        secret = after or bool(_KEY_LIKE.fullmatch(segment))
        out.append(PATH_SECRET if secret and segment else segment)
        after = after or segment.lower() in SECRET_PATH_AFTER
    return "/".join(out)


def redact_url_paths(text: str) -> str:
    """``text`` with every URL's path redacted (:func:`redact_path`), for a log line or a file.

    >>> redact_url_paths("POST https://discord.com/api/webhooks/123/tOkEn failed")
    'POST https://discord.com/api/webhooks/<secret>/<secret> failed'
    """
    return _URL_IN_TEXT.sub(lambda m: m.group(1) + redact_path(m.group(2)), text)


@record
class WebSection:
    """``[web]`` as the file gives it, read once: ``present`` (the file has the section), the
    settings, and ``front_panel`` as written (None: on in the simulator only)."""

    present: bool
    settings: WebSettings
    front_panel: bool | None = None

    def resolved(self, *, simulate: bool) -> WebSettings:
        """The settings for this run: without a ``[web]`` section the console is on in the
        simulator (bound to localhost, no password) and off on a Pi."""
        if not self.present:
            return replace(self.settings, enabled=simulate, front_panel=simulate)
        front_panel = simulate if self.front_panel is None else self.front_panel
        return replace(self.settings, front_panel=front_panel)

    def with_port(self, port: int) -> WebSection:
        """These settings on another port (``baccarat run --port``)."""
        return replace(self, settings=replace(self.settings, port=port))


def _password_problem(minimum: int) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        if value == "":
            return None
        if len(value) < minimum:
            return f"must be at least {minimum} characters"
        if value != value.strip() or any(not c.isprintable() for c in value):
            return "must not start or end with spaces or hold control characters"
        return None

    check.__doc__ = f"at least {minimum} characters"
    return check


def _token_problem(value: str) -> str | None:
    problem = _password_problem(12)(value)
    if problem or value == "" or _TOKEN.fullmatch(value):
        return problem
    return "must be 12-128 letters, digits or . _ ~ - (it goes into the controllers' URLs as typed)"


_token_problem.__doc__ = "12-128 letters, digits or . _ ~ -"

#: The ``[web]`` keys.
WEB_KEYS: tuple[Key, ...] = (
    Key("enabled", bool, True, help="the console and the controllers' endpoints (a [web] section turns them on)"),
    Key(
        "bind",
        str,
        LOOPBACK_BIND,
        check=lambda v: _bind_problem(v),
        help="the address to listen on (0.0.0.0: every one)",
    ),
    Key("port", int, DEFAULT_PORT, check=port_problem, help="the console's port"),
    Key(
        "password",
        str,
        "",
        check=_password_problem(8),
        help="the console's login (needed beyond localhost)",
        secret=True,
    ),
    Key(
        "controller_token",
        str,
        "",
        check=_token_problem,
        help="the room controllers' ?token= (Escape Room Master, Houdini)",
        secret=True,
    ),
    Key("front_panel", bool, None, help="the players' buttons on the console page (default: in the simulator only)"),
    Key("casing_public", bool, False, help="/casing for anyone on the network, read-only"),
    Key(
        "language",
        str,
        "",
        check=language_problem,
        help="the pages' language (en, fr, de, es, ...; \"\": the browser's, then English)",
    ),
    Key("webhook_timeout_seconds", float, 3.0, check=within(0, 60, above=True), help="a webhook's timeout"),
    Key(
        "webhook_retries",
        int,
        3,
        check=lambda v: None if 0 <= v <= 10 else "must be 0-10",
        help="tries again after a failed webhook (0-10)",
    ),
    Key(
        "webhooks", object, [], help='URLs called on events: [{ event = "solved", url = "http://...", method = "GET" }]'
    ),
)


def read_web_section(section: Section) -> WebSection:
    """``[web]`` alone, every key checked (:func:`web_section`)."""
    return web_section(read_keys(section, WEB_KEYS, finish=False), section)


def web_section(values: dict[str, Any], section: Section) -> WebSection:
    """``[web]`` from its keys' checked ``values``; refuses listening beyond localhost without a
    password."""
    bind, casing_public = values["bind"], values["casing_public"]
    if casing_public and is_loopback(bind):
        raise section.fail(
            "casing_public",
            f'with bind = "{bind}" only this machine reaches the casing; '
            'set bind = "0.0.0.0" (and a password, which the console then asks for)',
        )
    hooks = _webhooks(values["webhooks"])
    section.finish()
    settings = WebSettings(
        enabled=values["enabled"],
        bind=bind,
        port=values["port"],
        password=values["password"] or None,
        controller_token=values["controller_token"] or None,
        front_panel=bool(values["front_panel"]),
        casing_public=casing_public,
        language=values["language"],
        webhooks=hooks,
        webhook_timeout_seconds=float(values["webhook_timeout_seconds"]),
        webhook_retries=values["webhook_retries"],
    )
    if settings.enabled and section.present:
        settings.check_listen()
    return WebSection(section.present, settings, values["front_panel"])


def parse_web_section(data: dict[str, Any] | None, *, simulate: bool) -> WebSettings:
    """Validate the ``[web]`` table (``None`` when the file has no such section) and resolve it
    for a run (:meth:`WebSection.resolved`)."""
    section = Section("web", {} if data is None else data, error=WebConfigError, present=data is not None)
    return read_web_section(section).resolved(simulate=simulate)


def _bind_problem(bind: str) -> str | None:
    if is_loopback(bind):
        return None
    try:
        ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return "must be an IP address such as 127.0.0.1, 0.0.0.0 or ::, or localhost"
    return None


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
