"""Escape Room Master (and any controller that polls over HTTP, Houdini MC's triggers): the
token-gated endpoints on the web console's port, ``/status``, ``/enable_status``, ``/json``,
``/trigger`` ... ``/output/<name>/<state>`` (:mod:`.endpoints`).

The token stays ``[web] controller_token``, where it always was. The endpoints are served while
the console is (they are a :class:`~firmware.plugin.ConsoleExtension`, made when the console is:
a start without the console loads only this module); without a token, a file with no ``[web]``
included, they answer ``403`` and say which key to set. Docs: ``docs/integrate/escape-room-master.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core.patterns import Pattern
from baccarat_core.records import field, record
from firmware.plugin import OK, ConfigError, Finding, Key, Prop, Running, Section, Service, secret_problem

if TYPE_CHECKING:
    from firmware.plugin import ConsoleExtension, ConsoleHost

#: Characters a controller token may use: URL-safe, so it goes into ``?token=`` as typed.
_TOKEN = Pattern(r"[A-Za-z0-9._~-]{12,128}")
#: The secret's rule, at a token's length.
_SECRET = secret_problem(12)


def token_problem(value: str) -> str | None:
    """What is wrong with a controller token (``""``: none set, fine), or None: a secret's rule
    (:func:`~firmware.plugin.secret_problem`), then URL-safe characters only."""
    problem = _SECRET(value)
    if problem or value == "" or _TOKEN.fullmatch(value):
        return problem
    return "must be 12-128 letters, digits or . _ ~ - (it goes into the controllers' URLs as typed)"


token_problem.__doc__ = "12-128 letters, digits or . _ ~ -"

#: Its key in ``[web]``.
ERM_KEYS: tuple[Key, ...] = (
    Key(
        "controller_token",
        str,
        "",
        check=token_problem,
        help="the room controllers' ?token= (Escape Room Master, Houdini)",
        secret=True,
    ),
)


class ErmConfigError(ConfigError):
    """A controller token that cannot work; the message names the key, never the token."""


@record
class ErmSettings:
    """The controllers' token (None: unset)."""

    token: str | None = field(default=None, repr=False)


def erm_settings(values: dict[str, Any], section: Section) -> ErmSettings:
    """The settings from the key's checked value."""
    return ErmSettings(values["controller_token"] or None)


class Erm(Service):
    """Escape Room Master's endpoints on the web console's port."""

    name = "erm"
    section = "web"
    title = "Escape Room Master"
    keys = ERM_KEYS
    error = ErmConfigError
    always = True
    order = 46  # before the console (50), which takes the extensions when it is made
    docs = "integrate/escape-room-master.md"
    reader = erm_settings

    def describe(self, settings: ErmSettings) -> list[str]:
        """``Escape Room Master: controllers' token set``, when it is."""
        return ["Escape Room Master: controllers' token set"] if settings.token else []

    def doctor(self, settings: ErmSettings, host: Any) -> list[Finding]:
        """With a token set: that Escape Room Master's polls and requests are answered."""
        if not settings.token:
            return []
        return [Finding(OK, "Escape Room Master: /status, /json and the actions answer with ?token= (token set)")]

    def start(self, prop: Prop, settings: ErmSettings) -> Running | None:
        """Hand the console the endpoints (made when the console is)."""
        prop.extend_console(console_factory(settings.token))
        return Running(lambda: None, settings)


def console_factory(token: str | None) -> Callable[[ConsoleHost], ConsoleExtension]:
    """What the service hands the console: ``factory(host)`` makes the endpoints for ``token``
    (aiohttp and the endpoints' module load then, on the console's thread)."""

    def endpoints(host: ConsoleHost) -> ConsoleExtension:
        from .endpoints import ErmEndpoints

        return ErmEndpoints(host, token)

    return endpoints
