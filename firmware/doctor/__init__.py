"""``baccarat doctor``: what the prop needs from its Pi, one line each, OK, WARN or FAIL with the fix.

The checks read the machine through a :class:`Host` (files under a root, commands,
free disk), so that the tests can give it a made-up Pi; the displays are probed
through smbus2 as the daemon reaches them, with an SMBus *quick write*: the
address and a stop, no byte the display would take as a command or a picture
(``i2cdetect``'s own probe). SPI has no acknowledge: an SPI display cannot be
probed, and says so.

Nothing here changes the machine or the game; a running service is left alone.

The checks live beside this file: :mod:`.host` (the machine, the probe, a finding), :mod:`.pi`
(buses, displays, groups, power) and :mod:`.system` (config, service, state file, disk, clock).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .host import FAIL, OK, WARN, Finding, Host, probe_i2c, run_command
from .pi import MODEL, THROTTLED_SYSFS, check_buses, check_displays, check_groups, check_machine, check_throttling
from .system import (
    SERVICE,
    check_clock,
    check_config,
    check_disk,
    check_service,
    check_state_file,
    service_state,
    state_file,
)

if TYPE_CHECKING:
    from ..config import Config

__all__ = [
    "FAIL",
    "MODEL",
    "OK",
    "SERVICE",
    "THROTTLED_SYSFS",
    "WARN",
    "Finding",
    "check_services",
    "Host",
    "examine",
    "probe_i2c",
    "report",
    "run_command",
]


def examine(host: Host, config_file: Path, probe: Callable[[int, int], OSError | None] = probe_i2c) -> list[Finding]:
    """Every check, in the order the report shows them."""
    machine, pi = check_machine(host)
    found, config = check_config(config_file, host.user)
    findings = [machine, found]
    if pi:
        findings += check_buses(host, config)
        findings += check_displays(host, config, probe)
    state = service_state(host)
    installed = state is not None and state.get("LoadState") == "loaded"
    if pi:
        findings += check_groups(host, config, installed)
    findings.append(check_service(state))
    path = state_file(config, installed)
    findings.append(check_state_file(host, config, path))
    if pi:
        findings.append(check_throttling(host))
    findings += check_disk(host, path)
    findings.append(check_clock(host))
    findings += check_services(host, config)
    return findings


def check_services(host: Host, config: Config | None) -> list[Finding]:
    """Each configured room service's own lines (:meth:`firmware.plugin.Service.doctor`)."""
    if config is None:
        return []
    from ..services.registry import installed

    services = installed()
    out = [Finding(WARN, f"service {name} cannot be loaded: {reason}") for name, reason in services.broken.items()]
    out += [Finding(WARN, line) for line in services.conflicts.values()]
    for service in services.ordered():
        if service.name in config.settings:
            try:
                out += service.doctor(config.settings[service.name], host)
            except Exception as error:  # noqa: BLE001 - a plugin's fault is its own line
                out.append(Finding(WARN, f"service {service.name}: its check failed ({type(error).__name__}: {error})"))
    return out


def report(findings: list[Finding]) -> tuple[str, int]:
    """The lines and a last line that counts them; exit status 1 if anything FAILed."""
    counts = {status: sum(f.status == status for f in findings) for status in (OK, WARN, FAIL)}
    lines = [f.line() for f in findings]
    lines.append(f"doctor: {counts[FAIL]} FAIL, {counts[WARN]} WARN, {counts[OK]} OK")
    return "\n".join(lines), 1 if counts[FAIL] else 0
