"""Only the services a config turns on are imported (issue 44, item 3): the registry knows the prop's
own services' places from an index (firmware/services/index.py) and imports one when its section is
read, or more is asked of it. The index is the classes' own word: it fails here while it differs."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

from firmware.services.index import INDEX
from firmware.services.index_tool import build_index
from firmware.services.indexed import Indexed
from firmware.services.registry import Services
from tests.test_startup_loads import ROOT

#: The prop's own services that the reference config does not turn on, by module.
UNUSED = (
    "firmware.services.osc",
    "firmware.services.clue_control.service",
    "firmware.services.m3",
    "firmware.services.redscape",
    "firmware.services.mqtt",
    "firmware.services.home_assistant",
    "firmware.services.room2",
)

READ = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from firmware.config import load_config
config = load_config(Path(sys.argv[2]))
print(json.dumps({"loaded": sorted(sys.modules), "settings": sorted(config.settings)}))
"""


def _read(tmp_path, extra: str = "") -> dict:
    path = tmp_path / "config.toml"
    path.write_text((ROOT / "firmware" / "config" / "default-config.toml").read_text(encoding="utf-8") + extra)
    run = subprocess.run(
        [sys.executable, "-c", READ, str(ROOT), str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_the_index_is_what_the_classes_say():
    assert INDEX == build_index(), "run: python -m firmware.services.index_tool"


def test_reading_the_reference_config_imports_none_of_the_services_it_does_not_turn_on(tmp_path):
    seen = _read(tmp_path)
    assert "firmware.services.web" in seen["loaded"] and "history" in seen["settings"]  # it did read
    assert [name for name in UNUSED if name in seen["loaded"]] == []


def test_a_section_in_the_config_imports_its_service_and_turns_it_on(tmp_path):
    seen = _read(tmp_path, '\n[osc]\ntargets = ["127.0.0.1:53000"]\nsolved = "/cue/1/start"\n')
    assert "firmware.services.osc" in seen["loaded"] and "osc" in seen["settings"]
    assert "firmware.services.m3" not in seen["loaded"]


def _entry(name: str) -> dict:
    return {"name": name, "table": name, "always": False, "order": 50, "after": [], "commands": False}


def test_one_that_cannot_be_imported_when_its_section_is_read_is_one_line_and_broken(caplog):
    def fails():
        raise ImportError("No module named 'pymodbus'")

    services = Services({"modbus": Indexed(_entry("modbus"), fails), "other": Indexed(_entry("other"), fails)}, {})
    with caplog.at_level(logging.ERROR, logger="baccarat.services"):
        services.require(["modbus", "web"])
    assert list(services.by_name) == ["other"]  # not asked for: not tried
    assert services.broken == {"modbus": "ImportError: No module named 'pymodbus'"}
    assert [r.getMessage() for r in caplog.records] == [
        "service modbus cannot be loaded (ImportError: No module named 'pymodbus'); the prop runs without it"
    ]


def test_a_service_asked_for_by_name_or_for_more_than_its_place_is_imported_once():
    made = []

    class Real:
        keys = ("k",)

        def commands(self):
            return ("c",)

    def load():
        made.append(1)
        return Real()

    entry = _entry("x")
    lazy = Indexed(entry, load)
    assert (lazy.name, lazy.table, lazy.order, lazy.commands()) == ("x", "x", 50, ())  # the index says no commands
    assert made == []
    assert lazy.keys == ("k",) and lazy.keys == ("k",) and made == [1]
    services = Services({"x": Indexed(entry, load)}, {})
    assert isinstance(services.get("x"), Real) and made == [1, 1]
