"""The console's security headers are on every answer, not only on its pages: on a 404 (from
the router, the static files and a handler), a 405, and on every redirect (issue 26)."""

from __future__ import annotations

import pytest

from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
#: The headers that stop framing, sniffing, foreign scripts and referrer leaks.
SECURITY = ("content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy")


def _security(headers: dict[str, str]) -> dict[str, str]:
    return {name: headers.get(name, "(missing)") for name in SECURITY}


@pytest.mark.parametrize(
    "method, path, status",
    [
        ("GET", "/no-such-page", 404),
        ("GET", "/static/no-such-file.css", 404),
        ("GET", "/sound/no-such-cue.wav", 404),
        ("PUT", "/api/command", 405),
        ("GET", "/", 303),  # to the login page
    ],
)
def test_errors_and_redirects_carry_the_pages_security_headers(web_factory, method, path, status):
    web = web_factory(settings={"password": PASSWORD})
    page_status, page_headers, _ = web.request("GET", "/login")
    assert page_status == 200
    expected = _security(page_headers)
    assert "(missing)" not in expected.values(), expected
    got, headers, _ = web.request(method, path)
    assert got == status
    assert _security(headers) == expected


def test_the_login_redirects_carry_them_too(web_factory):
    web = web_factory(settings={"password": PASSWORD})
    expected = _security(web.request("GET", "/login")[1])
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, headers, _ = web.request("POST", "/login", f"password={PASSWORD}", form)
    assert status == 303 and "set-cookie" in headers  # the redirect after a login
    assert _security(headers) == expected


def test_without_a_password_the_login_page_redirects_with_them(web_factory):
    web = web_factory()
    expected = _security(web.request("GET", "/")[1])
    assert "(missing)" not in expected.values(), expected
    status, headers, _ = web.request("GET", "/login")
    assert status == 303 and headers["location"] == "/"
    assert _security(headers) == expected
