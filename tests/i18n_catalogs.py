"""The tests' catalogs: a fresh extraction of every message with ``pybabel extract`` (as a
translator makes the template), and a pseudo-translation of it that brackets every message, so
that a page shown in it has each translated text in ``⟦...⟧`` and any text left unmarked shows
bare (the pseudo-localisation check of tests/test_i18n_pages.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po, write_po

from firmware.i18n import LOCALE_DIR, use_catalogs

ROOT = Path(__file__).resolve().parent.parent
#: The pseudo-translation's code: a language CLDR knows that the prop has no catalog for.
PSEUDO = "eo"
OPEN, CLOSE = "⟦", "⟧"


def extract(out: Path) -> Path:
    """Every message of the sources, as ``babel.cfg`` says, into the template ``out``."""
    CommandLineInterface().run(
        ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "-c", "TRANSLATORS:", "--no-wrap"]
        + ["-o", str(out), str(ROOT)]
    )
    return out


def bracketed(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


def pseudo_catalog(template: Path, where: Path, code: str = PSEUDO) -> Path:
    """``code``'s catalog in ``where``: every message of ``template`` translated as itself in brackets."""
    with template.open("rb") as source:
        catalog = read_po(source, locale=code)
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            message.string = tuple(bracketed(form) for form in message.id)
        else:
            message.string = bracketed(message.id)
    path = where / code / "LC_MESSAGES" / "baccarat.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        write_po(out, catalog)
    return path


@contextmanager
def catalogs_with_pseudo(tmp: Path) -> Iterator[Path]:
    """The prop reads its own catalogs and the pseudo-translation of a fresh extraction (from ``tmp``)."""
    where = tmp / "locale"
    for po in LOCALE_DIR.glob("*/LC_MESSAGES/baccarat.po"):
        target = where / po.relative_to(LOCALE_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(po, target)
    pseudo_catalog(extract(tmp / "fresh.pot"), where)
    use_catalogs(where)
    try:
        yield where
    finally:
        use_catalogs(LOCALE_DIR)
