"""The bets: five chip stacks bottom to top, their totals, the active denomination."""

from __future__ import annotations

from gettext import NullTranslations
from itertools import groupby

from PIL import Image

from baccarat_core.chips import chip_label
from baccarat_core.events import ENGLISH, N_
from baccarat_core.numbers import format_dollars
from baccarat_core.rounds import AREAS

from .canvas import CHAR_W, CHIP_RGB, LINE_H, TINY_H, TINY_W, Painter, tiny_width
from .views import BetsView

#: Each area's label on the bets display (three characters; the small display's 3x5 font has
#: the original's letters only, so it keeps them).
LABELS: dict[str, str] = {
    # TRANSLATORS: a display's label for a betting area: exactly 3 characters.
    "player": N_("PLR"),
    "banker": N_("BNK"),
    "tie": N_("TIE"),
    "player_pair": N_("P.P"),
    "banker_pair": N_("B.P"),
}


def runs(stack: tuple[int, ...]) -> list[tuple[int, int]]:
    """Consecutive equal chips as (value, count), bottom first: 100 25 25 1 -> 100, 25x2, 1."""
    return [(value, len(list(group))) for value, group in groupby(stack)]


def _chip_text(value: int, count: int) -> str:
    return chip_label(value) + (f"X{count}" if count > 1 else "")


def _total(amount: int) -> str:
    return format_dollars(amount) if amount else ""


def render_bets(view: BetsView, size: tuple[int, int], mode: str, t: NullTranslations = ENGLISH) -> Image.Image:
    """The bets display: one row per area (label, total, chips bottom to top, left to right) and
    the active chip between the arrows that can still move it.

    Sizes: 128x64 and taller mono or colour (a 10-pixel row per area, chip faces in the 3x5
    font), and 128x32 (a compact layout in the 3x5 font with the active chip boxed on the right:
    5-pixel rows with a blank row between them, a dot between chips). The label of an area whose
    stack the dealer is re-stacking is in reverse video.
    """
    p = Painter(size, mode)
    compact = p.height < 48
    pitch = TINY_H + 1 if compact else (LINE_H if p.height < 96 else (p.height - LINE_H - 4) // 5)
    chip_x = 13 * TINY_W if compact else 11 * CHAR_W + 5
    right = p.width - (34 if compact else 0)
    for row, area in enumerate(AREAS):
        y = row * pitch + (0 if compact else 1)
        stack = view.stacks.get(area, ())
        marked = area in view.restacking
        if compact:
            label = _tiny_label(area)
            if marked:
                p.draw.rectangle((0, y - 1, tiny_width(label) + 1, y + TINY_H), fill=p.ink())
            p.tiny((1 if marked else 0, y), label, fill=p.dark() if marked else None)
            p.tiny((4 * TINY_W, y), _total(sum(stack)))
            _compact_chips(p, chip_x, y, stack, right)
        else:
            if marked:
                p.draw.rectangle((0, y - 1, 3 * CHAR_W + 1, y + 6), fill=p.ink())
            p.text((1 if marked else 0, y), t.gettext(LABELS[area])[:3], fill=p.dark() if marked else None)
            p.text((3 * CHAR_W + 4, y), _total(sum(stack)))
            _chips(p, chip_x, y, stack, right)
    _denomination(p, view, compact, t)
    return p.image


def _tiny_label(area: str) -> str:
    return {"player_pair": "PP", "banker_pair": "BP"}.get(area, LABELS[area])


def _chips(p: Painter, x: int, y: int, stack: tuple[int, ...], right: int) -> None:
    """Chips left to right = bottom to top, each a lit box with its value in dark figures."""
    items = runs(stack)
    widths = [len(_chip_text(v, n)) * TINY_W + 3 for v, n in items]
    # When the stack is too long, keep its top and mark the hidden bottom with "+".
    hidden = False
    while items and x + sum(widths) > right:
        items, widths, hidden = items[1:], widths[1:], True
    if hidden:
        x += p.tiny((x, y + 1), "+") + 2
    for (value, count), width in zip(items, widths, strict=True):
        p.draw.rectangle((x, y, x + width - 2, y + TINY_H + 1), fill=p.ink(CHIP_RGB.get(value)))
        p.tiny((x + 1, y + 1), _chip_text(value, count), fill=p.dark())
        x += width


def _compact_chips(p: Painter, x: int, y: int, stack: tuple[int, ...], right: int) -> None:
    """Chips left to right = bottom to top as lit figures with a dot between them (``25·5·1``),
    so that a row stays within its 5 pixels and never touches the next."""
    chips: list[tuple[str, int | None]] = [(_chip_text(v, n), v) for v, n in runs(stack)]
    # When the stack is too long, keep its top and mark the hidden bottom with "+".
    hidden = False
    while chips and x + sum(tiny_width(text) + 4 for text, _ in chips) - 4 > right:
        chips, hidden = chips[1:], True
    if hidden:
        chips.insert(0, ("+", None))
    for number, (text, value) in enumerate(chips):
        if number:
            p.draw.point((x + 1, y + 2), fill=p.ink())
            x += 4
        x += p.tiny((x, y), text, fill=p.ink(CHIP_RGB.get(value) if value else None)) + 1


def _denomination(p: Painter, view: BetsView, compact: bool, t: NullTranslations = ENGLISH) -> None:
    """Bottom-left: the active chip between the arrows that can still move."""
    left = "<" if view.can_go_left else " "
    right = ">" if view.can_go_right else " "
    if compact:
        x, y = p.width - 33, p.height - TINY_H - 8
        p.draw.rectangle((x, y - 2, p.width - 1, p.height - 1), outline=p.ink())
        p.tiny((x + 3, y + 1), f"{left}${chip_label(view.denomination)}{right}")
        return
    y = p.height - LINE_H + 1
    # TRANSLATORS: a display's words around the active chip ("< CHIP $25 >"): at most 5 capitals.
    word = t.gettext("CHIP")
    text = f"{left} {word} {format_dollars(view.denomination)} {right}"
    p.draw.line((0, y - 3, p.width - 1, y - 3), fill=p.ink())
    p.text((0, y), text, CHIP_RGB.get(view.denomination))
