"""Generate the pin map, wiring diagram and front panel from the daemon's config.

Run from the repository root::

    python3 hardware/generate.py           # rewrite the generated files
    python3 hardware/generate.py --check   # exit 1 if a checked-in file is stale

Writes ``hardware/PINMAP.md``, ``hardware/wiring.svg``, ``hardware/front-panel.svg``
and ``hardware/front-panel.scad`` from ``firmware/default-config.toml``. The pins
are checked by the daemon's own validator (``firmware.config.pin_problems``), so a
config that ``check-config`` refuses cannot be drawn either.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python3 hardware/generate.py` puts hardware/ first, not the root
    sys.path.insert(0, str(ROOT))

from firmware.config import SHUTDOWN_GPIO, ConfigError, parse_config, pin_problems  # noqa: E402
from firmware.devices.header import BCM_TO_PHYSICAL, I2C1_PINS, POWER_PINS, RESERVED_PINS, SPI0_PINS  # noqa: E402
from firmware.devices.panel import CUTOUTS, EDGE_MM, PANEL_MM, Cutout, overlaps  # noqa: E402, F401

DEFAULT_CONFIG = ROOT / "firmware" / "default-config.toml"
HERE = ROOT / "hardware"

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


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def render_pinmap(config: dict[str, Any]) -> str:
    """PINMAP.md: every pin by BCM number and header pin, with its role and wiring."""
    _check(config)
    rows = pin_rows(config)
    grounds = ground_pins(config)
    out = [
        "# Pin map",
        "",
        "<!-- Generated by hardware/generate.py from firmware/default-config.toml. Do not edit by hand. -->",
        "",
        "BCM numbers are what the config and gpiozero use; the header pin is what you solder to",
        "(pin 1 has the square pad and sits at the microSD-card end of the header).",
        "The header is the same on the Zero 2 W, 3, 4 and 5.",
        "",
        "## GPIOs and buses",
        "",
    ]
    body = []
    for row in rows:
        gpio = f"GPIO{row.bcm}" if row.bcm is not None else "—"
        grounded = ("input", "led", "output", "spare")
        ground = f"pin {grounds[row.part]}" if row.part in grounds and row.kind in grounded else ""
        body.append([row.role, gpio, str(row.physical), row.direction, row.wiring, ground])
    out += _table(["Role", "BCM", "Header pin", "Direction", "Wiring", "Ground to"], body)

    out += ["", "## Power and ground", ""]
    power = []
    for pin in sorted(POWER_PINS):
        users = [r.role for r in rows if r.physical == pin]
        if POWER_PINS[pin] == "GND":
            users = [p for p, g in grounds.items() if g == pin]
            use = ", ".join(sorted(_part_title(config, p) for p in users)) or "spare"
        elif POWER_PINS[pin] == "5V":
            use = "not used (the Pi is powered from its own USB socket)"
        else:
            use = "; ".join(users) or "spare"
        power.append([POWER_PINS[pin], str(pin), use])
    out += _table(["Rail", "Header pin", "Used for"], power)

    out += ["", "## Displays", ""]
    disp = []
    for d in config.get("displays", []):
        if d.get("interface") == "i2c":
            where = f"I2C bus {d.get('port', 1)} (/dev/i2c-{d.get('port', 1)}), address 0x{d.get('address', 0x3C):02X}"
        else:
            bus, cs = d.get("port", 0), d.get("device", 0)
            where = f"SPI{bus} CE{cs} (/dev/spidev{bus}.{cs}), DC GPIO{d['dc']}" + (
                f", RES GPIO{d['reset']}" if "reset" in d else ""
            )
        part = "i2c" if d.get("interface") == "i2c" else f"displays.{d['role']}"
        disp.append([d["role"], d["driver"].upper(), f"{d['width']}×{d['height']}", where, f"pin {grounds[part]}"])
    out += _table(["Role", "Driver", "Pixels", "Connection", "Ground to"], disp)

    out += [
        "",
        "## LED series resistors",
        "",
        f"R = ({SUPPLY_V} V − Vf) / {TARGET_MA:g} mA, rounded up to the next E12 value so the current",
        f"stays at or below target. Worst case assumes Vf {VF_SPREAD} V lower than typical; keep it",
        f"under {PIN_LIMIT_MA:g} mA per pin and {TOTAL_LIMIT_MA:g} mA for all pins together.",
        "",
    ]
    res = resistors(config)
    out += _table(
        ["LED", "Vf", "(3.3 − Vf) / I", "E12", "Current", "Worst case"],
        [
            [
                r.led,
                f"{r.vf:.1f} V",
                f"{SUPPLY_V - r.vf:.1f} V / {TARGET_MA:g} mA = {r.ideal_ohms:.0f} Ω",
                f"{r.ohms} Ω",
                f"{r.ma:.1f} mA",
                f"{r.worst_ma:.1f} mA",
            ]
            for r in res.values()
        ],
    )
    total = sum(r.worst_ma for r in res.values())
    out += ["", f"All LEDs lit at once, worst case: {total:.1f} mA (limit {TOTAL_LIMIT_MA:g} mA).", ""]

    used = {r.bcm for r in rows if r.bcm is not None}
    free = sorted(set(BCM_TO_PHYSICAL) - used)
    uart = {14: " UART TX", 15: " UART RX"}
    out += [
        "## Free GPIOs",
        "",
        ", ".join(f"GPIO{g}{uart.get(g, '')} (pin {BCM_TO_PHYSICAL[g]})" for g in free) or "none",
        "",
        "GPIO14 and 15 are free only while the serial console is off (raspi-config, Interface Options).",
        "",
    ]
    return "\n".join(out)


def _part_title(config: dict[str, Any], part: str) -> str:
    section, _, name = part.partition(".")
    if section == "inputs":
        return INPUT_NAMES.get(name, name)
    if section == "displays":
        return f"{name} display"
    if section == "outputs":
        return f"{name} output"
    return {"i2c": "I2C displays", "shutdown": "shutdown button"}.get(part, LIGHT_NAMES.get(part, part))


# -- SVG helpers ----------------------------------------------------------------


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, text: str, size: float, anchor: str = "start", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 2, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{colour}" '
        f'stroke-width="{_n(width)}"{extra}/>'
    )


def _svg(width: float, height: float, body: list[str], unit: str = "") -> str:
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}{unit}" height="{_n(height)}{unit}" '
            f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="DejaVu Sans, Arial, sans-serif">',
            f'<rect width="{_n(width)}" height="{_n(height)}" fill="white"/>',
            *body,
            "</svg>",
            "",
        ]
    )


# -- the wiring diagram ---------------------------------------------------------

ROW0, PITCH = 290, 30  # y of header row 1, row spacing
HX0, HX1 = 430, 690  # the header's left and right edges
WIDTH, HEIGHT = 1120, 1030
LANE0, LANE_STEP = 335, 12  # bus lanes, measured outward from the header edge
COLOURS = {
    "input": "#2a9d3a",
    "led": "#b5651d",
    "3V3": "#d62828",
    "5V": "#7a0000",
    "GND": "#222222",
    "SDA": "#1f6fd1",
    "SCL": "#e69b00",
    "MOSI": "#8e44ad",
    "SCLK": "#d63384",
    "CS": "#17a2b8",
    "DC": "#6b8e23",
    "RES": "#4a6b8a",
    "spare": "#888888",
    "reserved": "#c9b3dd",
    "free": "#cccccc",
    "output": "#a61e4d",
}
LED_FILL = {"red": "#e63946", "green": "#2dc653", "blue": "#3a86ff"}


def _y(pin: int) -> float:
    return ROW0 + (pin - 1) // 2 * PITCH


def _dot_x(pin: int) -> float:
    return HX0 + 14 if pin % 2 else HX1 - 14


def _out(side: int, d: float) -> float:
    """x at distance ``d`` outward from the header edge on ``side`` (-1 left, +1 right)."""
    return (HX0 if side < 0 else HX1) + side * d


def _ground(x: float, y: float, pin: int, side: int) -> list[str]:
    parts = [_line(x, y, x, y + 8, COLOURS["GND"], 2)]
    for i, half in enumerate((8, 5, 2)):
        parts.append(_line(x - half, y + 8 + 3 * i, x + half, y + 8 + 3 * i, COLOURS["GND"], 2))
    parts.append(_text(x + side * 12, y + 13, f"GND {pin}", 10, "start" if side > 0 else "end"))
    return parts


def _pin_label(pin: int) -> str:
    bcm = PHYSICAL_TO_BCM.get(pin)
    if bcm is None:
        return POWER_PINS[pin]
    bus = {
        **{v: k for k, v in I2C1_PINS.items()},
        **{v: k for k, v in SPI0_PINS.items()},
        **{v: k for k, v in RESERVED_PINS.items()},
    }
    return f"GPIO{bcm}" + (f" {bus[bcm]}" if bcm in bus else "")


def _header(colours: dict[int, str]) -> list[str]:
    top, bottom = _y(1) - 18, _y(39) + 18
    out = [
        f'<rect x="{HX0}" y="{top}" width="{HX1 - HX0}" height="{bottom - top}" rx="8" fill="#1f3b2d"/>',
        _text((HX0 + HX1) / 2, bottom + 20, "Raspberry Pi 40-pin header, top view", 13, "middle", font_weight="bold"),
    ]
    for pin in range(1, 41):
        x, y = _dot_x(pin), _y(pin)
        name = POWER_PINS.get(pin)
        fill = colours.get(pin) or COLOURS.get(name or "", COLOURS["free"])
        shape = (
            f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="{fill}" stroke="white"/>'
            if pin == 1
            else f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="white"/>'
        )
        out.append(shape)
        label = _pin_label(pin)
        muted = pin not in colours and name is None
        colour = "#8fa89a" if muted else "white"
        if pin % 2:
            out.append(_text(x + 14, y + 4, f"{pin}  {label}", 11, "start", fill=colour))
        else:
            out.append(_text(x - 14, y + 4, f"{label}  {pin}", 11, "end", fill=colour))
    return out


def _single(row: PinRow, config: dict[str, Any], ground: int) -> list[str]:
    """A button, LED or output on its own row: pin → (resistor → LED | button | driver) → ground."""
    side = -1 if row.physical % 2 else 1
    y, start = _y(row.physical), _dot_x(row.physical)
    anchor = "end" if side < 0 else "start"
    colour = COLOURS[row.kind] if row.kind in ("led", "output", "spare") else COLOURS["input"]
    dash = {"stroke_dasharray": "6 4"} if row.kind == "spare" else {}
    out = [
        _line(start, y, _out(side, 265), y, colour, 2.5, **dash),
        _text(_out(side, 10), y - 7, row.role, 11, anchor, fill="#111"),
    ]
    if row.kind == "led":
        section, colour_name = row.part, row.role.rsplit(" ", 1)[1]
        table = config.get(section, {})
        ohms = resistors(config)[(section, colour_name)].ohms
        x0, x1 = sorted((_out(side, 185), _out(side, 221)))
        out += [
            f'<rect x="{x0}" y="{y - 5}" width="{x1 - x0}" height="10" fill="white" stroke="#333" stroke-width="1.5"/>',
            _text((x0 + x1) / 2, y - 8, f"{ohms} Ω", 10, "middle"),
        ]
        toward = side if table.get("active_high", True) else -side  # the triangle points at the cathode
        base, tip = _out(side, 240 - 8 * toward * side), _out(side, 240 + 8 * toward * side)
        out += [
            f'<polygon points="{base},{y - 8} {base},{y + 8} {tip},{y}" fill="{LED_FILL.get(colour_name, "#ddd")}" '
            f'stroke="#333" stroke-width="1.5"/>',
            _line(tip, y - 8, tip, y + 8, "#333", 2),
        ]
    elif row.kind == "output":  # the pin drives a driver's input, never the load
        x0, x1 = sorted((_out(side, 165), _out(side, 245)))
        out += [
            f'<rect x="{x0}" y="{y - 9}" width="{x1 - x0}" height="18" rx="3" fill="#fbe9ef" stroke="#333" '
            'stroke-width="1.5"/>',
            _text((x0 + x1) / 2, y + 4, "relay / MOSFET", 10, "middle"),
        ]
    else:
        x0, x1 = sorted((_out(side, 185), _out(side, 225)))
        out += [
            f'<rect x="{x0}" y="{y - 3}" width="{x1 - x0}" height="6" fill="white"/>',
            f'<circle cx="{x0 + 5}" cy="{y}" r="3" fill="white" stroke="#333" stroke-width="1.5"/>',
            f'<circle cx="{x1 - 5}" cy="{y}" r="3" fill="white" stroke="#333" stroke-width="1.5"/>',
            _line(x0 + 2, y - 9, x1 - 2, y - 9, "#333", 2),
            _line((x0 + x1) / 2, y - 9, (x0 + x1) / 2, y - 14, "#333", 2),
        ]
    if row.kind == "led" and not config.get(row.part, {}).get("active_high", True):
        out.append(_text(_out(side, 270), y + 4, "3V3", 10, anchor, fill=COLOURS["3V3"]))
    else:
        out += _ground(_out(side, 265), y, ground, side)
    return out


@dataclass(frozen=True)
class _Device:
    title: list[str]
    pins: list[tuple[str, str | None]]  # (label on the board, net name or None for GND)
    ground: int


def _bus_group(side: int, nets: dict[str, int], devices: list[_Device], x_from: float) -> list[str]:
    """Displays above the header, joined to their header pins by bus lines.

    Each net leaves its pin (crossing the header between rows if the pin is on
    the other side), runs out to its own lane, up to its own bus line, and in
    along the bus line to the display pins. Upper rows get inner lanes and lower
    bus lines, so no two wires cross except where a display pin drops to its line.
    """
    used_gaps: set[float] = set()
    start: dict[str, float] = {}
    out: list[str] = []
    for net, pin in nets.items():
        y = _y(pin)
        if (pin % 2 == 1) != (side < 0):  # pin on the far column: cross between rows
            gap = next(g for g in (y + PITCH / 2, y - PITCH / 2, y + PITCH * 1.5) if g not in used_gaps)
            used_gaps.add(gap)
            start[net] = gap
        else:
            start[net] = y
    order = sorted(nets, key=lambda n: start[n])
    lanes = {net: _out(side, LANE0 + i * LANE_STEP) for i, net in enumerate(order)}
    bus_y = {net: ROW0 - 40 - i * 12 for i, net in enumerate(order)}
    box_bottom = min(bus_y.values()) - 30
    pin_x: dict[str, list[float]] = {net: [] for net in nets}
    x = x_from
    boxes = []
    for device in devices:
        width = 24 + 34 * len(device.pins)
        boxes.append((x, width, device))
        for k, (_label, net) in enumerate(device.pins):
            if net:
                pin_x[net].append(x + 24 + 34 * k)
        x += width + 24
    for net, pin in nets.items():
        colour = COLOURS.get(net, COLOURS["CS"] if net.startswith("CE") else "#555")
        px, py, y = _dot_x(pin), _y(pin), start[net]
        points = [(px, py)]
        if y != py:
            points.append((px + side * 12, y))
        points += [(lanes[net], y), (lanes[net], bus_y[net])]
        xs = [lanes[net], x_from - 4 if side > 0 else x - 20]  # the bus runs past every box
        path = " ".join(f"{_n(a)},{_n(b)}" for a, b in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        out.append(_line(min(xs), bus_y[net], max(xs), bus_y[net], colour, 2.5))
        inner = min(xs) - 4 if side > 0 else max(xs) + 4
        out.append(
            _text(
                inner,
                bus_y[net] + 4,
                f"{net} · pin {pin}",
                10,
                "end" if side > 0 else "start",
                fill=colour,
                font_weight="bold",
            )
        )
        for x_pin in pin_x[net]:
            out += [
                _line(x_pin, box_bottom, x_pin, bus_y[net], colour, 2.5),
                f'<circle cx="{_n(x_pin)}" cy="{bus_y[net]}" r="4" fill="{colour}"/>',
            ]
    for x, width, device in boxes:
        top = box_bottom - 80
        out.append(
            f'<rect x="{_n(x)}" y="{top}" width="{width}" height="80" rx="6" fill="#f4f4f4" '
            f'stroke="#333" stroke-width="1.5"/>'
        )
        for i, line in enumerate(device.title):
            out.append(
                _text(
                    x + width / 2,
                    top + 18 + 15 * i,
                    line,
                    12 if i == 0 else 11,
                    "middle",
                    font_weight="bold" if i == 0 else "normal",
                )
            )
        for k, (label, net) in enumerate(device.pins):
            x_pin = x + 24 + 34 * k
            out.append(_text(x_pin, box_bottom - 6, label, 10, "middle"))
            if net is None:
                out += _ground(x_pin, box_bottom, device.ground, 1)
    return out


def render_wiring_svg(config: dict[str, Any]) -> str:
    """wiring.svg: the header with all 40 pins labelled and a line to every part."""
    _check(config)
    rows = pin_rows(config)
    grounds = ground_pins(config)
    colours: dict[int, str] = {}
    body: list[str] = [
        _text(WIDTH / 2, 30, "Baccarat prop wiring", 22, "middle", font_weight="bold"),
        _text(
            WIDTH / 2,
            52,
            "generated by hardware/generate.py from firmware/default-config.toml — all GPIO numbers are BCM",
            12,
            "middle",
            fill="#555",
        ),
    ]
    wires: list[str] = []
    for row in rows:
        if row.kind in ("input", "led", "output", "spare"):
            colours[row.physical] = COLOURS[row.kind]
            wires += _single(row, config, grounds[row.part])
        elif row.kind == "reserved":
            colours[row.physical] = COLOURS["reserved"]

    i2c = _displays(config, "i2c")
    if i2c:
        nets = {"3V3": 1, "SDA": BCM_TO_PHYSICAL[I2C1_PINS["SDA"]], "SCL": BCM_TO_PHYSICAL[I2C1_PINS["SCL"]]}
        devices = [
            _Device(
                [
                    f"{d['role']} display",
                    f"{d['driver'].upper()} {d['width']}×{d['height']}",
                    f"I2C address 0x{d.get('address', 0x3C):02X}",
                ],
                [("GND", None), ("VCC", "3V3"), ("SCL", "SCL"), ("SDA", "SDA")],
                grounds["i2c"],
            )
            for d in i2c
        ]
        wires += _bus_group(-1, nets, devices, _out(-1, LANE0) + 40)
        colours.update({pin: COLOURS[net] for net, pin in nets.items()})
    spi = _displays(config, "spi")
    if spi:
        nets = {"3V3": 17, "MOSI": BCM_TO_PHYSICAL[SPI0_PINS["MOSI"]], "SCLK": BCM_TO_PHYSICAL[SPI0_PINS["SCLK"]]}
        devices = []
        for d in spi:
            cs = f"CE{d.get('device', 0)}"
            nets[cs] = BCM_TO_PHYSICAL[SPI0_PINS[cs]]
            pins: list[tuple[str, str | None]] = [("GND", None), ("VCC", "3V3"), ("CLK", "SCLK"), ("MOSI", "MOSI")]
            for key, name in (("reset", "RES"), ("dc", "DC")):
                if key in d:
                    net = name if len(spi) == 1 else f"{name}{d['role'][0]}"
                    nets[net] = BCM_TO_PHYSICAL[d[key]]
                    pins.append((name, net))
            pins.append(("CS", cs))
            devices.append(
                _Device(
                    [
                        f"{d['role']} display",
                        f"{d['driver'].upper()} {d['width']}×{d['height']}",
                        f"SPI0 {cs}, 7-pin board",
                    ],
                    pins,
                    grounds[f"displays.{d['role']}"],
                )
            )
        width = sum(24 + 34 * len(d.pins) for d in devices) + 24 * (len(devices) - 1)
        wires += _bus_group(1, nets, devices, _out(1, LANE0) - 40 - width)
        colours.update(
            {
                pin: COLOURS.get(
                    net[:3] if net.startswith("RES") else net[:2] if net.startswith("DC") else net, COLOURS["CS"]
                )
                for net, pin in nets.items()
            }
        )

    body += _header(colours) + wires
    legend_y = _y(39) + 75
    items = [
        ("button", "input"),
        ("LED", "led"),
        ("output", "output"),
        ("3V3", "3V3"),
        ("I2C SDA", "SDA"),
        ("I2C SCL", "SCL"),
        ("SPI MOSI", "MOSI"),
        ("SPI SCLK", "SCLK"),
        ("SPI CS", "CS"),
        ("DC", "DC"),
        ("RES", "RES"),
        ("kept free", "reserved"),
        ("optional", "spare"),
    ]
    x = 40.0
    for label, key in items:
        dash = {"stroke_dasharray": "6 4"} if key == "spare" else {}
        body += [_line(x, legend_y, x + 24, legend_y, COLOURS[key], 5, **dash), _text(x + 30, legend_y + 4, label, 11)]
        x += 44 + 6.5 * len(label)
    notes = [
        "Buttons: GPIO → button → GND; the Pi's internal pull-up needs no resistor. LEDs: GPIO → resistor → "
        "anode, cathode → GND.",
        "GND n at a ground symbol: run that ground to header pin n (any GND pin works; daisy-chain parts sharing one). "
        "The RGB LED's cathodes are its one long leg.",
        "Display pin order is that of common boards; go by the labels printed on yours. "
        "Power every display from 3V3, never 5 V.",
        "Outputs: the pin drives a relay module's IN or a logic-level MOSFET's gate; the lock has its own "
        "supply, never the Pi's 5 V or 3V3 (hardware/README.md, Outputs).",
    ]
    body += [_text(40, legend_y + 30 + 18 * i, note, 12) for i, note in enumerate(notes)]
    return _svg(WIDTH, HEIGHT, body)


# -- the front panel ------------------------------------------------------------


def _size(c: Cutout) -> str:
    return f"Ø{_n(c.w)}" if c.round else f"{_n(c.w)} × {_n(c.h)}"


#: The template's page: A4 portrait, in mm, and the margin printers leave blank.
A4_MM = (210.0, 297.0)
PRINT_MARGIN_MM = 5.0
#: The scale bar printed under the panel, to check the print is 1:1.
SCALE_BAR_MM = 100.0


def render_front_panel_svg(config: dict[str, Any] | None = None) -> str:
    """front-panel.svg: a 1:1 drilling template on one A4 page, with cut-out sizes and positions in mm."""
    page_w, page_h = A4_MM
    ox, oy, p = 30.0, 44.0, PANEL_MM
    body = [
        _text(10, 14, f"Baccarat prop front panel — {_n(p)} × {_n(p)} mm", 6, font_weight="bold"),
        _text(
            10,
            20,
            "Scale 1:1 on A4: print at 100 % (actual size, not “fit to page”); the bar under the panel is "
            f"{_n(SCALE_BAR_MM)} mm.",
            3.2,
            fill="#444",
        ),
        _text(10, 24.5, "Positions are hole centres in mm from the panel's top-left corner;", 3.2, fill="#444"),
        _text(10, 29, "dashed = what sits behind the panel (keep clear).", 3.2, fill="#444"),
        f'<rect x="{ox}" y="{oy}" width="{_n(p)}" height="{_n(p)}" rx="3" fill="#f3efe6" stroke="#222" '
        f'stroke-width="0.5"/>',
    ]
    for c in CUTOUTS:
        cx, cy = ox + c.x, oy + c.y
        if c.round:
            body.append(
                f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(c.body_w / 2)}" fill="none" stroke="#999" '
                f'stroke-width="0.3" stroke-dasharray="1.5 1"/>'
            )
            body.append(
                f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(c.w / 2)}" fill="#ffffff" stroke="#000" '
                f'stroke-width="0.4"/>'
            )
        else:
            body.append(
                f'<rect x="{_n(cx - c.body_w / 2)}" y="{_n(cy - c.body_h / 2)}" width="{_n(c.body_w)}" '
                f'height="{_n(c.body_h)}" fill="none" stroke="#999" stroke-width="0.3" '
                f'stroke-dasharray="1.5 1"/>'
            )
            body.append(
                f'<rect x="{_n(cx - c.w / 2)}" y="{_n(cy - c.h / 2)}" width="{_n(c.w)}" height="{_n(c.h)}" '
                f'fill="#1a1a2e" stroke="#000" stroke-width="0.4"/>'
            )
        body += [_line(cx - 1.5, cy, cx + 1.5, cy, "#c00", 0.2), _line(cx, cy - 1.5, cx, cy + 1.5, "#c00", 0.2)]
        if c.key != "mount":
            body.append(
                _text(
                    cx, cy - c.body_h / 2 - 1.2, c.label, 2.8 if len(c.label) > 2 else 4, "middle", font_weight="bold"
                )
            )
            if not c.round:
                size_y = cy + c.h / 2 + 3
            else:
                size_y = cy + 4.5 if c.w >= 12 else cy + c.body_w / 2 + 2.8
            body.append(_text(cx, size_y, _size(c), 2.4, "middle", fill="#333"))
    # ordinate dimensions: every hole centre along the top and left edges
    for x in sorted({c.x for c in CUTOUTS}):
        body += [
            _line(ox + x, oy - 1, ox + x, oy - 5, "#333", 0.25),
            f'<text x="{_n(ox + x + 0.9)}" y="{_n(oy - 6)}" font-size="2.6" '
            f'transform="rotate(-90 {_n(ox + x + 0.9)} {_n(oy - 6)})">{_n(x)}</text>',
        ]
    for y in sorted({c.y for c in CUTOUTS}):
        body += [_line(ox - 1, oy + y, ox - 5, oy + y, "#333", 0.25), _text(ox - 6, oy + y + 0.9, _n(y), 2.6, "end")]
    body += [
        _text(ox - 6, oy - 6, "0", 2.6, "end"),
        _line(ox, oy + p + 6, ox + p, oy + p + 6, "#333", 0.3),
        _line(ox, oy + p + 3, ox, oy + p + 9, "#333", 0.3),
        _line(ox + p, oy + p + 3, ox + p, oy + p + 9, "#333", 0.3),
        _text(ox + p / 2, oy + p + 5, f"{_n(p)} mm", 3.2, "middle"),
    ]
    # the scale bar: measure it after printing
    by = oy + p + 15
    body.append(f'<rect id="scale-bar" x="{_n(ox)}" y="{_n(by)}" width="{_n(SCALE_BAR_MM)}" height="2" fill="#000"/>')
    body += [_line(ox + t, by - 1, ox + t, by, "#000", 0.25) for t in range(0, int(SCALE_BAR_MM) + 1, 10)]
    body.append(_text(ox + SCALE_BAR_MM + 3, by + 2, f"{_n(SCALE_BAR_MM)} mm: measure it to check the scale", 3))
    # the cut-out table, in two columns
    rows = (len(CUTOUTS) + 1) // 2
    ty = by + 13
    for column, tx in enumerate((10.0, 105.0)):
        body += [
            _text(tx, ty, "cut-out", 3, font_weight="bold"),
            _text(tx + 30, ty, "X", 3, "end", font_weight="bold"),
            _text(tx + 38, ty, "Y", 3, "end", font_weight="bold"),
            _text(tx + 41, ty, "hole", 3, font_weight="bold"),
            _text(tx + 56, ty, "for", 3, font_weight="bold"),
        ]
        for i, c in enumerate(CUTOUTS[column * rows : (column + 1) * rows]):
            y = ty + 4.6 * (i + 1)
            name = c.label if c.key != "mount" else "mounting"
            name = {"◀": "left arrow", "▶": "right arrow", "red": "status red", "green": "status green"}.get(name, name)
            body += [
                _text(tx, y, name, 3),
                _text(tx + 30, y, _n(c.x), 3, "end"),
                _text(tx + 38, y, _n(c.y), 3, "end"),
                _text(tx + 41, y, _size(c), 3),
                _text(tx + 56, y, c.part.replace("in ", "\u2033 "), 2.2, fill="#444"),
            ]
    notes = [
        "Panel: 3 mm plywood, acrylic or aluminium; the box needs 70 mm depth behind it for the",
        "arcade microswitches and the Pi. Windows: line up the display glass, not the board; fix",
        "boards with M2 standoffs or hot glue. LEDs: Ø5 bare (glue) or Ø6 with a clip.",
    ]
    notes_y = ty + 4.6 * (rows + 1) + 3
    body += [_text(10, notes_y + 4.5 * i, line, 3) for i, line in enumerate(notes)]
    return _svg(page_w, page_h, body, unit="mm")


def render_front_panel_scad(config: dict[str, Any] | None = None) -> str:
    """front-panel.scad: the same panel as an OpenSCAD plate (y flipped: OpenSCAD's y points up)."""
    lines = [
        "// Generated by hardware/generate.py. Do not edit by hand.",
        f"panel = {_n(PANEL_MM)};",
        "thickness = 3;",
        "",
        "difference() {",
        "    cube([panel, panel, thickness]);",
    ]
    for c in CUTOUTS:
        lines.append(f"    // {c.label or 'mounting'}: {c.part}")
        if c.round:
            lines.append(
                f"    translate([{_n(c.x)}, panel - {_n(c.y)}, -1]) "
                f"cylinder(d = {_n(c.w)}, h = thickness + 2, $fn = 96);"
            )
        else:
            lines.append(
                f"    translate([{_n(c.x - c.w / 2)}, panel - {_n(c.y + c.h / 2)}, -1]) "
                f"cube([{_n(c.w)}, {_n(c.h)}, thickness + 2]);"
            )
    return "\n".join(lines + ["}", ""])


# -- main -----------------------------------------------------------------------


def outputs(config_path: str | Path = DEFAULT_CONFIG) -> dict[str, str]:
    """Every generated file name (relative to hardware/) with its content."""
    config = load_config(config_path)
    return {
        "PINMAP.md": render_pinmap(config),
        "wiring.svg": render_wiring_svg(config),
        "front-panel.svg": render_front_panel_svg(config),
        "front-panel.scad": render_front_panel_scad(config),
    }


def stale(config_path: str | Path = DEFAULT_CONFIG, directory: Path = HERE) -> str | None:
    """The first generated file that differs from what is on disk, or None if all agree."""
    for name, text in outputs(config_path).items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            return name
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is out of date")
    args = parser.parse_args(argv)
    try:
        if args.check:
            name = stale()
            if name:
                print(f"hardware/{name} is out of date: run python3 hardware/generate.py", file=sys.stderr)
                return 1
            return 0
        for name, text in outputs().items():
            (HERE / name).write_text(text, encoding="utf-8")
            print(f"wrote hardware/{name}")
    except (ValueError, KeyError, OSError, tomllib.TOMLDecodeError) as error:
        print(f"generate.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
