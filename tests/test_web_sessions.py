"""The console's sessions: a login idle for longer than the idle limit is gone, a session in
use stays, and past the limit the least recently used one makes room (issue 26). The store
reads a clock the tests move by hand; the last test runs it behind the real console."""

from __future__ import annotations

from firmware.web.auth import Sessions
from tests import browser

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
IDLE = 600.0


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_idle_past_the_limit_is_gone_and_one_in_use_stays():
    clock = Clock()
    sessions = Sessions(idle_seconds=IDLE, clock=clock)
    idle, used = sessions.create(), sessions.create()
    for _ in range(3):  # used every 0.9 idle limits: alive for 2.7 of them
        clock.now += IDLE * 0.9
        assert sessions.get(used.token) is used
    assert sessions.get(idle.token) is None, "a session idle for 2.7 times the limit is still alive"
    assert sessions.get(idle.token) is None  # and stays gone
    clock.now += IDLE  # exactly the limit: still alive
    assert sessions.get(used.token) is used
    clock.now += IDLE + 0.001
    assert sessions.get(used.token) is None


def test_past_the_limit_the_least_recently_used_session_makes_room():
    clock = Clock()
    sessions = Sessions(limit=3, idle_seconds=IDLE, clock=clock)
    made = []
    for _ in range(3):
        made.append(sessions.create())
        clock.now += 1
    assert sessions.get(made[0].token) is made[0]  # the oldest login, but used just now
    clock.now += 1
    newest = sessions.create()  # a fourth: the least recently used (made[1]) makes room
    assert sessions.get(made[1].token) is None
    assert all(sessions.get(s.token) is s for s in (made[0], made[2], newest))
    for _ in range(10):  # never more than the limit
        clock.now += 1
        sessions.create()
    assert sum(1 for s in (*made, newest) if sessions.get(s.token) is not None) == 0


def test_a_logout_drops_the_session_and_odd_cookies_find_nothing():
    sessions = Sessions(clock=Clock())
    session = sessions.create()
    sessions.drop(session.token)
    assert sessions.get(session.token) is None
    assert sessions.get(None) is None and sessions.get("") is None and sessions.get("x" * 201) is None
    assert sessions.get(session.csrf) is None  # the CSRF token is no session token


def test_the_console_logs_out_a_browser_left_idle(web_factory):
    web = web_factory(settings={"password": PASSWORD})
    clock = Clock()
    web.service.sessions = Sessions(idle_seconds=IDLE, clock=clock)
    web.login(PASSWORD)
    assert web.command({"command": "status"})[0] == 200
    clock.now += IDLE * 0.9
    assert web.command({"command": "status"})[0] == 200  # in use: the idle time starts again
    clock.now += IDLE * 0.9
    assert web.command({"command": "status"})[0] == 200
    clock.now += IDLE + 1
    status, reply = web.command({"command": "status"})
    assert status == 401 and "not logged in" in reply["error"]
    assert web.request("GET", "/", headers={"Cookie": web.cookie})[0] == 303  # back to the login
