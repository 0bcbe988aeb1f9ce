"""``baccarat run`` starts with Python's cyclic garbage collector off and turns it on at "ready".

Start-up makes long-lived objects only; the collector scanned them again and
again while they were made (benchmarks/README.md, "Start-up"). These tests hold
the other half of the bargain: the collector is back on once the prop is ready,
with start-up's objects frozen, and it is on again when the start fails.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from firmware import app, cli
from firmware.config import DEFAULT_CONFIG
from firmware.game.daemon import READY

ROOT = Path(__file__).resolve().parent.parent

# `baccarat run` as the service starts it, over the recorded bus and gpiozero's mock pins
# (as benchmarks/child.py, without turning the collector off itself). A log handler notes
# the collector's state at the "ready" line, and a moment later (after the settled call)
# prints both and stops the prop with SIGTERM.
PROBE = textwrap.dedent(
    """
    import gc, logging, os, signal, sys, threading
    sys.path.insert(0, {root!r})
    from tests import fakeos
    kernel = fakeos.install_for_process()
    kernel.i2c_display(1, 0x3C), kernel.i2c_display(1, 0x3D), kernel.spi_device(0, 0, dc=24)
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    seen = {{}}

    def report():
        print(seen["at_ready"], gc.isenabled(), gc.get_freeze_count(), flush=True)
        os.kill(os.getpid(), signal.SIGTERM)

    class Probe(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("ready:"):
                seen["at_ready"] = gc.isenabled()
                threading.Timer(0.5, report).start()

    logging.getLogger("baccarat").addHandler(Probe())
    print(gc.isenabled(), flush=True)
    from firmware.cli import main
    sys.exit(main(["run", "--config", {config!r}]))
    """
)


def test_the_collector_is_off_during_start_up_and_on_with_the_start_up_frozen_once_ready(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(
        DEFAULT_CONFIG.read_text(encoding="utf-8")
        + f'\n[state]\nfile = "{tmp_path / "state.json"}"\n\n[control]\nsocket = "{tmp_path / "c.sock"}"\n',
        encoding="utf-8",
    )
    script = PROBE.format(root=str(ROOT), config=str(config))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert before == "True", "the process starts with the collector on"
    at_ready, enabled, frozen = after.split()
    assert at_ready == "False", "start-up runs with the collector off"
    assert enabled == "True", "the collector is on again once the prop is ready"
    assert int(frozen) > 10_000, f"start-up's objects are frozen at ready ({frozen})"
    assert READY in done.stderr


@pytest.fixture
def collector():
    """Leave the collector on, and nothing frozen, whatever the test did."""
    yield
    gc.unfreeze()
    gc.enable()


def test_resume_collection_freezes_once_and_turns_the_collector_on(collector):
    gc.disable()
    app.resume_collection([], None)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()
    app.resume_collection([], None)  # later settled calls: nothing to do
    assert gc.isenabled() and gc.get_freeze_count() == 0, "only the first call after start-up freezes"


def test_a_start_that_fails_leaves_the_collector_on(collector, tmp_path: Path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text(DEFAULT_CONFIG.read_text(encoding="utf-8").replace("width = 128", "width = 100", 1))
    assert cli.main(["run", "--config", str(broken)]) == 2
    assert "width" in capsys.readouterr().err
    assert gc.isenabled()


# The console script, with a finder that notes the collector's state when firmware.cli is first imported.
CONSOLE = textwrap.dedent(
    """
    import gc, sys
    sys.path.insert(0, {root!r})

    class Watch:
        def find_spec(self, name, path=None, target=None):
            if name == "firmware.cli":
                print("cli imported with the collector", "on" if gc.isenabled() else "off", flush=True)
            return None

    sys.meta_path.insert(0, Watch())
    from firmware.console import main
    sys.argv = ["baccarat", *{args!r}]
    code = main()
    print("then", "on" if gc.isenabled() else "off", code, flush=True)
    """
)


@pytest.mark.parametrize(
    ("args", "during"),
    [(["run", "--config", "/nonexistent/config.toml"], "off"), (["check-config", "/nonexistent/config.toml"], "on")],
)
def test_the_console_script_turns_the_collector_off_before_the_first_import_of_run(args, during):
    """`baccarat run` imports the command line and the config's modules with the collector off;
    other commands leave it alone; whatever happens, it is on again afterwards."""
    script = CONSOLE.format(root=str(ROOT), args=args)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == [f"cli imported with the collector {during}", "then on 2"], done.stderr
    assert "/nonexistent/config.toml" in done.stderr
