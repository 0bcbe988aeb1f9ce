"""The pages' language over HTTP: the console in ``[web] language`` or the browser's, its live words
and log in each page's own language at once, the players' picker, the JavaScript catalogs, the
login messages; and ``[web] language`` / ``[display] language`` checked like every config key."""

from __future__ import annotations

import http.client
import json
import re

import pytest

from firmware.errors import ConfigError
from firmware.i18n import translations
from firmware.render import TableView, render_table
from tests import browser
from tests.conftest import make_config

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"


def page(web, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    status, answered, body = web.request("GET", path, headers=headers or {})
    return status, answered, body.decode("utf-8")


class Stream:
    """The console's server-sent events, read raw, as a browser asking for ``language`` gets them."""

    def __init__(self, web, language: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", web.service.port, timeout=10)
        self.connection.request("GET", "/events", headers={"Cookie": web.cookie or "", "Accept-Language": language})
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def update(self) -> dict:
        while True:
            line = self.response.readline()
            assert line, "stream ended"
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    def until(self, test) -> dict:
        for _ in range(50):
            update = self.update()
            if test(update):
                return update
        raise AssertionError("no such update")

    def close(self) -> None:
        self.connection.close()


def test_the_console_speaks_the_browsers_language_unless_the_config_names_one(web_factory):
    web = web_factory(front_panel=False)
    status, _, german = page(web, "/", {"Accept-Language": "de-CH, de;q=0.9, en;q=0.5"})
    assert status == 200 and '<html lang="de">' in german and "<h2>Steuerung " in german
    assert '<script src="/i18n/de.js" defer>' in german
    _, _, english = page(web, "/", {"Accept-Language": "ja, zh;q=0.8"})
    assert '<html lang="en">' in english and "<h2>Controls " in english


def test_web_language_sets_the_consoles_whatever_the_browser_asks(web_factory):
    web = web_factory(front_panel=False, settings={"language": "fr"})
    _, _, french = page(web, "/", {"Accept-Language": "de"})
    assert '<html lang="fr">' in french and "<h2>Commandes " in french


def test_each_console_page_gets_the_words_and_the_log_in_its_own_language(web_factory):
    web = web_factory(front_panel=False)
    web.login()
    german, english = Stream(web, "de"), Stream(web, "en")
    try:
        first_de, first_en = german.update(), english.update()
        assert first_de["state"]["words"]["status"] == "SCHARF" and first_en["state"]["words"]["status"] == "ARMED"
        assert first_de["state"]["doc"] == first_en["state"]["doc"]
        assert any(line["text"].startswith("Limits $25 - $1000") for line in first_de["log"])
        web.rig.tap("player")
        web.rig.deal()  # $1 under the $25 minimum: a strike
        said_de = german.until(lambda u: any(line["strike"] for line in u.get("log", [])))
        said_en = english.until(lambda u: any(line["strike"] for line in u.get("log", [])))
        strike_de = next(line["text"] for line in said_de["log"] if line["strike"])
        strike_en = next(line["text"] for line in said_en["log"] if line["strike"])
        assert strike_de.startswith("FEHLER 1: ein Einsatz lag außerhalb der Tischlimits (")
        assert strike_en.startswith("STRIKE 1: a bet was outside the table limits (")
        assert all("event" not in line for line in said_de["log"] + said_en["log"])
    finally:
        german.close()
        english.close()


def test_the_pages_javascript_catalog(web_factory):
    web = web_factory(front_panel=False)
    status, headers, source = page(web, "/i18n/es.js")
    assert status == 200 and headers["content-type"].startswith("application/javascript")
    assert '"Force solve": "Forzar resolución"' in source and headers["cache-control"] == "no-cache"
    status, _, _ = page(web, "/i18n/es.js", {"If-None-Match": headers["etag"]})
    assert status == 304
    assert page(web, "/i18n/xx.js")[0] == 404
    status, _, english = page(web, "/i18n/en.js")
    assert status == 200 and "messages: {}" in english


def test_the_players_picker_chooses_the_casings_language(web_factory):
    web = web_factory(front_panel=False)
    status, _, spanish = page(web, "/casing", {"Cookie": "baccarat_lang=es", "Accept-Language": "de"})
    assert status == 200 and '<html lang="es">' in spanish
    assert "N.º DE SERIE" in spanish and "EL MANUAL (EN INGLÉS)" in spanish
    assert re.search(r'<option value="es" selected>Español</option>', spanish)
    assert all(f'<option value="{code}"' in spanish for code in ("en", "de", "fr"))
    _, _, german = page(web, "/casing", {"Cookie": "baccarat_lang=../../etc", "Accept-Language": "de"})
    assert '<html lang="de">' in german and "SERIENNR." in german  # a cookie that names no language: the browser's
    _, _, english = page(web, "/casing.svg")
    assert "SERIAL #" in english and "THE MANUAL</text>" in english  # English: no "(in English)"


def test_a_wrong_password_is_said_in_the_login_pages_language(web_factory):
    web = web_factory(front_panel=False, settings={"password": PASSWORD})
    status, _, body = web.request(
        "POST",
        "/login",
        "password=not+the+one",
        {"Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "fr"},
    )
    assert status == 401 and "Mot de passe incorrect." in body.decode()
    status, _, body = web.request(
        "POST",
        "/play/login",
        "password=not+the+one&next=/casing",
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": "baccarat_lang=de"},
    )
    assert status == 401 and "Falsches Passwort." in body.decode()


@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ({"web": {"language": "klingon"}}, '[web] language = "klingon": must be one of en, de, es, fr'),
        ({"display": {"language": "xx"}}, '[display] language = "xx": must be one of en, de, es, fr'),
        ({"display": {"languag": "fr"}}, "[display] languag: unknown key"),
    ],
)
def test_a_language_setting_that_names_no_catalog_is_one_line(section, problem):
    with pytest.raises(ConfigError) as raised:
        make_config(**section)
    said = str(raised.value)
    assert said.startswith(problem) and "\n" not in said, said


def test_display_language_draws_the_displays_words_in_it(mock_factory):
    from tests.conftest import served_prop

    with served_prop(
        make_config(state={"file": ""}, control={"socket": ""}, display={"language": "de"}), mock_factory
    ) as rig:
        rig.daemon.wait_idle()
        shown = rig.daemon.screens["table"].last_frame
        view = rig.daemon.call(lambda: rig.daemon.scene().table).result(5)
    size, mode = shown.size, shown.mode
    assert shown.tobytes() == render_table(view, size, mode, translations("de")).tobytes()
    assert shown.tobytes() != render_table(view, size, mode).tobytes(), "the table display says it in English"
    assert make_config().display_language == ""  # the original's English unless it is set


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_a_result_too_long_for_a_display_names_the_hand_and_keeps_the_money(language):
    """Twenty-one characters fit a 128-pixel line: a language's longer "BANKER WINS" gives way to
    the hand's name, never to the money (the original's own shortening, in any language)."""
    from baccarat_core.records import replace

    t = translations(language)
    long = TableView("red", 40, ("5H", "3D"), ("KS", "9C"), 8, 9, "BANKER WINS +$1500.00", "BANKER WINS +$1500.00")
    said = t.gettext("BANKER WINS") + " +$1500.00"
    shortened = t.gettext("BANKER") + " +$1500.00" if len(said) > 21 else said
    expected = replace(long, result=shortened, status=shortened)  # drawn as it is: no message of the catalog
    for size in ((128, 64), (128, 128)):
        assert render_table(long, size, "1", t).tobytes() == render_table(expected, size, "1", t).tobytes()
