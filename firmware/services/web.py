"""The web console: the game master's page and the players' pages on one port (``[web]``), with
what services add to it (Escape Room Master's endpoints: :mod:`firmware.services.erm`; the
webhooks: :mod:`firmware.services.webhooks`).

Read always: on in the simulator by default, on a Pi once ``[web]`` exists. Docs:
``docs/run/console.md``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from firmware.plugin import Prop, Running, Service

from ..web.settings import WEB_KEYS, WebConfigError, WebSection, web_section

if TYPE_CHECKING:
    from ..web.server import WebService

log = logging.getLogger("baccarat")


class Web(Service):
    """The console (:mod:`firmware.web`) and what other services add to it."""

    name = "web"
    title = "Web console"
    keys = WEB_KEYS
    error = WebConfigError
    always = True
    after = ("history",)
    order = 50
    docs = "run/console.md"
    reader = web_section

    def describe(self, settings: WebSection) -> list[str]:
        """``Web console: http://0.0.0.0:8080/ (password set, ...)``, when the file turns it on."""
        web = settings.resolved(simulate=False)
        if not web.enabled:
            return []
        extra = "password set" if web.password else "no password (localhost only)"
        return [f"Web console: http://{web.bind}:{web.port}/ ({extra})"]

    def start(self, prop: Prop, settings: WebSection) -> Running | None:
        """Make the console's backend now (its log then has the game's first events) and serve the
        console once the game is ready, on a thread of its own (:class:`~firmware.web.attach.LateConsole`):
        aiohttp is not loaded on the way to "ready" (in the simulator it is served at once, before the
        game starts). A port that cannot be opened is one log line and the prop runs on without it."""
        web = settings.resolved(simulate=prop.simulate)
        if not web.enabled:
            return None
        from ..web.attach import LateConsole

        simulate = prop.simulate

        def listening(service: WebService) -> None:
            from firmware.plugin import reachable_urls

            from ..web.attach import CONSOLE_LINE, announce

            urls = reachable_urls(web.bind, service.port)
            where = urls[0] if len(urls) == 1 else f"{', '.join(urls[:-1])} (on this machine {urls[-1]})"
            log.info("web console at %s", where, extra=CONSOLE_LINE)  # the simulator keeps it on screen
            if simulate:
                announce(urls[-1])  # this machine's browser

        console = LateConsole(
            prop.daemon,
            prop.commands,
            web,
            pin_driver=prop.pin_driver,
            history=prop.service("history"),
            extensions=prop.console_extensions(),  # Escape Room Master's endpoints, the webhooks, a plugin's
            listening=listening,
            at_once=simulate,  # on a PC start-up time does not matter, and the party's tablet needs it early
        )
        return Running(console.stop, console)
