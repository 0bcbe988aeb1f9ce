"""The casing display: the serial number, the countdown and the strikes, as on the bomb's casing.

An optional display (``role = "casing"``, a 128x32 SSD1306 for instance) for a prop
with no casing around it: the serial-number sticker, the timer's digits and the
strike boxes. The countdown is drawn as large as the display allows, in whole
seconds rounded up (:func:`baccarat_core.timer.clock_text`: ``00:00`` at the
explosion); ``--:--`` when the bomb has no timer.
"""

from __future__ import annotations

from gettext import NullTranslations

from PIL import Image

from baccarat_core.events import ENGLISH
from baccarat_core.timer import clock_text

from .canvas import CHAR_W, Painter
from .views import CasingView

#: The countdown's digits on a colour display.
TIMER_RGB = (255, 50, 40)
#: Most strike boxes drawn (a longer limit is written as ``2/10``).
MAX_BOXES = 6
_INK_H = 7  # capitals and digits of the font are 7 rows of ink
_BOX = 8  # a strike box, in pixels (its X inside)


def render_casing(view: CasingView, size: tuple[int, int], mode: str, t: NullTranslations = ENGLISH) -> Image.Image:
    """The casing display. Under 48 pixels high: the serial and the strike boxes on the top line,
    the countdown below them; taller: the serial (double size), the countdown, the strikes. Its
    words in ``t``'s language (``[display] language``)."""
    p = Painter(size, mode)
    big = t.gettext("EXPLODED") if view.state == "exploded" else clock_text(view.seconds)
    if p.height < 48:
        p.text((0, 1), view.serial)
        _status(p, view, p.width - 1, 0, t)
        _big(p, big, top=_INK_H + 3, bottom=p.height)
    else:
        p.centred(1, view.serial, scale=2)
        _big(p, big, top=2 * _INK_H + 4, bottom=p.height - _BOX - 3)
        right = (p.width + _status_width(view, t)) // 2
        _status(p, view, right, p.height - _BOX - 1, t)
    return p.image


def _big(p: Painter, text: str, *, top: int, bottom: int) -> None:
    """``text`` centred from row ``top`` up to row ``bottom`` (not included), as large as fits
    (scale 1 to 4)."""
    room = bottom - top
    scale = 1
    for candidate in (4, 3, 2):
        if len(text) * CHAR_W * candidate <= p.width - 2 and _INK_H * candidate <= room:
            scale = candidate
            break
    y = top + max(0, (room - _INK_H * scale) // 2)
    x = max(0, (p.width - len(text) * CHAR_W * scale) // 2)
    for char in text:  # the font's colon sits low: a timer's colon is two dots at a third and two thirds
        if char == ":":
            dot = max(1, scale)
            middle = x + (CHAR_W * scale - dot) // 2
            for row in (1, 5):
                p.draw.rectangle(
                    (middle, y + row * scale, middle + dot - 1, y + row * scale + dot - 1), fill=p.ink(TIMER_RGB)
                )
        else:
            p.text((x, y), char, TIMER_RGB, scale=scale)
        x += CHAR_W * scale


def _boxes(view: CasingView) -> int:
    """How many strike boxes the view draws (0: the strikes are written instead)."""
    limit = view.strike_limit
    if limit is not None:
        return limit if limit <= MAX_BOXES else 0
    return 3 if view.strikes <= 3 else 0  # no limit: the game's three boxes while they suffice


def _status_text(view: CasingView, t: NullTranslations = ENGLISH) -> str:
    if view.state == "solved":
        # TRANSLATORS: a display's words, at most 12 capitals: the bomb is defused.
        return t.gettext("DEFUSED")
    limit = f"/{view.strike_limit}" if view.strike_limit is not None else ""
    return f"X {view.strikes}{limit}"


def _status_width(view: CasingView, t: NullTranslations = ENGLISH) -> int:
    if view.state == "solved" or not _boxes(view):
        return len(_status_text(view, t)) * CHAR_W
    return _boxes(view) * (_BOX + 2) - 2


def _status(p: Painter, view: CasingView, right: int, y: int, t: NullTranslations = ENGLISH) -> None:
    """The strikes ending at column ``right``: a box per allowed strike, crossed once struck (or
    ``X 4/10`` in words); ``DEFUSED`` once solved."""
    boxes = _boxes(view)
    if view.state == "solved" or not boxes:
        text = _status_text(view, t)
        p.text((right - len(text) * CHAR_W, y + 1), text, TIMER_RGB if view.state != "solved" else None)
        return
    ink = p.ink(TIMER_RGB)
    for k in range(boxes):
        x = right - (boxes - k) * (_BOX + 2) + 2
        p.draw.rectangle((x, y, x + _BOX - 1, y + _BOX - 1), outline=p.ink())
        if k < view.strikes:
            p.draw.line((x + 2, y + 2, x + _BOX - 3, y + _BOX - 3), fill=ink)
            p.draw.line((x + _BOX - 3, y + 2, x + 2, y + _BOX - 3), fill=ink)
