"""Attaching the web service to a daemon, for the app's assembly (a few lines there).

``attach_web(daemon, settings, pin_driver=...)`` builds the backend and the
service and starts it before the game thread does; a port that cannot be
opened is one log line and the prop runs on without its console, as it does
without its control socket. :class:`LateConsole` (the ``web`` service's way) makes
the backend at once and loads and starts the server once the game is ready, so
that a start reaches "ready" without aiohttp (docs/performance/index.md). ``announce``
prints the address and, on a PC with a display server, opens it in the browser.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from firmware.game.daemon import Daemon

from ..room.commands import GameMaster
from .backend import PinDriver
from .settings import WebSettings

if TYPE_CHECKING:
    from ..history.keeper import HistoryKeeper
    from .backend import DaemonBackend
    from .extension import ExtensionFactory
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
    extensions: Sequence[ExtensionFactory] = (),
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

    backend = DaemonBackend(daemon, commands, pin_driver if settings.front_panel else None, name=name)
    return _serve(daemon, backend, settings, history, extensions)


def _serve(
    daemon: Daemon,
    backend: DaemonBackend,
    settings: WebSettings,
    history: HistoryKeeper | None,
    extensions: Sequence[ExtensionFactory] = (),
) -> WebService | None:
    """Make the server for ``backend`` and start it (:class:`~.server.WebService`); None if it cannot listen."""
    from .client_tls import import_server_side

    import_server_side("firmware.web.server")  # aiohttp's client (its TLS contexts) loads when a webhook first sends
    from .server import WebError, WebService

    pages = None
    if history is not None:  # the History view: replays drawn at the prop's own displays' sizes
        from .history import HistoryPages

        screens = daemon.screens
        displays = {role: (screens[role].size, screens[role].mode, screens[role].colour) for role in backend.roles}
        keeper = history

        def pages(service: WebService) -> HistoryPages:
            return HistoryPages(service, keeper, displays)

    service = WebService(backend, settings, history=pages, extensions=extensions)
    try:
        service.start()
    except WebError as error:
        log.error("%s; the prop runs without its web console", error, extra=CONSOLE_LINE)
        return None
    return service


class LateConsole:
    """The console started once the game is ready, on a thread of its own (``Web.start``).

    The backend is made at once (the page's log then has the game's first events) and a
    configuration that may not listen is refused at once (:meth:`WebSettings.check_listen`); the
    server, aiohttp and all, is loaded and started after the daemon's first ``on_settled`` call,
    which follows its "ready" line: players can press before the console's modules are loaded.
    ``listening(service)`` is called on that thread once the console answers; a port that cannot
    be opened is one log line, as with :func:`attach_web`. ``service`` is the running
    :class:`~.server.WebService`, None until then. ``at_once`` (the simulator, and the party, whose
    tablet logs in before the game starts) serves it before this returns, as :func:`attach_web` does.
    """

    def __init__(
        self,
        daemon: Daemon,
        commands: GameMaster,
        settings: WebSettings,
        *,
        pin_driver: PinDriver | None = None,
        history: HistoryKeeper | None = None,
        listening: Callable[[WebService], None] | None = None,
        at_once: bool = False,
        extensions: Sequence[ExtensionFactory] = (),
    ) -> None:
        settings.check_listen()
        from .backend import DaemonBackend

        self.backend = DaemonBackend(daemon, commands, pin_driver if settings.front_panel else None)
        self.service: WebService | None = None
        self._daemon, self._settings, self._history, self._listening = daemon, settings, history, listening
        self._extensions = tuple(extensions)
        self._lock = threading.Lock()
        self._armed = True
        self._stopped = False
        self._thread: threading.Thread | None = None
        self._done = threading.Event()  # the start has ended (served, failed, or stopped before it began)
        if at_once:  # the simulator: served before the game starts, as the party's tablet needs it
            self._armed = False
            self._start()
        else:
            daemon.on_settled.append(self._at_ready)

    def _at_ready(self, events: object, module: object) -> None:
        """The first ``on_settled`` call (game thread, right after "ready"): start the console's thread."""
        if not self._armed:
            return
        with self._lock:
            self._armed = False
            if self._stopped:
                return
            self._thread = threading.Thread(target=self._start, name="baccarat-web-start", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        try:
            service = _serve(self._daemon, self.backend, self._settings, self._history, self._extensions)
            with self._lock:
                self.service = service
                stopped = self._stopped
            if service is not None and not stopped and self._listening is not None:
                self._listening(service)  # a stop() that came meanwhile waits for this thread, then stops it
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> WebService | None:
        """Wait for the console's start (at "ready") to end: the running service, or None (tests, tools)."""
        self._done.wait(timeout)
        return self.service

    def stop(self) -> None:
        """Stop the console (started or not); the prop's stop calls it once the game stopped."""
        with self._lock:
            self._stopped = True
            self._armed = False
            thread, service = self._thread, self.service
            if thread is None:
                self._done.set()  # never started: nobody waits for it
        if thread is not None and thread is not threading.current_thread():
            thread.join(30)
            service = self.service
        if service is not None:
            service.stop()


def has_display() -> bool:
    """True where a browser window can open (an X or Wayland session)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def announce(url: str, *, open_browser: bool | None = None, out: Any = None) -> None:
    """Print the console's address; open it in a browser where a display server exists."""
    print(f"Console: {url}", file=out, flush=True)
    if open_browser if open_browser is not None else has_display():
        import webbrowser  # only where a browser opens (2 M instructions of a start otherwise)

        # webbrowser may wait for the browser it starts: never on the caller's thread.
        threading.Thread(target=webbrowser.open, args=(url,), name="baccarat-browser", daemon=True).start()
