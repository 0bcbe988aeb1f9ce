"""A plugin cannot freeze the game (issue 40 item 4): third parties' plugins laid out as pip
installs them, each misbehaving in one way; the game answers commands and takes presses through
all of them, and each misbehaviour is one line naming the plugin. Plus: a name two
distributions claim (item 5), and a game thread that ends without being asked to."""

from __future__ import annotations

import logging
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware.plugin import hooks
from firmware.services import registry
from tests.conftest import make_config, served_prop, start_served

#: Released at the end of each test: a hook that "sleeps 30 s" waits on it instead (no sleep in
#: the suite; what matters is that it does not return while the game is tried).
HOLD = """\
import threading
import baccarat_test_gate as gate
from firmware.plugin import Running, Service


class {cls}(Service):
    name = "{name}"
    always = True
    section = None

    def start(self, prop, settings):
        def hook(events, module):
            gate.calls.append(("{name}", [e.kind for e in events]))
            {body}
        prop.daemon.on_settled.append(hook)
        return Running(lambda: None, None)
"""

GATE = """\
import threading
release = threading.Event()
calls = []
"""


def _plugin(site: Path, name: str, module: str, *, value: str | None = None, dist: str | None = None) -> None:
    """A plugin as pip lays one out: its module and a dist-info with its entry point."""
    (site / f"{name}_plugin.py").write_text(module)
    dist = dist or f"{name}-plugin"
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    cls = name.title().replace("_", "")
    (info / "entry_points.txt").write_text(f"[baccarat.services]\n{value or f'{name} = {name}_plugin:{cls}'}\n")


def _hooked(site: Path, name: str, body: str) -> None:
    _plugin(site, name, HOLD.format(cls=name.title().replace("_", ""), name=name, body=body))


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "baccarat_test_gate.py").write_text(GATE)
    monkeypatch.syspath_prepend(str(site))
    registry.installed.cache_clear()
    yield site
    import baccarat_test_gate

    baccarat_test_gate.release.set()
    registry.installed.cache_clear()
    for name in [n for n in sys.modules if n == "baccarat_test_gate" or n.endswith("_plugin")]:
        del sys.modules[name]  # the next test's site has modules of the same names


def _config(short_dir: Path):
    return make_config(state={"file": ""}, control={"socket": str(short_dir / "c.sock")})


def _said(caplog, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


def test_a_blocked_hook_never_holds_up_presses_commands_or_status(site, mock_factory, short_dir, caplog):
    _hooked(site, "sleeper", "gate.release.wait(30)")
    with caplog.at_level(logging.WARNING), served_prop(_config(short_dir), mock_factory) as rig:
        master = rig.master
        # The plugin's first call blocks its thread; the game goes on: presses, a deal, status.
        rig.driver.tap("right")
        rig.daemon.wait_idle()
        import baccarat_test_gate as gate

        deadline = time.monotonic() + 30
        while not gate.calls:  # its hook did get the events (on its own thread)
            assert time.monotonic() < deadline, "the plugin's hook was never called"
            time.sleep(0.01)
        status = master.handle({"command": "status"}).result(10)
        assert status["ok"], status
        # Keep handing it events until it has been stuck for a second: one warning names it.
        while not _said(caplog, "plugin sleeper: its on_settled hook has run for"):
            assert time.monotonic() < deadline, caplog.text
            assert master.handle({"command": "status"}).result(10)["ok"]
            rig.driver.tap("left")
            rig.daemon.wait_idle(10)
        for _ in range(20):  # more events while it is stuck: no second warning
            rig.driver.tap("right")
        rig.daemon.wait_idle(10)
        assert len(_said(caplog, "plugin sleeper: its on_settled hook")) == 1
        assert master.handle({"command": "force_solve"}).result(10)["ok"]
        assert rig.daemon.module.solved
        gate.release.set()
        assert rig.prop.drain(30)  # it catches up once released
    assert any(kinds == ["solved"] or "solved" in kinds for _, kinds in gate.calls)


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("raise RuntimeError('boom')", "RuntimeError"),
        ("import sys; sys.exit(3)", "SystemExit"),
        ("raise KeyboardInterrupt", "KeyboardInterrupt"),
    ],
)
def test_a_hook_that_raises_anything_is_one_line_and_the_plugin_is_disabled(
    site, mock_factory, short_dir, caplog, body, kind
):
    _hooked(site, "faulty", body)
    with caplog.at_level(logging.WARNING), served_prop(_config(short_dir), mock_factory) as rig:
        for _ in range(5):
            rig.driver.tap("right")
            rig.daemon.wait_idle(10)
        assert rig.prop.drain(30)
        assert rig.master.handle({"command": "force_solve"}).result(10)["ok"]
        assert rig.daemon.running()  # the game thread lives on
        import baccarat_test_gate as gate

        assert len(gate.calls) == 1  # disabled after its first failure: called once only
    raised = _said(caplog, f"plugin faulty: its on_settled hook raised {kind}")
    assert len(raised) == 1, caplog.text
    assert len(_said(caplog, "plugin faulty is disabled")) == 1


def test_a_hook_that_prints_ten_megabytes_costs_only_its_own_thread(site, mock_factory, short_dir, capsys):
    _hooked(site, "chatty", "print('x' * 10_000_000)")
    with served_prop(_config(short_dir), mock_factory) as rig:
        rig.driver.tap("right")
        rig.daemon.wait_idle(10)
        assert rig.master.handle({"command": "status"}).result(10)["ok"]
        assert rig.prop.drain(60)
    assert len(capsys.readouterr().out) >= 10_000_000


BLOCKS_AT_IMPORT = """\
import baccarat_test_gate as gate
gate.release.wait(30)
from firmware.plugin import Service


class Stuck(Service):
    name = "stuck"
    always = True
    section = None
"""

EXITS_AT_START = """\
import sys
from firmware.plugin import Service


class Quitter(Service):
    name = "quitter"
    always = True
    section = None

    def start(self, prop, settings):
        sys.exit("quitting")
"""


def test_a_plugin_that_blocks_at_import_or_exits_at_start_costs_itself(
    site, mock_factory, short_dir, caplog, monkeypatch
):
    monkeypatch.setattr(registry, "IMPORT_SECONDS", 0.5)  # a shorter wait; what is asserted is the line
    _plugin(site, "stuck", BLOCKS_AT_IMPORT)
    _plugin(site, "quitter", EXITS_AT_START)
    with caplog.at_level(logging.ERROR), served_prop(_config(short_dir), mock_factory) as rig:
        assert rig.master.handle({"command": "force_solve"}).result(10)["ok"]
        assert "stuck" in registry.installed().broken
    assert _said(caplog, "service stuck (stuck_plugin:Stuck) cannot be loaded (its import has not finished after")
    assert _said(caplog, "service quitter did not start (SystemExit: quitting); the prop runs without it")


def test_a_backlog_past_its_bound_drops_the_oldest_with_one_line(caplog):
    runner = hooks.HookRunner("slow", logging.getLogger("baccarat.plugin.slow"), backlog=3)
    gate = threading.Event()
    seen: list[int] = []

    def hook(n: int) -> None:
        gate.wait(30)
        seen.append(n)

    with caplog.at_level(logging.WARNING):
        runner.call("on_shown", hook, (0,))
        deadline = time.monotonic() + 30
        while runner._busy is None:  # its thread took the first call
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for n in range(1, 11):
            runner.call("on_shown", hook, (n,))
        gate.set()
        assert runner.drain(30)
    runner.close()
    assert seen == [0, 8, 9, 10]  # the first (running), then the newest three
    assert len(_said(caplog, "plugin slow is 3 calls behind")) == 1
    assert _said(caplog, "plugin slow caught up; 7 calls were dropped")


SAME_NAME = """\
from firmware.plugin import Running, Service


class Mqtt(Service):
    name = "mqtt"
    always = True
    section = None

    def start(self, prop, settings):
        raise AssertionError("the built-in must win")
"""


def test_a_name_two_distributions_claim_is_refused_with_one_line_naming_both(site, caplog, tmp_path):
    _plugin(site, "impostor", SAME_NAME, value="mqtt = impostor_plugin:Mqtt", dist="evil-mqtt")
    with caplog.at_level(logging.ERROR, logger="baccarat.services"):
        services = registry.installed()
    assert type(services.get("mqtt")).__module__ == "firmware.services.mqtt"
    line = "service name 'mqtt' is claimed by both baccarat-prop and evil-mqtt (impostor_plugin:Mqtt); "
    assert services.conflicts["mqtt"].startswith(line)
    assert [r.getMessage() for r in caplog.records] == [services.conflicts["mqtt"]]
    from firmware.config.report import describe_services

    shown = describe_services(make_config(state={"file": ""}))
    assert f"Service mqtt: {services.conflicts['mqtt']}" in shown  # check-config says it too


def test_a_game_thread_that_ends_unasked_makes_the_prop_exit_non_zero(mock_factory, monkeypatch, caplog):
    from firmware.app import build_daemon, run_forever
    from firmware.devices.displays import open_dummy_device
    from firmware.game import loop

    daemon = build_daemon(make_config(state={"file": ""}), pin_factory=mock_factory, device_factory=open_dummy_device)

    def dies(self) -> None:
        raise SystemExit("a bug")

    monkeypatch.setattr(loop.GameLoop, "run", dies)
    with caplog.at_level(logging.ERROR):
        assert run_forever(daemon) == 1
    assert _said(caplog, "the game thread ended: SystemExit: a bug")
    assert _said(caplog, "the game stopped without being asked to; exit status 1")


def test_a_built_in_hook_that_keeps_failing_is_one_traceback_then_a_count(caplog):
    """The prop's own hooks run on the game thread (notify): one that raises, SystemExit included,
    never ends it; its first failure of a kind has a traceback, the next are counted."""
    from firmware.game.loop import FAILURES_SAID_EVERY, notify

    ran = []

    def broken(n: int) -> None:
        raise SystemExit(f"bad {n}")

    with caplog.at_level(logging.ERROR, logger="baccarat"):
        for n in range(2 * FAILURES_SAID_EVERY + 5):
            notify([broken, ran.append], n)
    assert len(ran) == 2 * FAILURES_SAID_EVERY + 5  # the next hook ran every time
    said = [r for r in caplog.records if "broken" in r.getMessage()]
    assert [r.exc_info is not None for r in said] == [True, False, False]
    assert said[1].getMessage().endswith(f"has failed {FAILURES_SAID_EVERY} times (SystemExit: bad 99)")


STOPPING = """\
import baccarat_test_gate as gate
from firmware.plugin import Running, Service


class Finisher(Service):
    name = "finisher"
    always = True
    section = None

    def start(self, prop, settings):
        def hook(events, module):
            if any(e.kind == "solved" for e in events):
                gate.calls.append("hook began")
                gate.release.wait(30)
                gate.calls.append("hook done")
        prop.daemon.on_settled.append(hook)
        return Running(lambda: gate.calls.append("stopped"), None)
"""


def test_a_clean_stop_lets_a_plugins_queued_hooks_run_before_its_own_stop(site, mock_factory, short_dir):
    """The solve a plugin's hook is still handling when the prop stops reaches it whole, and only
    then is the plugin stopped (its file closed, its connection dropped)."""
    _plugin(site, "finisher", STOPPING)
    import baccarat_test_gate as gate

    config = _config(short_dir)
    rig, stop = start_served(config, mock_factory)
    stopping = threading.Thread(target=stop)
    try:
        assert rig.master.handle({"command": "force_solve"}).result(10)["ok"]
        deadline = time.monotonic() + 30
        while "hook began" not in gate.calls:
            assert time.monotonic() < deadline, "the plugin's hook was never called"
            time.sleep(0.01)
        stopping.start()
        stopping.join(1.0)  # a stop that does not wait for the hook is done by now, most likely
    finally:
        gate.release.set()
        if stopping.ident is None:
            stop()  # failed before the stop began
        else:
            stopping.join(30)
    assert gate.calls == ["hook began", "hook done", "stopped"]
