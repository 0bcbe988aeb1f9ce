"""What a start loads before "ready": nothing the start does not use (issue 35, item 6).

Every module Python loads costs a start its instructions (about a million each under callgrind,
benchmarks/instructions.py); these are used only later, or only by some props, so they are loaded
when first used. The start is the benchmark's child (``baccarat run`` over the recorded bus, as the
service runs it), ended at "ready" with the names of the modules loaded by then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DUMP = """
import json, logging, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "benchmarks"))
import child
class AtReady(logging.Handler):
    def emit(self, record):
        from firmware.game.daemon import READY
        if record.msg == READY:
            with open(sys.argv[3], "w") as f:
                json.dump(sorted(sys.modules), f)
            os._exit(0)
logging.getLogger("baccarat").addHandler(AtReady(logging.INFO))
sys.exit(child.main([sys.argv[2]]))
"""

#: Loaded by a start that does not use them: each with who uses it.
NOT_AT_START = {
    "firmware.render.casing": "a casing display",
    "firmware.render.exploded": "a bomb's explosion",
    "firmware.selftest": "the self-test",
    "firmware.render.testcard": "the self-test",
    "firmware.history.games": "the history's pages",
    "asyncio": "Clue Control's link",
    "pymodbus": "Clue Control's link",
    "http.server": "the console",
    "firmware.room.builtins": "the first command",
    "firmware.room.command_table": "the first command",
    # The displays' font is a .pbm beside its metrics (firmware/render/fonts/): Pillow's own copy
    # is a PNG, and Image.open of it loads these four readers besides.
    "PIL.PngImagePlugin": "an image file",
    "PIL.JpegImagePlugin": "an image file",
    "PIL.GifImagePlugin": "an image file",
    "PIL.BmpImagePlugin": "an image file",
}


def test_a_start_loads_nothing_it_does_not_use(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        (ROOT / "firmware" / "config" / "default-config.toml").read_text(encoding="utf-8")
        + f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
        + f'\n[control]\nsocket = "{tmp_path / "control.sock"}"\n',
        encoding="utf-8",
    )
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k not in ("GPIOZERO_PIN_FACTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    run = subprocess.run(
        [sys.executable, "-c", DUMP, str(ROOT), str(config), str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), run.stderr[-3000:]
    loaded = set(json.loads(out.read_text(encoding="utf-8")))
    assert "firmware.game.daemon" in loaded and "firmware.render.table" in loaded  # it did start
    early = {name: why for name, why in NOT_AT_START.items() if name in loaded}
    assert early == {}, f"loaded at start, used only by: {early}"
