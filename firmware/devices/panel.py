"""The front panel as built: every hole, in mm from the panel's top-left corner.

One layout for the drilling template (``hardware/generate.py`` draws
``hardware/front-panel.svg`` and ``.scad`` from it) and for the module drawn on
a screen (the console's and the players' pages, ``firmware/web/play.py``). It
lives here, beside the 40-pin header, because the firmware must not import
``hardware/``; like the rest of ``firmware/devices`` it is plain data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PANEL_MM = 150.0
EDGE_MM = 6.0  # keep parts this far from the panel edge (box walls)


@dataclass(frozen=True)
class Cutout:
    """One hole in the front panel, in mm from the panel's top-left corner."""

    key: str  # what it serves: "inputs.player", "displays.table", "status_light.red", "mount"
    label: str
    x: float
    y: float
    round: bool
    w: float  # hole width (diameter if round)
    h: float
    body_w: float  # what sits behind or on the panel: bezel, nut or display board
    body_h: float
    part: str


def _button(key: str, label: str, x: float, y: float, size: int) -> Cutout:
    bezel = {24: 30, 30: 35, 12: 16}[size]
    kind = "arcade button" if size >= 24 else "panel push button"
    return Cutout(key, label, x, y, True, size, size, bezel, bezel, f"{size} mm {kind}")


def _led(key: str, label: str, x: float, y: float, kind: str) -> Cutout:
    return Cutout(key, label, x, y, True, 5, 5, 8, 8, kind)


CUTOUTS: tuple[Cutout, ...] = (
    *(
        Cutout("mount", "", x, y, True, 3.2, 3.2, 7, 7, "M3 mounting hole")
        for x in (6, PANEL_MM - 6)
        for y in (6, PANEL_MM - 6)
    ),
    Cutout("displays.placard", "PLACARD", 75, 14, False, 24, 8, 38, 12, "0.91in SSD1306 128x32 window"),
    _led("status_light.red", "red", 126, 14, "5 mm red LED"),
    _led("status_light.green", "green", 138, 14, "5 mm green LED"),
    Cutout("displays.bets", "BETS", 30, 44, False, 31, 17, 35.5, 33.5, "1.3in SH1106 128x64 window"),
    Cutout("displays.table", "TABLE", 75, 44, False, 24, 13, 27.5, 27.5, "0.96in SSD1306 128x64 window"),
    _button("inputs.deal", "DECK", 120, 44, 30),
    _button("inputs.arrow_left", "◀", 18, 70, 12),
    _button("inputs.arrow_right", "▶", 42, 70, 12),
    _led("deck_light", "deck colour", 120, 70, "5 mm RGB LED"),
    _button("inputs.player_pair", "PLAYER PAIR", 30, 98, 24),
    _button("inputs.tie", "TIE", 75, 98, 24),
    _button("inputs.banker_pair", "BANKER PAIR", 120, 98, 24),
    _button("inputs.player", "PLAYER", 52, 128, 24),
    _button("inputs.banker", "BANKER", 98, 128, 24),
)

#: The colour of each button's cap as the page draws it (a build may use any colours).
CAP_COLOURS: dict[str, str] = {
    "player": "#2f6fdc",
    "banker": "#d23a3a",
    "tie": "#2fa05a",
    "player_pair": "#8fb4f0",
    "banker_pair": "#f09a9a",
    "deal": "#e8e8e8",
    "arrow_left": "#3a3f46",
    "arrow_right": "#3a3f46",
}


def overlaps(a: Cutout, b: Cutout, gap: float = 1.0) -> bool:
    """Whether the bodies of two cut-outs come closer than ``gap`` mm."""
    if a.round and b.round:
        return math.dist((a.x, a.y), (b.x, b.y)) < (a.body_w + b.body_w) / 2 + gap
    if not a.round and not b.round:
        return abs(a.x - b.x) < (a.body_w + b.body_w) / 2 + gap and abs(a.y - b.y) < (a.body_h + b.body_h) / 2 + gap
    circle, rect = (a, b) if a.round else (b, a)
    dx = max(abs(circle.x - rect.x) - rect.body_w / 2, 0)
    dy = max(abs(circle.y - rect.y) - rect.body_h / 2, 0)
    return math.hypot(dx, dy) < circle.body_w / 2 + gap


def layout() -> dict[str, object]:
    """The panel as JSON for the pages: its size and each cut-out with what it serves.

    ``kind`` is ``display`` (with its ``role``), ``button`` (with its ``input``), ``led``
    (``status_light.red`` and ``.green``, ``deck_light``) or ``mount``.
    """
    items = []
    for c in CUTOUTS:
        section, _, name = c.key.partition(".")
        item: dict[str, object] = {
            "key": c.key,
            "label": c.label,
            "x": c.x,
            "y": c.y,
            "round": c.round,
            "w": c.w,
            "h": c.h,
            "body_w": c.body_w,
            "body_h": c.body_h,
        }
        if section == "displays":
            item.update(kind="display", role=name)
        elif section == "inputs":
            item.update(kind="button", input=name, cap=CAP_COLOURS.get(name, "#888888"))
        elif section in ("status_light", "deck_light"):
            item.update(kind="led")
        else:
            item.update(kind="mount")
        items.append(item)
    return {"size_mm": PANEL_MM, "cutouts": items}
