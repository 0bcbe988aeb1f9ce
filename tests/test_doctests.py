"""The examples in the docstrings run (issue 26, part 5; issue 33, item 20), as gpiozero's do.

pytest runs them itself: ``--doctest-modules`` over ``baccarat_core`` and ``firmware``
(pyproject.toml's ``[tool.pytest.ini_options]``), so every module's examples are collected as
tests of their own (``firmware/devices/outputs.py::firmware.devices.outputs.Output``) and none
can be left off a list. Every product module imports on a PC (gpiozero's mock pins, luma's dummy
displays): one that could not would fail the collection, never be skipped.

Checked here: that the collection is on, that it finds every module with examples, and that the
main public classes still teach with one (``BaccaratModule``, ``Daemon``, ``PropBoard``, ``Screen``,
``GameMaster``, the outputs, the config's section validator).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import baccarat_core
import firmware

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("baccarat_core", "firmware")

#: module -> the classes whose docstrings must teach by example (at least 4 examples in the module).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "baccarat_core.module": ("BaccaratModule",),
    "firmware.game.daemon": ("Daemon",),
    "firmware.devices.board": ("PropBoard",),
    "firmware.devices.displays": ("Screen",),
    "firmware.devices.outputs": ("Output", "Outputs"),
    "firmware.room.commands": ("GameMaster",),
    "baccarat_core.bets": (),  # remote play: the words and the presses they stand for
    "baccarat_core.timer": (),  # the module's docstring teaches the countdown
    "firmware.config.sections": ("Section",),
    "firmware.plugin.base": ("Service",),  # a room service, as a third party writes one
    "firmware.plugin": (),
    "firmware.plugin.hooks": (),
    "firmware.room.command_table": (),
}


def _examples(module: object) -> int:
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


def _modules_with_examples() -> set[str]:
    found = set()
    for package in (baccarat_core, firmware):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith(".__main__"):
                continue  # runs the command line when imported; pytest never collects it either
            if _examples(importlib.import_module(info.name)):
                found.add(info.name)
    return found | {p for p in PACKAGES if _examples(importlib.import_module(p))}


def test_pytest_collects_the_products_examples(request):
    config = request.config
    assert config.getoption("doctestmodules"), "--doctest-modules is off (pyproject's addopts)"
    assert set(PACKAGES) <= set(config.getini("testpaths")), config.getini("testpaths")
    assert "ELLIPSIS" in config.getini("doctest_optionflags")
    main = [p for package in PACKAGES for p in (ROOT / package).rglob("__main__.py") if ">>>" in p.read_text()]
    assert main == [], f"examples where pytest never collects them: {main}"


def test_every_module_with_examples_has_its_examples_collected(request):
    """With the product's paths in the run (the default), each module with examples is collected."""
    collected = {
        item.dtest.globs["__name__"]
        for item in request.session.items
        if isinstance(item, pytest.DoctestItem)
        and item.path.is_relative_to(ROOT)
        and item.path.relative_to(ROOT).parts[0] in PACKAGES
    }
    if not collected:
        pytest.skip("this run collected none of the product's modules (run without arguments, or name them)")
    wanted = _modules_with_examples()
    assert {"baccarat_core.timer", "firmware.game.pacing", "firmware.system.redact", "firmware.casing.model"} <= wanted
    assert wanted <= collected, f"examples pytest did not collect: {sorted(wanted - collected)}"


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_main_classes_teach_by_example(name: str) -> None:
    module = importlib.import_module(name)
    for cls in EXAMPLES[name]:
        assert ">>> " in (getattr(module, cls).__doc__ or ""), f"{cls} has no example"
    assert _examples(module) >= 4, f"{name}: only {_examples(module)} examples"
