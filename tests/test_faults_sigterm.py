"""Stop at any moment: SIGTERM (systemd's stop) during play and mid-deal.

A daemon process on mock pins and dummy displays (``tests/daemon_process.py``)
bets and deals with 0.5 s between cards; SIGTERM must end it promptly with
exit code 0, the LEDs off and every display blanked and put to sleep. The next
start (same state file) must show no half-dealt hand: the round that was being
dealt counts in full (the saved state is written before the cards are shown),
and the table waits for bets.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from firmware.config import DEFAULT_CONFIG
from firmware.render import TableView, render_table
from tests.pixels import find_text

ROOT = Path(__file__).resolve().parent.parent
HELPER = ROOT / "tests" / "daemon_process.py"


def write_config(directory: Path, pacing: str = "quick") -> Path:
    """The reference config, fixed limits, a red deck; ``quick`` deals 0.5 s a card, ``original``
    on the original's timeline (the reference config's own)."""
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    for old, new in (
        ('mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000'),
        ('first_color = "random"', 'first_color = "red"'),
        ("card_seconds = 0.6", "card_seconds = 0.5"),
        ('pacing = "original"', f'pacing = "{pacing}"'),
    ):
        assert old in text
        text = text.replace(old, new, 1)
    state = json.dumps(str(directory / "state.json"))
    path = directory / "config.toml"
    path.write_text(text + f'\n[state]\nfile = {state}\n\n[control]\nsocket = ""\n', encoding="utf-8")
    return path


class DaemonProcess:
    """The helper in a subprocess, with its output lines as they come."""

    def __init__(self, config: Path, dump: Path, *flags: str) -> None:
        self.dump = dump
        self.proc = subprocess.Popen(
            [sys.executable, str(HELPER), "--config", str(config), "--dump", str(dump), *flags],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.stderr: list[str] = []
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream) -> None:
        for line in stream:
            if name == "err":
                self.stderr.append(line)
            self.lines.put((name, line.rstrip("\n")))

    def wait_for(self, text: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and self.lines.empty():
                self.proc.kill()
                raise AssertionError(f"no {text!r} from the daemon; stderr: {''.join(self.stderr)}")
            try:
                _, line = self.lines.get(timeout=min(left, 0.2))
            except queue.Empty:
                continue
            if text in line:
                return

    def terminate(self) -> tuple[int, float]:
        """SIGTERM; the exit code and how long the process took to go."""
        sent = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR1)  # faulthandler: where every thread is
            time.sleep(0.5)
            self.proc.kill()
            time.sleep(0.1)
            raise AssertionError(f"the daemon did not stop on SIGTERM; stderr: {''.join(self.stderr)}") from None
        took = time.monotonic() - sent
        time.sleep(0.05)  # let the readers drain
        return code, took

    def summary(self) -> dict:
        return json.loads((self.dump / "summary.json").read_text(encoding="utf-8"))

    def log(self) -> str:
        return "".join(self.stderr)


def check_stopped_cleanly(process: DaemonProcess, code: int, took: float) -> dict:
    assert code == 0, process.log()
    # How long it took is no assertion (a speed target lives in benchmarks/): terminate() gives it
    # 10 s, and a stop that waited for the deal would show its result (the mid-deal test's "round:").
    log = process.log()
    assert "signal SIGTERM received" in log and "stopping: lights off, displays blank" in log
    assert "Traceback" not in log and " ERROR " not in log, log
    summary = process.summary()
    assert all(level == 0 for level in summary["leds"].values()), summary["leds"]
    assert summary["outputs"] and all(level == 0 for level in summary["outputs"].values()), summary["outputs"]
    assert all(summary["blank"].values()), summary["blank"]
    assert all(summary["hidden"].values()), summary["hidden"]
    return summary


def check_next_start(config: Path, dump: Path, before: dict) -> None:
    process = DaemonProcess(config, dump, "--snap")
    process.wait_for("frames-saved")
    code, took = process.terminate()
    after = check_stopped_cleanly(process, code, took)
    # The game goes on where it stopped: the round that was being dealt counts in full. A stop
    # between the round's result and its clearing leaves it pending: the next start finishes it
    # (the chips leave the table; the first deck keeps well over 26 cards, so it stays).
    assert before["snapshot"]["position"] < 26
    assert after["snapshot"] == {**before["snapshot"], "round_pending": False}
    table = Image.open(dump / "table-ready.png")
    status = "SOLVED" if before["snapshot"]["solved"] else "PLACE YOUR BETS"
    assert find_text(table, status) is not None, "the table does not wait for bets"
    assert find_text(table.crop((0, 12, table.width, table.height)), "=") is None, "a score is on the table"
    color = before["snapshot"]["deck"]["color"]
    # Exactly the empty table of the restored game: its deck (header in reverse video) and status.
    empty = TableView(color, before["cards_left"], (), (), None, None, None, status)
    assert table.tobytes() == render_table(empty, table.size, table.mode).tobytes(), "not an empty table"


@pytest.mark.parametrize("pacing", ["quick", "original"])
def test_sigterm_mid_deal_turns_everything_off_and_the_next_start_shows_no_half_hand(tmp_path, pacing):
    config = write_config(tmp_path, pacing)
    process = DaemonProcess(config, tmp_path / "first", "--play")
    process.wait_for("dealt-frame")  # one card is on the table (face down, with the original's pacing)
    code, took = process.terminate()
    before = check_stopped_cleanly(process, code, took)
    log = process.log()
    assert "deal requested" in log and "round:" not in log  # it was dealing, the result not shown yet
    assert ("card " in log) == (pacing == "quick")  # a card face up at once, or still face down
    assert before["cards_left"] < 52
    check_next_start(config, tmp_path / "second", before)


@pytest.mark.parametrize("delay", [0.0, 0.12, 0.3, 0.7, 1.6, 3.5])
def test_sigterm_at_any_moment_of_a_game(tmp_path, delay):
    """While the bet is placed, at the deal, between cards, after the round."""
    config = write_config(tmp_path)
    process = DaemonProcess(config, tmp_path / "first", "--play")
    process.wait_for("ready: inputs armed")
    time.sleep(delay)
    code, took = process.terminate()
    before = check_stopped_cleanly(process, code, took)
    check_next_start(config, tmp_path / "second", before)
