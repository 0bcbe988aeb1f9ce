"""The developer pages cannot go stale: the architecture page's list of folders is the tree's, the
events a hook receives and the room services' files are generated from the code (issue 40)."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT
from tests.test_docs_reference import _hook

INDEX = ROOT / "docs" / "develop" / "index.md"


def _layout() -> list[str]:
    """The paths the "Where things are" block names, one a line, as written."""
    block = INDEX.read_text(encoding="utf-8").split("## Where things are", 1)[1].split("```\n", 2)[1]
    return [line.split()[0] for line in block.splitlines() if line and not line.startswith(" ")]


def test_every_path_the_architecture_page_names_exists():
    paths = _layout()
    assert len(paths) >= 20, paths
    missing = [path for path in paths if not (ROOT / path.rstrip("/")).exists()]
    assert not missing, missing


def test_every_package_of_the_prop_is_on_the_architecture_page():
    named = set(_layout())
    packages = {
        f"firmware/{folder.name}/" for folder in (ROOT / "firmware").iterdir() if (folder / "__init__.py").is_file()
    }
    assert packages <= named, sorted(packages - named)


def test_every_room_service_package_is_named_on_the_architecture_page():
    page = INDEX.read_text(encoding="utf-8")
    services = ROOT / "firmware" / "services"
    for folder in services.iterdir():
        if (folder / "__init__.py").is_file():
            assert f"{folder.name}/" in page, folder.name


def test_the_room_services_page_lists_each_services_files():
    page = _hook().services_page()
    from firmware.services.registry import installed

    for service in installed():
        assert f"## `{service.name}`" in page, service.name
    listed = re.findall(r"^- `([^`]+)`$", page, flags=re.M)
    assert listed and all((ROOT / path.rstrip("/")).exists() for path in listed), listed
    for folder in (ROOT / "firmware" / "services").iterdir():
        if (folder / "__init__.py").is_file():
            assert {p.relative_to(ROOT).as_posix() for p in folder.rglob("*.py")} <= set(listed), folder.name


def _event_classes_in_the_source() -> dict[str, set[str]]:
    """Each class the product's source derives from an event class, with its annotated fields:
    read from the files, so that an event added anywhere is found, imported or not."""
    found: dict[str, set[str]] = {}
    bases = {"Event", "ev.Event", "events.Event"}
    files = [*(ROOT / "baccarat_core").rglob("*.py"), *(ROOT / "firmware").rglob("*.py")]
    for _ in range(3):  # a subclass of a subclass
        for path in files:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and {ast.unparse(b) for b in node.bases} & bases:
                    fields = {
                        item.target.id
                        for item in node.body
                        if isinstance(item, ast.AnnAssign)
                        and isinstance(item.target, ast.Name)
                        and "ClassVar" not in ast.unparse(item.annotation)
                    }
                    found[node.name] = fields
        bases |= set(found)
    return found


def test_every_event_and_each_of_its_fields_is_on_the_events_page():
    page = _hook().events_page()
    classes = _event_classes_in_the_source()
    assert {"Solved", "Strike", "OutputSwitched", "SelfTestResult"} <= set(classes)
    for name, fields in classes.items():
        if name == "Event":
            continue
        row = next((line for line in page.splitlines() if f"| {name} |" in line or f"| `{name}` |" in line), None)
        assert row is not None, f"{name} is not on the events page"
        for field in fields:
            assert f"`{field}`" in row, f"{name}.{field} is not on the events page"


def test_the_events_page_gives_each_field_its_type_and_default():
    page = _hook().events_page()
    solved = page.split("## `solved`", 1)[1].split("\n## ", 1)[0]
    assert "| `forced` | `bool` | `False` |" in solved
    deck = page.split("## `deck`", 1)[1].split("\n## ", 1)[0]
    assert "| `first_index` | `int` or `None` | required |" in deck
