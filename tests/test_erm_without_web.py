"""Escape Room Master's endpoints in a config with no ``[web]`` section (issue 40: behaviour does not
change when ERM became a service of its own): the simulator's console still answers ``/status``
with the 403 that names the key to set, as it did before the move, not a 404."""

from __future__ import annotations

import signal
import urllib.error
import urllib.request

from tests import headless
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
    with headless.simulator(path, "--view", "headless", "--port", str(port)) as (process, lines):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=10)
            raise AssertionError("/status answered without a token")
        except urllib.error.HTTPError as refused:
            status, body = refused.code, refused.read().decode()
        assert status == 403, (status, body)
        assert body == "forbidden: set [web] controller_token to use these endpoints\n"
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0, "".join(lines)
    assert "Traceback" not in "".join(lines)
