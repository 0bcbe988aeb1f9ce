"""The pages' HTML in a language: each visible text a message of the catalog, no markup needed.

A page's every text (each run of text between tags, whitespace collapsed) and its
``title``, ``placeholder``, ``aria-label`` and ``alt`` attributes are messages, unless they hold
no letter or sit in an element marked ``translate="no"`` (HTML's own attribute for it) or in a
``<script>`` or ``<style>``. The extractor (:mod:`.extract`) and the server read a page by the
same walk (:func:`messages`, :func:`translate`), so a text on a page is in the catalog, and
shown translated, or the catalog's test says which is missing. ``translate`` also sets the
page's ``<html lang>`` and points its ``/i18n/<code>.js`` script at the language's catalog.

>>> translate('<p title="Wrong password.">Wrong password. <b translate="no">AB3DE4</b></p>', str.upper, "fr")
'<p title="WRONG PASSWORD.">WRONG PASSWORD. <b translate="no">AB3DE4</b></p>'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import escape
from html.parser import HTMLParser

#: The attributes a person reads (or a screen reader says).
ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
_RAW = ("script", "style")
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_LETTER = re.compile(r"[^\W\d_]")
#: The language's catalog script of a page (``<script src="/i18n/en.js">``).
_CATALOG_SCRIPT = re.compile(r"/i18n/[A-Za-z_]+\.js")


def message(text: str) -> str | None:
    """``text`` as a message (whitespace collapsed), or None when it holds no letter."""
    collapsed = " ".join(text.split())
    return collapsed if _LETTER.search(collapsed) else None


class _Walk(HTMLParser):
    """One pass over a page: its messages, and the page again with each one through ``gettext``."""

    def __init__(self, gettext: Callable[[str], str], language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.gettext = gettext
        self.language = language
        self.out: list[str] = []
        self.found: list[tuple[int, str, str]] = []  # (line, message, where)
        self.stack: list[tuple[str, bool]] = []  # (tag, not translated)

    @property
    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], end: str) -> bool:
        """Write a start tag; returns whether its contents are left untranslated."""
        values = dict(attrs)
        skip = self._skipping or tag in _RAW or values.get("translate") == "no"
        changed = False
        out = []
        for name, value in attrs:
            if value is not None and not skip and name in ATTRIBUTES and (text := message(value)):
                self.found.append((self.getpos()[0], text, f"{tag} {name}"))
                value, changed = self.gettext(text), True
            elif tag == "html" and name == "lang":
                value, changed = self.language, True
            elif value is not None and name in ("src", "href") and _CATALOG_SCRIPT.fullmatch(value):
                value, changed = f"/i18n/{self.language}.js", True
            out.append(name if value is None else f'{name}="{escape(value, quote=True)}"')
        start = self.get_starttag_text() or ""
        self.out.append(f"<{tag}{''.join(' ' + a for a in out)}{end}>" if changed else start)
        return skip

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        skip = self._tag(tag, attrs, "")
        if tag not in _VOID:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, " /")

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][0] in _RAW:
            self.out.append(data)  # a script's or a style's text, as it is
            return
        text = None if self._skipping else message(data)
        if text is None:
            self.out.append(escape(data, quote=False))
            return
        self.found.append((self.getpos()[0], text, "text"))
        lead = data[: len(data) - len(data.lstrip())]
        trail = data[len(data.rstrip()) :]
        self.out.append(lead + escape(self.gettext(text), quote=False) + trail)

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")


def messages(page: str) -> Iterator[tuple[int, str, str]]:
    """Every message of ``page``: ``(line, message, where)``, where is ``text`` or the element
    and attribute (``input placeholder``)."""
    walk = _Walk(lambda text: text, "en")
    walk.feed(page)
    walk.close()
    yield from walk.found


def translate(page: str, gettext: Callable[[str], str], language: str) -> str:
    """``page`` with each message through ``gettext``, its ``<html lang>`` set to ``language`` and
    its catalog script (``/i18n/<code>.js``) that language's."""
    walk = _Walk(gettext, language)
    walk.feed(page)
    walk.close()
    return "".join(walk.out)
