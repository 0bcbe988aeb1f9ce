"""The party host's commands speak the room's language: ``baccarat party``'s banner, its password
line and its errors, and ``baccarat casing``'s casing, its line and its errors, in the config's
language (``[web] language``, then ``[display] language``) or else the shell's (``LANG``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from firmware import cli
from firmware.cli.party import banner, party_config, party_language
from firmware.cli.run import config_path
from firmware.i18n import environment_language, translations
from tests.languages import LANGUAGES, english_in

pypdf = pytest.importorskip("pypdf", reason="pip install pypdf (scripts/test.sh does)")

#: The shell's language, as each language's room has it.
LOCALES = {"fr": "fr_FR.UTF-8", "de": "de_DE.UTF-8", "es": "es_ES.UTF-8"}
URL = re.compile(r"https?://\S+")


@pytest.fixture
def shell(monkeypatch):
    """Set the shell's language (``LANG``), nothing else of the locale's variables."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    return lambda value: monkeypatch.setenv("LANG", value)


def party_args(**options) -> argparse.Namespace:
    values = {"config": None, "minutes": 5, "strikes": 3, "seed": 1, "port": 8080}
    return argparse.Namespace(**(values | options))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_party_banner_is_in_the_shells_language(shell, language):
    shell(LOCALES[language])
    config = party_config(party_args(), "k7m3-x9p2")
    assert party_language(config) == language
    urls = ["http://192.168.1.20:8080/", "http://127.0.0.1:8080/"]
    said = banner(config, "k7m3-x9p2", urls, qr=False)
    assert "k7m3-x9p2" in said and "http://192.168.1.20:8080/play" in said
    lines = [("banner", URL.sub("", line)) for line in said.splitlines()]
    assert not english_in(language, lines), said
    assert said != banner(config, "k7m3-x9p2", urls, qr=False, t=translations("en"))


def test_the_configs_language_wins_over_the_shells(shell, tmp_path):
    shell("fr_FR.UTF-8")
    path = tmp_path / "party.toml"
    path.write_text(config_path(None).read_text(encoding="utf-8") + '\n[display]\nlanguage = "de"\n')
    config = party_config(party_args(config=str(path)), "k7m3-x9p2")
    assert party_language(config) == "de"
    assert "Passwort (das Tablet fragt einmal): k7m3-x9p2" in banner(config, "k7m3-x9p2", ["http://1.2.3.4:80/"])


def test_the_shell_without_a_language_is_english(shell):
    shell("C.UTF-8")
    assert environment_language() == "en"
    assert "Password (the tablet asks once)" in banner(party_config(party_args(), "abcd-efgh"), "abcd-efgh", ["x/"])


def test_a_partys_error_is_in_the_shells_language(shell, tmp_path, capsys):
    shell("es_ES.UTF-8")
    missing = tmp_path / "no-such.toml"
    assert cli.main(["party", "--config", str(missing), "--no-wait"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{missing}: no se puede leer como archivo de configuración" in err, err


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_casing_command_speaks_the_shells_language(shell, tmp_path, capsys, language):
    shell(LOCALES[language])
    out = tmp_path / "casing.pdf"
    assert cli.main(["casing", "--seed", "3", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert not english_in(language, [("line", said.replace(str(out), ""))]), said
    text = "\n".join(page.extract_text() for page in pypdf.PdfReader(out).pages)
    english = "\n".join(page.extract_text() for page in _english_casing(tmp_path).pages)
    assert text != english and not english_in(language, [("pdf", line) for line in text.splitlines()])
    assert cli.main(["casing", "--seed", "3", "--out", str(tmp_path / "b7.txt")]) == 2
    err = capsys.readouterr().err
    said = err.removeprefix("baccarat casing: error: ").replace(str(tmp_path), "")  # (the command's own frame)
    assert err.count("\n") == 1 and not english_in(language, [("error", said)]), err


def _english_casing(tmp_path: Path):
    out = tmp_path / "english.pdf"
    assert cli.main(["casing", "--seed", "3", "--language", "en", "--out", str(out)]) == 0
    return pypdf.PdfReader(out)
