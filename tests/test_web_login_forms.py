"""The login forms (``/login``, ``/play/login``) against bodies and content types no browser sends.

A malformed body is one clear ``400``: never a ``500``, never a traceback, and nothing of the
body in the log (a multipart parser's error quotes the line it choked on, which can be the
password). Hypothesis writes the bodies from pieces of real forms, multipart parts and junk,
and the content types from what a client might claim; each goes over a real connection to the
real server.
"""

from __future__ import annotations

import logging

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from firmware.web.throttle import Throttle
from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
#: What a login form may answer: a login, a wrong password, a refusal, a form it cannot read,
#: a body too slow or too large, too many wrong passwords.
ANSWERS = {303, 400, 401, 403, 408, 413, 429}

CONTENT_TYPES = st.sampled_from(
    [
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=latin-1",
        "multipart/form-data; boundary=X",
        "multipart/form-data",
        'multipart/form-data; boundary="X"; charset=utf-8',
        "multipart/mixed; boundary=X",
        "text/plain",
        "application/json",
        "application/octet-stream",
        "",
        ";;;",
        "multipart/form-data; boundary=" + "X" * 300,
    ]
)
PIECES = st.sampled_from(
    [
        "--X\r\n",
        "--X--\r\n",
        "\r\n",
        "broken\r\n",
        f"{PASSWORD}\r\n",
        'Content-Disposition: form-data; name="password"\r\n',
        'Content-Disposition: form-data; name="password"; filename="p.txt"\r\n',
        "Content-Type: text/plain; charset=utf-16\r\n",
        "Content-Transfer-Encoding: base64\r\n",
        "password=",
        f"password={PASSWORD}",
        "password=%ff%fe",
        "%",
        "&",
        "=",
        "next=/play",
        "\x00",
        "é",
    ]
)
BODIES = st.one_of(
    st.lists(PIECES, max_size=12).map(lambda parts: "".join(parts).encode("utf-8")),
    st.binary(max_size=200),
)


def assert_log_clean(caplog) -> None:
    text = "\n".join(
        logging.Formatter("%(levelname)s %(name)s: %(message)s").format(record) for record in caplog.records
    )
    assert "Traceback" not in text, text[-3000:]
    for secret in (PASSWORD, PASSWORD.replace(" ", "+"), "broken"):
        assert secret not in text, f"{secret!r} is in the log"


def test_a_broken_multipart_login_is_one_clear_400(web_factory, caplog):
    """The reviewer's request, and the same with the password as the line the parser chokes on."""
    caplog.set_level(logging.DEBUG)
    web = web_factory(settings={"password": PASSWORD})
    multipart = {"Content-Type": "multipart/form-data; boundary=X"}
    for path in ("/login", "/play/login"):
        for body in (b"--X\r\nbroken\r\n\r\n--X--\r\n", f"--X\r\n{PASSWORD}\r\n\r\n--X--\r\n".encode()):
            status, _, page = web.request("POST", path, body, multipart)
            assert status == 400, (path, status, page[:200])
            assert b"could not be read" in page
    assert_log_clean(caplog)
    malformed = [r.getMessage() for r in caplog.records if "login form" in r.getMessage()]
    assert len(malformed) == 1, "each malformed form was logged (or none was)"
    # A well-formed form still logs in, from either page.
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert web.request("POST", "/login", f"password={PASSWORD}", form)[0] == 303
    assert web.request("POST", "/play/login", f"password={PASSWORD}&next=/play", form)[0] == 303


def test_fuzzed_login_forms_never_fail_and_never_log_the_body(web_factory, caplog):
    caplog.set_level(logging.DEBUG)
    web = web_factory(settings={"password": PASSWORD})
    web.service.wrong_secret_pause = 0
    web.service.throttle = Throttle(attempts=1_000_000)  # every form is read, however many were wrong

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(path=st.sampled_from(["/login", "/play/login"]), content_type=CONTENT_TYPES, body=BODIES)
    @example(path="/login", content_type="multipart/form-data; boundary=X", body=b"--X\r\nbroken\r\n\r\n--X--\r\n")
    def check(path: str, content_type: str, body: bytes) -> None:
        headers = {"Content-Type": content_type} if content_type else {}
        status, _, page = web.request("POST", path, body, headers)
        assert status in ANSWERS, (status, content_type, body[:80], page[:200])

    check()
    assert_log_clean(caplog)
