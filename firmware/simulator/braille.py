"""Pictures as Unicode braille text: 2x4 pixels a character, for any terminal."""

from __future__ import annotations

from PIL import Image

# Dot bit for pixel (dx, dy) of a 2x4 braille cell.
_DOTS = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80))


def braille_lines(image: Image.Image, threshold: int = 60) -> list[str]:
    """Lit pixels (brighter than ``threshold``) become braille dots."""
    grey = image.convert("L")
    width, height = grey.size
    data = grey.tobytes()
    lines = []
    for top in range(0, height, 4):
        chars = []
        for left in range(0, width, 2):
            bits = 0
            for dx, dy, bit in _DOTS:
                x, y = left + dx, top + dy
                if x < width and y < height and data[y * width + x] > threshold:
                    bits |= bit
            chars.append(chr(0x2800 + bits))
        lines.append("".join(chars))
    return lines
