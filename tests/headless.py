"""A simulator in a process of its own, as a service manager runs it (stdin and stdout not a
terminal), started until its console listens: for the tests that ask its pages over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import ROOT


@contextmanager
def simulator(config: Path, *args: str, timeout: float = 60.0) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``baccarat run --simulate --config CONFIG ARGS...`` until it logs ``web console at``; the
    process and its log lines so far (more come while it runs). Killed at the end if still running."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli", "run", "--simulate", "--config", str(config), *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        while not any("web console at" in line for line in lines):
            assert process.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        yield process, lines
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        reader.join(10)
