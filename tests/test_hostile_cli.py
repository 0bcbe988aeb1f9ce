"""Issue 11, item 11: the command line never prints a traceback: a reader that left (``| head -1``)
ends the command quietly, whatever it was printing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, make_config, served_prop

DECK = ["deck", "--serial", "AB3DE4", "--min", "25", "--max", "1000", "--color", "red"]
PLAY = ["play", "--serial", "AB3DE4", "--min", "25", "--max", "1000", "--color", "red"]


#: As on the Pi: stdout block-buffered (PYTHONUNBUFFERED, set in some shells and CI, hides the exit flush).
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def run_into_a_closed_pipe(argv: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess:
    """Run ``baccarat argv`` with stdout a pipe nobody reads any more (``| head -1`` after its line)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "firmware.cli", *argv],
            input=stdin,
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=60,
            env=BUFFERED,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("argv", [DECK, [*DECK, "--json"]], ids=["deck", "deck --json"])
def test_deck_into_a_closed_pipe_ends_quietly(argv):
    result = run_into_a_closed_pipe(argv)
    assert result.stderr == b"" and result.returncode == 0


def test_play_into_a_closed_pipe_ends_quietly():
    result = run_into_a_closed_pipe(PLAY, b'{"arrow": "right"}\n' * 2000)
    assert result.stderr == b"" and result.returncode == 0


def test_play_piped_to_head_ends_quietly():
    shell = f"{sys.executable} -m firmware.cli {' '.join(PLAY)} | head -1"
    result = subprocess.run(
        ["bash", "-c", shell],
        input=b'{"arrow": "right"}\n' * 5000,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        env=BUFFERED,
    )
    assert result.stdout.count(b"\n") == 1 and result.stderr == b""


@pytest.fixture
def daemon_socket(mock_factory):
    directory = Path(tempfile.mkdtemp(prefix="bac-", dir="/tmp"))
    sock = directory / "control.sock"
    config = make_config(control={"socket": str(sock)}, state={"file": ""})
    with served_prop(config, mock_factory, seed=5):
        yield sock
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("argv", [["status"], ["status", "--json"], ["hint"]])
def test_status_into_a_closed_pipe_ends_quietly(daemon_socket, argv):
    result = run_into_a_closed_pipe([*argv, "--socket", str(daemon_socket)])
    assert result.stderr == b"" and result.returncode == 0
