"""The casing's drawing in an OBUS bomb (issue 43, item 2): under the timer, the solved box says the
bomb's puzzle modules solved of all and draws a mark for each (a lit green LED when solved), from
the state document's ``obus`` part; without one the box is as it always was. Pixels, not text:
the drawing is rendered to PNG and each mark's centre is looked at.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from firmware.casing.drawing import Circle, Group, to_png, to_svg
from firmware.casing.layout import BOMB_BOX_H, bomb_marks_at, draw_casing
from firmware.casing.model import Casing, bomb_marks

DPI = 200
EDGEWORK = {"serial": "AB1CD2", "batteries": ["AA"], "lit": ["BOB"], "ports": ["Serial"], "solved": 1}
PART: dict[str, Any] = {
    "role": "controller",
    "prop": {"solved": True, "strikes": 0},
    "modules": [
        {"type": 1, "id": 2, "solved": False, "strikes": 1},
        {"type": 1, "id": 3, "solved": True, "strikes": 0},
        {"type": 2, "id": 1, "solved": False, "strikes": 0},  # needy: no mark
    ],
}


def found(group: Group, wanted: str, dx: float = 0.0, dy: float = 0.0) -> tuple[Group, float, float] | None:
    """The group with id ``wanted`` and where its origin lands on the drawing (mm)."""
    dx, dy = dx + group.dx, dy + group.dy
    if group.id == wanted:
        return group, dx, dy
    for item in group.items:
        if isinstance(item, Group) and (hit := found(item, wanted, dx, dy)) is not None:
            return hit
    return None


def pixel(image: Image.Image, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    scale = DPI / 25.4
    rgb: tuple[int, int, int] = image.getpixel((round(x_mm * scale), round(y_mm * scale)))
    return rgb


def green(rgb: tuple[int, int, int]) -> bool:
    r, g, b = rgb
    return g > 140 and r < 90 and b < 120


def light(rgb: tuple[int, int, int]) -> bool:
    return min(rgb) > 225


def test_the_marks_come_from_the_obus_part() -> None:
    assert bomb_marks(PART) == (True, False, True)
    module = {"role": "module", "solved_sent": False, "modules": [{"type": 1, "id": 5, "solved": True}]}
    assert bomb_marks(module) == (False, True)
    assert bomb_marks(None) is None and bomb_marks({"role": "x"}) is None
    assert bomb_marks({"role": "module", "modules": "junk"}) is None
    casing = Casing.from_state({"edgework": EDGEWORK, "obus": PART})
    assert casing.bomb == (True, False, True) and casing.to_dict()["bomb"] == [True, False, True]
    plain = Casing.from_state({"edgework": EDGEWORK})
    assert plain.bomb is None and "bomb" not in plain.to_dict()


@pytest.mark.parametrize("shape", ["wide", "tall"])
def test_each_module_is_a_mark_lit_when_solved(shape: str) -> None:
    casing = Casing.from_state({"edgework": EDGEWORK, "obus": PART})
    drawing = draw_casing(casing, shape)
    hit = found(drawing.root, "solved")
    assert hit is not None
    group, x0, y0 = hit
    assert group.data["marks"] == "101" and "bomb" in (group.cls or "")
    box = next(item for item in group.items if not isinstance(item, Group))
    assert y0 + BOMB_BOX_H <= drawing.height
    width = box.w  # type: ignore[union-attr]
    image = Image.open(io.BytesIO(to_png(drawing, DPI))).convert("RGB")
    marks = bomb_marks_at(3, width)
    for (cx, cy, _), lit in zip(marks, (True, False, True), strict=True):
        centre = pixel(image, x0 + cx, y0 + cy)
        assert green(centre) if lit else light(centre), (shape, cx, centre)
    # the marks sit inside the box, under the count, clear of the timer's box above it
    assert all(0 < cx - r and cx + r < width and cy + r < BOMB_BOX_H for cx, cy, r in marks)
    assert 'data-marks="101"' in to_svg(drawing)


def test_seventeen_marks_fit_the_tall_sheets_box() -> None:
    marks = bomb_marks_at(17, 50)
    assert marks[0][0] - marks[0][2] > 0 and marks[-1][0] + marks[-1][2] < 50
    assert marks[1][0] - marks[0][0] > 2 * marks[0][2]  # apart, not touching


def test_without_a_bomb_the_solved_box_is_as_before() -> None:
    casing = Casing.from_state({"edgework": EDGEWORK})
    drawing = draw_casing(casing, "wide")
    hit = found(drawing.root, "solved")
    assert hit is not None
    group, x0, y0 = hit
    assert group.cls == "solved" and group.data == {"solved": "1"}
    assert not [item for item in group.items if isinstance(item, Circle)]
    image = Image.open(io.BytesIO(to_png(drawing, DPI))).convert("RGB")
    width = 62.0
    for cx, cy, _ in bomb_marks_at(3, width):  # where marks would be: the casing's colour, no green
        assert not green(pixel(image, x0 + cx, y0 + cy))
    assert to_svg(drawing) == to_svg(draw_casing(Casing.from_state({"edgework": EDGEWORK, "obus": None}), "wide"))
