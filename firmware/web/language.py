"""The pages' language: which one a request gets, the pages in it, and their JavaScript catalog.

=============================  ==========================================================
``GET /i18n/<code>.js``        the messages the pages' JavaScript says in that language and
                               its plural rule (:func:`firmware.i18n.catalogs.js_source`),
                               for ``static/i18n.js``; public (it holds no secret)
=============================  ==========================================================

The console's language is ``[web] language``, else the browser's ``Accept-Language``, else
English. The players' pages have a picker (``players.js``) that keeps its choice in the
:data:`COOKIE`; without one they speak as the console does.
"""

from __future__ import annotations

import hashlib
from gettext import NullTranslations
from pathlib import Path

from aiohttp import web

from ..i18n import languages, negotiate, translations
from ..i18n.catalogs import js_source
from ..i18n.html import translate
from .settings import WebSettings

#: The players' pages' language picker's choice (a language code; read by this module only).
COOKIE = "baccarat_lang"


class PageTexts:
    """The pages (``static/*.html``) in each language, translated once, and the language of a request."""

    def __init__(self, static_dir: Path, settings: WebSettings) -> None:
        self.static_dir = static_dir
        self.settings = settings
        self._pages: dict[tuple[str, str], str] = {}
        self._scripts: dict[str, tuple[str, str]] = {}

    def console_language(self, request: web.Request) -> str:
        """``[web] language``, else the language the browser asks for, else English."""
        if self.settings.language:
            return self.settings.language
        return negotiate(request.headers.get("Accept-Language"))

    def players_language(self, request: web.Request) -> str:
        """The players' picker's choice (its cookie), else as the console."""
        chosen = request.cookies.get(COOKIE, "")
        return chosen if chosen in languages() else self.console_language(request)

    @staticmethod
    def catalog(language: str) -> NullTranslations:
        """The language's messages (:func:`firmware.i18n.translations`)."""
        return translations(language)

    def page(self, name: str, language: str) -> str:
        """``static/<name>`` in ``language`` (:func:`firmware.i18n.html.translate`), read and
        translated once."""
        key = (name, language)
        if key not in self._pages:
            source = (self.static_dir / name).read_text(encoding="utf-8")
            self._pages[key] = translate(source, translations(language).gettext, language)
        return self._pages[key]

    def register(self, app: web.Application) -> None:
        """Add ``/i18n/<code>.js`` to ``app``."""
        app.router.add_get("/i18n/{language}.js", self._script)

    async def _script(self, request: web.Request) -> web.StreamResponse:
        language = request.match_info["language"]
        if language not in languages():
            return web.Response(status=404, text=f"no language {language[:20]!r}\n")
        if language not in self._scripts:
            source = js_source(language)
            self._scripts[language] = (source, '"' + hashlib.sha256(source.encode()).hexdigest()[:20] + '"')
        source, tag = self._scripts[language]
        headers = {"Cache-Control": "no-cache", "ETag": tag}
        if request.headers.get("If-None-Match") == tag:
            return web.Response(status=304, headers=headers)
        return web.Response(text=source, content_type="application/javascript", headers=headers)
