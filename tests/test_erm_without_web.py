"""Escape Room Master's endpoints in a config with no ``[web]`` section (issue 40: behaviour does not
change when ERM became a service of its own): the simulator's console still answers ``/status``
with the 403 that names the key to set, as it did before the move, not a 404."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from tests.conftest import ROOT
from tests.mosquitto import free_port


def test_a_config_without_web_answers_status_with_the_403_that_names_the_key(tmp_path, short_dir):
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    text += f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
    text += f'\n[control]\nsocket = "{short_dir / "control.sock"}"\n'
    assert "\n[web]" not in text  # (commented out in the reference file)
    path = tmp_path / "noweb.toml"
    path.write_text(text)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    command = [sys.executable, "-m", "firmware.cli", "run", "--simulate", "--view", "headless"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--config", str(path)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while not any("web console at" in line for line in lines):
            assert process.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=10)
            raise AssertionError("/status answered without a token")
        except urllib.error.HTTPError as refused:
            status, body = refused.code, refused.read().decode()
        assert status == 403, (status, body)
        assert body == "forbidden: set [web] controller_token to use these endpoints\n"
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0, "".join(lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    reader.join(10)
    assert "Traceback" not in "".join(lines)
