"""Writes ``firmware/services/index.py`` from the prop's own services' classes (the index the
registry reads before it imports them: :mod:`.indexed`). Run ``python -m firmware.services.index_tool``
after changing where a service of the prop stands; ``tests/test_service_index.py`` fails until then."""

from __future__ import annotations

from typing import Any

from .indexed import PLACE


def build_index() -> dict[str, dict[str, Any]]:
    """The index as the prop's own services' classes say it (imports every one of them)."""
    from firmware.plugin.base import Service

    from .registry import OWN_PACKAGE, _entry_points, load

    index: dict[str, dict[str, Any]] = {}
    for name, value, _ in _entry_points():
        if not value.startswith(OWN_PACKAGE) or value in index:
            continue
        service = load(name, value)()
        place = {key: getattr(service, key) for key in PLACE}
        place["after"] = list(place["after"])
        place["commands"] = type(service).commands is not Service.commands
        index[value] = place
    return index


def write_index() -> str:
    """``firmware/services/index.py``'s text, made from the classes."""
    head = (
        '"""Where the prop\'s own services stand, for the registry before it imports them '
        "(firmware/services/indexed.py).\n\nWritten by ``python -m firmware.services.index_tool``; "
        'tests/test_service_index.py checks it against the classes.\n"""\n\n'
        "from typing import Any\n\nINDEX: dict[str, dict[str, Any]] = {\n"
    )
    body = ""
    for value, place in sorted(build_index().items()):
        body += f"    {value!r}: {{\n" + "".join(f"        {k!r}: {v!r},\n" for k, v in place.items()) + "    },\n"
    return head + body.replace("'", '"') + "}\n"


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_name("index.py").write_text(write_index(), encoding="utf-8")
