"""Attaching the web service to a daemon, for the app's assembly (a few lines there).

``attach_web(daemon, settings, pin_driver=...)`` builds the backend and the
service and starts it before the game thread does; a port that cannot be
opened is one log line and the prop runs on without its console, as it does
without its control socket. ``announce`` prints the address and, on a PC with a
display server, opens it in the browser.
"""

from __future__ import annotations

import logging
import os
import threading
import webbrowser
from typing import TYPE_CHECKING, Any

from ..daemon import Daemon
from ..room.commands import GameMaster
from .backend import PinDriver
from .settings import WebSettings

if TYPE_CHECKING:
    from ..history.keeper import HistoryKeeper
    from .history import HistoryPages
    from .server import WebService

log = logging.getLogger("baccarat.web")

#: ``extra=`` of the log line that says where the console is, or why there is none: the
#: simulator keeps that line on screen (``firmware.simulator.screenlog.PIN``).
CONSOLE_LINE = {"pin": "console"}


def attach_web(
    daemon: Daemon,
    commands: GameMaster,
    settings: WebSettings,
    *,
    pin_driver: PinDriver | None = None,
    name: str | None = None,
    history: HistoryKeeper | None = None,
) -> WebService | None:
    """Start the console for ``daemon``; returns the running service (``.stop()``, ``.url``) or None.

    Call before ``daemon.start()`` so the page's log has the first events. With ``history``
    (the game recorder) the console has its History view.
    ``settings.check_listen()`` failing (beyond localhost without a password)
    raises :class:`~firmware.web.settings.WebConfigError`: that is a config
    error, reported like any other.
    """
    if not settings.enabled:
        return None
    settings.check_listen()
    from .backend import DaemonBackend
    from .server import WebError, WebService

    backend = DaemonBackend(daemon, commands, pin_driver if settings.front_panel else None, name=name)
    pages = None
    if history is not None:  # the History view: replays drawn at the prop's own displays' sizes
        from .history import HistoryPages

        screens = daemon.screens
        displays = {role: (screens[role].size, screens[role].mode, screens[role].colour) for role in backend.roles}
        keeper = history

        def pages(service: WebService) -> HistoryPages:
            return HistoryPages(service, keeper, displays)

    service = WebService(backend, settings, history=pages)
    try:
        service.start()
    except WebError as error:
        log.error("%s; the prop runs without its web console", error, extra=CONSOLE_LINE)
        return None
    return service


def has_display() -> bool:
    """True where a browser window can open (an X or Wayland session)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def announce(url: str, *, open_browser: bool | None = None, out: Any = None) -> None:
    """Print the console's address; open it in a browser where a display server exists."""
    print(f"Console: {url}", file=out, flush=True)
    if open_browser if open_browser is not None else has_display():
        # webbrowser may wait for the browser it starts: never on the caller's thread.
        threading.Thread(target=webbrowser.open, args=(url,), name="baccarat-browser", daemon=True).start()
