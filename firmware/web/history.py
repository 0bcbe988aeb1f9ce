"""The History view: how each game went, its downloads, its replay, and the stuck indicator.

Behind the console's own login (a console session: this machine without a password, the
password with one), registered on the console's application like the players' pages:

=====================================  ========================================================
``GET /history``                       the page (``history.html``, ``history.js``)
``GET /history/api/games``             the last games (newest first), the averages, the stuck
                                       indicator and how many lines were skipped
``GET /history/api/stuck``             the stuck indicator and the prop's clock (the console's
                                       block reads it once, then ticks in the browser)
``GET /history/api/replay/ID/N``       chapter N of game ID's replay: its steps, each with the
                                       displays' frames (PNG, each picture once) and a line
``GET /history/games.csv``, ``.json``  every game kept, to download
=====================================  ========================================================

The file is read when a page asks, on a worker thread (never the game's, never the web loop);
frames are drawn there too, by the render functions the daemon uses.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from gettext import NullTranslations
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baccarat_core import BaccaratError

from ..history import replay
from ..history.games import Game, Problem, averages, to_csv
from ..history.store import MemoryStore
from ..i18n import SOURCE, translations
from .live import png_data_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..history.keeper import HistoryKeeper
    from .host import Host as WebService  # its shape: server.py imports this module

log = logging.getLogger("baccarat.web")

#: Games the view lists (the downloads have every game kept).
LISTED = 200
#: Replay chapters kept drawn (a game master steps back and forth through a few rounds).
CHAPTERS_KEPT = 16


class HistoryPages:
    """The History view's routes, registered on the console's application by :meth:`register`."""

    def __init__(self, service: WebService, keeper: HistoryKeeper, displays: replay.Displays) -> None:
        self.service = service
        self.keeper = keeper
        self.displays = displays
        self._drawn: OrderedDict[tuple[str, int, int, str], dict[str, Any]] = OrderedDict()
        self._reported: set[tuple[str, int, str]] = set()

    def register(self, app: web.Application) -> None:
        """Add the routes to ``app``."""
        app.router.add_get("/history", self._history_page)
        app.router.add_get("/history/api/games", self._games)
        app.router.add_get("/history/api/stuck", self._stuck)
        app.router.add_get("/history/api/replay/{game}/{chapter}", self._replay)
        app.router.add_get("/history/games.csv", self._csv)
        app.router.add_get("/history/games.json", self._json_download)

    # -- who may see it: the console's session ----------------------------------------------------
    def _refused(self, request: web.Request, *, page: bool = False) -> web.StreamResponse | None:
        session, _ = self.service._session(request)
        if session is not None:
            return None
        if page and self.service.settings.password:
            raise web.HTTPSeeOther("/login")
        if page:
            return web.Response(status=403, text="this console answers on localhost only\n")
        return _json({"ok": False, "error": "not logged in"}, 401)

    # -- reading (a worker thread) -----------------------------------------------------------------
    def _read(self) -> tuple[list[Game], list[Problem], str | None]:
        """The games kept and the lines skipped (each logged once), or a reason the file cannot be read."""
        try:
            games, problems = self.keeper.games()
        except (OSError, BaccaratError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            return [], [], f"the history file {self.keeper.store.where} cannot be read: {reason}"
        for problem in problems:
            key = (problem.where, problem.line, problem.reason)
            if key not in self._reported:
                self._reported.add(key)
                log.warning("history: %s", problem.describe())
        whole = [p.describe() for p in problems if p.line == 0]  # a file that cannot be read at all
        return games, problems, "; ".join(whole) or None

    def _listing(self) -> dict[str, Any]:
        games, problems, error = self._read()
        now = time.time()
        current = self.keeper.current_id
        return {
            "ok": error is None,
            "error": error,
            "now": now,
            "where": self.keeper.store.where,
            "in_memory": isinstance(self.keeper.store, MemoryStore),  # the page says it in its language
            "current": current,
            "games": [g.summary(now if g.id == current else None) for g in reversed(games[-LISTED:])],
            "total": len(games),
            "averages": averages(games),
            "skipped": len(problems),
            "stuck": self.keeper.document(),
        }

    async def _in_worker(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # -- the routes -------------------------------------------------------------------------------------
    async def _history_page(self, request: web.Request) -> web.StreamResponse:
        refused = self._refused(request, page=True)
        if refused is not None:
            return refused
        texts = self.service.texts
        page = texts.page("history.html", texts.console_language(request))
        return web.Response(text=page, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _games(self, request: web.Request) -> web.StreamResponse:
        refused = self._refused(request)
        if refused is not None:
            return refused
        return _json(await self._in_worker(self._listing))

    async def _stuck(self, request: web.Request) -> web.StreamResponse:
        refused = self._refused(request)
        if refused is not None:
            return refused
        return _json({"ok": True, "now": time.time(), **self.keeper.document()})

    async def _csv(self, request: web.Request) -> web.StreamResponse:
        def build() -> str:
            games, _, _ = self._read()
            return to_csv(g.summary() for g in games)

        return await self._download(request, build, "text/csv", "baccarat-games.csv")

    async def _json_download(self, request: web.Request) -> web.StreamResponse:
        def build() -> str:
            games, _, _ = self._read()
            return json.dumps(
                {
                    "games": [{"summary": g.summary(), "lines": g.lines()} for g in games],
                    "averages": averages(games),
                },
                indent=1,
            )

        return await self._download(request, build, "application/json", "baccarat-games.json")

    async def _download(
        self, request: web.Request, build: Callable[[], str], content_type: str, filename: str
    ) -> web.StreamResponse:
        """A file to save, made by ``build`` on a worker thread, for a signed-in console only."""
        refused = self._refused(request)
        if refused is not None:
            return refused
        return web.Response(
            text=await self._in_worker(build),
            content_type=content_type,
            headers={"Cache-Control": "no-store", "Content-Disposition": f'attachment; filename="{filename}"'},
        )

    async def _replay(self, request: web.Request) -> web.StreamResponse:
        refused = self._refused(request)
        if refused is not None:
            return refused
        game_id = request.match_info["game"]
        try:
            chapter = int(request.match_info["chapter"])
        except ValueError:
            return _json({"ok": False, "error": "the chapter must be a whole number"}, 400)
        language = self.service.texts.console_language(request)
        answer, status = await self._in_worker(self._draw_chapter, game_id, chapter, language)
        return _json(answer, status)

    def _draw_chapter(self, game_id: str, chapter: int, language: str = SOURCE) -> tuple[dict[str, Any], int]:
        games, _, error = self._read()
        game = next((g for g in games if g.id == game_id), None)
        if game is None:
            return {"ok": False, "error": error or f"no game {game_id[:40]!r} in the history"}, 404
        count = replay.chapters(game)
        if not 0 <= chapter < count:
            return {"ok": False, "error": f"chapter {chapter} is not in 0-{count - 1}"}, 404
        key = (game_id, chapter, len(game.entries) + (1 if game.end else 0), language)  # a game being played grows
        cached = self._drawn.get(key)
        if cached is None:
            cached = self._render(game, chapter, translations(language))
            self._drawn[key] = cached
            while len(self._drawn) > CHAPTERS_KEPT:
                self._drawn.popitem(last=False)
        answer = {"ok": True, "game": game.summary(), "chapters": count, "rounds": len(game.rounds), "chapter": chapter}
        return {**answer, **cached}, 200

    def _render(self, game: Game, chapter: int, t: NullTranslations) -> dict[str, Any]:
        images: list[str] = []
        index: dict[bytes, int] = {}
        out = []
        for step in replay.steps(game, chapter, t):  # each step's line in the page's language
            frames: dict[str, int] = {}
            for role, image in replay.draw(step, self.displays).items():
                key = image.mode.encode() + bytes(image.size[0].to_bytes(2, "big")) + image.tobytes()
                if key not in index:
                    index[key] = len(images)
                    images.append(png_data_url(image))
                frames[role] = index[key]
            out.append({"label": step.label, "frames": frames})
        return {"steps": out, "images": images, "roles": list(self.displays)}


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(data, status=status, headers={"Cache-Control": "no-store"})
