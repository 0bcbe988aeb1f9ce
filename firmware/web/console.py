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
``GET /favicon.ico``           the prop's icon (every browser asks for it; public)
=============================  ==========================================================
"""

from __future__ import annotations

from gettext import NullTranslations
from html import escape
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baccarat_core.events import AREA_NAMES

from ..devices.wiring import INPUT_NAMES
from ..i18n import N_, SOURCE
from ..sound.cues import CUES
from ..sound.players import WAV_DIR
from .auth import COOKIE, login_response
from .replies import json_body
from .replies import json_reply as _json
from .words import log_text, words

if TYPE_CHECKING:
    from .host import Host as WebService  # its shape: server.py imports this module
    from .live import View


def _line(entry: dict[str, Any], t: NullTranslations) -> dict[str, Any]:
    """A log entry as a page gets it: its line in the page's language, without the event itself."""
    out = {key: value for key, value in entry.items() if key != "event"}
    if "event" in entry:
        out["text"] = log_text(entry["event"], t)
    return out


class ConsolePages:
    """The console's routes of :class:`~.server.WebService` (its sessions, settings and backend)."""

    def __init__(self, service: WebService) -> None:
        self.service = service
        self.texts = service.texts
        #: Each language's view of the live updates, and the state's words it said last.
        self._views: dict[str, View] = {}
        self._said: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

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
        app.router.add_get("/favicon.ico", self._favicon)

    async def _favicon(self, request: web.Request) -> web.StreamResponse:
        """The prop's icon, for the browsers' tabs and bookmarks (``static/favicon.ico``)."""
        return web.FileResponse(
            self.texts.static_dir / "favicon.ico",
            headers={"Cache-Control": "max-age=86400", "Content-Type": "image/vnd.microsoft.icon"},
        )

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
        page = self.texts.page("index.html", self.texts.console_language(request))
        response = web.Response(text=page, content_type="text/html", headers={"Cache-Control": "no-store"})
        if new:
            self.service._set_cookie(response, session)
        return response

    def _login_response(
        self, request: web.Request, message: str = "", status: int = 200, **values: str
    ) -> web.Response:
        language = self.texts.console_language(request)
        said = self.texts.catalog(language).gettext(message).format(**values) if message else ""
        return login_response(self.texts.page("login.html", language), escape(said), status)

    async def _login_page(self, request: web.Request) -> web.StreamResponse:
        if not self.service.settings.password:
            raise web.HTTPSeeOther("/")
        if "restarted" in request.query:  # an open console found the prop started anew
            return self._login_response(request, N_("The prop restarted: log in again."))
        return self._login_response(request)

    async def _login(self, request: web.Request) -> web.StreamResponse:
        if not self.service.settings.password:
            raise web.HTTPSeeOther("/")
        form = await self.service.login_form(
            request,
            lambda message, status, **values: self._login_response(request, message, status, **values),
            wrong="console password",
            pages="console",
        )
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
        return await self.service.stream(request, self.view(self.texts.console_language(request)))

    # -- the live updates in the page's language -------------------------------------------------
    def view(self, language: str) -> View:
        """What a console page in ``language`` gets of an update: everything, the state's words and
        the log's lines in its language (:mod:`.words`)."""
        if language not in self._views:
            t = self.texts.catalog(language)

            def view(update: dict[str, Any]) -> dict[str, Any]:
                out = dict(update)
                if "state" in update and language != SOURCE:
                    out["state"] = {**update["state"], "words": self._words(update["state"]["doc"], language)}
                if "log" in update:
                    out["log"] = [_line(entry, t) for entry in update["log"]]
                return out

            self._views[language] = view
        return self._views[language]

    def _words(self, doc: dict[str, Any], language: str) -> dict[str, Any]:
        """The state's words in ``language``, said once for each state document (web thread only)."""
        said = self._said.get(language)
        if said is None or said[0] is not doc:
            said = (doc, words(doc, self.texts.catalog(language), language))
            self._said[language] = said
        return said[1]

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
