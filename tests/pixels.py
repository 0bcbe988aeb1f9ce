"""Reading text back from a frame's pixels.

The displays draw capitals and digits in the 6x11 bitmap font; ``find_text``
looks for the exact lit-pixel pattern of a string anywhere in a frame.
"""

from __future__ import annotations

from PIL import Image

from firmware.render.canvas import text_mask


def _rows(image: Image.Image) -> list[str]:
    grey = image.convert("L")
    width = grey.width
    data = grey.tobytes()
    return ["".join("1" if data[y * width + x] > 40 else "0" for x in range(width))
            for y in range(grey.height)]


def find_text(image: Image.Image, text: str) -> tuple[int, int] | None:
    """Top-left of ``text`` drawn in the display font (lit on dark), or None."""
    mask = text_mask(text)
    box = mask.getbbox()
    if box is None:
        return None
    glyph = _rows(mask.crop(box))
    rows = _rows(image)
    height = len(glyph)
    for y in range(len(rows) - height + 1):
        start = 0
        while True:
            x = rows[y].find(glyph[0], start)
            if x < 0:
                break
            if all(rows[y + dy][x:x + len(glyph[dy])] == glyph[dy] for dy in range(1, height)):
                return (x, y)
            start = x + 1
    return None


def lit_pixels(image: Image.Image, box: tuple[int, int, int, int] | None = None) -> int:
    area = image.crop(box) if box else image
    return sum(1 for v in area.convert("L").tobytes() if v > 40)
