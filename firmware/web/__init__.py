"""The game master's console in a browser, and the players' pages; services add to it
(:mod:`.extension`: Escape Room Master's endpoints, the webhooks).

``parse_web_section`` reads ``[web]``; ``server.WebService(backend, settings)``
serves it (imported on demand: aiohttp is not loaded unless the console is on);
``backend.DaemonBackend`` connects it to the daemon.
"""

from .settings import WebConfigError, WebSettings, parse_web_section

__all__ = ["WebConfigError", "WebSettings", "parse_web_section"]
