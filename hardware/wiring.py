"""wiring.svg: the header with all 40 pins labelled and a line to every part."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware.devices.header import BCM_TO_PHYSICAL, I2C1_PINS, POWER_PINS, RESERVED_PINS, SPI0_PINS

from .pins import PHYSICAL_TO_BCM, PinRow, _check, _displays, ground_pins, pin_rows, resistors
from .svg import _line, _n, _svg, _text

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


def _casing_line(row: PinRow) -> list[str]:
    """A line of the casing display's own I2C bus: pin → the display's SDA or SCL (dashed while optional)."""
    side = -1 if row.physical % 2 else 1
    y, start = _y(row.physical), _dot_x(row.physical)
    anchor = "end" if side < 0 else "start"
    dash = {"stroke_dasharray": "6 4"} if row.kind == "casing" else {}
    x0, x1 = sorted((_out(side, 165), _out(side, 265)))
    return [
        _line(start, y, _out(side, 165), y, COLOURS[row.role.rsplit(" ", 1)[1]], 2.5, **dash),
        _text(_out(side, 10), y - 7, row.role, 11, anchor, fill="#111"),
        f'<rect x="{x0}" y="{y - 9}" width="{x1 - x0}" height="18" rx="3" fill="#f4f4f4" stroke="#333" '
        'stroke-width="1.5"/>',
        _text((x0 + x1) / 2, y + 4, f"casing display {row.role.rsplit(' ', 1)[1]}", 10, "middle"),
    ]


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
            "generated by hardware/generate.py from firmware/config/default-config.toml — all GPIO numbers are BCM",
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
        elif row.kind in ("casing", "i2c-gpio"):
            colours[row.physical] = COLOURS[row.role.rsplit(" ", 1)[1]]
            wires += _casing_line(row)
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
