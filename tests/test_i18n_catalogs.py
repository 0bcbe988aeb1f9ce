"""The language catalogs: the template up to date, English, French, German and Spanish complete as
gettext's own ``msgfmt`` counts them, every translation keeping its message's fields, the
displays' words short enough for an OLED, and the build (``python -m firmware.i18n``) in pure Python."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from gettext import GNUTranslations
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from firmware.i18n import LOCALE_DIR, accepted, language_name, languages, negotiate
from firmware.i18n.catalogs import build, js_catalog, js_source
from tests.i18n_catalogs import ROOT, extract

#: The languages that must be complete (issue 34); others a volunteer adds may be partial.
COMPLETE = ("fr", "de", "es")
FIELD = re.compile(r"\{(\w*)\}")


def catalog(path: Path, locale: str | None = None):
    with path.open("rb") as source:
        return read_po(source, locale=locale)


def msgids(messages) -> set:
    return {message.id if isinstance(message.id, str) else tuple(message.id) for message in messages if message.id}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    return extract(tmp_path_factory.mktemp("pot") / "fresh.pot")


def test_the_template_has_every_message_of_the_sources(fresh):
    committed = msgids(catalog(LOCALE_DIR / "baccarat.pot"))
    extracted = msgids(catalog(fresh))
    assert extracted - committed == set(), "messages not in firmware/locale/baccarat.pot (run pybabel extract)"
    assert committed - extracted == set(), "messages in baccarat.pot that no source has any more"


#: The calls ``pybabel extract`` reads as messages (babel.cfg's default keywords).
KEYWORDS = {"_", "gettext", "ngettext", "pgettext", "npgettext", "dgettext", "dngettext", "N_"}


def test_no_message_is_marked_inside_an_f_string():
    """Python 3.12's tokenizer splits an f-string into tokens, so ``pybabel extract`` finds a
    ``gettext()`` inside one's braces where 3.11's (one string token) never did: the template
    would depend on the Python that made it. A message is fetched before the f-string instead."""
    inside = []
    for path in sorted((ROOT / "firmware").rglob("*.py")) + sorted((ROOT / "baccarat_core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.JoinedStr):
                continue
            for call in ast.walk(node):
                if isinstance(call, ast.Call):
                    name = getattr(call.func, "id", None) or getattr(call.func, "attr", None)
                    if name in KEYWORDS:
                        inside.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert not inside, f"gettext inside an f-string (take it out, into a name): {inside}"


@pytest.mark.parametrize("language", COMPLETE)
def test_a_complete_language_has_every_message_translated_and_none_fuzzy(language):
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("gettext's msgfmt is not installed (apt-get install gettext; scripts/test.sh does)")
    po = LOCALE_DIR / language / "LC_MESSAGES" / "baccarat.po"
    done = subprocess.run(
        [msgfmt, "--check", "--statistics", "-o", "/dev/null", str(po)], capture_output=True, text=True, timeout=60
    )
    said = done.stderr.strip()
    assert done.returncode == 0, said
    assert re.fullmatch(r"\d+ translated messages?\.", said), f"{language}: {said}"
    template = msgids(catalog(LOCALE_DIR / "baccarat.pot"))
    assert msgids(catalog(po)) == template, f"{language}: not the template's messages (run pybabel update)"
    assert int(said.split()[0]) == len(template)


@pytest.mark.parametrize("language", [code for code in languages() if code != "en"])
def test_every_translation_keeps_its_messages_fields(language):
    wrong = []
    for message in catalog(LOCALE_DIR / language / "LC_MESSAGES" / "baccarat.po", language):
        if not message.id or message.fuzzy:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        fields = set(FIELD.findall(ids[-1])) | set(FIELD.findall(ids[0]))
        for string in strings:
            if string and set(FIELD.findall(string)) - fields:
                wrong.append((ids[0], string))
            if string and not isinstance(message.id, str) and set(FIELD.findall(string)) != set(FIELD.findall(ids[1])):
                wrong.append((ids[1], string))
            if string and isinstance(message.id, str) and set(FIELD.findall(string)) != fields:
                wrong.append((ids[0], string))
    assert not wrong, f"{language}: fields lost or invented: {wrong[:5]}"


@pytest.mark.parametrize("language", COMPLETE)
def test_the_displays_words_fit_the_oleds(language):
    """A message whose translators' note says "at most N" (or "exactly N") characters keeps to it."""
    too_long = []
    for message in catalog(LOCALE_DIR / language / "LC_MESSAGES" / "baccarat.po", language):
        note = " ".join(message.auto_comments)
        limit = re.search(r"(at most|exactly) (\d+)", note)
        if not message.id or limit is None:
            continue
        most = int(limit.group(2))
        for string in [message.string] if isinstance(message.string, str) else message.string:
            shown = FIELD.sub("99", string)
            if len(shown) > most or (limit.group(1) == "exactly" and len(shown) != most):
                too_long.append((message.id, string, most))
    assert not too_long, f"{language}: longer than a display allows: {too_long}"


def test_the_build_compiles_every_catalog_in_pure_python(tmp_path):
    where = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, where, ignore=shutil.ignore_patterns("*.mo", "*.json"))
    written = build(where)
    assert sorted(path.name for path in written) == sorted(["baccarat.mo", "baccarat-js.json"] * len(COMPLETE))
    with (where / "fr" / "LC_MESSAGES" / "baccarat.mo").open("rb") as compiled:
        french = GNUTranslations(compiled)
    assert french.gettext("Force solve") == "Forcer la résolution"
    assert french.ngettext("{n} STRIKE", "{n} STRIKES", 0) == "{n} ERREUR"  # French: 0 is singular
    assert french.ngettext("{n} STRIKE", "{n} STRIKES", 2) == "{n} ERREURS"


def test_the_pages_javascript_catalog_holds_the_javascript_messages_only():
    german = js_catalog("de")
    assert german["plural"] == "(n != 1)"
    assert german["messages"]["Force solve"] == "Lösen erzwingen"  # console.js
    assert "STRIKES" not in german["messages"]  # the casing's (Python) only
    source = js_source("fr")
    assert source.startswith("// The prop's messages") and "plural: (n) => Number((n > 1))" in source
    assert js_catalog("en") == {"plural": "(n != 1)", "messages": {}}


def test_a_broken_catalog_is_one_line_and_a_failing_build(tmp_path):
    po = tmp_path / "locale" / "fr" / "LC_MESSAGES" / "baccarat.po"
    po.parent.mkdir(parents=True)
    text = (LOCALE_DIR / "fr" / "LC_MESSAGES" / "baccarat.po").read_text(encoding="utf-8")
    po.write_text(text.replace("plural=(n > 1);", "plural=alert(n);"), encoding="utf-8")
    with pytest.raises(ValueError, match="plural rule"):
        build(tmp_path / "locale")
    script = "from pathlib import Path; from firmware.i18n import use_catalogs; "
    script += f"use_catalogs(Path({str(tmp_path / 'locale')!r})); "
    script += "from firmware.i18n.__main__ import main; raise SystemExit(main())"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: the language catalogs cannot be built:") and "plural rule" in done.stderr


def test_a_browser_gets_the_language_it_asks_for():
    assert accepted("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ["fr-CH", "fr", "en", "de"]
    assert negotiate("de-AT,de;q=0.9") == "de"
    assert negotiate("es-419, en;q=0.5") == "es"
    assert negotiate("ja, zh;q=0.9") == "en"
    assert negotiate("fr;q=0, de") == "de"
    assert negotiate(None) == negotiate("") == negotiate(";;;q=x,,") == "en"
    assert [language_name(code) for code in ("en", "fr", "de", "es")] == ["English", "Français", "Deutsch", "Español"]
