"""The table-limits placard: BACCARAT / TABLE LIMITS / $5 - $200."""

from __future__ import annotations

from gettext import NullTranslations

from PIL import Image

from baccarat_core.events import ENGLISH
from baccarat_core.limits import TableLimits

from .canvas import CHAR_W, LINE_H, Painter

GOLD = (240, 200, 80)

#: The placard's colour by the table's minimum, as the original's placard materials:
#: dark red $5, dark blue $10, green $25, dark orange $50, dark grey $100.
PLACARD_RGB: dict[int, tuple[int, int, int]] = {
    5: (120, 10, 10),
    10: (10, 30, 120),
    25: (20, 100, 40),
    50: (150, 70, 0),
    100: (70, 70, 70),
}


def render_placard(
    limits: TableLimits, size: tuple[int, int], mode: str, *, colour: bool = False, t: NullTranslations = ENGLISH
) -> Image.Image:
    """The placard: ``BACCARAT`` / ``TABLE LIMITS`` / ``$5 - $200``, centred.

    Lines are drawn double size while the display has room (the title first, then the
    limits), so a 128x32 shows three single lines and a 256x64 or 128x128 larger ones, framed.
    On a ``colour`` display (SSD1351; not a greyscale one) the placard has its minimum's colour
    (:data:`PLACARD_RGB`). The words in ``t``'s language (``[display] language``); the limits as the
    manual writes them, always.
    """
    p = Painter(size, mode)
    if colour and p.color:
        p.draw.rectangle((0, 0, p.width - 1, p.height - 1), fill=PLACARD_RGB.get(limits.minimum, (0, 0, 0)))
    # TRANSLATORS: a display's words, at most 10 capitals (then drawn twice as large).
    title = t.gettext("BACCARAT")
    # TRANSLATORS: a display's words, at most 21 capitals.
    lines = [(title, GOLD), (t.gettext("TABLE LIMITS"), None), (limits.placard(), GOLD)]
    gap = 1 if p.height < 48 else 3
    # Double-size lines, the title first, while the display has room for them.
    scales = [1, 1, 1]
    for line in (0, 2, 1):
        wider = len(lines[line][0]) * CHAR_W * 2 <= p.width - 4
        if wider and LINE_H * (sum(scales) + 1) + 2 * gap + 2 <= p.height:
            scales[line] = 2
    heights = [LINE_H * s for s in scales]
    y = max(0, (p.height - sum(heights) - gap * 2) // 2) + 1
    for (text, rgb), scale, height in zip(lines, scales, heights, strict=True):
        p.centred(y, text, rgb, scale=scale)
        y += height + gap
    if p.height >= 48:
        p.draw.rectangle((0, 0, p.width - 1, p.height - 1), outline=p.ink(GOLD))
    return p.image
