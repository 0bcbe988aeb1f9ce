"""The game master's console: its page, its login, its session, live stream and commands.

Routes (on :class:`~.server.WebService`'s app):

=============================  ==========================================================
``GET /``                      the console (a login first when ``[web] password`` is set)
``GET|POST /login``            the login form
``POST /logout``               ends the session (CSRF header)
``GET /api/session``           this page's CSRF token and what the prop has
``GET /events``                server-sent events: displays, lights, state, log, answer
``POST /api/command``          a game-master command as JSON (CSRF header)
``POST /api/panel``            a front-panel press or release (simulator; CSRF header)
``GET /sound/<cue>.wav``       one of the prop's sound clips (the page plays them)
=============================  ==========================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from baccarat_core.events import AREA_NAMES

from ..devices.wiring import INPUT_NAMES
from ..sound.cues import CUES
from ..sound.players import WAV_DIR
from .auth import COOKIE, login_response
from .replies import json_body
from .replies import json_reply as _json

if TYPE_CHECKING:
    from .server import WebService


class ConsolePages:
    """The console's routes of :class:`~.server.WebService` (its sessions, settings and backend)."""

    def __init__(self, service: WebService) -> None:
        self.service = service
        self._pages = {
            name: (service.static_dir / name).read_text(encoding="utf-8") for name in ("index.html", "login.html")
        }

    def register(self, app: web.Application) -> None:
        """Add the routes to ``app``."""
        app.router.add_get("/", self._index)
        app.router.add_get("/login", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_post("/logout", self._logout)
        app.router.add_get("/api/session", self._session_info)
        app.router.add_get("/events", self._events)
        app.router.add_post("/api/command", self._command)
        app.router.add_post("/api/panel", self._panel)
        app.router.add_get("/sound/{cue}.wav", self._sound)

    async def _sound(self, request: web.Request) -> web.StreamResponse:
        """One of the prop's own sound clips, by cue name (the page plays them)."""
        cue = request.match_info["cue"]
        if cue not in CUES:
            return web.Response(status=404, text=f"no sound {cue[:40]!r}\n")
        return web.FileResponse(WAV_DIR / f"{cue}.wav", headers={"Cache-Control": "max-age=3600"})

    async def _index(self, request: web.Request) -> web.StreamResponse:
        session, new = self.service._session(request, create=True)
        if session is None:
            if self.service.settings.password:
                raise web.HTTPSeeOther("/login")
            return web.Response(status=403, text="this console answers on localhost only\n")
        response = web.Response(
            text=self._pages["index.html"], content_type="text/html", headers={"Cache-Control": "no-store"}
        )
        if new:
            self.service._set_cookie(response, session)
        return response

    def _login_response(self, message: str = "", status: int = 200) -> web.Response:
        return login_response(self._pages["login.html"], message, status)

    async def _login_page(self, request: web.Request) -> web.StreamResponse:
        if not self.service.settings.password:
            raise web.HTTPSeeOther("/")
        if "restarted" in request.query:  # an open console found the prop started anew
            return self._login_response("The prop restarted: log in again.")
        return self._login_response()

    async def _login(self, request: web.Request) -> web.StreamResponse:
        if not self.service.settings.password:
            raise web.HTTPSeeOther("/")
        form = await self.service.login_form(request, self._login_response, wrong="console password", pages="console")
        if isinstance(form, web.Response):
            return form
        session = self.service.sessions.create()
        response = web.HTTPSeeOther("/")
        self.service._set_cookie(response, session)
        raise response

    async def _logout(self, request: web.Request) -> web.StreamResponse:
        session, refused = self.service._post_session(request)
        if refused is not None:
            return refused
        assert session is not None  # _post_session gives a session or a refusal
        self.service.sessions.drop(session.token)
        response = _json({"ok": True, "next": "/login" if self.service.settings.password else "/"})
        response.del_cookie(COOKIE, path="/")
        return response

    async def _session_info(self, request: web.Request) -> web.StreamResponse:
        session, new = self.service._session(request, create=True)
        if session is None:
            return _json({"ok": False, "error": "not logged in", "boot": self.service.boot}, 401)
        response = _json(
            {
                "ok": True,
                "boot": self.service.boot,
                "csrf": session.csrf,
                "name": self.service.backend.name,
                "roles": list(self.service.backend.roles),
                "front_panel": self.service.front_panel,
                "password": bool(self.service.settings.password),
                "inputs": list(INPUT_NAMES),
                "areas": AREA_NAMES,
                "outputs": self.service.backend.outputs,
            }
        )
        if new:
            self.service._set_cookie(response, session)
        return response

    async def _events(self, request: web.Request) -> web.StreamResponse:
        session, _ = self.service._session(request)
        if session is None:
            return _json({"ok": False, "error": "not logged in"}, 401)
        return await self.service.stream(request)

    async def _command(self, request: web.Request) -> web.StreamResponse:
        _, refused = self.service._post_session(request)
        if refused is not None:
            return refused
        payload, problem = await json_body(request, self.service.body_seconds)
        if problem:
            return _json({"ok": False, "error": problem}, 400)
        reply = await self.service.run_command(payload)
        return _json(reply, 200 if reply.get("ok") else 400)

    async def _panel(self, request: web.Request) -> web.StreamResponse:
        _, refused = self.service._post_session(request)
        if refused is not None:
            return refused
        if not self.service.front_panel:
            return _json({"ok": False, "error": "this prop has no front panel in the console"}, 404)
        return await self.service.press_panel(request)
