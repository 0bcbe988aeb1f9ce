"""What ``check-config`` says of a config: the GPIOs it takes (the one pin and bus validator) and
its wiring in words, the core's and each configured room service's.

:func:`pin_uses` and :func:`pin_problems` are what ``check-config``, ``run`` and
``hardware/generate.py`` all ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baccarat_core.bomb import RandomBombs
from firmware.config.sections import PinUse
from firmware.devices.header import BCM_TO_PHYSICAL, I2C1_PINS, RESERVED_PINS, SPI_BUS_PINS
from firmware.devices.wiring import OPTIONAL_ROLES, ROLES

if TYPE_CHECKING:
    from firmware.config.model import Config

#: The optional shutdown button (the kernel's gpio-shutdown overlay, see hardware/README.md):
#: no input, light or display may use it.
SHUTDOWN_GPIO = 12

#: Kinds of :class:`PinUse` that are not a part of the prop: a line two of them share is the kernel's business.
SHARED_KINDS = ("bus", "reserved")


def _service_uses(config: Config) -> list[PinUse]:
    from firmware.services.registry import installed

    services = installed()
    uses: list[PinUse] = []
    for name, settings in config.settings.items():
        service = services.get(name)
        if service is not None:
            uses += service.gpios(settings)
    return uses


def pin_uses(config: Config) -> list[PinUse]:
    """Every GPIO the build takes, reservations and buses first, then the parts in config order.

    Reserved: the HAT EEPROM bus (GPIO0/1) and the shutdown button (:data:`SHUTDOWN_GPIO`).
    Buses: I2C1's SDA and SCL when any display is on I2C (a TCA9548A multiplexer's channels
    hang off I2C1 too); every line of an SPI bus a display uses, both chip selects included,
    since the kernel's SPI driver owns them all; and a service's (an I2S sound card's).
    """
    services = _service_uses(config)
    uses = [PinUse(gpio, f"HAT EEPROM {name}", "reserved") for name, gpio in RESERVED_PINS.items()]
    uses.append(PinUse(SHUTDOWN_GPIO, f"the shutdown button (GPIO{SHUTDOWN_GPIO})", "reserved"))
    if any(d.interface == "i2c" for d in config.displays):
        uses += [PinUse(gpio, f"I2C1 {name}", "bus") for name, gpio in I2C1_PINS.items()]
    for port in sorted({d.port for d in config.displays if d.interface == "spi"}):
        uses += [PinUse(gpio, f"SPI{port} {name}", "bus") for name, gpio in SPI_BUS_PINS[port].items()]
    uses += [use for use in services if use.kind in SHARED_KINDS]
    uses += [PinUse(pin, f"[inputs] {name}", "input") for name, pin in config.inputs.pins.items()]
    uses += [PinUse(getattr(config.status_light, c), f"[status_light] {c}", "light") for c in ("red", "green")]
    uses += [PinUse(getattr(config.deck_light, c), f"[deck_light] {c}", "light") for c in ("red", "green", "blue")]
    uses += [PinUse(o.pin, f"[outputs] {o.name}", "output") for o in config.outputs]
    uses += [use for use in services if use.kind not in SHARED_KINDS]
    for d in config.displays:
        if d.interface == "spi":
            if d.dc is not None:  # always, from the loader
                uses.append(PinUse(d.dc, f"[{d.role} display] dc", "display"))
            if d.reset is not None:
                uses.append(PinUse(d.reset, f"[{d.role} display] reset", "display"))
    return uses


def pin_problems(config: Config) -> list[str]:
    """Every GPIO taken twice, as ``GPIO9 is used twice: SPI0 MISO and [deck_light] blue``."""
    owners: dict[int, str] = {}
    problems = []
    for use in pin_uses(config):
        if use.gpio in owners:
            if use.kind not in SHARED_KINDS:  # two buses that share a line are the kernel's business
                problems.append(f"GPIO{use.gpio} is used twice: {owners[use.gpio]} and {use.owner}")
            continue
        owners[use.gpio] = use.owner
    return problems


def describe_edgework(config: Config) -> str:
    """The ``Edgework:`` line of ``check-config``: the fixed bomb, or how the random ones are drawn."""
    e = config.edgework
    if e is None:
        bombs = config.bombs or RandomBombs()
        solved = f"; {bombs.solved} solved at the first start" if bombs.solved else ""
        if bombs.seed is None:
            return f"Edgework: a new bomb drawn at random for each game (no seed){solved}"
        return (
            f"Edgework: a bomb drawn at random for each game, seed {bombs.seed} (game 1 has serial "
            f"{bombs.bomb(1).serial}; baccarat deck --seed {bombs.seed} prints its deck){solved}"
        )
    batteries = f", battery holders {', '.join(e.batteries)}" if e.batteries else ""
    return (
        f"Edgework: serial {e.serial}, ports {', '.join(e.ports) or 'none'}, lit {', '.join(e.lit) or 'none'}, "
        f"unlit {', '.join(e.unlit) or 'none'}{batteries}, {e.solved} solved"
    )


def describe_services(config: Config) -> list[str]:
    """Each configured service's lines (in start order), and a line for each that cannot be loaded."""
    from firmware.services.registry import installed

    services = installed()
    lines = []
    for service in services.ordered():
        if service.name in config.settings:
            lines += service.describe(config.settings[service.name])
    for name, reason in services.broken.items():
        lines.append(f"Service {name}: cannot be loaded ({reason}); [{name}] is not checked and it does not run")
    lines += [f"Service {name}: {line}" for name, line in services.conflicts.items()]
    return lines


def describe_wiring(config: Config) -> str:
    """The wiring a config describes, as ``check-config`` prints it."""
    lines = [
        f"Config {config.source} is valid.",
        "",
        describe_edgework(config),
        f"Limits: {config.limits.placard() if config.limits else 'random at start'}; "
        f"first deck: {config.first_color or 'random colour'}",
        f"Bomb: {config.bomb.describe()}",
        "",
        "GPIO (BCM)  header pin  role",
    ]
    parts = [use for use in pin_uses(config) if use.kind not in SHARED_KINDS]
    for use in sorted(parts, key=lambda use: use.gpio):
        lines.append(f"GPIO{use.gpio:<8d} pin {BCM_TO_PHYSICAL[use.gpio]:<6d}  {use.owner}")
    pull = "pull-up, wire to GND" if config.inputs.pull_up else "pull-down, wire to 3V3"
    deal = "active-high sensor" if config.inputs.deal_active_high else f"button ({pull})"
    lines += [
        "",
        f"Buttons: {pull}; deal input: {deal}",
        f"LEDs: status {'active-high' if config.status_light.active_high else 'active-low'}, "
        f"deck RGB {'common cathode' if config.deck_light.active_high else 'common anode'}"
        f"{' with PWM' if config.deck_light.pwm else ''}",
        "",
        "Displays:",
    ]
    for display in config.displays:
        lines.append("  " + display.describe())
    missing = [r for r in ROLES if r not in {d.role for d in config.displays} and r not in OPTIONAL_ROLES]
    if missing:
        lines.append(f"  (no {', '.join(missing)} display)")
    if config.outputs:
        lines += ["", "Outputs (off at start and at stop; docs/build/outputs.md shows the driver to wire):"]
        lines += ["  " + output.describe() for output in config.outputs]
    services = describe_services(config)
    if services:
        lines += ["", *services]
    return "\n".join(lines)
