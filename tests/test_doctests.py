"""The examples in the docstrings run (issue 26, part 5), as gpiozero's do.

``BaccaratModule``, ``Daemon``, ``PropBoard``, ``Screen`` and ``GameMaster`` each carry a short
``>>>`` example on gpiozero's mock pins and luma's ``dummy`` displays; so does the config's
section validator. Each module's examples run here with the standard library's ``doctest``.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

#: module -> the classes whose docstrings must teach by example.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "baccarat_core.module": ("BaccaratModule",),
    "firmware.daemon": ("Daemon",),
    "firmware.devices.board": ("PropBoard",),
    "firmware.devices.displays": ("Screen",),
    "firmware.devices.outputs": ("Output", "Outputs"),
    "firmware.room.commands": ("GameMaster",),
    "baccarat_core.bets": (),  # remote play: the words and the presses they stand for
    "firmware.sections": ("Section",),
    "firmware.services": ("Service",),  # a room service, as a third party writes one
    "firmware.room.command_table": (),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    for cls in EXAMPLES[name]:
        assert ">>> " in (getattr(module, cls).__doc__ or ""), f"{cls} has no example"
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert attempted >= 4, f"{name}: only {attempted} examples"
    assert failed == 0, f"{name}: {failed} of {attempted} examples failed (the output above says which)"
