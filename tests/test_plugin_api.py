"""One public plugin API (issue 40): a room service imports the prop only through ``firmware.plugin``
(plus its own package), the prop's own services included; the names plugins used before still work,
with one warning that names the new place; the example plugin is written against it."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

import firmware.plugin
from tests.test_architecture import ROOT, _imports

SERVICES = ROOT / "firmware" / "services"
#: The machinery that finds and probes the services: not a service, not bound by the rule.
MACHINERY = {"__init__.py", "registry.py", "probe.py", "indexed.py", "index.py", "index_tool.py"}
#: The names ``firmware.services`` exported before ``firmware.plugin`` existed.
OLD_NAMES = ("Finding", "Key", "PinUse", "Prop", "Running", "Section", "Service")


def _service_files() -> list[Path]:
    """Each module of the prop's own services: the packages ``services/<name>/`` and the thin
    modules ``services/<name>.py``."""
    files = [path for path in sorted(SERVICES.glob("*.py")) if path.name not in MACHINERY]
    return files + sorted(path for folder in SERVICES.iterdir() if folder.is_dir() for path in folder.rglob("*.py"))


def _own(path: Path) -> tuple[str, ...]:
    """The packages a service's module may import besides the API: its own (``services/<name>/``),
    and for a thin ``services/<name>.py`` the subsystem it starts (``firmware.<name>``: history,
    sound, web)."""
    parts = path.relative_to(SERVICES).parts
    if len(parts) == 1:
        name = parts[0].removesuffix(".py")
        return (f"firmware.services.{name}", f"firmware.{name}")
    return (f"firmware.services.{parts[0]}",)


def foreign_imports(path: Path, own: tuple[str, ...], *, text: str | None = None) -> set[str]:
    """The prop's modules ``path`` (or ``text``, as if it were there) imports, ``if TYPE_CHECKING:``
    and inside functions too, that are neither ``firmware.plugin`` nor one of ``own``. The rules
    (``baccarat_core``) are no part of the prop: a plugin may use them as any program does."""
    allowed = ("firmware.plugin", *own)
    return {
        name
        for name in _imports(path, text)
        if name.startswith("firmware.")
        and not any(name == package or name.startswith(f"{package}.") for package in allowed)
    }


@pytest.mark.parametrize("path", _service_files(), ids=lambda p: str(p.relative_to(SERVICES)))
def test_each_of_the_props_own_services_imports_the_prop_only_through_the_plugin_api(path: Path) -> None:
    assert not foreign_imports(path, _own(path)), (
        f"{path.relative_to(ROOT)} imports {foreign_imports(path, _own(path))}"
    )


def test_every_service_package_is_checked() -> None:
    """The walk above sees every package and thin module (a service moved out of sight is no pass)."""
    checked = {path.relative_to(SERVICES).parts[0].removesuffix(".py") for path in _service_files()}
    assert {"mqtt", "home_assistant", "room2", "control", "clue_control", "m3", "osc", "redscape"} <= checked
    assert {"erm", "webhooks", "obus"} <= checked
    assert {"history", "sound", "web"} <= checked
    assert not checked & {name.removesuffix(".py") for name in MACHINERY}


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from firmware.config.sections import Key\n", {"firmware.config.sections", "firmware.config.sections.Key"}),
        ("from ...room import command_table\n", {"firmware.room", "firmware.room.command_table"}),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from firmware.game.daemon import Daemon\n",
            {"firmware.game.daemon", "firmware.game.daemon.Daemon"},
        ),
        ("def later():\n    import firmware.game.daemon\n", {"firmware.game.daemon"}),
        ("from firmware.plugin import Key\nfrom .topics import TOPICS\nfrom baccarat_core import strict\n", set()),
    ],
    ids=["absolute", "relative", "type-only", "in-a-function", "allowed"],
)
def test_the_check_finds_an_import_that_goes_around_the_api(source: str, found: set[str]) -> None:
    """The rule's own check, on a module of a service package laid out in the tree."""
    path = SERVICES / "somewhere" / "module.py"  # never written: the check is given its text
    assert foreign_imports(path, ("firmware.services.somewhere",), text=source) == found


def test_the_example_plugin_imports_only_the_plugin_api() -> None:
    example = ROOT / "examples" / "service" / "baccarat_event_log" / "__init__.py"
    imported = {name for name in _imports(example) if name.split(".")[0] in {"firmware", "baccarat_core"}}
    assert imported and all(name.startswith("firmware.plugin") for name in imported), imported


@pytest.mark.parametrize("name", OLD_NAMES)
def test_an_old_import_still_works_and_warns_once_naming_the_new_place(name: str) -> None:
    namespace: dict[str, object] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(f"from firmware.services import {name}", "old_plugin.py", "exec"), namespace)
    assert namespace[name] is getattr(firmware.plugin, name)
    said = [(w.category, str(w.message), w.filename) for w in caught]
    assert said == [
        (DeprecationWarning, f"firmware.services.{name} is deprecated: import it from firmware.plugin", "old_plugin.py")
    ]


def test_an_old_attribute_access_warns_once_too() -> None:
    import firmware.services

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert firmware.services.Running is firmware.plugin.Running
    assert [str(w.message) for w in caught] == [
        "firmware.services.Running is deprecated: import it from firmware.plugin"
    ]
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        firmware.services.Nothing  # noqa: B018 - the access is the test


@pytest.mark.parametrize("name", firmware.plugin.__all__)
def test_every_name_the_api_lists_is_there(name: str) -> None:
    """``__all__`` is the contract: each name resolves (the lazy ones load when asked for)."""
    assert getattr(firmware.plugin, name) is not None


def test_the_api_lists_each_event_kind() -> None:
    """Every event a hook can receive is importable from the API (its table is in the docs)."""
    from baccarat_core import events

    kinds = {
        name
        for name, value in vars(events).items()
        if isinstance(value, type) and issubclass(value, events.Event) and value.__module__ == events.__name__
    }
    assert kinds <= set(firmware.plugin.__all__), kinds - set(firmware.plugin.__all__)


def test_the_api_module_says_what_it_holds() -> None:
    """The module's docstring is the API's summary: it names the testing fixtures' module."""
    doc = ast.get_docstring(ast.parse((ROOT / "firmware" / "plugin" / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "firmware.plugin.testing" in doc
