"""The house plan: arrows only go down. Read from the source's import statements."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved to absolute names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


@pytest.mark.parametrize("name", ["daemon.py", "scene.py"])
def test_the_game_thread_knows_no_network_socket_or_state_file(name: str) -> None:
    path = ROOT / "firmware" / name
    imported = _imports(path)
    forbidden = {
        n for n in imported if n.startswith(("firmware.room", "firmware.config", "firmware.app", "firmware.cli"))
    }
    assert not forbidden, f"{name} imports {forbidden}"
    assert not imported & {"paho", "socket", "socketserver", "json"}, imported


def test_the_config_needs_no_hardware_library() -> None:
    """check-config and hardware/generate.py run without gpiozero, luma or Pillow."""
    imported = _imports(ROOT / "firmware" / "config.py") | _imports(ROOT / "firmware" / "devices" / "wiring.py")
    assert not {n for n in imported if n.split(".")[0] in {"gpiozero", "luma", "PIL"}}, imported
    devices = {n for n in _firmware_imports(ROOT / "firmware" / "config.py") if n.startswith("firmware.devices")}
    assert all(n.startswith(("firmware.devices.wiring", "firmware.devices.header")) for n in devices), devices


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
