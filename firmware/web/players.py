"""The players' pages: the bomb casing (``/casing``) and the module on a tablet (``/play``).

They show only what a player sees on a real bomb: the casing (serial number,
port plates, indicators, batteries, strikes, the timer's place; in an OBUS bomb every module of
it, registered, solved or not, with its strikes, and its puzzle modules solved of all:
:func:`bomb_count`), and on
``/play`` the front panel with the displays' frames and the lights. Their
event streams carry nothing else: each update from the console's hub passes
through a view (:func:`casing_view`, :func:`play_view`) that keeps only those
keys, so the state document, the answer, the deck and the log never reach
them.

Who may open them:

=================================  ==============================================================
``GET /casing``                    the casing, live (``/casing/events``; ``/casing.svg`` the
                                   drawing alone); with ``[web] casing_public = true`` anyone on
                                   the network, read-only; else as the console (this machine
                                   without a password, a login with one)
``GET /play``                      the front panel and the casing, pressable where the console's
                                   front panel is (the simulator's mock pins); a login of its own
                                   (``/play/login``, the game master's password) whose cookie
                                   opens the players' pages only, never the console
``GET /panel.json``                the front panel's layout (``firmware/devices/panel.py``)
=================================  ==============================================================
"""

from __future__ import annotations

import json
import logging
from html import escape
from typing import TYPE_CHECKING, Any

from aiohttp import web

from ..casing import Casing
from ..casing.layout import casing_svg
from ..devices.panel import layout as panel_layout
from ..i18n import SOURCE, language_name, languages
from .auth import Sessions, login_response

if TYPE_CHECKING:
    from .host import Host as WebService  # its shape: server.py imports this module
    from .live import View

log = logging.getLogger("baccarat.web")

#: The players' session cookie: another name than the console's, so it never opens the console.
PLAY_COOKIE = "baccarat_play"
#: Open players' event streams at most (a public casing is open to the whole network).
MAX_STREAMS = 32
#: Where a players' login may send the browser on.
NEXT_PAGES = ("/play", "/casing")


class CasingCache:
    """The casing of the newest state document, drawn once in each language for every page (web
    thread only)."""

    def __init__(self) -> None:
        self._drawn: dict[str, tuple[str, dict[str, Any]]] = {}

    def get(self, doc: dict[str, Any], language: str = SOURCE) -> dict[str, Any] | None:
        """``{"doc": <the casing's data>, "svg": <its wide drawing>, "svg_tall": <its tall one>}``
        in ``language``, or None if the document has no readable edgework (logged)."""
        try:
            casing = Casing.from_state(doc)
        except Exception as error:  # noqa: BLE001 - a page shows the last good casing
            log.warning("web: casing not drawn: %s", error)
            return None
        data = casing.to_dict()
        key = json.dumps(data, sort_keys=True)
        drawn = self._drawn.get(language)
        if drawn is None or drawn[0] != key:
            svg, tall = casing_svg(casing, "wide", language), casing_svg(casing, "tall", language)
            drawn = (key, {"doc": data, "svg": svg, "svg_tall": tall})
            self._drawn[language] = drawn
        return drawn[1]


class PlayerPages:
    """The players' routes, registered on the console's application by :meth:`register`."""

    def __init__(self, service: WebService) -> None:
        self.service = service
        self.settings = service.settings
        self.sessions = Sessions()
        self.cache = CasingCache()
        self.streams = 0
        self.texts = service.texts

    def register(self, app: web.Application) -> None:
        """Add the routes to ``app``."""
        app.router.add_get("/casing", self._casing_page)
        app.router.add_get("/casing.svg", self._casing_svg)
        app.router.add_get("/casing/events", self._casing_events)
        app.router.add_get("/panel.json", self._panel_layout)
        app.router.add_get("/play", self._play_page)
        app.router.add_get("/play/login", self._login_page)
        app.router.add_post("/play/login", self._login_post)
        app.router.add_get("/play/session", self._play_session_info)
        app.router.add_get("/play/events", self._play_events)
        app.router.add_post("/play/panel", self._play_panel)

    # -- the views: what a player's page may see of an update -----------------------------------
    def _casing(self, update: dict[str, Any], language: str) -> dict[str, Any]:
        state = update.get("state")
        casing = self.cache.get(state["doc"], language) if state else None
        out: dict[str, Any] = {"casing": casing} if casing is not None else {}
        if state:
            out.update(bomb_count(state["doc"]))
        return out

    def casing_view(self, language: str = SOURCE) -> View:
        """What ``/casing`` in ``language`` sees of an update: the casing (its data and both
        drawings: a phone held upright shows the tall one), from its state document; nothing else."""
        return lambda update: self._casing(update, language)

    def play_view(self, language: str = SOURCE) -> View:
        """What ``/play`` in ``language`` sees of an update: the displays' frames, the lights and the
        casing; nothing else."""

        def view(update: dict[str, Any]) -> dict[str, Any]:
            out: dict[str, Any] = {key: update[key] for key in ("frames", "lights") if key in update}
            out.update(self._casing(update, language))
            return out

        return view

    # -- who may see what ----------------------------------------------------------------------------
    def _play_session(self, request: web.Request, *, create: bool = False) -> tuple[Any, bool]:
        """The request's players' session, and whether it was made just now (then set the cookie)."""
        session = self.sessions.get(request.cookies.get(PLAY_COOKIE))
        if self.settings.password:
            return session, False
        if not self.service._host_is_local(request):
            return None, False
        if session is None and create:
            return self.sessions.create(), True
        return session, False

    def _may_view(self, request: web.Request) -> bool:
        """The casing and the panel's layout: public with ``casing_public``, else as the console
        (this machine without a password; a console or players' login with one)."""
        if self.settings.casing_public:
            return True
        if not self.settings.password:
            return self.service._host_is_local(request)
        console, _ = self.service._session(request)
        return console is not None or self._play_session(request)[0] is not None

    def _refused_page(self, request: web.Request, page: str) -> web.StreamResponse:
        if self.settings.password:
            raise web.HTTPSeeOther(f"/play/login?next={page}")
        return web.Response(status=403, text="this page answers on localhost only\n")

    @staticmethod
    def _set_cookie(response: web.StreamResponse, session: Any) -> None:
        response.set_cookie(PLAY_COOKIE, session.token, httponly=True, samesite="Strict", path="/")

    def _html(self, text: str) -> web.Response:
        return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-store"})

    def _page(self, name: str, language: str) -> str:
        """A players' page in ``language``, with the language picker's choices."""
        picker = "".join(
            f'<option value="{code}"{" selected" if code == language else ""}>{escape(language_name(code))}</option>'
            for code in languages()
        )
        return self.texts.page(name, language).replace("<!--languages-->", picker)

    # -- the casing --------------------------------------------------------------------------------------
    def _casing_now(self, language: str = SOURCE) -> dict[str, Any] | None:
        return self.cache.get(self.service.backend.page().state, language)

    async def _casing_page(self, request: web.Request) -> web.StreamResponse:
        if not self._may_view(request):
            return self._refused_page(request, "/casing")
        language = self.texts.players_language(request)
        casing = self._casing_now(language)
        return self._html(self._page("casing.html", language).replace("<!--casing-->", casing["svg"] if casing else ""))

    async def _casing_svg(self, request: web.Request) -> web.StreamResponse:
        if not self._may_view(request):
            return _json({"ok": False, "error": "not logged in"}, 401)
        casing = self._casing_now(self.texts.players_language(request))
        if casing is None:
            return _json({"ok": False, "error": "the prop's edgework cannot be drawn; its log says why"}, 503)
        return web.Response(text=casing["svg"], content_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def _casing_events(self, request: web.Request) -> web.StreamResponse:
        if not self._may_view(request):
            return _json({"ok": False, "error": "not logged in"}, 401)
        return await self._stream(request, self.casing_view(self.texts.players_language(request)))

    async def _panel_layout(self, request: web.Request) -> web.StreamResponse:
        if not self._may_view(request):
            return _json({"ok": False, "error": "not logged in"}, 401)
        return web.json_response(panel_layout(), headers={"Cache-Control": "max-age=3600"})

    # -- /play -------------------------------------------------------------------------------------------
    async def _play_page(self, request: web.Request) -> web.StreamResponse:
        session, new = self._play_session(request, create=True)
        if session is None:
            return self._refused_page(request, "/play")
        response = self._html(self._page("play.html", self.texts.players_language(request)))
        if new:
            self._set_cookie(response, session)
        return response

    def _login_response(
        self, request: web.Request, message: str = "", status: int = 200, **values: str
    ) -> web.Response:
        nxt = request.query.get("next", "/play")
        language = self.texts.players_language(request)
        page = self._page("play-login.html", language).replace("<!--next-->", nxt if nxt in NEXT_PAGES else "/play")
        said = self.texts.catalog(language).gettext(message).format(**values) if message else ""
        return login_response(page, escape(said), status)

    async def _login_page(self, request: web.Request) -> web.StreamResponse:
        if not self.settings.password:
            raise web.HTTPSeeOther("/play")
        return self._login_response(request)

    async def _login_post(self, request: web.Request) -> web.StreamResponse:
        if not self.settings.password:
            raise web.HTTPSeeOther("/play")
        form = await self.service.login_form(  # one count of wrong passwords with the console's login
            request,
            lambda message, status, **values: self._login_response(request, message, status, **values),
            wrong="password for the players' pages",
            pages="players' pages",
        )
        if isinstance(form, web.Response):
            return form
        nxt = form.get("next")
        session = self.sessions.create()
        response = web.HTTPSeeOther(nxt if isinstance(nxt, str) and nxt in NEXT_PAGES else "/play")
        self._set_cookie(response, session)
        raise response

    async def _play_session_info(self, request: web.Request) -> web.StreamResponse:
        session, _ = self._play_session(request)
        if session is None:
            return _json({"ok": False, "error": "not logged in"}, 401)
        return _json(
            {
                "ok": True,
                "csrf": session.csrf,
                "roles": list(self.service.backend.roles),
                "front_panel": self.service.front_panel,
            }
        )

    async def _play_events(self, request: web.Request) -> web.StreamResponse:
        session, _ = self._play_session(request)
        if session is None:
            return _json({"ok": False, "error": "not logged in"}, 401)
        return await self._stream(request, self.play_view(self.texts.players_language(request)))

    async def _play_panel(self, request: web.Request) -> web.StreamResponse:
        refused = self.service.post_refused(request, self._play_session(request)[0])
        if refused is not None:
            return refused
        if not self.service.front_panel:
            return _json({"ok": False, "error": "this prop's front panel cannot be pressed from a page"}, 404)
        return await self.service.press_panel(request, name_inputs=False)

    # -- the streams ---------------------------------------------------------------------------------------
    async def _stream(self, request: web.Request, view: View) -> web.StreamResponse:
        """The console's event stream (:meth:`~.server.WebService.stream`) through ``view``, at most
        :data:`MAX_STREAMS` at once."""
        if self.streams >= MAX_STREAMS:
            return _json({"ok": False, "error": f"{MAX_STREAMS} players' pages are open already"}, 503)
        self.streams += 1
        try:
            return await self.service.stream(request, view)
        finally:
            self.streams -= 1


def bomb_count(doc: dict[str, Any]) -> dict[str, Any]:
    """``{"bomb": {...}}``: an OBUS bomb as the players see it beside the casing's timer (the state
    document's ``obus`` part): every module of the bomb, the prop's own first (``modules``: each
    one's ``type`` and ``id`` on the bus, ``solved``, ``strikes``; the prop's marked ``prop``; every
    one listed is registered but the prop's own while ``phase`` says it waits for the controller's
    ACK), and the puzzle modules ``solved`` and in all (``puzzles``) once the
    bomb's count is known; the record the history keeps (:func:`~firmware.history.bomb.bomb_record`).
    ``{}`` without a part, ``{"bomb": None}`` for one that says no role."""
    part = doc.get("obus")
    if not isinstance(part, dict):
        return {}
    from ..history.bomb import bomb_record

    try:
        record = bomb_record(part)
    except (KeyError, TypeError, ValueError) as error:  # a part the service did not make: nothing shown
        log.warning("web: the bomb's modules not shown: %s", error)
        record = None
    if record is None:
        return {"bomb": None}
    shown: dict[str, Any] = {key: record[key] for key in ("modules", "solved", "puzzles", "strikes") if key in record}
    if part.get("phase") in UNREGISTERED:
        shown["phase"] = part["phase"]  # the prop's own module is not registered yet: its row says so
    return {"bomb": shown}


#: The module role's phases before the controller's ACK: the prop is on the bus, not yet in a game.
UNREGISTERED = frozenset({"idle", "info", "waiting"})


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(data, status=status, headers={"Cache-Control": "no-store"})
