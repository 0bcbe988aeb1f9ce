"""The login pages say where the password comes from (the party's banner, the config's ``[web]``
table, how to set or reset it) and never show it, in every language."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from firmware.i18n import translations
from tests.browser import web_factory

__all__ = ["web_factory"]

PASSWORD = "correct horse battery"
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
@pytest.mark.parametrize("path", ["/login", "/play/login"])
def test_a_login_page_says_where_the_password_comes_from_without_showing_it(web_factory, language, path):
    web = web_factory(settings={"password": PASSWORD, "language": language})
    status, _, body = web.request("GET", path)
    page = html.unescape(body.decode())
    assert status == 200
    help_text = " ".join(re.search(r'id="password-help">(.*?)</p>', page, re.S).group(1).split())
    t = translations(language)
    english = "The password is the one “baccarat party” printed on its computer (its line “Password”), or, on a"
    assert help_text == t.gettext(
        english + " prop, the password of the config's [web] table. This page never shows it."
    )
    assert "baccarat party" in help_text and "[web]" in help_text
    link = re.search(r'href="(/docs/run/console/#the-password)"', page)
    assert link is not None and t.gettext("How to set or reset the password") in page
    assert "\n## The password\n" in (DOCS / "run" / "console.md").read_text(encoding="utf-8")
    assert PASSWORD not in page and PASSWORD.replace(" ", "+") not in page
