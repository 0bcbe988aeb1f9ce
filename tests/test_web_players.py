"""The players' pages over HTTP: who may open them, and that nothing of the console leaks through them."""

from __future__ import annotations

import http.client
import json
import time
import xml.etree.ElementTree as ET

import pytest

from firmware.web.players import PLAY_COOKIE
from firmware.web.settings import WebConfigError, parse_web_section
from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
SVG = "{http://www.w3.org/2000/svg}"
#: Words of the console's stream that a player's stream must never carry.
CONSOLE_ONLY = ('"answer"', '"log"', '"state"', "cheat_sheet", '"hint"', '"deck"', '"limits"', '"stacks"', "words")


def first_update(web, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """Open an event stream and return its status and first update (an empty dict if refused)."""
    connection = http.client.HTTPConnection("127.0.0.1", web.service.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        if response.status != 200:
            return response.status, {}
        assert response.getheader("Content-Type") == "text/event-stream"
        while True:
            line = response.fp.readline().decode()
            assert line, "the stream ended"
            if line.startswith("data: "):
                return 200, json.loads(line[6:])
    finally:
        connection.close()


def test_casing_on_this_machine_without_a_password(web_factory):
    web = web_factory(front_panel=False)
    status, headers, body = web.request("GET", "/casing")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'data-serial="AB3DE4"' in body, "the page comes with the casing drawn"
    assert headers["content-security-policy"].startswith("default-src 'self'")
    status, headers, svg = web.request("GET", "/casing.svg")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("width") == "256mm"
    status, update = first_update(web, "/casing/events")
    assert status == 200 and set(update) == {"casing"}
    assert set(update["casing"]) == {"doc", "svg", "svg_tall"}  # a phone held upright shows the tall one
    assert update["casing"]["doc"]["serial"] == "AB3DE4"
    assert update["casing"]["doc"]["plates"] == [["Parallel", "Serial"], ["RJ-45"]]
    # Another host name (DNS rebinding) is refused, as by the console.
    for path in ("/casing", "/casing.svg", "/casing/events", "/panel.json", "/play", "/play/events"):
        status, _, _ = web.request("GET", path, host="attacker.example:8080")
        assert status in (401, 403), path


def test_public_casing_shows_the_casing_and_nothing_of_the_console(web_factory):
    web = web_factory(front_panel=True, settings={"password": PASSWORD, "casing_public": True})
    status, _, body = web.request("GET", "/casing", host="prop.local:8080")
    assert status == 200 and b"SERIAL #" in body
    assert web.request("GET", "/casing.svg", host="prop.local:8080")[0] == 200
    assert web.request("GET", "/panel.json", host="prop.local:8080")[0] == 200
    status, update = first_update(web, "/casing/events", {"Host": "prop.local:8080"})
    assert status == 200 and list(update) == ["casing"]
    assert set(update["casing"]["doc"]) == {
        "serial",
        "plates",
        "indicators",
        "batteries",
        "solved",
        "strikes",
        "timer",
        "outcome",
    }
    raw = json.dumps(update)
    for word in CONSOLE_ONLY:
        assert word not in raw, f"the public casing stream carries {word}"
    # The console stays behind the password.
    assert web.request("GET", "/")[0] == 303
    assert web.request("GET", "/api/session")[0] == 401
    assert first_update(web, "/events")[0] == 401
    assert web.request("POST", "/api/command", {"command": "force_solve"})[0] in (401, 403)
    assert web.request("POST", "/api/panel", {"input": "tie", "action": "press"})[0] in (401, 403)
    # /play is not public: its own login, whose cookie the console does not take.
    status, headers, _ = web.request("GET", "/play")
    assert status == 303 and headers["location"] == "/play/login?next=/play"
    assert first_update(web, "/play/events")[0] == 401
    assert web.request("POST", "/play/panel", {"input": "tie", "action": "press"})[0] == 401
    assert web.daemon.module.bets() == {area: 0 for area in web.daemon.module.bets()}


def test_casing_not_public_needs_a_login(web_factory):
    web = web_factory(front_panel=False, settings={"password": PASSWORD})
    status, headers, _ = web.request("GET", "/casing")
    assert status == 303 and headers["location"] == "/play/login?next=/casing"
    assert web.request("GET", "/casing.svg")[0] == 401
    assert first_update(web, "/casing/events")[0] == 401
    assert web.request("GET", "/panel.json")[0] == 401
    web.login(PASSWORD)  # the game master's console session opens it
    assert web.request("GET", "/casing", headers={"Cookie": web.cookie})[0] == 200
    # So does a players' login, which sends the browser back to the casing.
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, headers, _ = web.request("POST", "/play/login", f"password={PASSWORD}&next=/casing", form)
    assert status == 303 and headers["location"] == "/casing"
    play = headers["set-cookie"].split(";")[0]
    assert play.startswith(f"{PLAY_COOKIE}=")
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
    assert web.request("GET", "/casing", headers={"Cookie": play})[0] == 200
    # ... and never the console.
    assert web.request("GET", "/", headers={"Cookie": play})[0] == 303
    assert web.request("GET", "/api/session", headers={"Cookie": play})[0] == 401
    assert first_update(web, "/events", {"Cookie": play})[0] == 401
    # Somewhere else than the players' pages is not a place to go on to.
    status, headers, _ = web.request("POST", "/play/login", f"password={PASSWORD}&next=//evil.example/", form)
    assert status == 303 and headers["location"] == "/play"


def test_play_login_throttle_and_press(web_factory):
    web = web_factory(front_panel=True, settings={"password": PASSWORD})
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, _, body = web.request("POST", "/play/login", "password=wrong+password", form)
    assert status == 401 and b"Wrong password" in body
    assert (
        web.request("POST", "/play/login", f"password={PASSWORD}", {**form, "Origin": "http://evil.example"})[0] == 403
    )
    status, headers, _ = web.request("POST", "/play/login", f"password={PASSWORD}", form)
    assert status == 303
    cookie = headers["set-cookie"].split(";")[0]
    status, _, body = web.request("GET", "/play/session", headers={"Cookie": cookie})
    info = json.loads(body)
    assert status == 200 and info["front_panel"] is True and "csrf" in info
    status, update = first_update(web, "/play/events", {"Cookie": cookie})
    assert status == 200 and set(update) <= {"casing", "frames", "lights"} and "frames" in update
    assert set(update["lights"]) == {"red", "green", "deck", "deck_rgb"}  # what the LEDs show
    raw = json.dumps({key: value for key, value in update.items() if key != "lights"})
    for word in CONSOLE_ONLY:
        assert word not in raw, f"the /play stream carries {word}"

    def panel(payload, csrf=info["csrf"], content_type="application/json"):
        headers = {"Cookie": cookie, "Content-Type": content_type, "X-CSRF-Token": csrf}
        status, _, body = web.request("POST", "/play/panel", json.dumps(payload), headers)
        return status, json.loads(body)

    assert panel({"input": "tie", "action": "press"}, csrf="wrong")[0] == 403
    assert panel({"input": "nose", "action": "press"})[0] == 400
    assert panel({"input": "tie", "action": "stroke"})[0] == 400
    assert panel(["tie"])[0] == 400
    assert panel({"input": "tie", "action": "press"}, content_type="text/plain")[0] == 400
    assert panel({"input": "tie", "action": "press"}) == (200, {"ok": True})
    time.sleep(0.06)  # longer than the debounce time, as a finger is
    assert panel({"input": "tie", "action": "release"}) == (200, {"ok": True})
    web.rig.wait_for("chip")
    web.daemon.wait_idle()
    assert web.daemon.module.stacks["tie"] == [1]
    # Wrong passwords count with the console's: ten in five minutes, then a wait.
    for _ in range(9):  # one wrong password above
        web.service.throttle.fail("127.0.0.1")
    status, _, body = web.request("POST", "/play/login", f"password={PASSWORD}", form)
    assert status == 429 and b"Too many wrong passwords: wait 5 min" in body


def test_play_on_a_prop_without_a_pressable_panel(web_factory):
    web = web_factory(front_panel=False)
    status, headers, _ = web.request("GET", "/play")
    assert status == 200
    cookie = headers["set-cookie"].split(";")[0]
    assert cookie.startswith(f"{PLAY_COOKIE}=")
    info = json.loads(web.request("GET", "/play/session", headers={"Cookie": cookie})[2])
    assert info["front_panel"] is False
    headers = {"Cookie": cookie, "Content-Type": "application/json", "X-CSRF-Token": info["csrf"]}
    status, _, body = web.request("POST", "/play/panel", json.dumps({"input": "tie", "action": "press"}), headers)
    assert status == 404 and "cannot be pressed" in json.loads(body)["error"]


def test_panel_layout_is_the_drilling_templates(web_factory):
    from firmware.devices.panel import CUTOUTS, PANEL_MM
    from firmware.devices.wiring import INPUT_NAMES

    web = web_factory(front_panel=False)
    layout = json.loads(web.request("GET", "/panel.json")[2])
    assert layout["size_mm"] == PANEL_MM
    assert [(c["key"], c["x"], c["y"], c["w"]) for c in layout["cutouts"]] == [(c.key, c.x, c.y, c.w) for c in CUTOUTS]
    assert sorted(c["input"] for c in layout["cutouts"] if c["kind"] == "button") == sorted(INPUT_NAMES)
    assert {c["role"] for c in layout["cutouts"] if c["kind"] == "display"} == {"placard", "table", "bets"}


def test_casing_public_settings():
    settings = parse_web_section({"bind": "0.0.0.0", "password": PASSWORD, "casing_public": True}, simulate=False)
    assert settings.casing_public is True
    assert parse_web_section({}, simulate=False).casing_public is False
    with pytest.raises(WebConfigError, match=r'casing_public = true: with bind = "127.0.0.1" only this machine'):
        parse_web_section({"casing_public": True}, simulate=False)
    with pytest.raises(WebConfigError, match='casing_public = "yes": must be true or false'):
        parse_web_section({"bind": "0.0.0.0", "password": PASSWORD, "casing_public": "yes"}, simulate=False)
    with pytest.raises(WebConfigError, match="listening beyond localhost needs"):
        parse_web_section({"bind": "0.0.0.0", "casing_public": True}, simulate=False)
