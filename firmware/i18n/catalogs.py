"""Building the catalogs: each language's ``.po`` compiled by Babel, in pure Python.

``python -m firmware.i18n`` (run by ``scripts/_venv.sh`` at each install and update, and by
the tests' setup) writes, beside each ``<code>/LC_MESSAGES/baccarat.po``:

- ``baccarat.mo``: the compiled catalog gettext reads (fuzzy entries left out, as ``msgfmt`` does);
- ``baccarat-js.json``: the messages the pages' JavaScript uses (those the ``.po`` locates in a
  ``.js`` file) and the plural rule, which the console serves as ``/i18n/<code>.js``.

Both are build output (``.gitignore``); a language whose files are missing or older than its
``.po`` is compiled in memory when asked for (:func:`load`, :func:`js_catalog`), with one log line.
"""

from __future__ import annotations

import io
import json
import logging
import re
from functools import lru_cache
from gettext import GNUTranslations
from pathlib import Path
from typing import Any

from . import DOMAIN, languages, locale_dir

log = logging.getLogger("baccarat")

#: What a plural rule may hold (it becomes JavaScript): ``n``, numbers, operators, brackets.
_PLURAL = re.compile(r"[\sn0-9()?:<>=!%&|+\-*/]+")


def po_path(language: str, where: Path | None = None) -> Path:
    """Where ``language``'s catalog is written by its translators (in ``where``, default the prop's)."""
    return (where or locale_dir()) / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(language: str, where: Path | None = None) -> Any:
    """``language``'s ``.po`` read by Babel (a :class:`babel.messages.catalog.Catalog`)."""
    from babel.messages.pofile import read_po

    with po_path(language, where).open("rb") as source:
        return read_po(source, locale=language, domain=DOMAIN)


def mo_bytes(catalog: Any) -> bytes:
    """``catalog`` compiled to a ``.mo`` (fuzzy entries left out)."""
    from babel.messages.mofile import write_mo

    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def plural_rule(catalog: Any) -> str:
    """The catalog's plural rule (``(n != 1)``), checked to be a plain expression of ``n``."""
    expression = str(catalog.plural_expr)
    if not _PLURAL.fullmatch(expression):
        raise ValueError(f"{catalog.locale}: plural rule {expression[:60]!r} is not an expression of n")
    return expression


def js_messages(catalog: Any) -> dict[str, Any]:
    """``{"plural": rule, "messages": {msgid: msgstr or [forms]}}``: the translated messages that a
    ``.js`` file uses (by the ``.po``'s locations), fuzzy and empty ones left out."""
    messages: dict[str, Any] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not any(str(where).endswith(".js") for where, _ in message.locations):
            continue
        if isinstance(message.id, tuple | list):
            forms = list(message.string)
            if all(forms):
                messages[message.id[0]] = forms
        elif message.string:
            messages[message.id] = message.string
    return {"plural": plural_rule(catalog), "messages": messages}


def build(where: Path | None = None) -> list[Path]:
    """Compile every language's ``.po`` in ``where`` (default the prop's) to its ``.mo`` and
    ``-js.json``; returns the files written."""
    written = []
    for po in sorted((where or locale_dir()).glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        language = po.parent.parent.name
        catalog = read_catalog(language, where)
        mo = po.with_suffix(".mo")
        mo.write_bytes(mo_bytes(catalog))
        js = po.with_name(f"{DOMAIN}-js.json")
        js.write_text(json.dumps(js_messages(catalog), ensure_ascii=False, sort_keys=True), encoding="utf-8")
        written += [mo, js]
    return written


def _fresh(built: Path, source: Path) -> bool:
    try:
        return built.stat().st_mtime >= source.stat().st_mtime
    except OSError:
        return False


def _not_built(language: str) -> None:
    log.warning(
        "language %s: its catalog is not built (python -m firmware.i18n builds it); compiled in memory", language
    )


def load(language: str) -> GNUTranslations:
    """``language``'s compiled catalog: its ``.mo``, or the ``.po`` compiled now if the ``.mo`` is
    missing or older."""
    po = po_path(language)
    mo = po.with_suffix(".mo")
    if _fresh(mo, po):
        with mo.open("rb") as compiled:
            return GNUTranslations(compiled)
    _not_built(language)
    return GNUTranslations(io.BytesIO(mo_bytes(read_catalog(language))))


@lru_cache(maxsize=16)
def js_catalog(language: str) -> dict[str, Any]:
    """The pages' JavaScript catalog of ``language`` (:func:`js_messages`); English has none."""
    if language not in languages() or not po_path(language).is_file():
        return {"plural": "(n != 1)", "messages": {}}
    po = po_path(language)
    built = po.with_name(f"{DOMAIN}-js.json")
    if _fresh(built, po):
        data: dict[str, Any] = json.loads(built.read_text(encoding="utf-8"))
        if _PLURAL.fullmatch(str(data.get("plural", ""))) and isinstance(data.get("messages"), dict):
            return data
    _not_built(language)
    return js_messages(read_catalog(language))


def js_source(language: str) -> str:
    """``/i18n/<code>.js``: the catalog for the pages' ``static/i18n.js``, as a script (the pages'
    Content-Security-Policy runs scripts from the prop only, never a string as code)."""
    data = js_catalog(language)
    messages = json.dumps(data["messages"], ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return (
        "// The prop's messages for the pages' JavaScript in this language (firmware/i18n/catalogs.py).\n"
        '"use strict";\n'
        f"window.BACCARAT_I18N = {{ language: {json.dumps(language)}, "
        f"plural: (n) => Number({data['plural']}), messages: {messages} }};\n"
    )
