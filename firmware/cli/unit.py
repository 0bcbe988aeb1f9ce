"""``baccarat unit-dropin``: what the room services a config turns on need from the systemd unit.

The unit (``firmware/baccarat.service``) grants nothing beyond the prop's own needs; a service that
needs more says so (:meth:`firmware.plugin.Service.unit`: Clue Control's Modbus server on port
502 needs ``CAP_NET_BIND_SERVICE``), and ``scripts/install-service.sh`` writes what this prints to
``/etc/systemd/system/baccarat.service.d/50-services.conf`` (nothing: no drop-in).
"""

from __future__ import annotations

import argparse

from ..config import Config, load_config
from . import Parser

#: Settings whose values add up (a capability set is the union of what each service asks).
LISTS = ("AmbientCapabilities", "CapabilityBoundingSet", "SupplementaryGroups", "DeviceAllow")


def unit_settings(config: Config) -> dict[str, list[str]]:
    """Each ``[Service]`` setting the configured services ask for, with its values (no repeats)."""
    from ..services.registry import installed

    wanted: dict[str, list[str]] = {}
    for service in installed().ordered():
        if service.name not in config.settings:
            continue
        for key, value in service.unit(config.settings[service.name]).items():
            values = wanted.setdefault(key, [])
            for word in value.split() if key in LISTS else [value]:
                if word not in values:
                    values.append(word)
    if "AmbientCapabilities" in wanted:  # the unit's bounding set is empty: an ambient capability must be in it
        bounding = wanted.setdefault("CapabilityBoundingSet", [])
        bounding += [cap for cap in wanted["AmbientCapabilities"] if cap not in bounding]
    return wanted


def dropin(config: Config) -> str:
    """The drop-in's text, or ``""`` when no service needs anything more."""
    wanted = unit_settings(config)
    if not wanted:
        return ""
    lines = [f"# Written by scripts/install-service.sh from {config.source}: what its room services need.", "[Service]"]
    lines += [f"{key}={' '.join(values)}" for key, values in wanted.items()]
    return "\n".join(lines) + "\n"


def cmd_unit_dropin(args: argparse.Namespace) -> int:
    """Print the drop-in (nothing when none is needed)."""
    print(dropin(load_config(args.config)), end="")
    return 0


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``unit-dropin``."""
    unit = sub.add_parser(
        "unit-dropin", help="the systemd settings the config's room services need (install-service.sh writes them)"
    )
    unit.add_argument("--config", default="/etc/baccarat/config.toml", help="the config (default: the service's)")
    unit.set_defaults(handler=cmd_unit_dropin)
