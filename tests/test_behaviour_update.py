"""Behaviour no other test held (issue 35 item 3): a switch that fails gives the game back.

Before a switch the updater copies the state file aside (``state.json.before-update``); when the new
version fails and changed the file's format meanwhile, the rollback puts the game back. Here the two
"releases" are tiny programs under a fake root, run by the systemd stand-in tests/fake_systemctl.py
(``Type=notify``, READY=1 on the notify socket): the good one says READY=1 and waits; the bad one
rewrites the state file in a newer format and dies before READY=1. The updater itself is the real one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from firmware.updates import releases
from tests.conftest import ROOT

GOOD = """import os, signal, socket, time
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
    s.sendto(b"READY=1", os.environ["NOTIFY_SOCKET"])
while True:
    time.sleep(1)
"""
BAD = """import json, os, sys
path = os.path.join(os.environ["STATE_DIRECTORY"], "state.json")
with open(path, "w") as f:
    json.dump({"version": 99, "written": "by the failed version"}, f)
sys.exit(1)
"""


@pytest.fixture
def root(monkeypatch):
    base = Path(tempfile.mkdtemp(prefix="bacbk-", dir="/tmp"))  # the notify socket's path stays short
    bin_dir, systemd = base / "bin", base / "systemd"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "tests" / "fake_systemctl.py"}" "$@"\n'
    )
    (bin_dir / "systemctl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_ROOT", str(base / "root"))
    monkeypatch.setenv("FAKE_SYSTEMD_DIR", str(systemd))
    yield base / "root"
    subprocess.run(["systemctl", "stop", releases.SERVICE], capture_output=True, timeout=60)
    shutil.rmtree(base, ignore_errors=True)


def _release(layout: releases.Layout, name: str, program: str) -> Path:
    release = layout.releases / name
    (release / "firmware").mkdir(parents=True)
    (release / "run.py").write_text(program)
    (release / "firmware" / releases.SERVICE).write_text(
        f"[Service]\nType=notify\nExecStart={sys.executable} /opt/baccarat/releases/{name}/run.py\n"
    )
    return release


def test_a_failed_switch_that_changed_the_state_files_format_puts_the_game_back(root, capsys):
    layout = releases.Layout(root)
    good, bad = _release(layout, "good", GOOD), _release(layout, "bad", BAD)
    layout.current.symlink_to("releases/good")
    layout.previous.symlink_to("releases/bad")
    layout.unit.parent.mkdir(parents=True)
    shutil.copy2(good / "firmware" / releases.SERVICE, layout.unit)
    state = layout.state_file()
    assert state == root / "var" / "lib" / "baccarat" / "state.json"
    state.parent.mkdir(parents=True)
    game = json.dumps({"version": 1, "module": "the game in progress"})
    state.write_text(game)

    assert releases.Updater(layout, watch=1.0).rollback() == 1  # to "bad", which fails: back to "good"

    out = capsys.readouterr().out
    assert "bad failed: it did not start (no READY=1)" in out
    assert "the game saved before the update is back" in out
    assert "rolled back: good runs again" in out
    assert state.read_text() == game, "the failed version's state file was kept"
    assert layout.target(layout.current) == good.resolve() and bad.exists()
