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
from typing import Any

from baccarat_core.records import field, record, replace
from firmware.config.sections import MAX_STRING, Key, Section, port_problem, read_keys, secret_problem

from ..errors import ConfigError
from ..i18n import language_problem

DEFAULT_PORT = 8080
LOOPBACK_BIND = "127.0.0.1"

#: Longest console password: the config's longest string (1,024 characters), which the section
#: validator enforces. The login form is read up to 16 KiB (``server.MAX_BODY``): 1,024
#: characters of 4 UTF-8 bytes each, percent-encoded, are 12,288 bytes, so the longest password
#: allowed can always be typed in, and a passphrase of a few dozen words fits with room to spare.
MAX_PASSWORD = MAX_STRING


class WebConfigError(ConfigError):
    """A ``[web]`` value that cannot work; the message is one line naming the key."""


@record
class WebSettings:
    """What the web service needs from the config (plain values, no Config object)."""

    enabled: bool = False
    bind: str = LOOPBACK_BIND
    port: int = DEFAULT_PORT
    password: str | None = field(default=None, repr=False)
    front_panel: bool = False
    casing_public: bool = False  # /casing for anyone on the network, read-only (players' pages: players.py)
    language: str = ""  # the console's language ("": the browser's Accept-Language; firmware/i18n)

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
        check=secret_problem(8),
        help="the console's login (needed beyond localhost)",
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
)


def read_web_section(section: Section) -> WebSection:
    """``[web]``'s console keys alone, every other key refused (:func:`web_section`; a whole config
    reads the table's other keys with the services that own them: Escape Room Master's token, the
    webhooks)."""
    web = web_section(read_keys(section, WEB_KEYS, finish=False), section)
    section.finish()
    return web


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
    settings = WebSettings(
        enabled=values["enabled"],
        bind=bind,
        port=values["port"],
        password=values["password"] or None,
        front_panel=bool(values["front_panel"]),
        casing_public=casing_public,
        language=values["language"],
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
