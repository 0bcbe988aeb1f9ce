"""A plugin written against the API before firmware.plugin (issue 40): ``firmware.services``'
``Service``, ``Running`` and ``Prop``, ``firmware.sections``, ``firmware.findings`` and
``firmware.room.command_table``, as ``examples/service`` was at ada7407 (a copy of it is in
``tests/legacy_plugin/``). It keeps working for one release, with a DeprecationWarning naming the
new way, and its hooks get a third party's protection."""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

import pytest

from firmware.services import registry
from tests.conftest import make_config, served_prop

LEGACY = Path(__file__).parent / "legacy_plugin" / "baccarat_event_log_old"


@pytest.fixture
def legacy_site(tmp_path, monkeypatch):
    """The old example as pip lays it out, on sys.path; the registry found anew."""
    site = tmp_path / "site"
    shutil.copytree(LEGACY, site / LEGACY.name)
    info = site / "baccarat_event_log_old-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: baccarat-event-log-old\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text("[baccarat.services]\nevent_log_old = baccarat_event_log_old:EventLog\n")
    monkeypatch.syspath_prepend(str(site))
    for name in ("firmware.sections", "firmware.findings", LEGACY.name):
        monkeypatch.delitem(sys.modules, name, raising=False)
    registry.installed.cache_clear()
    yield site
    registry.installed.cache_clear()


def test_the_old_api_still_works_warns_and_gets_the_hooks_protection(legacy_site, mock_factory, short_dir, tmp_path):
    log_file = tmp_path / "events.jsonl"
    config_args = {"state": {"file": ""}, "control": {"socket": str(short_dir / "c.sock")}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        services = registry.installed()
        assert "event_log_old" in services.by_name, services.broken
    said = {str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)}
    assert "firmware.services.Service is deprecated: import it from firmware.plugin" in said
    assert any(s.startswith("firmware.sections is deprecated: it is firmware.config.sections now") for s in said)
    assert any(s.startswith("firmware.findings is deprecated: it is firmware.config.findings now") for s in said)
    config = make_config(**config_args, event_log_old={"path": str(log_file)})
    with served_prop(config, mock_factory) as rig:
        assert "event_log_old" in rig.prop.plugins  # its hooks run on a thread of its own
        assert rig.master.handle({"command": "force_solve"}).result(10)["ok"]
        note = rig.master.handle({"command": "log_note_old", "text": "a hint"}).result(10)
        assert note["ok"], note
        assert rig.prop.drain(30)
    lines = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert "solved" in [line.get("event") for line in lines]
    assert any(  # the note goes straight to the file; the events through the plugin's hook thread
        {"event": "note", "text": "a hint"}.items() <= line.items() for line in lines
    )
