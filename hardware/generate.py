"""Generate the pin map, wiring diagram and front panel from the daemon's config.

Run from the repository root::

    python3 hardware/generate.py           # rewrite the generated files
    python3 hardware/generate.py --check   # exit 1 if a checked-in file is stale

Writes ``hardware/PINMAP.md``, ``hardware/wiring.svg``, ``hardware/front-panel.svg``
and ``hardware/front-panel.scad`` from ``firmware/config/default-config.toml``. The pins
are checked by the daemon's own validator (``firmware.config.pin_problems``), so a
config that ``check-config`` refuses cannot be drawn either.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python3 hardware/generate.py` puts hardware/ first, not the root
    sys.path.insert(0, str(ROOT))

# The parts, re-exported for the tests and for anyone who imported them from here.
from firmware.config import SHUTDOWN_GPIO  # noqa: E402
from firmware.devices.panel import CUTOUTS, EDGE_MM, PANEL_MM, overlaps  # noqa: E402
from hardware.front_panel import (  # noqa: E402
    A4_MM,
    PRINT_MARGIN_MM,
    SCALE_BAR_MM,
    render_front_panel_scad,
    render_front_panel_svg,
)
from hardware.pinmap import render_pinmap  # noqa: E402
from hardware.pins import (  # noqa: E402
    CASING_OVERLAY,
    CASING_PINS,
    DEFAULT_CONFIG,
    E12,
    PIN_LIMIT_MA,
    TOTAL_LIMIT_MA,
    PinRow,
    conflicts,
    ground_pins,
    load_config,
    pin_rows,
    resistor_for,
    resistors,
)
from hardware.wiring import render_wiring_svg  # noqa: E402

__all__ = [
    "A4_MM",
    "CASING_OVERLAY",
    "CASING_PINS",
    "CUTOUTS",
    "DEFAULT_CONFIG",
    "E12",
    "EDGE_MM",
    "PANEL_MM",
    "PIN_LIMIT_MA",
    "PRINT_MARGIN_MM",
    "SCALE_BAR_MM",
    "SHUTDOWN_GPIO",
    "TOTAL_LIMIT_MA",
    "PinRow",
    "conflicts",
    "ground_pins",
    "load_config",
    "main",
    "outputs",
    "overlaps",
    "pin_rows",
    "resistor_for",
    "resistors",
    "stale",
]

HERE = ROOT / "hardware"


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
