"""Every display once the bomb exploded: ``EXPLODED`` and why, until the game master resets it."""

from __future__ import annotations

from PIL import Image

from .canvas import CHAR_W, LINE_H, Painter
from .views import ExplodedView

#: The explosion on a colour display.
EXPLODED_RGB = (255, 60, 30)


def cause_text(view: ExplodedView) -> str:
    """``TIME RAN OUT`` or ``3 STRIKES``: the second line."""
    if view.cause == "timer":
        return "TIME RAN OUT"
    return f"{view.strikes} STRIKE{'' if view.strikes == 1 else 'S'}"


def render_exploded(view: ExplodedView, size: tuple[int, int], mode: str) -> Image.Image:
    """``EXPLODED`` as large as the display allows (scale 1 to 4), its cause under it; framed on a
    display of 48 pixels and more."""
    p = Painter(size, mode)
    title, cause = "EXPLODED", cause_text(view)
    scale = 1
    for candidate in (4, 3, 2):
        fits = len(title) * CHAR_W * candidate <= p.width - 4
        if fits and LINE_H * candidate + LINE_H + 2 <= p.height:
            scale = candidate
            break
    block = LINE_H * scale + LINE_H
    y = max(0, (p.height - block) // 2) + 1
    p.centred(y, title, EXPLODED_RGB, scale=scale)
    p.centred(y + LINE_H * scale, cause)
    if p.height >= 48:
        p.draw.rectangle((0, 0, p.width - 1, p.height - 1), outline=p.ink(EXPLODED_RGB))
    return p.image
