"""The game master's console in a browser, the room controllers' HTTP endpoints and webhooks.

``parse_web_section`` reads ``[web]``; ``server.WebService(backend, settings)``
serves it (imported on demand: aiohttp is not loaded unless the console is on);
``backend.DaemonBackend`` connects it to the daemon.
"""

from .settings import WebConfigError, Webhook, WebSettings, parse_web_section

__all__ = ["WebConfigError", "WebSettings", "Webhook", "parse_web_section"]
