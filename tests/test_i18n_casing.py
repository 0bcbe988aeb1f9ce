"""The printable casing in a language (``baccarat casing --language``): its words, the manual's QR
code and link (the catalog's address for the manual in that language, else the English one, said
so), the PDF's and PNG's letters, and every word within the sheet's columns."""

from __future__ import annotations

import io
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from firmware import cli
from firmware.casing import Casing
from firmware.casing.drawing import Text, to_svg
from firmware.casing.layout import FRONT_W, MANUAL_URL, draw_casing, qr_modules
from firmware.i18n import LOCALE_DIR, use_catalogs

pypdf = pytest.importorskip("pypdf", reason="pip install pypdf (scripts/test.sh does)")

SVG = "{http://www.w3.org/2000/svg}"
BOMB = [
    "--serial",
    "KT4NE1",
    "--ports",
    "Serial,Parallel,PS/2",
    "--lit",
    "FRK",
    "--unlit",
    "CAR",
    "--batteries",
    "AA,D",
]
TRANSLATED = "https://ktane.timwi.de/HTML/Baccarat translated (Français — Baccara) (a volunteer).html"
#: The same address as the QR code carries it (a file name's spaces and letters percent-encoded).
ENCODED = (
    "https://ktane.timwi.de/HTML/Baccarat%20translated%20(Fran%C3%A7ais%20%E2%80%94%20Baccara)%20(a%20volunteer).html"
)


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(["casing", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def texts(path: Path) -> list[str]:
    return [t.text or "" for t in ET.parse(path).getroot().iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("fr", ["N° DE SÉRIE", "CÔTÉ 1", "ERREURS", "LE MANUEL (EN ANGLAIS)", "PAS DE MINUTEUR", "ALLUMÉ"]),
        ("de", ["SERIENNR.", "SEITE 1", "FEHLER", "DAS HANDBUCH (AUF ENGLISCH)", "KEIN TIMER", "AN"]),
        ("es", ["N.º DE SERIE", "LADO 1", "ERRORES", "EL MANUAL (EN INGLÉS)", "SIN TEMPORIZADOR", "ENCENDIDO"]),
        ("en", ["SERIAL #", "SIDE 1", "STRIKES", "THE MANUAL", "NO TIMER", "LIT"]),
    ],
)
def test_the_casing_is_printed_in_the_language_asked_for(tmp_path: Path, capsys, language, words) -> None:
    code, out, err = run([*BOMB, "--language", language, "--out", str(tmp_path / "casing.svg")], capsys)
    assert code == 0 and err == "", err
    said = texts(tmp_path / "casing.svg")
    for word in words:
        assert word in said, f"{language}: {word!r} not on the casing"
    assert "KT4NE1" in said and "FRK" in said and "Parallel" in said  # the bomb's own data as it is
    qr = next(g for g in ET.parse(tmp_path / "casing.svg").getroot().iter(f"{SVG}g") if g.get("id") == "qr")
    assert qr.get("data-url") == MANUAL_URL, "no manual in this language on ktane.timwi.de: the English one"
    code, _, err = run([*BOMB, "--language", language, "--out", str(tmp_path / "casing.pdf")], capsys)
    assert code == 0, err
    text = pypdf.PdfReader(tmp_path / "casing.pdf").pages[0].extract_text()
    assert words[0] in text and words[3] in text, text[:300]


def test_the_png_draws_the_languages_letters(tmp_path: Path, capsys) -> None:
    for language in ("en", "de"):
        code, _, err = run(
            [*BOMB, "--language", language, "--dpi", "100", "--out", str(tmp_path / f"{language}.png")], capsys
        )
        assert code == 0, err
    english = Image.open(tmp_path / "en.png").convert("L")
    german = Image.open(tmp_path / "de.png").convert("L")
    assert english.size == german.size
    serial_band = (round(72 / 25.4 * 100), 0, round(256 / 25.4 * 100), round(46 / 25.4 * 100))
    assert english.crop(serial_band).tobytes() != german.crop(serial_band).tobytes(), "the same words in German"


def test_an_unknown_language_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as refused:
        cli.main(["casing", *BOMB, "--language", "klingon", "--out", "x.svg"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and "--language klingon: not one of the prop's languages (en, de, es, fr)" in err
    assert err.count("\n") == 1 and not any(tmp_path.iterdir())


@pytest.fixture
def volunteer_catalogs(tmp_path):
    """The prop's catalogs, the French one naming a manual in French on the manual site (and the
    German one an address elsewhere, which the casing must not print)."""
    where = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, where, ignore=shutil.ignore_patterns("*.mo", "*.json"))
    for language, url in (("fr", TRANSLATED), ("de", "https://example.com/handbuch.html")):
        po = where / language / "LC_MESSAGES" / "baccarat.po"
        text = po.read_text(encoding="utf-8")
        po.write_text(text.replace(f'msgstr "{MANUAL_URL}"', f'msgstr "{url}"'), encoding="utf-8")
    use_catalogs(where)
    yield where
    use_catalogs(LOCALE_DIR)


def test_a_manual_in_the_language_on_the_manual_site_is_the_one_printed(volunteer_catalogs) -> None:
    root = ET.fromstring(to_svg(draw_casing(Casing("KT4NE1"), "wide", "fr")))
    qr = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "qr")
    assert qr.get("data-url") == ENCODED
    assert int(qr.get("data-modules")) == len(qr_modules(ENCODED)) > len(qr_modules(MANUAL_URL))
    said = [t.text for t in root.iter(f"{SVG}text")]
    assert "LE MANUEL" in said and "LE MANUEL (EN ANGLAIS)" not in said
    assert TRANSLATED.removeprefix("https://") in said  # the address as a person reads it
    german = ET.fromstring(to_svg(draw_casing(Casing("KT4NE1"), "wide", "de")))
    qr = next(g for g in german.iter(f"{SVG}g") if g.get("id") == "qr")
    assert qr.get("data-url") == MANUAL_URL, "an address off the manual site was printed"
    assert "DAS HANDBUCH (AUF ENGLISCH)" in [t.text for t in german.iter(f"{SVG}text")]


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_every_word_stays_within_its_column(language) -> None:
    """Long words (German's) are drawn smaller or wrapped, never past the front's column or the sheet."""
    casing = Casing("KT4NE1", (("Parallel", "Serial"), ()), (("FRK", True), ("CAR", False)), ("AA", "D"), 3, 1, 300.0)
    for shape in ("wide", "tall"):
        drawing = draw_casing(casing, shape, language)
        for shape_ in drawing.root.shapes():
            if not isinstance(shape_, Text):
                continue
            width = 0.64 * shape_.size * len(shape_.text)
            left = {"start": 0.0, "middle": width / 2, "end": width}[shape_.anchor]
            assert shape_.x - left >= -0.5 and shape_.x - left + width <= drawing.width + 0.5, (shape, shape_.text)
        if shape == "wide":
            front = next(g for g in drawing.root.items if getattr(g, "id", None) == "front")
            for text in front.shapes():
                if isinstance(text, Text) and text.anchor == "middle":
                    assert 0.64 * text.size * len(text.text) <= FRONT_W + 1, (language, text.text)


def test_the_svg_keeps_the_bombs_data_from_a_translator() -> None:
    root = ET.fromstring(
        to_svg(draw_casing(Casing("KT4NE1", (("Parallel",),), (("FRK", True),), ("AA",)), "wide", "fr"))
    )
    kept = {t.text for t in root.iter(f"{SVG}text") if t.get("translate") == "no"}
    assert {"KT4NE1", "FRK", "Parallel", "AA"} <= kept and "CÔTÉ 1" not in kept
    assert io.StringIO(to_svg(draw_casing(Casing("X"), "tall", "es"))).read().count("<svg") == 1
