"""The docs' reference pages are generated from the code (docs/hooks/reference.py): every config
key, command and MQTT topic the code has is on them (issue 32, part 3)."""

from __future__ import annotations

import importlib.util
import re

from firmware.broker.settings import MqttConfig
from firmware.cli import COMMAND_MODULES
from firmware.config import CORE_SECTIONS
from firmware.config.core import CORE_KEYS
from firmware.services.mqtt.room import TOPICS
from firmware.services.registry import installed
from tests.conftest import ROOT


def _hook():
    spec = importlib.util.spec_from_file_location("reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _keys_listed(page: str, heading: str) -> set[str]:
    """The keys in the table under ``### `heading```, up to the next heading."""
    part = page.split(f"### `{heading}`", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([a-z_0-9]+)` \|", part, flags=re.M))


def test_every_config_key_is_in_the_config_reference():
    page = _hook().config_page()
    for section in CORE_SECTIONS:
        heading = f"[[{section}]]" if section in ("displays", "outputs") else f"[{section}]"
        wanted = {key.name for name, keys in CORE_KEYS.items() if name.split(".")[0] == section for key in keys}
        assert wanted <= _keys_listed(page, heading), section
    for table, owners in installed().tables().items():
        assert {key.name for owner in owners for key in owner.keys} <= _keys_listed(page, f"[{table}]"), table
    assert "`password` | (none), a string in quotes |" in page and "*(secret: never shown)*" in page


def test_every_command_is_in_the_command_reference():
    page = _hook().cli_page()
    for command in COMMAND_MODULES:
        assert f"## `baccarat {command}`" in page, command


def test_every_topic_is_in_the_mqtt_reference():
    page = _hook().mqtt_page()
    defaults = MqttConfig(host="broker")
    for prefix, rest, _, _ in TOPICS.values():
        assert f"| `{getattr(defaults, prefix)}/{rest}` |" in page
