"""Webhooks: an HTTP GET or POST to each configured URL when the module is solved, strikes, resets
or its bomb explodes (``[web] webhooks``), for Houdini MC and anything that takes an HTTP trigger.

The keys stay in ``[web]`` (:mod:`.settings`); the deliveries run on the web console's event loop,
as a :class:`~firmware.plugin.ConsoleExtension` (:mod:`.sender`), so they are sent while the
console runs. The solve, strike and explosion deliveries wait in an outbox beside the state file
until answered (:mod:`.outbox`). Docs: ``docs/integrate/webhooks.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.plugin import OK, WARN, Finding, Prop, Running, Service

from .settings import WEBHOOK_KEYS, WebhookConfigError, WebhookSettings, webhook_settings

if TYPE_CHECKING:
    from firmware.plugin import ConsoleExtension, ConsoleHost


class Webhooks(Service):
    """The webhooks of ``[web]``, sent from the web console's loop."""

    name = "webhooks"
    section = "web"
    title = "Webhooks"
    keys = WEBHOOK_KEYS
    error = WebhookConfigError
    order = 47  # before the console (50), which takes the extensions when it is made
    docs = "integrate/webhooks.md"
    reader = webhook_settings

    def describe(self, settings: WebhookSettings) -> list[str]:
        """``Webhooks: 2 (solved, strike)``, when the file sets any."""
        if not settings.hooks:
            return []
        events = ", ".join(dict.fromkeys(hook.event for hook in settings.hooks))
        return [f"Webhooks: {len(settings.hooks)} ({events})"]

    def doctor(self, settings: WebhookSettings, host: Any) -> list[Finding]:
        """Whether each webhook's receiver takes a connection (TCP, nothing sent), its URL without secrets."""
        from urllib.parse import urlsplit

        from firmware.plugin import redact_url, tcp_reachable

        found = []
        for hook in settings.hooks:
            parts = urlsplit(hook.url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
            problem = tcp_reachable(parts.hostname or "", port)
            where = f"webhook {hook.event}: {hook.method} {redact_url(hook.url)}"
            if problem is None:
                found.append(Finding(OK, f"{where}: the receiver answers"))
            else:
                fix = "start the receiver, or correct the URL in [web] webhooks"
                found.append(Finding(WARN, f"{where}: the receiver does not answer ({problem}); deliveries retry", fix))
        return found

    def start(self, prop: Prop, settings: WebhookSettings) -> Running | None:
        """Hand the console the sender (made when the console is): nothing to do without hooks."""
        if not settings.hooks:
            return None
        from firmware.plugin import state_path

        settings = settings.with_outbox(state_path(prop.config))  # they wait beside the state
        prop.extend_console(console_factory(settings))
        return Running(lambda: None, settings)


def console_factory(settings: WebhookSettings, *, backoff: float = 0.5) -> Callable[[ConsoleHost], ConsoleExtension]:
    """What the service hands the console: ``factory(host)`` makes the sender of ``settings``' hooks,
    fed the console backend's events (``backoff``: the first retry's pause, doubling after)."""

    def sender(host: ConsoleHost) -> ConsoleExtension:
        from .sender import WebhookSender

        made = WebhookSender.from_settings(settings, prop=host.backend.name, backoff=backoff)
        if settings.hooks:
            host.backend.subscribe_events(made.on_events)
        return made

    return sender
