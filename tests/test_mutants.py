"""The hand-made mutants of scripts/mutants.py still apply: each one's original text is in its
file exactly once (a refactor that moves the text would otherwise turn the mutant check into
a list of NOT APPLIED, and the score in the README into a claim nobody can reproduce)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import ROOT


def _mutants() -> list:
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants", module)  # dataclasses looks its module up while it builds
    spec.loader.exec_module(module)
    return list(module.MUTANTS)


@pytest.mark.parametrize("mutant", _mutants(), ids=lambda mutant: mutant.id)
def test_each_mutant_applies_to_exactly_one_place(mutant):
    text = (ROOT / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.original) == 1, (
        f"{mutant.id}: its original text is in {mutant.file} {text.count(mutant.original)} times"
    )
    assert mutant.original != mutant.replacement
