"""The controllers' health answers tell a frozen game from a running one (issue 40, "a hook cannot
freeze the game": the console's ``/status`` answered 200 while a hook held the game thread, so a
controller saw a healthy prop). With the right token, ``/status``, ``/enable_status`` and ``/json``
answer ``503`` with the reason once the game thread has not come round for a few seconds, and as
before once it does again; an idle prop is never taken for a frozen one."""

from __future__ import annotations

import logging
import threading
import time

from tests.browser import TOKEN, web_factory  # noqa: F401 (a fixture)
from tests.test_web_hostile import until

HEALTH = ("/status", "/enable_status", "/json")


def test_a_hook_that_blocks_the_game_thread_makes_status_503(web_factory, caplog):  # noqa: F811
    caplog.set_level(logging.INFO)
    web = web_factory()
    web.service.health.stale = 1.0  # the test's few seconds
    for path in HEALTH:
        assert web.request("GET", f"{path}?token={TOKEN}")[0] == 200
    time.sleep(1.5)  # idle longer than the stale time: an idle game answers at once
    assert web.request("GET", f"/status?token={TOKEN}")[:3:2] == (200, b"not_triggered")
    release = threading.Event()
    entered = threading.Event()

    def blocking_hook(events, module) -> None:  # a hook on the game thread that never returns
        entered.set()
        release.wait(60)

    web.daemon.on_handled.append(blocking_hook)
    try:
        web.rig.driver.tap_in_background("player")  # a chip: the hook runs, and holds the game thread
        assert entered.wait(10), "the hook never ran"
        # healthy while its last answer is fresh, then 503 once the game has not come round for 1 s
        until(lambda: web.request("GET", f"/status?token={TOKEN}")[0] == 503, what="503 once frozen")
        for path in HEALTH:
            status, headers, body = web.request("GET", f"{path}?token={TOKEN}")
            assert status == 503, (path, status, body)
            assert body.startswith(b"unhealthy: the game has not come round for ") and b"frozen" in body, body
            assert headers["retry-after"] == "5"
        assert web.request("GET", "/status?token=wrong-token-000")[0] == 403  # a stranger learns nothing
    finally:
        web.daemon.on_handled.remove(blocking_hook)
        release.set()
    until(lambda: web.request("GET", f"/status?token={TOKEN}")[0] == 200, what="healthy again")
    lines = [r.getMessage() for r in caplog.records if "answered 503" in r.getMessage()]
    assert len(lines) == 1 and "web: /status answered 503: the game has not come round" in lines[0], lines


def test_a_stopped_game_is_not_healthy(web_factory):  # noqa: F811
    web = web_factory()
    web.daemon.stop()
    status, _, body = web.request("GET", f"/status?token={TOKEN}")
    assert status == 503 and body == b"unhealthy: the game is not running\n"
