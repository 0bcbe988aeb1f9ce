"""The room's language: gettext catalogs (Babel), one ``.po`` file per language.

Every text a person reads on the prop's pages (the console, the players' pages, the History
view), on the printed casing and in the console's log is an English message of the catalog
``firmware/locale/baccarat.pot``; a language is one file,
``firmware/locale/<code>/LC_MESSAGES/baccarat.po``, that a volunteer adds without code
(``docs/run/language.md``). The install compiles each ``.po`` to a ``.mo`` and to the pages'
JavaScript catalog with Babel, in pure Python (:mod:`.catalogs`); a catalog not built yet is
compiled in memory when first asked for, so nothing needs gettext's tools at run time.

What stays as the original has it: the module's own display text on the OLEDs (unless
``[display] language`` is set), the table limits and chip values as the manual writes them
("$1,500"), and the deck colours' names in the log.

>>> translations("en").gettext("Force solve")
'Force solve'
>>> negotiate("de-CH, de;q=0.9, en;q=0.8", ("en", "de", "fr"))
'de'
>>> negotiate("ja, *;q=0.1", ("en", "de"))
'en'
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gettext import NullTranslations

log = logging.getLogger("baccarat")

#: The gettext domain of every message (one catalog for Python, the pages and their JavaScript).
DOMAIN = "baccarat"
#: Where the catalogs live: ``<code>/LC_MESSAGES/baccarat.po`` (and, built, ``.mo`` and ``-js.json``).
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
_where = [LOCALE_DIR]


def locale_dir() -> Path:
    """The catalogs' directory now: :data:`LOCALE_DIR`, or another given to :func:`use_catalogs`."""
    return _where[0]


def use_catalogs(directory: Path) -> None:
    """Read the catalogs from ``directory`` from now on (the tests' languages), forgetting those read."""
    _where[0] = directory
    for cached in (languages, translations, language_name):
        cached.cache_clear()
    from .catalogs import js_catalog

    js_catalog.cache_clear()


#: The language the messages are written in (no catalog: the message itself).
SOURCE = "en"

#: A catalog's language code: ``fr``, ``de``, ``pt_BR`` (an Accept-Language tag's ``-`` becomes ``_``).
CODE = r"[a-z]{2,3}(_[A-Z][a-z]{3})?(_[A-Z]{2}|_[0-9]{3})?"


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark, translate later"
    """Mark ``message`` for the catalog without translating it here (a table of messages,
    translated where it is shown)."""
    return message


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """The languages the prop speaks: English first, then every catalog's code, sorted."""
    found = sorted(path.parent.parent.name for path in locale_dir().glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (SOURCE, *(code for code in found if re.fullmatch(CODE, code) and code != SOURCE))


def language_problem(value: str) -> str | None:
    """The config's check of a language setting: ``""`` (the browser's) or a catalog's code."""
    if value == "" or value in languages():
        return None
    return f'must be one of {", ".join(languages())}, or "" for the browser\'s'


language_problem.__doc__ = "a catalog's code, or empty"


@lru_cache(maxsize=16)
def translations(language: str) -> NullTranslations:
    """The catalog of ``language`` (English: the messages themselves), built from its ``.po``
    in memory if the install has not compiled it (:func:`.catalogs.load`)."""
    from gettext import NullTranslations  # with the first catalog asked for, not at every start

    if language == SOURCE or language not in languages():
        return NullTranslations()
    from .catalogs import load

    return load(language)


def negotiate(header: str | None, available: tuple[str, ...] | None = None) -> str:
    """The language of ``available`` (default: :func:`languages`) that an ``Accept-Language``
    header prefers most (``fr-CH`` takes ``fr_CH``, then ``fr``); English when it names none."""
    offered = available if available is not None else languages()
    for tag in accepted(header):
        code = tag.replace("-", "_")
        parts = code.split("_")
        exact = "_".join([parts[0].lower(), *(p.upper() if len(p) == 2 else p.title() for p in parts[1:])])
        for candidate in (exact, parts[0].lower()):
            if candidate in offered:
                return candidate
    return SOURCE


def accepted(header: str | None) -> list[str]:
    """An ``Accept-Language`` header's language tags, most wanted first (``q=0`` and ``*`` left out).

    >>> accepted("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")
    ['fr-CH', 'fr', 'en', 'de']
    """
    tags: list[tuple[float, int, str]] = []
    for number, item in enumerate((header or "")[:500].split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                weight = float(match.group(1))
            except ValueError:
                weight = 0.0
        if tag and tag != "*" and weight > 0 and re.fullmatch(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*", tag):
            tags.append((-weight, number, tag))
    return [tag for _, _, tag in sorted(tags)]


@lru_cache(maxsize=32)
def language_name(code: str) -> str:
    """A language's own name for itself, for a picker: ``Français``, ``Deutsch``, ``English``."""
    from babel import Locale, UnknownLocaleError

    try:
        name = Locale.parse(code).get_display_name(code) or code
    except (ValueError, UnknownLocaleError):
        return code
    return name[:1].upper() + name[1:]


#: The environment's language settings, in the order gettext reads them.
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the shell asks for (``LANGUAGE=fr:en``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG=de_DE.UTF-8``),
    as one of :func:`languages`; English for ``C``, ``POSIX``, nothing set or a language with no catalog.

    >>> environment_language({"LANG": "de_AT.UTF-8"})
    'de'
    >>> environment_language({"LANGUAGE": "ja:fr", "LANG": "en_US.UTF-8"})
    'fr'
    >>> environment_language({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"})
    'en'
    """
    values = os.environ if environ is None else environ
    for name in LOCALE_VARIABLES:
        value = values.get(name, "")
        if not value:
            continue
        tags = [item.split(".")[0].split("@")[0].replace("_", "-") for item in value.split(":") if item]
        if not tags or tags[0] in ("C", "POSIX"):
            return SOURCE
        return negotiate(", ".join(tag for tag in tags if tag not in ("C", "POSIX")))
    return SOURCE


def room_language(*configured: str, environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks to the room: the first language the config sets
    (``[web] language``, then ``[display] language``), else the environment's
    (:func:`environment_language`)."""
    for language in configured:
        if language and language in languages():
            return language
    return environment_language(environ)
