"""The ``baccarat`` console script (``[project.scripts]``): :func:`firmware.cli.main`, with
Python's cyclic garbage collector off from the first import for ``baccarat run``.

``baccarat run`` makes long-lived objects only until the prop is ready (modules, classes,
devices), and the collector scanned them again and again while they were made. ``cmd_run``
turns it on again at "ready", with start-up's objects frozen (``app.resume_collection``),
or when the start fails; this module only makes the imports before ``cmd_run`` (the
command line, the config's modules) run without it too. Nothing else is imported here.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``baccarat`` command (``argv``: the arguments, else ``sys.argv[1:]``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        gc.disable()
    try:
        from firmware.cli import main as command

        return command(argv)
    finally:
        gc.enable()  # cmd_run turned it on already, unless the command line stopped it first
