"""The console's HTTP side without a browser: sessions, CSRF, bad input, the event stream, idle cost."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from firmware.system import aloop
from firmware.web.server import WebError, WebService
from firmware.web.settings import WebConfigError, WebSettings
from firmware.web.throttle import Throttle
from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"


def test_no_password_session_cookie_and_csrf(web_factory):
    web = web_factory()
    status, headers, body = web.request("GET", "/")
    assert status == 200 and b"<title>Baccarat prop</title>" in body
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    web.login()
    before = web.state()
    assert web.post("/api/command", {"command": "force_solve"}, csrf=False)[0] == 403
    web.csrf = "not-the-token"
    status, reply = web.post("/api/command", {"command": "force_solve"})
    assert status == 403 and "CSRF" in reply["error"]
    assert web.state() == before
    web.cookie = None
    assert web.post("/api/command", {"command": "force_solve"})[0] == 401
    assert web.state() == before
    web.login()
    status, reply = web.command({"command": "force_solve"})
    assert status == 200 and reply["ok"] and web.state()["solved"]


def test_cross_origin_and_foreign_host_are_refused(web_factory):
    web = web_factory()
    web.login()
    status, _, _ = web.request(
        "POST",
        "/api/command",
        json.dumps({"command": "force_solve"}),
        {
            "Cookie": web.cookie,
            "X-CSRF-Token": web.csrf,
            "Content-Type": "application/json",
            "Origin": "http://evil.example",
        },
    )
    assert status == 403 and not web.state()["solved"]
    # Without a password the console answers only to a Host naming this machine (no DNS rebinding).
    assert web.request("GET", "/", host="evil.example")[0] == 403
    assert web.request("GET", "/api/session", host=f"evil.example:{web.service.port}")[0] == 401
    assert web.request("GET", "/events", host="evil.example", headers={"Cookie": web.cookie})[0] == 401
    assert web.request("GET", "/", host=f"localhost:{web.service.port}")[0] == 200


BAD_REQUESTS = [
    (b"{not json", "application/json", "not JSON"),
    (b"[1, 2]", "application/json", "must be a JSON object"),
    (b'"reset"', "application/json", "must be a JSON object"),
    (b"command=reset", "application/x-www-form-urlencoded", "send JSON"),
    (b'{"command": "explode"}', "application/json", 'unknown command "explode"'),
    (b'{"nothing": 1}', "application/json", 'no "command" key'),
    (b'{"command": "reset", "min": 25}', "application/json", "give both"),
    (b'{"command": "set_limits", "min": 7, "max": 100}', "application/json", "minimum $7"),
    (b'{"command": "set_solved", "solved": -1}', "application/json", "solved count -1 is negative"),
    (b'{"command": "set_solved", "solved": true}', "application/json", "is not a whole number"),
    (b'{"command": "set_edgework", "serial": "!!"}', "application/json", "must be 1 to 6 letters or digits"),
    (b'{"command": "force_solve", "please": 1}', "application/json", 'unknown argument "please"'),
    (b'{"command": "reset", "min": "' + b"9" * 20000 + b'"}', "application/json", "larger than"),
]


@pytest.mark.parametrize(("body", "content_type", "message"), BAD_REQUESTS)
def test_bad_commands_say_why_and_change_nothing(web_factory, body, content_type, message):
    web = web_factory()
    web.login()
    before = web.state()
    status, reply = web.post("/api/command", None, raw=body, content_type=content_type)
    assert status == 400, reply
    assert reply["ok"] is False and message in reply["error"]
    assert web.state() == before


def test_panel_requests(web_factory):
    web = web_factory(front_panel=True)
    web.login()
    for payload, message in [
        ({"input": "lever", "action": "press"}, "unknown input 'lever'"),
        ({"input": "player", "action": "smash"}, "must be press or release"),
        ({"input": "player"}, "must be press or release"),
    ]:
        status, reply = web.post("/api/panel", payload)
        assert status == 400 and message in reply["error"]
    assert web.post("/api/panel", {"input": "tie", "action": "press"}, csrf=False)[0] == 403
    assert web.state()["bets"] == {a: 0 for a in web.state()["bets"]}
    assert web.post("/api/panel", {"input": "tie", "action": "press"}) == (200, {"ok": True})
    time.sleep(0.05)
    assert web.post("/api/panel", {"input": "tie", "action": "release"}) == (200, {"ok": True})
    browser.wait_count(web.rig, "chip", 1)
    assert web.state()["bets"]["tie"] == 1


def test_no_front_panel_without_a_pin_driver(web_factory):
    web = web_factory(front_panel=False)
    web.login()
    status, reply = web.post("/api/panel", {"input": "tie", "action": "press"})
    assert status == 404 and "no front panel" in reply["error"]
    status, _, body = web.request("GET", "/api/session", headers={"Cookie": web.cookie})
    assert json.loads(body)["front_panel"] is False


def test_password_login_logout(web_factory, caplog):
    web = web_factory(settings={"password": PASSWORD})
    status, headers, _ = web.request("GET", "/")
    assert status == 303 and headers["location"] == "/login"
    assert web.request("GET", "/api/session")[0] == 401
    assert web.request("GET", "/events")[0] == 401
    status, headers, body = web.request(
        "POST", "/login", "password=nope", {"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert status == 401 and b"Wrong password" in body and "set-cookie" not in headers
    web.login(PASSWORD)
    assert web.command({"command": "status"})[0] == 200
    status, reply = web.post("/logout", {})
    assert status == 200 and reply["next"] == "/login"
    assert web.command({"command": "status"})[0] == 401
    assert all(PASSWORD not in record.getMessage() for record in caplog.records)


def test_the_longest_password_fits_the_login_form(web_factory):
    """[web] password is capped at 1,024 characters so that the longest, of 4-byte characters and
    percent-encoded, still fits the login form's body limit."""
    from urllib.parse import quote

    from firmware.web.server import MAX_BODY
    from firmware.web.settings import MAX_PASSWORD, parse_web_section

    longest = "\U0001d11e" * MAX_PASSWORD  # the G clef, 4 bytes in UTF-8
    assert parse_web_section({"password": longest}, simulate=False).password == longest
    assert len("password=" + quote(longest)) <= MAX_BODY
    web = web_factory(settings={"password": longest})
    web.login(quote(longest))
    assert web.command({"command": "status"})[0] == 200


def test_login_throttle(web_factory):
    web = web_factory(settings={"password": PASSWORD})
    web.service.throttle = Throttle(attempts=2)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert web.request("POST", "/login", "password=a", form)[0] == 401
    assert web.request("POST", "/login", "password=b", form)[0] == 401
    status, _, body = web.request("POST", "/login", f"password={PASSWORD}", form)
    assert status == 429 and b"Too many wrong passwords" in body


def test_refuses_to_listen_beyond_localhost_without_a_password(web_factory):
    web = web_factory()
    service = WebService(web.backend, WebSettings(enabled=True, bind="0.0.0.0", port=0))
    with pytest.raises(WebConfigError, match="listening beyond localhost needs"):
        service.start()


def test_port_in_use_is_one_clear_line(web_factory):
    web = web_factory()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        service = WebService(web.backend, WebSettings(enabled=True, port=port))
        with pytest.raises(WebError) as caught:
            service.start()
    assert f"port {port} on 127.0.0.1 is taken" in str(caught.value) and "\n" not in str(caught.value)
    assert "--port N or [web] port" in str(caught.value)


class Stream:
    """A raw server-sent-events reader."""

    def __init__(self, web) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", web.service.port, timeout=10)
        self.connection.request("GET", "/events", headers={"Cookie": web.cookie})
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"

    def update(self) -> dict:
        while True:
            line = self.response.readline()
            assert line, "stream ended"
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    def close(self) -> None:
        self.connection.close()


def test_event_stream_sends_only_what_changed(web_factory):
    web = web_factory()
    web.login()
    stream = Stream(web)
    first = stream.update()
    assert set(first["frames"]) == {"placard", "table", "bets"}
    assert all(url.startswith("data:image/png;base64,") for url in first["frames"].values())
    assert first["state"]["words"]["limits"].startswith("$25 - $1000")
    assert first["lights"]["deck"] == "red"
    assert [entry["kind"] for entry in first["log"]] == ["limits", "deck"]
    answer = first.get("answer") or stream.update()["answer"]
    assert "Cards, top first" in answer["cheat_sheet"]
    web.rig.tap("player")
    frames, log = {}, []
    while not any(entry["kind"] == "chip" for entry in log):
        update = stream.update()
        frames.update(update.get("frames", {}))
        log += update.get("log", [])
    assert set(frames) == {"bets"}, "only the bets display changed"
    web.rig.deal()  # player $1 is outside the limits: a strike, in plain words
    log = []
    while not any(entry["strike"] for entry in log):
        log += stream.update().get("log", [])
    strike = next(entry for entry in log if entry["strike"])
    assert strike["text"].startswith("STRIKE 1: a bet was outside the table limits (Player bet $1")
    stream.close()


def test_the_page_hears_the_cues_as_they_are_shown(web_factory):
    web = web_factory()
    web.login()
    stream = Stream(web)
    stream.update()
    web.rig.tap("right")
    web.rig.tap("player")
    heard: list[dict] = []
    while not any(item["cue"] == "chip" for item in heard):
        heard += stream.update().get("sounds", [])
    assert heard[0] == {"cue": "button", "after": 0.0}  # the arrow's click, then the chip
    status, headers, body = web.request("GET", "/sound/chip.wav")
    assert status == 200 and body[:4] == b"RIFF" and body[8:12] == b"WAVE"
    assert web.request("GET", "/sound/../config.wav")[0] == 404
    assert web.request("GET", "/sound/explode.wav")[0] == 404
    stream.close()


def _switches(thread_id: int) -> int:
    total = 0
    with open(f"/proc/self/task/{thread_id}/status") as status:
        for line in status:
            if "ctxt_switches" in line:
                total += int(line.split()[1])
    return total


def test_no_wakeups_without_a_page(web_factory):
    """The web thread (the services' shared loop's) sleeps while no page is open, even while the game is played."""
    web = web_factory()
    thread = next(t for t in threading.enumerate() if t.name == aloop.THREAD).native_id
    web.login()
    stream = Stream(web)
    stream.update()
    stream.close()
    deadline = time.monotonic() + 5
    while web.service.hub.clients and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not web.service.hub.clients and not web.service.hub.active
    time.sleep(0.3)
    before = _switches(thread)
    for area in ("player", "banker", "tie"):
        web.rig.tap(area)
    web.rig.deal()
    time.sleep(1.0)
    assert _switches(thread) == before, "the web thread woke up with no page open"
