"""What the displays show during the pre-game self-test: a test pattern, and a line or two of words."""

from __future__ import annotations

from PIL import Image, ImageDraw

from .canvas import CHAR_W, LINE_H, text_mask

#: Side of the test pattern's squares, in pixels.
SQUARE = 8


def _ink(mode: str) -> int | tuple[int, int, int]:
    return (255, 255, 255) if mode == "RGB" else 255


def render_pattern(name: str, size: tuple[int, int], mode: str) -> Image.Image:
    """A checkerboard with a frame round the edge and the display's name and size in a dark box in
    the middle: every pixel of the panel is lit by one of the two (a dead row or column shows as a
    gap in the frame or the squares)."""
    image = Image.new(mode, size)
    draw = ImageDraw.Draw(image)
    width, height = size
    ink = _ink(mode)
    for y in range(0, height, SQUARE):
        for x in range(0, width, SQUARE):
            if (x // SQUARE + y // SQUARE) % 2 == 0:
                draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1), fill=ink)
    draw.rectangle((0, 0, width - 1, height - 1), outline=ink)
    _words(image, [name.upper(), f"{width}x{height}"], boxed=True)
    return image


def render_words(lines: list[str], size: tuple[int, int], mode: str) -> Image.Image:
    """``lines`` centred, each as large as whole-pixel scaling lets every line fit."""
    image = Image.new(mode, size)
    _words(image, lines, boxed=False)
    return image


def _words(image: Image.Image, lines: list[str], *, boxed: bool) -> None:
    width, height = image.size
    longest = max((len(line) for line in lines), default=1)
    scale = max(1, min((width - 4) // max(1, longest * CHAR_W + 1), (height - 4) // max(1, len(lines) * LINE_H)))
    scale = 1 if boxed else min(scale, 3)  # the pattern's label leaves most squares in sight
    block_h = len(lines) * LINE_H * scale
    top = (height - block_h) // 2
    draw = ImageDraw.Draw(image)
    ink = _ink(image.mode)
    if boxed:
        box_w = longest * CHAR_W * scale + 6
        left = (width - box_w) // 2
        draw.rectangle((left, top - 3, left + box_w, top + block_h + 1), fill=0)
    for i, line in enumerate(lines):
        mask = text_mask(line)
        if scale > 1:
            mask = mask.resize((mask.width * scale, mask.height * scale), Image.Resampling.NEAREST)
        x = (width - mask.width) // 2
        image.paste(ink, (x, top + i * LINE_H * scale), mask)
