"""The prop's pins as the reference config uses them: the config's tables, the LED resistors, and
one row per header pin with its role and wiring (hardware/generate.py draws them)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.config import SHUTDOWN_GPIO, ConfigError, parse_config, pin_problems
from firmware.devices.header import BCM_TO_PHYSICAL, I2C1_PINS, POWER_PINS, RESERVED_PINS, SPI0_PINS

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "firmware" / "config" / "default-config.toml"

GND_PINS = sorted(pin for pin, name in POWER_PINS.items() if name == "GND")
PHYSICAL_TO_BCM = {phys: bcm for bcm, phys in BCM_TO_PHYSICAL.items()}

INPUT_NAMES = {
    "player": "PLAYER button",
    "banker": "BANKER button",
    "tie": "TIE button",
    "player_pair": "PLAYER PAIR button",
    "banker_pair": "BANKER PAIR button",
    "arrow_left": "left arrow button",
    "arrow_right": "right arrow button",
    "deal": "deck (deal) button or sensor",
}
LIGHT_NAMES = {"status_light": "status light", "deck_light": "deck RGB LED"}
#: The optional casing display's own I2C bus (both addresses of bus 1 are the placard's and the
#: table's): the kernel's i2c-gpio overlay on the two GPIOs the reference build leaves free.
CASING_BUS = 3
CASING_PINS = {"SDA": 14, "SCL": 18}
CASING_OVERLAY = (
    f"dtoverlay=i2c-gpio,bus={CASING_BUS},i2c_gpio_sda={CASING_PINS['SDA']},i2c_gpio_scl={CASING_PINS['SCL']}"
)
#: What an output's pin drives (hardware/README.md, "Outputs"): never a lock or a coil itself.
OUTPUT_WIRING = {
    True: "GPIO → 220 Ω → gate of a logic-level N-MOSFET (10 kΩ gate → GND), or IN of an active-high relay module",
    False: "GPIO → IN of an active-low relay module (its VCC from 3V3, JD-VCC from the module's own 5 V supply)",
}


# -- the config ---------------------------------------------------------------


def load_config(path: str | Path = DEFAULT_CONFIG) -> dict[str, Any]:
    """Read a TOML config file (the raw tables; the daemon validates the rest)."""
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def _gpios(section: dict[str, Any]) -> list[tuple[str, int]]:
    """The ``name = <GPIO>`` entries of a table (booleans are not GPIOs)."""
    return [(key, value) for key, value in section.items() if type(value) is int]


def _displays(config: dict[str, Any], interface: str) -> list[dict[str, Any]]:
    return [d for d in config.get("displays", []) if d.get("interface") == interface]


def _spi_bus(config: dict[str, Any]) -> dict[str, int]:
    """SPI0 lines the kernel driver owns when any display uses SPI."""
    return dict(SPI0_PINS) if _displays(config, "spi") else {}


# -- LED resistors --------------------------------------------------------------

SUPPLY_V = 3.3  # a GPIO driven high
TARGET_MA = 5.0  # bright enough for a 5 mm diffused LED indoors
PIN_LIMIT_MA = 8.0  # default pad drive strength; 16 mA is the absolute maximum
TOTAL_LIMIT_MA = 50.0  # keep all GPIO outputs together below this
VF_SPREAD = 0.2  # real LEDs differ; the worst case assumes Vf this much lower
E12 = (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82)
#: Typical forward voltage per LED: red 2.0 V, yellow-green (GaP) 2.1 V, InGaN green/blue 3.0 V.
FORWARD_V = {
    ("status_light", "red"): 2.0,
    ("status_light", "green"): 2.1,
    ("deck_light", "red"): 2.0,
    ("deck_light", "green"): 3.0,
    ("deck_light", "blue"): 3.0,
}


@dataclass(frozen=True)
class Resistor:
    """A worked-out LED series resistor."""

    led: str
    vf: float
    ideal_ohms: float
    ohms: int
    ma: float
    worst_ma: float


def e12_at_least(ohms: float) -> int:
    """The smallest E12 value that is at least ``ohms`` (so the current stays at or below target)."""
    decade = 1
    while True:
        for value in E12:
            if value * decade >= ohms - 1e-6:
                return value * decade
        decade *= 10


def resistor_for(led: str, vf: float, target_ma: float = TARGET_MA) -> Resistor:
    """R = (3.3 V - Vf) / I, rounded up to E12."""
    ideal = (SUPPLY_V - vf) / (target_ma / 1000)
    ohms = e12_at_least(ideal)
    return Resistor(led, vf, ideal, ohms, (SUPPLY_V - vf) / ohms * 1000, (SUPPLY_V - vf + VF_SPREAD) / ohms * 1000)


def resistors(config: dict[str, Any]) -> dict[tuple[str, str], Resistor]:
    """The series resistor of every LED in the config, keyed by (section, colour)."""
    out = {}
    for section in LIGHT_NAMES:
        for colour, _gpio in _gpios(config.get(section, {})):
            vf = FORWARD_V.get((section, colour), 2.0)
            out[(section, colour)] = resistor_for(f"{LIGHT_NAMES[section]} {colour}", vf)
    return out


# -- the pin map ----------------------------------------------------------------


@dataclass(frozen=True)
class PinRow:
    """One header pin and what the prop does with it."""

    role: str
    physical: int
    bcm: int | None  # None for power and ground pins
    kind: str  # input, led, output, i2c, spi, power, ground, spare
    part: str  # the part the pin belongs to
    direction: str
    wiring: str


def nearest_ground(pins: list[int]) -> int:
    """The GND header pin closest to a part's pins (any GND pin works; close is tidy)."""
    middle = sum((pin + 1) // 2 for pin in pins) / len(pins)
    return min(GND_PINS, key=lambda g: (abs((g + 1) // 2 - middle), g))


def _part_rows(config: dict[str, Any]) -> list[PinRow]:
    """The GPIO rows of buttons, LEDs and display control lines (no power, no buses)."""
    rows: list[PinRow] = []
    inputs = config.get("inputs", {})
    pull_up = inputs.get("pull_up", True)
    for name, gpio in _gpios(inputs):
        wiring = "GPIO → button → GND (internal pull-up)" if pull_up else "3V3 → button → GPIO (internal pull-down)"
        if name == "deal" and inputs.get("deal_active_high", False):
            wiring = "sensor OUT → GPIO (active high); sensor VCC → 3V3, GND → GND"
        elif name == "deal":
            wiring += "; or an active-low sensor OUT → GPIO, sensor VCC → 3V3"
        rows.append(
            PinRow(
                INPUT_NAMES.get(name, name.replace("_", " ")),
                BCM_TO_PHYSICAL[gpio],
                gpio,
                "input",
                f"inputs.{name}",
                "input",
                wiring,
            )
        )
    ohms = resistors(config)
    for section, title in LIGHT_NAMES.items():
        table = config.get(section, {})
        for colour, gpio in _gpios(table):
            r = ohms[(section, colour)].ohms
            if table.get("active_high", True):
                wiring = f"GPIO → {r} Ω → LED anode; cathode → GND"
            else:
                wiring = f"3V3 → LED anode; cathode → {r} Ω → GPIO (common anode)"
            rows.append(PinRow(f"{title} {colour}", BCM_TO_PHYSICAL[gpio], gpio, "led", section, "output", wiring))
    for output in config.get("outputs", []):
        gpio, name = output["pin"], output["name"]
        rows.append(
            PinRow(
                f"{name} output",
                BCM_TO_PHYSICAL[gpio],
                gpio,
                "output",
                f"outputs.{name}",
                "output",
                OUTPUT_WIRING[bool(output.get("active_high", True))],
            )
        )
    for display in _displays(config, "spi"):
        for key, pin_name in (("dc", "DC"), ("reset", "RES")):
            if key in display:
                gpio = display[key]
                rows.append(
                    PinRow(
                        f"{display['role']} display {pin_name}",
                        BCM_TO_PHYSICAL[gpio],
                        gpio,
                        "spi",
                        f"displays.{display['role']}",
                        "output (luma)",
                        f"GPIO → {pin_name} pin of the {display['driver'].upper()} board",
                    )
                )
    return rows


def pin_rows(config: dict[str, Any]) -> list[PinRow]:
    """Every header pin the reference build uses, ordered by physical pin."""
    rows = _part_rows(config)
    i2c = _displays(config, "i2c")
    if i2c:
        users = ", ".join(f"{d['role']} (0x{d.get('address', 0x3C):02X})" for d in i2c)
        for name, gpio in I2C1_PINS.items():
            rows.append(
                PinRow(
                    f"I2C1 {name}",
                    BCM_TO_PHYSICAL[gpio],
                    gpio,
                    "i2c",
                    "i2c",
                    "bus",
                    f"{name} of every I2C display: {users}",
                )
            )
        rows.append(
            PinRow(
                "3V3 for the I2C displays",
                1,
                None,
                "power",
                "i2c",
                "power",
                "VCC of every I2C display (not 5 V: the boards pull SDA/SCL up to VCC)",
            )
        )
    for display in _displays(config, "spi"):
        cs = f"CE{display.get('device', 0)}"
        board = f"the {display['role']} display ({display['driver'].upper()})"
        for name, target in (("MOSI", "MOSI (also DIN, D1 or SDA)"), ("SCLK", "CLK (also D0 or SCL)"), (cs, "CS")):
            gpio = SPI0_PINS[name]
            rows.append(
                PinRow(
                    f"SPI0 {name}",
                    BCM_TO_PHYSICAL[gpio],
                    gpio,
                    "spi",
                    f"displays.{display['role']}",
                    "bus",
                    f"{target} of {board}",
                )
            )
        rows.append(
            PinRow(
                f"3V3 for the {display['role']} display",
                17,
                None,
                "power",
                f"displays.{display['role']}",
                "power",
                f"VCC of {board}",
            )
        )
    used_spi = {r.bcm for r in rows if r.kind == "spi"}
    for name, gpio in _spi_bus(config).items():
        if gpio not in used_spi:
            rows.append(
                PinRow(
                    f"SPI0 {name}",
                    BCM_TO_PHYSICAL[gpio],
                    gpio,
                    "reserved",
                    "spi",
                    "bus",
                    "not connected; the kernel SPI driver owns it, keep it free",
                )
            )
    for name, gpio in RESERVED_PINS.items():
        rows.append(
            PinRow(
                f"HAT EEPROM {name}",
                BCM_TO_PHYSICAL[gpio],
                gpio,
                "reserved",
                "hat",
                "bus",
                "not connected; reserved for HAT ID EEPROMs",
            )
        )
    rows += _casing_rows(config, {r.bcm for r in rows})
    rows.append(
        PinRow(
            "optional shutdown button",
            BCM_TO_PHYSICAL[SHUTDOWN_GPIO],
            SHUTDOWN_GPIO,
            "spare",
            "shutdown",
            "input (kernel)",
            f"GPIO → button → GND; dtoverlay=gpio-shutdown,gpio_pin={SHUTDOWN_GPIO}",
        )
    )
    return sorted(rows, key=lambda r: r.physical)


def _casing_rows(config: dict[str, Any], used: set[int | None]) -> list[PinRow]:
    """The casing display's own I2C bus (i2c-gpio on :data:`CASING_PINS`): optional rows while the
    config has no casing display, and none when another part took those GPIOs."""
    if set(CASING_PINS.values()) & used:
        return []
    fitted = any(d.get("role") == "casing" for d in config.get("displays", []))
    rows = []
    for name, gpio in CASING_PINS.items():
        rows.append(
            PinRow(
                f"{'' if fitted else 'optional '}casing display {name}",
                BCM_TO_PHYSICAL[gpio],
                gpio,
                "i2c-gpio" if fitted else "casing",
                "casing",
                "bus (i2c-gpio)",
                f"{name} of the casing display: I2C bus {CASING_BUS} (port = {CASING_BUS}), {CASING_OVERLAY} "
                "in config.txt; its VCC → 3V3 (pin 1 or 17)",
            )
        )
    return rows


def ground_pins(config: dict[str, Any]) -> dict[str, int]:
    """The suggested GND header pin for each part (its nearest)."""
    parts: dict[str, list[int]] = {}
    for row in pin_rows(config):
        if row.kind not in ("reserved",):
            parts.setdefault(row.part, []).append(row.physical)
    return {part: nearest_ground(pins) for part, pins in parts.items()}


def conflicts(config: dict[str, Any]) -> list[str]:
    """Everything that makes the config unbuildable as drawn (empty when fine).

    The daemon's validator decides (``firmware.config``): the same file cannot pass
    ``check-config`` and fail here, or the other way round.
    """
    try:
        parsed = parse_config(config, check_pins=False)
    except ConfigError as error:
        return [str(error)]
    problems = pin_problems(parsed)
    for display in _displays(config, "spi"):
        if display.get("port", 0) != 0:
            problems.append(f"{display['role']} display: only SPI0 is drawn, not SPI{display['port']}")
    return problems


def _check(config: dict[str, Any]) -> None:
    problems = conflicts(config)
    if problems:
        raise ValueError(problems[0])
