"""A MkDocs hook: the reference pages, generated from the code at each build so they cannot drift.

- ``reference/config.md``: every section and key, from the core's declarations
  (``firmware.config_sections.CORE_KEYS``) and each installed room service's
  (``firmware.services.Service.keys``);
- ``reference/cli.md``: every ``baccarat`` command, from its argparse parser;
- ``reference/mqtt.md``: the prop's MQTT topics (``firmware.room.mqtt.TOPICS``) and each room
  service's table.

``tests/test_docs_site.py`` reads the same functions to check the built site holds every key,
command and topic.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The generated pages: path in the site -> the function that writes it.
PAGES = ("reference/config.md", "reference/cli.md", "reference/mqtt.md")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(key: Any) -> str:
    if key.default is ...:
        return "required"
    if key.default is None:
        return "(unset)"
    if key.secret:
        return "(none)"
    value = key.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value!r}`"


def _key_rows(keys: Any) -> list[str]:
    rows = ["| key | type | default | what |", "|---|---|---|---|"]
    for key in keys:
        what = key.help + (f" ({key.limits()})" if key.limits() else "")
        secret = " *(secret: never shown)*" if key.secret else ""
        rows.append(f"| `{key.name}` | {key.type_words()} | {_default(key)} | {_cell(what)}{secret} |")
    return rows


def config_page() -> str:
    """Every config section and key."""
    from firmware.config import CORE_SECTIONS
    from firmware.config_sections import CORE_KEYS
    from firmware.services.registry import installed

    lines = [
        "# Config reference",
        "",
        "Generated from the code at each build: each key's type, default and limits are the ones",
        "`baccarat check-config` checks. Check a file with `baccarat check-config FILE`.",
        "",
        "## The prop",
        "",
    ]
    for section in CORE_SECTIONS:
        table = f"[[{section}]]" if section in ("displays", "outputs") else f"[{section}]"
        lines += [f"### `{table}`", "", *_key_rows(CORE_KEYS[section]), ""]
        for sub in ("i2c", "spi"):
            if f"{section}.{sub}" in CORE_KEYS:
                lines += [f'With `interface = "{sub}"`:', "", *_key_rows(CORE_KEYS[f"{section}.{sub}"]), ""]
    lines += ["## Room services", "", "Each room service reads its own table (a plugin's too).", ""]
    for table, owners in installed().tables().items():
        lines += [f"### `[{table}]`", ""]
        for owner in owners:
            page = f" ([how to use it](../{owner.docs}))" if owner.docs else ""
            on = "always read" if owner.always else f"on when the file has `[{table}]`"
            lines += [f"**{owner.title or owner.name}** (`{owner.name}`, {on}){page}", ""]
            if owner.keys:
                lines += [*_key_rows(owner.keys), ""]
    return "\n".join(lines)


def cli_page() -> str:
    """Every ``baccarat`` command's help."""
    import argparse

    from firmware.cli import build_parser

    parser = build_parser()
    lines = ["# Command reference", "", "Generated from the `baccarat` command's own help at each build.", ""]
    lines += ["```text", parser.format_help().rstrip(), "```", ""]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        lines += [f"## `baccarat {name}`", "", "```text", command.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def mqtt_page() -> str:
    """The prop's MQTT topics."""
    from firmware.room.mqtt import TOPICS
    from firmware.room.mqtt_settings import MqttConfig

    defaults = MqttConfig(host="broker")
    lines = [
        "# MQTT reference",
        "",
        "Generated from the code at each build. The prefixes are `[mqtt] topic_prefix` and",
        "`bomb_prefix`; the topics below use their defaults. [The MQTT page](../integrate/mqtt.md)",
        "says how to use them.",
        "",
        "| topic | published by | carries |",
        "|---|---|---|",
    ]
    for prefix, rest, who, what in TOPICS.values():
        lines.append(f"| `{getattr(defaults, prefix)}/{rest}` | {who} | {_cell(what)} |")
    return "\n".join(lines) + "\n"


WRITERS = {"reference/config.md": config_page, "reference/cli.md": cli_page, "reference/mqtt.md": mqtt_page}


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site (nothing written to docs/)."""
    from mkdocs.structure.files import File

    for path, write in WRITERS.items():
        files.append(File.generated(config, path, content=write()))
    return files
