"""Behaviour no other test held (issue 35 item 3): the casing layout at its edges.

The drawing of ``baccarat casing`` (and the /play page) as the shapes it is made of: every widget
on a side is drawn at its real size when the side has room (the sheet says "printed at 100 %,
every widget is its real size"), a side holding a single widget included; the front shows one
cross a strike up to its three boxes, and the count beside them only past three."""

from __future__ import annotations

import pytest

from firmware.casing.drawing import Group, Line, Rect, Text
from firmware.casing.layout import SHAPES, draw_casing
from firmware.casing.model import Casing


def _group(root: Group, wanted: str) -> Group:
    for item in root.items:
        if isinstance(item, Group):
            if item.id == wanted:
                return item
            try:
                return _group(item, wanted)
            except LookupError:
                pass
    raise LookupError(wanted)


def _first_rect(group: Group) -> Rect:
    return next(item for item in group.items if isinstance(item, Rect))


CASINGS = [
    Casing("AB1CD2"),  # side 1 holds the serial sticker alone
    Casing("AB1CD2", indicators=(("BOB", True),)),  # side 2 holds one indicator alone
    Casing("AB1CD2", plates=(("Parallel", "Serial"), ()), indicators=(("CAR", False), ("FRK", True))),
]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("casing", CASINGS, ids=["sticker-alone", "one-indicator", "one-each"])
def test_a_widget_with_room_on_its_side_is_drawn_at_its_real_size_inside_it(shape, casing):
    drawing = draw_casing(casing, shape)
    sides = [item for item in drawing.root.items if isinstance(item, Group) and item.cls == "side"]
    assert len(sides) == 4
    widgets = 0
    for side in sides:
        outline = _first_rect(side)
        for part in (item for item in side.items if isinstance(item, Group)):
            rect = _first_rect(part)
            widgets += 1
            assert rect.w > 0 and rect.h > 0, f"{part.id} is drawn at no size"
            assert outline.x <= rect.x and rect.x + rect.w <= outline.x + outline.w + 1e-6, part.id
            assert outline.y <= rect.y and rect.y + rect.h <= outline.y + outline.h + 1e-6, part.id
    assert widgets == 1 + len(casing.plates) + len(casing.indicators) + len(casing.batteries)
    sticker = _first_rect(_group(drawing.root, "serial"))
    assert (sticker.w, sticker.h) == (50, 22), "the serial sticker is not at its real size"


@pytest.mark.parametrize("strikes", range(6))
def test_the_front_crosses_one_box_a_strike_and_counts_only_past_three(strikes):
    group = _group(draw_casing(Casing("AB1CD2", strikes=strikes)).root, "strikes")
    crosses = sum(isinstance(item, Line) for item in group.items) // 2
    assert crosses == min(strikes, 3)
    counts = [item.text for item in group.items if isinstance(item, Text) and item.text != "STRIKES"]
    assert counts == ([str(strikes)] if strikes > 3 else [])
