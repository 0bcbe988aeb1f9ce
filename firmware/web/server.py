"""The web service: the console page, its live updates, the players' pages, and what services add.

aiohttp serves everything from the services' shared event loop (:mod:`firmware.system.aloop`),
on its own thread beside the game thread; while nobody uses it, that loop sleeps in ``epoll``
without a timer. Every command goes through the backend's one command path
(the same as MQTT and the control socket).

Routes:

=============================  ==========================================================
``GET /``, ``/login`` ...      the console, its login, session, stream and commands (:mod:`.console`)
``GET /status`` ... ``/reset``  Escape Room Master's, when it runs (:mod:`firmware.services.erm`)
``GET /static/...``            the page's CSS and JavaScript
``GET /i18n/<code>.js``        the pages' JavaScript messages in a language (:mod:`.language`)
``GET /casing``, ``/play`` ...  the players' pages (:mod:`.players`)
``GET /history`` ...           how each game went, behind the console's login (:mod:`.history`)
=============================  ==========================================================

Every request passes :meth:`WebService._guard` first: the connection guard's caps
(:mod:`.guard`), with the connections kept for trusted requests (a console session,
an extension's right credentials: the controller's token).

Services add routes and work on the loop through :class:`~.extension.ConsoleExtension` factories,
made here when the service is (:mod:`.extension`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import secrets
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.typedefs import Handler

from firmware.system import aloop
from firmware.system.noise import Noise
from firmware.system.redact import scrub_urls

from ..devices.wiring import INPUT_NAMES
from ..errors import PropError
from ..room import COMMAND_TIMEOUT
from .auth import COOKIE, CSRF_HEADER, LoginForms, LoginPage, Session, Sessions, origin_ok
from .backend import ConsoleBackend
from .console import ConsolePages
from .cors import cors_middleware
from .extension import ExtensionFactory, make_extensions
from .guard import ACCEPT_BACKLOG, BODY_SECONDS, IDLE_SECONDS, ConnectionGuard, http_logger
from .health import GameHealth
from .language import PageTexts
from .listening import ListeningSite
from .live import LiveHub, View, event_stream
from .players import PlayerPages
from .replies import MAX_BODY, SECURITY_HEADERS, json_body
from .replies import json_reply as _json
from .settings import WebSettings, is_loopback
from .throttle import Throttle

if TYPE_CHECKING:
    from .history import HistoryPages

    #: ``factory(service) -> HistoryPages``: the History view for a service (:func:`.attach.attach_web`).
    HistoryPagesFactory = Callable[["WebService"], HistoryPages]

log = logging.getLogger("baccarat.web")

STATIC = Path(__file__).with_name("static")

#: The answer to a connection over the caps (guard.MAX_CONNECTIONS, guard.MAX_PER_ADDRESS).
BUSY = "the console is busy: too many connections; try again in a few seconds\n"
#: A wrong password or controller token is answered after this pause.
WRONG_SECRET_PAUSE = 1.0


def failure_line(request: web.Request, error: BaseException) -> str:
    """The one log line of a request that failed (a 500): the method, the path cut short (never the
    query string: it may hold the controller token), the error and where it was raised.

    A stranger can repeat such a request at will: the line is a :class:`Noise` note, not a traceback.
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    path = request.path if len(request.path) <= 80 else request.path[:77] + "..."
    reason = scrub_urls(" ".join(str(error).split()))[:120]
    return f"web: {request.method[:10]} {path!r} failed: {type(error).__name__}{': ' if reason else ''}{reason}{where}"


class WebError(PropError):
    """The web service cannot start (the port is taken, the address is not this machine's)."""


class WebService:
    """The console and the room controllers' HTTP side, attachable like the MQTT service."""

    def __init__(
        self,
        backend: ConsoleBackend,
        settings: WebSettings,
        *,
        static_dir: Path = STATIC,
        command_timeout: float = COMMAND_TIMEOUT,
        history: HistoryPagesFactory | None = None,
        extensions: Sequence[ExtensionFactory] = (),
    ) -> None:
        self.backend = backend
        self.settings = settings
        self.static_dir = static_dir
        self.command_timeout = command_timeout
        self.sessions = Sessions()
        #: This start of the service: a page that finds another one knows the prop restarted.
        self.boot = secrets.token_urlsafe(9)
        self.episodes = Noise(log)
        self.guard = ConnectionGuard(self.episodes)
        #: Wrong passwords: ten per address in five minutes (docs/run/console-security.md says so).
        self.throttle = Throttle()
        self.wrong_secret_pause = WRONG_SECRET_PAUSE
        self.body_seconds = BODY_SECONDS
        self.hub = LiveHub(backend)
        #: Whether the game thread comes round, for the controllers' health answers (:mod:`.health`).
        self.health = GameHealth(getattr(backend, "probe", None))
        self.port = settings.port
        #: The pages in each language, and which one a request gets (:mod:`.language`).
        self.texts = PageTexts(static_dir, settings)
        self.console = ConsolePages(self)
        self.players = PlayerPages(self)
        self.logins = LoginForms(self)
        #: The History view (:mod:`.history`), when the prop records its games.
        self.history = history(self) if history is not None else None
        #: What services add (:mod:`.extension`): Escape Room Master's endpoints, the webhooks.
        self.extensions = make_extensions(extensions, self)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None

    # -- life ---------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The console's address as a browser on this machine (or the network) reaches it."""
        host = self.settings.bind
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Listen, on the services' shared event loop (:mod:`firmware.system.aloop`); raises
        :class:`WebError` with one clear line if it cannot."""
        self.settings.check_listen()
        loop = aloop.acquire()
        try:
            aloop.run(self._open(), timeout=15)
        except TimeoutError:
            self._give_back(loop)
            raise WebError("web console did not start within 15 s") from None
        except (OSError, ValueError) as error:
            self._give_back(loop)
            if getattr(error, "errno", None) == errno.EADDRINUSE:
                raise WebError(
                    f"web console: port {self.settings.port} on {self.settings.bind} is taken (another simulator?); "
                    "choose another with --port N or [web] port"
                ) from None
            reason = getattr(error, "strerror", None) or str(error)
            raise WebError(
                f"web console cannot listen on {self.settings.bind} port {self.settings.port}: {reason}"
            ) from None
        self._loop = loop
        log.info("web console on %s%s", self.url, "" if self.settings.password else " (no password: this machine only)")

    def stop(self) -> None:
        """Close the pages' streams, drop pending webhooks, give the loop back."""
        loop, self._loop = self._loop, None
        if loop is not None:
            self._give_back(loop)

    def _give_back(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close what :meth:`_open` opened (on the loop), then release the loop."""
        try:
            aloop.run(self._close(), timeout=10)
        except Exception as error:  # noqa: BLE001 - a stop goes on whatever the close did
            log.warning("web console: closing it failed (%s: %s)", type(error).__name__, error)
        finally:
            aloop.release()

    async def _open(self) -> None:
        loop = asyncio.get_running_loop()
        self.hub.bind(loop)
        self.episodes.bind(loop)
        for extension in self.extensions:
            extension.bind(loop)
        self._runner = web.AppRunner(
            self._app(),
            access_log=None,
            handler_cancellation=True,
            shutdown_timeout=1.0,
            logger=http_logger(self.episodes),  # aiohttp's own lines quote the raw request: tamed
            keepalive_timeout=IDLE_SECONDS,
            auto_decompress=False,  # no browser compresses a request; no decompression bomb
        )
        await self._runner.setup()
        assert self._runner.server is not None
        self.guard.install(self._runner.server, loop)
        site = ListeningSite(
            self._runner, self.settings.bind, self.settings.port, reuse_address=True, backlog=ACCEPT_BACKLOG
        )
        await site.start()
        addresses = self._runner.addresses
        if addresses:
            self.port = addresses[0][1]

    async def _close(self) -> None:
        self.hub.close()
        self.episodes.close_all()
        for extension in self.extensions:
            await extension.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _app(self) -> web.Application:
        cors = cors_middleware(self._cross_origin)
        app = web.Application(client_max_size=MAX_BODY, middlewares=[cors, self._guard])
        self.console.register(app)
        for extension in self.extensions:
            extension.register(app)
        app.router.add_static("/static/", self.static_dir, follow_symlinks=False)
        self.texts.register(app)
        self.players.register(app)
        from .docs_site import register as register_docs  # the docs at /docs/: read-only, no login

        register_docs(app)
        if self.history is not None:
            self.history.register(app)
        return app

    # -- every request ----------------------------------------------------------------------------
    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        connection = request.protocol
        trusted = self._trusted(request)
        admitted = self.guard.begin(connection, trusted=trusted)  # no head timer while served
        try:
            if admitted:
                response = await self._unhealthy(request, trusted) or await handler(request)
            else:
                response = web.Response(status=503, text=BUSY, headers={"Retry-After": "5"})
                response.force_close()
        except web.HTTPException as exc:
            exc.headers.update(SECURITY_HEADERS)
            raise
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception as error:  # never the query string: it may hold the controller token
            self.episodes.note("500", failure_line(request, error), logging.ERROR)  # a flood: one line, a count
            response = web.Response(status=500, text="internal error; the prop's log says more\n")
        finally:
            self.guard.end(connection)
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
        return response

    async def _unhealthy(self, request: web.Request, trusted: bool) -> web.Response | None:
        """A controller's health answer (an extension's ``health_paths``, with the right token) while the
        game thread does not come round: ``503`` and why, never the state it froze in (:mod:`.health`)."""
        if not trusted or request.method not in ("GET", "HEAD"):
            return None
        if not any(request.path in extension.health_paths for extension in self.extensions):
            return None
        problem = await self.health.problem()
        if problem is None:
            return None
        self.episodes.note("unhealthy", f"web: {request.path} answered 503: {problem}", logging.ERROR)
        return web.Response(status=503, text=f"unhealthy: {problem}\n", headers={"Retry-After": "5"})

    def _trusted(self, request: web.Request) -> bool:
        """The request may use the connections kept for the game master and the controller: it has
        a console session's cookie, or it is an extension's with the right credentials (the
        controller's token: checked, and counted if wrong, once per request by the extension)."""
        for extension in self.extensions:
            trusted = extension.trusted(request)
            if trusted is not None:
                return trusted
        return self.sessions.get(request.cookies.get(COOKIE)) is not None

    def _cross_origin(self, path: str) -> bool:
        """A page of another origin may read ``path``'s answers: an extension says so (:mod:`.cors`)."""
        return any(extension.cross_origin(path) for extension in self.extensions)

    def _host_is_local(self, request: web.Request) -> bool:
        """Without a password: the Host header must name this machine's loopback (no DNS rebinding)."""
        host = (request.url.host or "").strip("[]").lower()
        return host == "localhost" or host.endswith(".localhost") or is_loopback(host)

    def _session(self, request: web.Request, *, create: bool = False) -> tuple[Session | None, bool]:
        """The request's session, and whether it was made just now (then the response sets the cookie)."""
        session = self.sessions.get(request.cookies.get(COOKIE))
        if self.settings.password:
            return session, False
        if not self._host_is_local(request):
            return None, False
        if session is None and create:
            return self.sessions.create(), True
        return session, False

    @staticmethod
    def _set_cookie(response: web.StreamResponse, session: Session) -> None:
        response.set_cookie(COOKIE, session.token, httponly=True, samesite="Strict", path="/")

    def _post_session(self, request: web.Request) -> tuple[Session | None, web.Response | None]:
        """A state-changing request of the console: its session, or the refusal (:meth:`post_refused`)."""
        session, _ = self._session(request)
        refused = self.post_refused(request, session)
        return (None, refused) if refused is not None else (session, None)

    def post_refused(self, request: web.Request, session: Session | None) -> web.Response | None:
        """A state-changing request needs a session, its CSRF token in the header and the same
        origin: None when it has them, else the refusal."""
        if session is None:
            return _json({"ok": False, "error": "not logged in (reload the page)"}, 401)
        if not origin_ok(request) or not session.csrf_ok(request.headers.get(CSRF_HEADER)):
            self.episodes.note("csrf", f"web: {request.path} refused: missing or wrong CSRF token")
            return _json({"ok": False, "error": "refused: missing or wrong CSRF token (reload the page)"}, 403)
        return None

    # -- what the pages share --------------------------------------------------------------------
    async def login_form(
        self, request: web.Request, page: LoginPage, *, wrong: str, pages: str
    ) -> dict[str, str] | web.Response:
        """A login form's POST (the console's or the players' pages'): its fields when the password
        is right, else ``page(message, status, **values)`` saying why not (:class:`~.auth.LoginForms`)."""
        return await self.logins.read(request, page, wrong=wrong, pages=pages)

    @property
    def front_panel(self) -> bool:
        """The page shows the module's front panel (config allows it and the backend can press)."""
        return self.settings.front_panel and self.backend.has_front_panel

    async def stream(self, request: web.Request, view: View | None = None) -> web.StreamResponse:
        """Server-sent events of the hub's updates, through ``view`` when given (the players' pages),
        until the page goes (:func:`~.live.event_stream`)."""
        return await event_stream(request, self.hub, view)

    async def run_command(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Run ``payload`` through the backend's one command path: its reply, or why it did not come."""
        future: Future[dict[str, Any]] = self.backend.command(payload)
        # A self-test's reply comes when a person has pressed every button: it may wait longer.
        timeout = self.command_timeout + max(0.0, getattr(future, "timeout", COMMAND_TIMEOUT) - COMMAND_TIMEOUT)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            return {
                "ok": False,
                "command": payload.get("command"),
                "error": f"the prop did not answer within {timeout:g} s",
            }

    async def press_panel(self, request: web.Request, *, name_inputs: bool = True) -> web.Response:
        """A front-panel press or release, ``{"input": ..., "action": "press"|"release"}`` read by the
        one strict reader (:func:`~.replies.json_body`): ``{"ok": true}``, or why not (an unknown input's reply
        lists the known ones when ``name_inputs``)."""
        payload, problem = await json_body(request, self.body_seconds)
        if problem:
            return _json({"ok": False, "error": problem}, 400)
        name, action = payload.get("input"), payload.get("action")
        if name not in INPUT_NAMES:
            known = f" (known: {', '.join(INPUT_NAMES)})" if name_inputs else ""
            return _json({"ok": False, "error": f"unknown input {str(name)[:40]!r}{known}"}, 400)
        if action not in ("press", "release"):
            return _json({"ok": False, "error": f"action {str(action)[:40]!r} must be press or release"}, 400)
        try:
            (self.backend.press if action == "press" else self.backend.release)(name)
        except ValueError as error:
            return _json({"ok": False, "error": str(error)}, 400)
        return _json({"ok": True})
