"""``baccarat doctor``: check the Pi the prop runs on, one line per check (:mod:`firmware.doctor`)."""

from __future__ import annotations

import argparse

from . import Parser
from .run import add_config_option, config_path


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print one OK/WARN/FAIL line per check; exit 1 if any FAILed."""
    from .. import doctor

    text, code = doctor.report(doctor.examine(doctor.Host(), config_path(args.config)))
    print(text)
    return code


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``doctor``."""
    command = sub.add_parser(
        "doctor",
        help="check this Pi for the prop: buses, displays, groups, service, state file, power, disk, clock",
        description=(
            "Check what the prop needs from its Pi, one line each: OK, WARN or FAIL with the fix. "
            "Off a Raspberry Pi (a PC, a chroot) it says so first and skips the Pi's own checks. "
            "Exit status 1 if anything FAILed. Run it with sudo to check everything "
            "(the service's config is readable by root and the baccarat group only)."
        ),
    )
    add_config_option(command)
    command.set_defaults(handler=cmd_doctor)
