"""Login CSRF: the login form is refused when it was posted from another site, even with the
right password, so that a page elsewhere cannot log a browser into the console with a
session of its choosing (issue 26)."""

from __future__ import annotations

import pytest

from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "null", "http://127.0.0.1.evil.example", "http://127.0.0.1:1", "https://localhost"],
)
def test_a_login_posted_from_another_origin_is_refused(web_factory, origin):
    web = web_factory(settings={"password": PASSWORD})
    status, headers, body = web.request("POST", "/login", f"password={PASSWORD}", {**FORM, "Origin": origin})
    assert status == 403 and b"another site" in body, (status, body[:200])
    assert "set-cookie" not in headers
    assert web.request("GET", "/api/session")[0] == 401


def test_a_login_from_the_console_itself_or_without_an_origin_is_taken(web_factory):
    web = web_factory(settings={"password": PASSWORD})
    same = {**FORM, "Origin": web.url}
    status, headers, _ = web.request("POST", "/login", f"password={PASSWORD}", same)
    assert status == 303 and headers["location"] == "/" and "set-cookie" in headers
    status, headers, _ = web.request("POST", "/login", f"password={PASSWORD}", FORM)  # a tool sends none
    assert status == 303 and "set-cookie" in headers
    # The origin is checked before the password: a foreign form learns nothing of it, and uses
    # up none of the ten attempts the console allows an address.
    for _ in range(11):
        status, _, body = web.request("POST", "/login", "password=nope", {**FORM, "Origin": "http://evil.example"})
        assert status == 403 and b"Wrong password" not in body
    assert web.request("POST", "/login", f"password={PASSWORD}", same)[0] == 303
