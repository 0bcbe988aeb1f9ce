"""Issue 11, item 1: a damaged or hostile state file means a fresh game and one log line, never a crash or a hang."""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from pathlib import Path

import pytest

from baccarat_core import BaccaratModule
from firmware.app import restore_module
from firmware.room import saved_state
from tests.conftest import make_config
from tests.hostile import DEEP, HUGE_INT, Hostile


def saved_game(path: Path):
    """A config whose state file is ``path``, and a valid save of a game in progress there."""
    config = make_config(state={"file": str(path)})
    module = BaccaratModule(config.edgework, config.limits, rng=random.Random(1), first_color="red")
    module.start()
    module.arrow("right")
    module.press("player")
    saved_state.StateKeeper(path, config)([], module)
    return config, json.loads(path.read_text())


def restore_within(config, seconds: float = 5.0):
    """restore_module on a thread of its own: a FIFO used to hang start-up forever."""
    result: dict = {}

    def run() -> None:
        try:
            result["module"] = restore_module(config, random.Random(1))
        except BaseException as error:  # noqa: BLE001 - the test reports it
            result["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "restoring the state hung"
    assert "error" not in result, repr(result.get("error"))[:300]
    return result["module"]


def one_warning(caplog) -> str:
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1, [r.getMessage()[:120] for r in said]
    message = said[0].getMessage()
    assert said[0].exc_info is None and len(message) <= 300 and "\n" not in message, message[:400]
    assert "starting a fresh game" in message
    return message


def test_a_good_file_is_restored(tmp_path, caplog):
    config, _ = saved_game(tmp_path / "state.json")
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        module = restore_within(config)
    assert module is not None and module.denomination == 5


CONTENTS = {
    "not UTF-8": b"\xff{}",
    "strikes Infinity": None,  # filled in from a good file below
    "a 5,000-digit integer": None,
    "nested 5,000 deep": DEEP.encode(),
    "NaN": b'{"version": NaN}',
    "over 64 KiB": b'{"version": 1, "pad": "' + b"x" * (70 * 1024) + b'"}',
    "empty": b"",
    "a key twice": b'{"version": 1, "version": 1}',
}


@pytest.mark.parametrize("name", list(CONTENTS))
def test_damaged_contents_start_a_fresh_game_with_one_line(tmp_path, caplog, name):
    path = tmp_path / "state.json"
    config, good = saved_game(path)
    content = CONTENTS[name]
    if name == "strikes Infinity":
        content = json.dumps(good).replace('"strikes": 0', '"strikes": Infinity').encode()
        assert b"Infinity" in content
    elif name == "a 5,000-digit integer":
        content = json.dumps(good).replace('"strikes": 0', f'"strikes": {HUGE_INT}').encode()
    path.write_bytes(content)
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(config) is None
    one_warning(caplog)


def test_a_fifo_is_not_read(tmp_path, caplog):
    path = tmp_path / "state.json"
    config, _ = saved_game(path)
    path.unlink()
    os.mkfifo(path)
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(config) is None
    assert "a FIFO" in one_warning(caplog)


def test_a_symlink_to_a_device_is_not_read(tmp_path, caplog):
    path = tmp_path / "state.json"
    config, _ = saved_game(path)
    path.unlink()
    path.symlink_to("/dev/zero")
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(config) is None
    assert "symlink out of the state directory" in one_warning(caplog)


def test_a_symlink_out_of_the_state_directory_is_not_read(tmp_path, caplog):
    inside = tmp_path / "state"
    inside.mkdir()
    path = inside / "state.json"
    config, _ = saved_game(path)
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(config) is None
    one_warning(caplog)
    # A symlink inside the state directory is still followed.
    path.unlink()
    elsewhere.rename(inside / "real.json")
    path.symlink_to("real.json")
    assert restore_within(config) is not None


def test_a_directory_or_a_device_in_place_of_the_file(tmp_path, caplog):
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    path.mkdir()
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(config) is None
    one_warning(caplog)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_within(make_config(state={"file": "/dev/zero"})) is None
    assert "a device" in one_warning(caplog)


def test_1000_damaged_state_files_each_start_a_fresh_game_with_one_line(tmp_path, caplog):
    path = tmp_path / "state.json"
    config, good = saved_game(path)
    hostile = Hostile(41)
    files = [hostile.state(good) for _ in range(1100)]
    assert len(set(files)) > 300
    for index, content in enumerate(files):
        path.write_bytes(content)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="baccarat.state"):
            module = restore_module(config, random.Random(1))
        assert module is None, (index, content[:300])
        one_warning(caplog)
