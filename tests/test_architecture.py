"""The house plan: arrows only go down. Read from the source's import statements."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path, text: str | None = None) -> set[str]:
    """Every module a file imports (or ``text``, as if it were that file), relative imports resolved
    to absolute names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if text is None else text)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _firmware_imports(path: Path) -> set[str]:
    return {name for name in _imports(path) if name == "firmware" or name.startswith("firmware.")}


@pytest.mark.parametrize("path", _files("baccarat_core"), ids=lambda p: p.name)
def test_the_rules_know_nothing_of_the_prop(path: Path) -> None:
    imported = _imports(path)
    assert not _firmware_imports(path), path
    assert not imported & {"gpiozero", "luma", "PIL", "paho", "socket", "threading"}, imported


@pytest.mark.parametrize("path", _files("firmware/devices"), ids=lambda p: p.name)
def test_devices_import_nothing_from_the_rest_of_firmware(path: Path) -> None:
    outside = {n for n in _firmware_imports(path) if not n.startswith("firmware.devices")}
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize(
    "path",
    [p for p in _files("firmware/sound") if p.name != "__main__.py"],  # the bring-up tool: an entry point, as cli/
    ids=lambda p: p.name,
)
def test_sound_imports_nothing_from_the_rest_of_firmware(path: Path) -> None:
    outside = {n for n in _firmware_imports(path) if not n.startswith("firmware.sound")}
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize("path", _files("firmware/render"), ids=lambda p: p.name)
def test_render_imports_nothing_from_the_rest_of_firmware(path: Path) -> None:
    outside = {n for n in _firmware_imports(path) if not n.startswith("firmware.render")}
    assert not outside, f"{path.name} imports {outside}"


#: Modules no part of the game thread or the config imports: the network, and files of state.
NETWORK = {"paho", "socket", "socketserver", "json", "aiohttp", "http", "urllib", "ssl"}


def _outside(path: Path, allowed: tuple[str, ...]) -> set[str]:
    """The prop's modules ``path`` imports that are in none of the packages ``allowed``."""
    return {
        name
        for name in _firmware_imports(path)
        if name != "firmware" and not any(name == a or name.startswith(f"{a}.") for a in allowed)
    }


@pytest.mark.parametrize("path", _files("firmware/game"), ids=lambda p: p.name)
def test_the_game_thread_knows_no_network_socket_or_state_file(path: Path) -> None:
    """firmware/game (the daemon, its loop, stage, presentation, scene, pacing) stands on the
    devices, the pictures and the rules: no room system, no config, no state file, no network."""
    outside = _outside(path, ("firmware.game", "firmware.devices", "firmware.render", "firmware.errors"))
    assert not outside, f"{path.name} imports {outside}"
    assert not {n.split(".")[0] for n in _imports(path)} & NETWORK, _imports(path)


@pytest.mark.parametrize("path", _files("firmware/config"), ids=lambda p: p.name)
def test_the_config_needs_no_hardware_library(path: Path) -> None:
    """check-config and hardware/generate.py run without gpiozero, luma or Pillow: the config reads
    the devices' plain declarations (wiring, the 40-pin header), and finds the room services'
    sections through the registry, and the languages (a display's language is checked), and nothing
    else of the prop."""
    imported = _imports(path)
    assert not {n for n in imported if n.split(".")[0] in {"gpiozero", "luma", "PIL"}}, imported
    allowed = ("firmware.config", "firmware.errors", "firmware.devices.wiring", "firmware.devices.header")
    outside = _outside(path, (*allowed, "firmware.game.pacing", "firmware.i18n", "firmware.services.registry"))
    assert not outside, f"{path.name} imports {outside}"


def test_the_wiring_needs_no_hardware_library() -> None:
    imported = _imports(ROOT / "firmware" / "devices" / "wiring.py") | _imports(
        ROOT / "firmware" / "devices" / "header.py"
    )
    assert not {n for n in imported if n.split(".")[0] in {"gpiozero", "luma", "PIL"}}, imported


@pytest.mark.parametrize("path", _files("firmware/updates"), ids=lambda p: p.name)
def test_the_updater_knows_nothing_of_the_game(path: Path) -> None:
    """An update is checked, unpacked and switched to by a process that may not run the prop."""
    outside = _outside(path, ("firmware.updates", "firmware.errors", "firmware.version", "firmware.system"))
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize("path", _files("firmware/system"), ids=lambda p: p.name)
def test_the_system_helpers_know_no_room_system_and_no_config(path: Path) -> None:
    """systemd's notify socket, the storage and the addresses: the operating system's side."""
    outside = _outside(path, ("firmware.system", "firmware.errors", "firmware.devices", "firmware.game"))
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize("path", _files("firmware/selftest"), ids=lambda p: p.name)
def test_the_self_test_knows_no_network(path: Path) -> None:
    """The self-test is a mode of the game thread: the devices, the pictures, the game's loop."""
    allowed = ("firmware.selftest", "firmware.game", "firmware.devices", "firmware.render", "firmware.errors")
    outside = _outside(path, allowed)
    assert not outside, f"{path.name} imports {outside}"
    assert not {n.split(".")[0] for n in _imports(path)} & NETWORK, _imports(path)


@pytest.mark.parametrize("path", _files("firmware/broker"), ids=lambda p: p.name)
def test_the_broker_link_is_owned_by_no_room_system(path: Path) -> None:
    """The link to the MQTT broker is shared by MQTT, Home Assistant, Room 2.0, M3, node-redscape:
    it knows none of them, nor the game, the console or the plugin API above it (a convention is
    started as a service: the base classes, firmware.plugin.base, not the API module that re-exports it)."""
    allowed = ("firmware.broker", "firmware.config", "firmware.errors", "firmware.system", "firmware.plugin.base")
    outside = _outside(path, allowed)
    assert not outside, f"{path.name} imports {outside}"


def _commands(script: Path) -> list[str]:
    """A shell script's command lines, comments and blank lines left out."""
    lines = (line.split(" #")[0].strip() for line in script.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_test_sh_checks_the_types() -> None:
    """`bash scripts/test.sh` runs mypy before the suite and stops when it fails; pyproject's
    [tool.mypy] makes that strict mode over both packages, and the test extras install mypy."""
    commands = _commands(ROOT / "scripts" / "test.sh")
    assert "set -euo pipefail" in commands, "without set -e a failing check does not stop test.sh"
    assert ".venv/bin/mypy" in commands, f"scripts/test.sh does not run mypy: {commands}"
    suite = next(i for i, line in enumerate(commands) if "-m pytest" in line)
    assert commands.index(".venv/bin/mypy") < suite, "mypy runs after the suite"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    config = project["tool"]["mypy"]
    assert config["strict"] is True
    assert sorted(config["files"]) == ["baccarat_core", "firmware"]
    typeless = {module for override in config.get("overrides", []) for module in override["module"]}
    assert all(name.split(".")[0] in {"gpiozero", "luma"} for name in typeless), typeless
    assert any(req.startswith("mypy") for req in project["project"]["optional-dependencies"]["test"])


# -- sizes and circles (issue 30) ---------------------------------------------------------------

#: The longest product file and class: a file past it holds more than one idea; split it along its seams.
MAX_FILE_LINES = 500
MAX_CLASS_LINES = 300


def _product_files() -> list[Path]:
    return [*_files("baccarat_core"), *_files("firmware")]


@pytest.mark.parametrize("path", _product_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_product_file_or_class_is_too_long(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    assert lines <= MAX_FILE_LINES, f"{path.relative_to(ROOT)} has {lines} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= MAX_CLASS_LINES, f"class {node.name} of {path.name} has {length} lines"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, *, types: bool = False) -> set[str]:
    """The modules a file imports when it runs, at module level or inside a function alike; with
    ``types``, those of its ``if TYPE_CHECKING:`` blocks too (the type checker's)."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = (
        set()
        if types
        else {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
    )
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _import_graph(*, types: bool = False) -> dict[str, set[str]]:
    """Module -> the project's modules it imports (``types``: for the type checker too); a module's
    own packages are left out (Python imports a package before its modules, whatever the module says)."""
    modules = {_module_name(path): path for path in _product_files()}
    graph = {}
    for name, path in modules.items():
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        imported = _runtime_imports(path, types=types)
        graph[name] = {n for n in imported if n in modules and n != name and n not in ancestors}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_import_circles() -> None:
    assert _circles(_import_graph()) == []


def test_no_import_circles_not_even_for_the_types() -> None:
    """A circle the type checker alone sees is still two modules that cannot be read apart: each is
    cut with a Protocol (snapshot.Savable, command_table.Master, web/host.py) or a small types module
    (the config's records in firmware/config/model.py, which the plugin API names)."""
    assert _circles(_import_graph(types=True)) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_the_assembly_and_the_tools_know_the_room_services() -> None:
    """The daemon, the devices, the rules, the views and the room systems' own code know no
    service: the app, the config's loader, the doctor and the command line find them."""
    allowed = {
        "firmware.app",
        "firmware.config",
        "firmware.config.report",
        "firmware.doctor",
        "firmware.sound.__main__",
    }
    graph = _import_graph()
    for name, imported in graph.items():
        if name in allowed or name.startswith(("firmware.services", "firmware.cli", "firmware.doctor")):
            continue
        services = {n for n in imported if n.startswith("firmware.services")}
        assert not services, f"{name} imports {services}"
