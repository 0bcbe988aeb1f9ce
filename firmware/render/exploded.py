"""Every display once the bomb exploded: ``EXPLODED`` and why, until the game master resets it."""

from __future__ import annotations

from gettext import NullTranslations

from PIL import Image

from baccarat_core.events import ENGLISH

from .canvas import CHAR_W, LINE_H, Painter
from .views import ExplodedView

#: The explosion on a colour display.
EXPLODED_RGB = (255, 60, 30)


def cause_text(view: ExplodedView, t: NullTranslations = ENGLISH) -> str:
    """``TIME RAN OUT`` or ``3 STRIKES``: the second line."""
    if view.cause == "timer":
        # TRANSLATORS: a display's words, at most 21 capitals.
        return t.gettext("TIME RAN OUT")
    return t.ngettext("{n} STRIKE", "{n} STRIKES", view.strikes).format(n=view.strikes)


def render_exploded(view: ExplodedView, size: tuple[int, int], mode: str, t: NullTranslations = ENGLISH) -> Image.Image:
    """``EXPLODED`` as large as the display allows (scale 1 to 4), its cause under it; framed on a
    display of 48 pixels and more. In ``t``'s language (``[display] language``)."""
    p = Painter(size, mode)
    # TRANSLATORS: a display's words, at most 10 capitals (drawn large).
    title, cause = t.gettext("EXPLODED"), cause_text(view, t)
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
