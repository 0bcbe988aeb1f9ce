"""front-panel.svg and front-panel.scad: the drilling template and the plate, from the panel's layout
(firmware/devices/panel.py)."""

from __future__ import annotations

from typing import Any

from firmware.devices.panel import CUTOUTS, PANEL_MM, Cutout

from .svg import _line, _n, _svg, _text


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
