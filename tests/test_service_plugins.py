"""Room services are plugins (issue 30): found through the ``baccarat.services`` entry points, the
prop's own as a third party's; ``examples/service`` installed with pip adds its section, its
check-config line, its command and its behaviour; a broken plugin costs itself only."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from firmware.config import ConfigError, parse_config
from firmware.services import registry
from tests.conftest import ROOT, config_data, make_config, served_prop

EXAMPLE = ROOT / "examples" / "service"
BUILT_IN = {"history", "sound", "control", "mqtt", "home_assistant", "room2", "web"}


def _pyproject_services() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return project["project"]["entry-points"][registry.GROUP]


def test_every_built_in_service_is_an_installed_entry_point():
    """The venv's metadata (``pip install -e .``) lists each built-in service, as pyproject names it."""
    installed = {ep.name: ep.value for ep in metadata.entry_points(group=registry.GROUP)}
    assert BUILT_IN <= set(_pyproject_services())
    assert {name: installed.get(name) for name in _pyproject_services()} == _pyproject_services()
    loaded = registry.installed()
    assert set(loaded.by_name) >= set(_pyproject_services()) and not loaded.broken


def test_the_start_order_keeps_each_service_after_what_it_needs():
    order = [service.name for service in registry.installed().ordered()]
    for service in registry.installed():
        for before in service.after:
            assert order.index(before) < order.index(service.name), (service.name, before, order)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """``examples/service`` installed with pip, as a user installs it, into a folder of its own
    (put on sys.path: the prop's venv stays as it is for the other tests)."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(EXAMPLE)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": str(build)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (target / "baccarat_event_log" / "__init__.py").is_file()
    return target


@pytest.fixture
def with_example(site, monkeypatch):
    """The example plugin installed for this process: on sys.path, the registry found anew."""
    monkeypatch.syspath_prepend(str(site))
    registry.installed.cache_clear()
    yield
    registry.installed.cache_clear()


def _cli(args: list[str], site: Path | None) -> subprocess.CompletedProcess[str]:
    path = [str(ROOT)] + ([str(site)] if site is not None else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", *args], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT
    )


def _config_file(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text((ROOT / "firmware" / "config" / "default-config.toml").read_text() + "\n" + extra)
    return path


def test_installing_the_example_adds_its_section_and_its_check_config_line(site, tmp_path):
    path = _config_file(tmp_path, f'[event_log]\npath = "{tmp_path / "events.jsonl"}"\nevents = ["solved"]\n')
    without = _cli(["check-config", str(path)], None)
    assert without.returncode == 2 and "[event_log]: unknown section" in without.stderr
    with_it = _cli(["check-config", str(path)], site)
    assert with_it.returncode == 0, with_it.stderr
    assert f"Event log: {tmp_path / 'events.jsonl'} (solved)" in with_it.stdout
    bad = _config_file(tmp_path, '[event_log]\npath = "x"\nevent = ["solved"]\n')
    refused = _cli(["check-config", str(bad)], site)
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("[event_log] event: unknown key (did you mean events?)")
    assert "Traceback" not in refused.stderr


def test_the_example_writes_each_event_and_takes_its_own_command(with_example, mock_factory, short_dir, tmp_path):
    log_file = tmp_path / "events.jsonl"
    config = make_config(
        state={"file": ""}, control={"socket": str(short_dir / "c.sock")}, event_log={"path": str(log_file)}
    )
    assert "event_log" in config.settings
    with served_prop(config, mock_factory) as rig:
        master = rig.master
        assert master.handle({"command": "force_solve"}).result(5)["ok"]
        note = master.handle("log-note  the players asked for a hint", words=True).result(5)
        assert note["ok"] and note["command"] == "log_note", note
        refused = master.handle({"command": "log_note", "text": ""}).result(5)
        assert not refused["ok"] and "1-200 characters" in refused["error"]
    lines = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert "solved" in [line["event"] for line in lines]
    # The note goes straight to the file; the events come through the plugin's own hook thread
    # (a third party's hooks never run on the game thread), so their order in the file is free.
    assert any({"event": "note", "text": "the players asked for a hint"}.items() <= line.items() for line in lines)


def test_an_unknown_section_names_a_close_one():
    with pytest.raises(ConfigError, match=r"^\[mqt\]: unknown section \(did you mean mqtt\?\)$"):
        parse_config(config_data(mqt={"host": "h"}))
    with pytest.raises(ConfigError, match=r"^\[timing\] hold_second: unknown key \(did you mean hold_seconds\?\)$"):
        make_config(timing={"hold_second": 1})


BROKEN = """\
from firmware.services import Service

raise ImportError("needs a library that is not installed")
"""
FAILING = """\
from firmware.services import Service


class Failing(Service):
    name = "failing"
    always = True
    section = None

    def start(self, prop, settings):
        raise OSError(5, "Input/output error")
"""


def _plugin(site: Path, name: str, module: str, value: str) -> None:
    """A plugin as pip lays one out: its module and a dist-info with its entry point."""
    (site / f"{name}.py").write_text(module)
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[baccarat.services]\n{value}\n")


@pytest.fixture
def faulty(tmp_path, monkeypatch):
    site = tmp_path / "faulty-site"
    site.mkdir()
    _plugin(site, "broken_plugin", BROKEN, "broken = broken_plugin:Broken")
    _plugin(site, "failing_plugin", FAILING, "failing = failing_plugin:Failing")
    monkeypatch.syspath_prepend(str(site))
    registry.installed.cache_clear()
    yield site
    registry.installed.cache_clear()


def test_a_plugin_that_cannot_be_imported_is_one_line_and_the_prop_runs(faulty, caplog, tmp_path):
    with caplog.at_level(logging.ERROR, logger="baccarat.services"):
        services = registry.installed()
    assert "broken" in services.broken and "ImportError: needs a library" in services.broken["broken"]
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "service broken (broken_plugin:Broken) cannot be loaded (ImportError: needs a library that is not "
        "installed); the prop runs without it"
    ]
    assert all(r.exc_info is None for r in caplog.records)
    config = parse_config(config_data(broken={"anything": 1}))  # its section is kept, unchecked
    assert config.unchecked == {"broken": {"anything": 1}}
    done = _cli(["check-config", str(_config_file(tmp_path, ""))], faulty)
    assert done.returncode == 0, done.stderr
    assert "Service broken: cannot be loaded (ImportError" in done.stdout


def test_a_service_that_fails_to_start_is_one_line_and_the_rest_runs(faulty, mock_factory, short_dir, caplog):
    config = make_config(state={"file": ""}, control={"socket": str(short_dir / "c.sock")})
    with caplog.at_level(logging.ERROR, logger="baccarat"):
        with served_prop(config, mock_factory) as rig:
            assert rig.master.handle({"command": "force_solve"}).result(5)["ok"]
            deadline = time.monotonic() + 5
            while not (short_dir / "c.sock").exists():  # the control socket, started after it, runs
                assert time.monotonic() < deadline
                time.sleep(0.02)
    failed = [r for r in caplog.records if "failing" in r.getMessage()]
    assert [r.getMessage() for r in failed] == [
        "service failing did not start (OSError: [Errno 5] Input/output error); the prop runs without it"
    ]
    assert failed[0].exc_info is None


def test_a_third_party_command_is_refused_where_the_plugin_is_not(mock_factory, short_dir):
    config = make_config(state={"file": ""}, control={"socket": str(short_dir / "c.sock")})
    with served_prop(config, mock_factory) as rig:
        reply = rig.master.handle({"words": "log-note hello", "id": 3}).result(5)
    assert reply["id"] == 3 and not reply["ok"] and reply["error"].startswith('unknown command "log-note"')


def test_the_developer_page_shows_the_example_as_it_is():
    """docs/develop/services.md walks through the example: what it quotes is the example's code."""
    page = (ROOT / "docs" / "develop" / "services.md").read_text(encoding="utf-8")
    source = (EXAMPLE / "baccarat_event_log" / "__init__.py").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in page.split("```python\n")[1:]]
    assert blocks, "the page quotes no code"
    for block in blocks:
        if block.startswith("# from examples/service"):
            body = block.split("\n", 1)[1].rstrip("\n")
            assert body in source, block[:80]


LOW_PORT = """\
from firmware.config.sections import Key
from firmware.services import Service


class LowPort(Service):
    name = "low_port"
    keys = (Key("port", int, 502),)

    def unit(self, settings):
        return {"AmbientCapabilities": "CAP_NET_BIND_SERVICE"} if settings["port"] < 1024 else {}
"""


def test_a_service_that_needs_a_low_port_gets_exactly_that_capability_and_the_sandbox_holds(tmp_path, monkeypatch):
    """``baccarat unit-dropin`` (which install-service.sh writes beside the unit) grants a service
    what its ``unit()`` asks for the config at hand, and nothing when it asks nothing; the unit with
    that drop-in still rates at most 2.0 in ``systemd-analyze security``."""
    import re
    import shutil

    from firmware.cli.unit import dropin

    site = tmp_path / "site"
    site.mkdir()
    _plugin(site, "low_port_plugin", LOW_PORT, "low_port = low_port_plugin:LowPort")
    monkeypatch.syspath_prepend(str(site))
    registry.installed.cache_clear()
    try:
        assert dropin(parse_config(config_data())) == ""  # no [low_port]: nothing more
        assert dropin(parse_config(config_data(low_port={"port": 5020}))) == ""
        text = dropin(parse_config(config_data(low_port={})))
    finally:
        registry.installed.cache_clear()
    lines = text.splitlines()
    assert lines[1:] == [
        "[Service]",
        "AmbientCapabilities=CAP_NET_BIND_SERVICE",
        "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
    ]
    unit = tmp_path / "baccarat.service"
    unit.write_text((ROOT / "firmware" / "baccarat.service").read_text() + "\n" + text)  # as a drop-in merges
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: scripts/test.sh installs the systemd package"
    run = subprocess.run([tool, "security", "--offline=true", "--no-pager", str(unit)], capture_output=True, text=True)
    exposure = re.search(r"Overall exposure level for baccarat\.service: (\d+\.\d+)", run.stdout)
    assert exposure and float(exposure.group(1)) <= 2.0, run.stdout + run.stderr
    granted = [line for line in run.stdout.splitlines() if "CAP_NET_(BIND_SERVICE" in line]
    assert granted and granted[0].startswith("✗"), run.stdout  # granted: the one exposure it adds
    assert "Unknown key" not in run.stderr, run.stderr


def test_the_scan_passes_over_entry_point_files_it_cannot_read(tmp_path):
    """A distribution whose ``entry_points.txt`` is not UTF-8, a FIFO, a directory or unreadable is
    passed over; the rest are read (no wait on the FIFO, no traceback)."""
    import os

    def dist(name: str) -> Path:
        folder = tmp_path / f"{name}-1.0.dist-info"
        folder.mkdir()
        return folder / "entry_points.txt"

    dist("good").write_text(f"[{registry.GROUP}]\ngood = good_plugin:Good\n", encoding="utf-8")
    dist("latin").write_bytes(f"[{registry.GROUP}]\nlatin = caf\xe9:Service\n".encode("latin-1"))
    os.mkfifo(dist("piped"))
    dist("folder").mkdir()
    denied = dist("denied")
    denied.write_text(f"[{registry.GROUP}]\ndenied = x:Y\n", encoding="utf-8")
    denied.chmod(0)
    found = registry.scan(path=[str(tmp_path)])
    readable_when_root = [("denied", "x:Y")] if os.access(denied, os.R_OK) else []
    assert found == readable_when_root + [("good", "good_plugin:Good")]
