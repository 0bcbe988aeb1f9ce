"""The webhooks' keys of ``[web]``: which URLs to call on which events, how long to wait, how often to retry.

The keys stay in ``[web]``, where they always were (a config of any earlier release reads the
same); the webhooks service (:mod:`firmware.services.webhooks`) declares them and reads them with
the config's section validator: every problem is one line naming the key, the URL shown without
its secrets (:func:`~firmware.plugin.redact_url`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baccarat_core.records import record, replace
from firmware.plugin import ConfigError, Key, Section, show_setting, within

#: Events a webhook can be sent on, as named in the config and in the event's JSON (``"event"``).
WEBHOOK_EVENTS: tuple[str, ...] = ("solved", "strike", "reset", "exploded")
WEBHOOK_METHODS: tuple[str, ...] = ("GET", "POST")

#: The webhooks' outbox (:mod:`.outbox`), beside the state file.
OUTBOX_NAME = "webhooks-outbox.json"


#: The webhooks' keys in ``[web]``.
WEBHOOK_KEYS: tuple[Key, ...] = (
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


class WebhookConfigError(ConfigError):
    """A webhook's setting that cannot work; the message is one line naming the key."""


@record
class Webhook:
    """One URL to call when ``event`` happens."""

    event: str
    url: str
    method: str = "GET"

    def redacted_url(self) -> str:
        """The URL without credentials or query string, fit for a log line."""
        from firmware.plugin import redact_url

        return redact_url(self.url)


@record
class WebhookSettings:
    """The webhooks and how they are sent."""

    hooks: tuple[Webhook, ...] = ()
    timeout_seconds: float = 3.0
    retries: int = 3
    #: Where the solve, strike and explosion webhooks wait until answered (:mod:`.outbox`; beside the
    #: state file, set at start), or None: in memory.
    outbox: Path | None = None

    def with_outbox(self, state_file: Path | None) -> WebhookSettings:
        """These settings with the outbox beside ``state_file`` (in memory when None)."""
        return replace(self, outbox=None if state_file is None else state_file.with_name(OUTBOX_NAME))


def webhook_settings(values: dict[str, Any], section: Section) -> WebhookSettings:
    """The settings from the keys' checked ``values`` (each webhook's table checked here)."""
    return WebhookSettings(
        parse_webhooks(values["webhooks"]),
        float(values["webhook_timeout_seconds"]),
        values["webhook_retries"],
    )


def parse_webhooks(raw: Any) -> tuple[Webhook, ...]:
    """The ``webhooks`` list, each table checked: one line naming the entry and key when one cannot work."""
    if raw == []:
        return ()
    from urllib.parse import urlsplit

    from firmware.plugin import redact_url  # loaded for a config that has webhooks, not at every start

    if not isinstance(raw, list):
        raise WebhookConfigError(
            "[web] webhooks: must be a list of tables, e.g. "
            'webhooks = [{ event = "solved", url = "http://houdini:14999/baccarat_solved" }]'
        )
    hooks = []
    for number, item in enumerate(raw):
        where = f"[web] webhooks[{number}]"
        if not isinstance(item, dict):
            raise WebhookConfigError(f"{where}: must be a table with event, url and method")
        for key in item:
            if key not in ("event", "url", "method"):
                raise WebhookConfigError(f"{where} {key}: unknown key (known: event, url, method)")
        event = item.get("event")
        if event not in WEBHOOK_EVENTS:
            raise WebhookConfigError(
                f"{where} event = {show_setting(event)}: must be one of {', '.join(WEBHOOK_EVENTS)}"
            )
        url = item.get("url")
        if not isinstance(url, str):
            raise WebhookConfigError(f"{where} url: must be a string in quotes")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise WebhookConfigError(f"{where} url = {show_setting(redact_url(url))}: is not a valid URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise WebhookConfigError(
                f"{where} url = {show_setting(redact_url(url))}: must start with http:// or https:// and name a host"
            )
        method = item.get("method", "GET")
        if not isinstance(method, str) or method.upper() not in WEBHOOK_METHODS:
            raise WebhookConfigError(f"{where} method = {show_setting(method)}: must be GET or POST")
        hooks.append(Webhook(event, url, method.upper()))
    return tuple(hooks)
