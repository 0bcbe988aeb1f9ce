"""Reading text back from a frame's pixels.

The displays draw capitals and digits in the 6x11 bitmap font; ``find_text``
looks for the exact lit-pixel pattern of a string anywhere in a frame.
"""

from __future__ import annotations

from PIL import Image

from firmware.render.canvas import text_mask


def _rows(image: Image.Image, invert: bool = False) -> list[str]:
    grey = image.convert("L")
    width = grey.width
    data = grey.tobytes()
    lit, dark = ("0", "1") if invert else ("1", "0")
    return ["".join(lit if data[y * width + x] > 40 else dark for x in range(width)) for y in range(grey.height)]


def find_text(image: Image.Image, text: str, *, dark_on_light: bool = False, scale: int = 1) -> tuple[int, int] | None:
    """Top-left of ``text`` drawn in the display font (lit on dark, or dark on a lit
    bar; ``scale`` for double-size text), or None."""
    mask = text_mask(text)
    if scale > 1:
        mask = mask.resize((mask.width * scale, mask.height * scale), Image.NEAREST)
    box = mask.getbbox()
    if box is None:
        return None
    glyph = _rows(mask.crop(box))
    rows = _rows(image, invert=dark_on_light)
    height = len(glyph)
    for y in range(len(rows) - height + 1):
        start = 0
        while True:
            x = rows[y].find(glyph[0], start)
            if x < 0:
                break
            if all(rows[y + dy][x : x + len(glyph[dy])] == glyph[dy] for dy in range(1, height)):
                return (x, y)
            start = x + 1
    return None


def lit_pixels(image: Image.Image, box: tuple[int, int, int, int] | None = None) -> int:
    area = image.crop(box) if box else image
    return sum(1 for v in area.convert("L").tobytes() if v > 40)
