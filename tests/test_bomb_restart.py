"""kill -9 mid-countdown (issue 24 part 3): a whole prop in a process of its own
(tests/prop_process.py) is killed while its countdown runs, and the next one takes over the time
left: the seconds the prop was off are counted (the wall clock runs on across a power cut), and no
more. What is compared is bounded by instants measured around each step, never by a fixed time."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import config_data
from tests.test_state import PropProcess


@pytest.fixture
def bomb_process(tmp_path):
    made: list[PropProcess] = []

    def start() -> PropProcess:
        data = config_data(
            state={"file": str(tmp_path / "state.json")},
            control={"socket": ""},
            bomb={"timer_seconds": 600, "strike_limit": 3},
        )
        config_file = tmp_path / "config.json"
        config_file.write_text(json.dumps(data))
        made.append(PropProcess(config_file))
        return made[-1]

    yield start
    for prop in made:
        prop.stop()


def test_kill_9_mid_countdown_gives_no_time_back_and_takes_only_what_passed(bomb_process, tmp_path):
    path = tmp_path / "state.json"
    prop = bomb_process()
    assert prop.ready["restored"] is False and prop.ready["snapshot"]["timer"]["state"] == "waiting"
    prop.tap("right")  # the first input: the countdown runs, and that is saved at once
    running = prop.snapshot()["timer"]
    assert running["state"] == "running" and running["left"] <= 600
    saved = json.loads(path.read_text())
    assert saved["module"]["timer"]["state"] == "running"
    prop.kill9()

    # The power stays off 100 s longer than this test takes: the moment of the save moves back.
    saved["saved_at"] -= 100.0
    path.write_text(json.dumps(saved))
    off_since = saved["saved_at"]
    left_then = saved["module"]["timer"]["left"]

    before = time.time()
    again = bomb_process()
    after = time.time()
    assert again.ready["restored"] is True
    timer = again.ready["snapshot"]["timer"]
    assert timer["state"] == "running"
    # Restored between `before` and `after`: the time off is counted, at 1x (no strike yet).
    assert left_then - (after - off_since) - 0.01 <= timer["left"] <= left_then - (before - off_since) + 0.01
    assert timer["left"] <= left_then - 100.0
    assert again.snapshot()["timer"]["left"] <= timer["left"], "and it runs on"


def test_kill_9_after_the_explosion_keeps_the_bomb_exploded(bomb_process):
    prop = bomb_process()
    for _ in range(3):  # three deals with no bet: three strikes, the limit
        prop.tap("deal")
    snapshot = prop.snapshot()
    assert snapshot["exploded"] == "strikes" and snapshot["timer"]["state"] == "stopped"
    prop.kill9()
    again = bomb_process()
    assert again.ready["snapshot"]["exploded"] == "strikes"
    assert again.ready["snapshot"]["timer"] == snapshot["timer"], "a stopped countdown loses nothing"
