"""The web service: the console page, its live updates, the controllers' endpoints, webhooks.

aiohttp serves everything from one thread of its own with its own event loop,
beside the game thread; while nobody uses it, that loop sleeps in ``epoll``
without a timer. Every command goes through the backend's one command path
(the same as MQTT and the control socket).

Routes:

=============================  ==========================================================
``GET /``                      the console (a login first when ``[web] password`` is set)
``GET|POST /login``            the login form
``POST /logout``               ends the session (CSRF header)
``GET /api/session``           this page's CSRF token and what the prop has
``GET /events``                server-sent events: displays, lights, state, log, answer
``POST /api/command``          a game-master command as JSON (CSRF header)
``POST /api/panel``            a front-panel press or release (simulator; CSRF header)
``GET /status`` ... ``/reset``  Escape Room Master polling and requests (``?token=``)
``GET /json``                  the same state as JSON (``?token=``)
``GET /output/<name>/<state>``  switch an output ``on``, ``off`` or ``pulse`` (``?token=``)
``GET /static/...``            the page's CSS and JavaScript
``GET /casing``, ``/play`` ...  the players' pages (:mod:`.players`)
``GET /history`` ...           how each game went, behind the console's login (:mod:`.history`)
=============================  ==========================================================
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler

from baccarat_core import strict
from baccarat_core.events import AREA_NAMES

from ..devices.wiring import INPUT_NAMES
from ..errors import PropError
from ..room.commands import COMMAND_TIMEOUT
from ..sound.cues import CUES
from ..sound.players import WAV_DIR
from .auth import COOKIE, CSRF_HEADER, Session, Sessions, login_response, same_secret
from .backend import ConsoleBackend
from .controllers import controller_json, cors_middleware
from .guard import (
    ACCEPT_BACKLOG,
    BODY_SECONDS,
    IDLE_SECONDS,
    ConnectionGuard,
    Episodes,
    Throttle,
    address_key,
    http_logger,
)
from .live import LiveHub, PageClient, View
from .players import PlayerPages
from .settings import WebSettings, is_loopback
from .webhooks import WebhookSender

if TYPE_CHECKING:
    from multidict import MultiDictProxy

    from .history import HistoryPages

    #: ``factory(service) -> HistoryPages``: the History view for a service (:func:`.attach.attach_web`).
    HistoryPagesFactory = Callable[["WebService"], HistoryPages]

log = logging.getLogger("baccarat.web")

STATIC = Path(__file__).with_name("static")

#: Longest request body read (a command is a few hundred bytes; a login form with the longest
#: password, percent-encoded, at most 12 KiB).
MAX_BODY = 16 * 1024
#: The answer to a connection over the caps (guard.MAX_CONNECTIONS, guard.MAX_PER_ADDRESS).
BUSY = "the console is busy: too many connections; try again in a few seconds\n"
#: A wrong password or controller token is answered after this pause.
WRONG_SECRET_PAUSE = 1.0
#: A comment line on each open event stream this often, so a vanished page is noticed.
HEARTBEAT_SECONDS = 20.0

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes a form send "Origin: null"
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
}

#: Escape Room Master's requests: each runs these commands in order and answers ``ok``.
CONTROLLER_ACTIONS: dict[str, tuple[str, ...]] = {
    "trigger": ("force_solve",),
    "reset": ("reset",),
    "enable": ("enable",),
    "disable": ("disable",),
    "reset_enable": ("reset", "enable"),
    "reset_disable": ("reset", "disable"),
}
#: The controllers' endpoints (token-gated): the only paths a page of another origin may read
#: (``Access-Control-Allow-Origin: *``, see :mod:`.controllers`).
CONTROLLER_PATHS = frozenset({"/status", "/enable_status", "/json", *(f"/{action}" for action in CONTROLLER_ACTIONS)})
#: The controllers' output switches, ``/output/<name>/<state>`` (token-gated like the paths above).
CONTROLLER_OUTPUT_PREFIX = "/output/"


def is_controller_path(path: str) -> bool:
    """A controllers' endpoint: one of :data:`CONTROLLER_PATHS`, or an output switch."""
    return path in CONTROLLER_PATHS or path.startswith(CONTROLLER_OUTPUT_PREFIX)


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
        webhook_backoff: float = 0.5,
        history: HistoryPagesFactory | None = None,
    ) -> None:
        self.backend = backend
        self.settings = settings
        self.static_dir = static_dir
        self.command_timeout = command_timeout
        self.sessions = Sessions()
        #: This start of the service: a page that finds another one knows the prop restarted.
        self.boot = secrets.token_urlsafe(9)
        self.episodes = Episodes()
        self.guard = ConnectionGuard(self.episodes)
        #: Wrong passwords: ten per address in five minutes (the README says so).
        self.throttle = Throttle()
        #: Wrong controller tokens: ten per address a minute.
        self.token_throttle = Throttle(window=60.0)
        self.wrong_secret_pause = WRONG_SECRET_PAUSE
        self.body_seconds = BODY_SECONDS
        self.hub = LiveHub(backend)
        self.webhooks = WebhookSender(
            settings.webhooks,
            timeout=settings.webhook_timeout_seconds,
            retries=settings.webhook_retries,
            backoff=webhook_backoff,
            prop=backend.name,
        )
        if settings.webhooks:
            backend.subscribe_events(self.webhooks.on_events)
        self.port = settings.port
        self._pages = {name: (static_dir / name).read_text(encoding="utf-8") for name in ("index.html", "login.html")}
        self.players = PlayerPages(self)
        #: The History view (:mod:`.history`), when the prop records its games.
        self.history = history(self) if history is not None else None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

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
        """Listen, on a thread of its own; raises :class:`WebError` with one clear line if it cannot."""
        self.settings.check_listen()
        self._thread = threading.Thread(target=self._run, name="baccarat-web", daemon=True)
        self._thread.start()
        if not self._ready.wait(15):
            raise WebError("web console did not start within 15 s")
        if self._error is not None:
            error = self._error
            if getattr(error, "errno", None) == errno.EADDRINUSE:
                raise WebError(
                    f"web console: port {self.settings.port} on {self.settings.bind} is taken (another simulator?); "
                    "choose another with --port N or [web] port"
                )
            reason = getattr(error, "strerror", None) or str(error)
            raise WebError(f"web console cannot listen on {self.settings.bind} port {self.settings.port}: {reason}")
        log.info("web console on %s%s", self.url, "" if self.settings.password else " (no password: this machine only)")

    def stop(self) -> None:
        """Close the pages' streams, drop pending webhooks, stop the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open())
        except (OSError, ValueError) as error:
            self._error = error
            loop.run_until_complete(self._close())
            loop.close()
            self._ready.set()
            return
        self._loop = loop
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._close())
            loop.close()

    async def _open(self) -> None:
        loop = asyncio.get_running_loop()
        self.hub.bind(loop)
        self.webhooks.bind(loop)
        self.episodes.bind(loop)
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
        site = web.TCPSite(
            self._runner, self.settings.bind, self.settings.port, reuse_address=True, backlog=ACCEPT_BACKLOG
        )
        await site.start()
        addresses = self._runner.addresses
        if addresses:
            self.port = addresses[0][1]

    async def _close(self) -> None:
        self.hub.close()
        self.episodes.close_all()
        await self.webhooks.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _app(self) -> web.Application:
        cors = cors_middleware(is_controller_path)
        app = web.Application(client_max_size=MAX_BODY, middlewares=[cors, self._guard])
        app.router.add_get("/", self._index)
        app.router.add_get("/login", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_post("/logout", self._logout)
        app.router.add_get("/api/session", self._session_info)
        app.router.add_get("/events", self._events)
        app.router.add_post("/api/command", self._command)
        app.router.add_post("/api/panel", self._panel)
        app.router.add_get("/status", self._controller_status)
        app.router.add_get("/enable_status", self._controller_enable_status)
        app.router.add_get("/json", self._controller_json)
        for action in CONTROLLER_ACTIONS:  # an action answers GET only: HEAD would run it too
            app.router.add_get(f"/{action}", self._controller_request, allow_head=False)
        app.router.add_get(CONTROLLER_OUTPUT_PREFIX + "{name}/{state}", self._controller_output, allow_head=False)
        app.router.add_static("/static/", self.static_dir, follow_symlinks=False)
        app.router.add_get("/sound/{cue}.wav", self._sound)
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
        admitted = self.guard.begin(connection)  # no head timer while a request is served
        try:
            if admitted:
                response = await handler(request)
            else:
                response = web.Response(status=503, text=BUSY, headers={"Retry-After": "5"})
                response.force_close()
        except web.HTTPException as exc:
            exc.headers.update(SECURITY_HEADERS)
            raise
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception:  # never the query string: it may hold the controller token
            log.exception("web: %s %s failed", request.method, request.path)
            response = web.Response(status=500, text="internal error; the prop's log says more\n")
        finally:
            self.guard.end(connection)
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
        return response

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

    @staticmethod
    def _origin_ok(request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        return urlsplit(origin).netloc.lower() == request.host.lower()

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
        if not self._origin_ok(request) or not session.csrf_ok(request.headers.get(CSRF_HEADER)):
            self.episodes.note("csrf", f"web: {request.path} refused: missing or wrong CSRF token")
            return _json({"ok": False, "error": "refused: missing or wrong CSRF token (reload the page)"}, 403)
        return None

    # -- the console ------------------------------------------------------------------------------
    async def _sound(self, request: web.Request) -> web.StreamResponse:
        """One of the prop's own sound clips, by cue name (the page plays them)."""
        cue = request.match_info["cue"]
        if cue not in CUES:
            return web.Response(status=404, text=f"no sound {cue[:40]!r}\n")
        return web.FileResponse(WAV_DIR / f"{cue}.wav", headers={"Cache-Control": "max-age=3600"})

    async def _index(self, request: web.Request) -> web.StreamResponse:
        session, new = self._session(request, create=True)
        if session is None:
            if self.settings.password:
                raise web.HTTPSeeOther("/login")
            return web.Response(status=403, text="this console answers on localhost only\n")
        response = web.Response(
            text=self._pages["index.html"], content_type="text/html", headers={"Cache-Control": "no-store"}
        )
        if new:
            self._set_cookie(response, session)
        return response

    def _login_response(self, message: str = "", status: int = 200) -> web.Response:
        return login_response(self._pages["login.html"], message, status)

    async def _login_page(self, request: web.Request) -> web.StreamResponse:
        if not self.settings.password:
            raise web.HTTPSeeOther("/")
        if "restarted" in request.query:  # an open console found the prop started anew
            return self._login_response("The prop restarted: log in again.")
        return self._login_response()

    async def _login(self, request: web.Request) -> web.StreamResponse:
        if not self.settings.password:
            raise web.HTTPSeeOther("/")
        form = await self.login_form(request, self._login_response, wrong="console password", pages="console")
        if isinstance(form, web.Response):
            return form
        session = self.sessions.create()
        response = web.HTTPSeeOther("/")
        self._set_cookie(response, session)
        raise response

    async def login_form(
        self, request: web.Request, page: Callable[[str, int], web.Response], *, wrong: str, pages: str
    ) -> MultiDictProxy[Any] | web.Response:
        """A login form's POST (the console's or the players' pages'): its fields when the password
        is right, else ``page(message, status)`` saying why not. One count of wrong passwords for
        every login form; a wrong one is answered after a pause and noted as ``wrong {wrong}``."""
        if not self._origin_ok(request):
            return page("Refused: the form came from another site.", 403)
        address = request.remote
        if not self.throttle.allow(address):  # spare reading the body of a locked address
            return self._too_many(address, page)
        try:
            form = await asyncio.wait_for(request.post(), self.body_seconds)
        except TimeoutError:
            return page(f"The form did not arrive within {self.body_seconds:g} s.", 408)
        except ValueError:
            return page("The form could not be read.", 400)
        # From here to the count, no await: concurrent guesses from one address cannot all
        # pass the check before the first is counted.
        if not self.throttle.allow(address):
            return self._too_many(address, page)
        given = form.get("password")
        if not isinstance(given, str) or not same_secret(given, self.settings.password):
            self.throttle.fail(address)
            self.episodes.note("password", f"web: wrong {wrong} from {address_key(address)}")
            await asyncio.sleep(self.wrong_secret_pause)
            return page("Wrong password.", 401)
        log.info("web: %s login from %s", pages, address)
        return form

    def _too_many(self, address: str | None, page: Callable[[str, int], web.Response]) -> web.Response:
        wait = self.throttle.retry_after(address)
        self.episodes.note("locked", f"web: login refused to {address_key(address)}: too many wrong passwords")
        response = page(f"Too many wrong passwords: wait {wait_words(wait)}.", 429)
        response.headers["Retry-After"] = str(wait)
        return response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        session, refused = self._post_session(request)
        if refused is not None:
            return refused
        assert session is not None  # _post_session gives a session or a refusal
        self.sessions.drop(session.token)
        response = _json({"ok": True, "next": "/login" if self.settings.password else "/"})
        response.del_cookie(COOKIE, path="/")
        return response

    async def _session_info(self, request: web.Request) -> web.StreamResponse:
        session, new = self._session(request, create=True)
        if session is None:
            return _json({"ok": False, "error": "not logged in", "boot": self.boot}, 401)
        response = _json(
            {
                "ok": True,
                "boot": self.boot,
                "csrf": session.csrf,
                "name": self.backend.name,
                "roles": list(self.backend.roles),
                "front_panel": self.front_panel,
                "password": bool(self.settings.password),
                "inputs": list(INPUT_NAMES),
                "areas": AREA_NAMES,
                "outputs": self.backend.outputs,
            }
        )
        if new:
            self._set_cookie(response, session)
        return response

    @property
    def front_panel(self) -> bool:
        """The page shows the module's front panel (config allows it and the backend can press)."""
        return self.settings.front_panel and self.backend.has_front_panel

    async def _events(self, request: web.Request) -> web.StreamResponse:
        session, _ = self._session(request)
        if session is None:
            return _json({"ok": False, "error": "not logged in"}, 401)
        return await self.stream(request)

    async def stream(self, request: web.Request, view: View | None = None) -> web.StreamResponse:
        """Server-sent events of the hub's updates, through ``view`` when given (the players' pages:
        :class:`~.live.PageClient`), until the page goes; a comment line every
        :data:`HEARTBEAT_SECONDS` so a vanished page is noticed."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
                **SECURITY_HEADERS,
            }
        )
        await response.prepare(request)
        client = PageClient(view)
        self.hub.add(client)
        try:
            await response.write(b"retry: 2000\n\n")
            while not client.closed:
                try:
                    await asyncio.wait_for(client.wake.wait(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    await response.write(b": still here\n\n")
                    continue
                if client.closed:
                    break
                update = client.take()
                if update:
                    data = json.dumps(update, separators=(",", ":"))
                    await response.write(f"event: update\ndata: {data}\n\n".encode())
        except (ConnectionResetError, ConnectionError):
            pass
        finally:
            self.hub.remove(client)
        return response

    async def _run_command(self, payload: dict[str, Any]) -> dict[str, Any]:
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

    async def _command(self, request: web.Request) -> web.StreamResponse:
        _, refused = self._post_session(request)
        if refused is not None:
            return refused
        payload, problem = await json_body(request, self.body_seconds)
        if problem:
            return _json({"ok": False, "error": problem}, 400)
        reply = await self._run_command(payload)
        return _json(reply, 200 if reply.get("ok") else 400)

    async def _panel(self, request: web.Request) -> web.StreamResponse:
        _, refused = self._post_session(request)
        if refused is not None:
            return refused
        if not self.front_panel:
            return _json({"ok": False, "error": "this prop has no front panel in the console"}, 404)
        return await self.press_panel(request)

    async def press_panel(self, request: web.Request, *, name_inputs: bool = True) -> web.Response:
        """A front-panel press or release, ``{"input": ..., "action": "press"|"release"}`` read by the
        one strict reader (:func:`json_body`): ``{"ok": true}``, or why not (an unknown input's reply
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

    # -- Escape Room Master -------------------------------------------------------------------------
    async def _token_refused(self, request: web.Request) -> web.Response | None:
        expected = self.settings.controller_token
        if expected is None:
            return web.Response(status=403, text="forbidden: set [web] controller_token to use these endpoints\n")
        address = request.remote
        if not self.token_throttle.allow(address):
            wait = self.token_throttle.retry_after(address)
            self.episodes.note("token", f"web: {request.path} refused to {address_key(address)}: too many wrong tokens")
            return web.Response(
                status=429,
                text=f"too many wrong tokens: wait {wait_words(wait)}\n",
                headers={"Retry-After": str(wait)},
            )
        if not same_secret(request.query.get("token"), expected):
            self.token_throttle.fail(address)
            self.episodes.note(
                "token", f"web: {request.path} refused: missing or wrong controller token (from {address_key(address)})"
            )
            await asyncio.sleep(self.wrong_secret_pause)
            return web.Response(status=403, text="forbidden: missing or wrong token\n")
        return None

    async def _controller_status(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        solved = bool(self.backend.controller_state().get("solved"))
        return _text("triggered" if solved else "not_triggered")

    async def _controller_enable_status(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        enabled = self.backend.controller_state().get("enabled", True)
        return _text("enabled" if enabled else "disabled")

    async def _controller_json(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        return _json(controller_json(self.backend.controller_state()))

    async def _controller_request(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        action = request.path.strip("/")
        for name in CONTROLLER_ACTIONS[action]:
            reply = await self._run_command({"command": name})
            if not reply.get("ok"):
                log.warning("web: controller request %s failed: %s", action, reply.get("error"))
                return _text(f"error: {reply.get('error')}", 500)
        log.info("web: controller request %s done", action)
        return _text("ok")

    async def _controller_output(self, request: web.Request) -> web.StreamResponse:
        """``GET /output/<name>/on|off|pulse?token=``: the ``output`` command; ``ok``, or one line why not."""
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        name, state = request.match_info["name"], request.match_info["state"]
        reply = await self._run_command({"command": "output", "name": name, "state": state})
        if not reply.get("ok"):
            log.warning("web: controller output request failed: %s", reply.get("error"))
            return _text(f"error: {reply.get('error')}", 400)
        log.info("web: controller output request %s %s done", name[:40], state[:10])
        return _text("ok")


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(data, status=status, headers={"Cache-Control": "no-store"})


def _text(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/plain", headers={"Cache-Control": "no-store"})


def wait_words(seconds: int) -> str:
    """``45 s``, ``5 min``: how long to wait, for a person."""
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} min"


async def json_body(request: web.Request, timeout: float) -> tuple[dict[str, Any], str | None]:
    """The request's JSON object, read by the project's strict reader, or a one-line problem."""
    if request.content_type != "application/json":
        return (
            {},
            f"send JSON (Content-Type application/json), not {request.content_type or 'nothing'}",
        )
    try:
        raw = await asyncio.wait_for(request.read(), timeout)
    except web.HTTPRequestEntityTooLarge:
        return {}, f"the request is larger than {MAX_BODY} bytes"
    except TimeoutError:
        return {}, f"the request's body did not arrive within {timeout:g} s"
    try:
        data = strict.loads(raw, "the request", max_bytes=MAX_BODY)
    except strict.InputError as error:
        return {}, str(error)
    if not isinstance(data, dict):
        return {}, "the request must be a JSON object"
    return data, None
