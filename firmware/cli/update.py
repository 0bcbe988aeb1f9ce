"""``baccarat update``: install a new version beside the running one, with a way back (:mod:`.updates.releases`)."""

from __future__ import annotations

import argparse

from . import Parser


def cmd_update(args: argparse.Namespace) -> int:
    """Install SOURCE (or go back with ``--rollback``); exit 1 when it was rolled back or failed."""
    from firmware.updates import releases

    return releases.main_with(args)


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """``update``: run as root on the Pi."""
    from firmware.updates import releases

    p = sub.add_parser("update", help="install a new version, switching back if it does not start (sudo)")
    releases.add_arguments(p)
    p.set_defaults(handler=cmd_update)
