"""The icons a frame is made of (suits, card backs, the 3x5 font) are pasted from masks drawn once
(issue 44 item 5): every one, at every scale, in every mode, has the pixels the former drawing
(a rectangle or a point per pixel, kept here as the reference) gave."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from firmware.render.canvas import (
    _TINY_GLYPHS,
    BACK_PATTERNS,
    BACK_SIZE,
    DECK_RGB,
    SIDEWAYS_SIZE,
    SUIT_ICONS,
    Painter,
    _blue_back,
)

MODES = ("1", "L", "RGB")


def _same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


def _reference_suit(p: Painter, xy: tuple[int, int], suit: str, scale: int) -> None:
    x, y = xy
    rgb = (230, 40, 40) if suit in "HD" else (255, 255, 255)
    for row, bits in enumerate(SUIT_ICONS[suit]):
        for col, bit in enumerate(bits):
            if bit == "#":
                box = (x + col * scale, y + row * scale, x + col * scale + scale - 1, y + row * scale + scale - 1)
                p.draw.rectangle(box, fill=p.ink(rgb))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scale", [1, 2, 3])
def test_every_suit_is_drawn_as_before(mode: str, scale: int) -> None:
    for suit in SUIT_ICONS:
        new, old = Painter((40, 40), mode), Painter((40, 40), mode)
        new.suit((3, 5), suit, scale=scale)
        _reference_suit(old, (3, 5), suit, scale)
        assert _same(new.image, old.image), (suit, scale, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("sideways", [False, True])
def test_every_card_back_is_drawn_as_before(mode: str, scale: int, sideways: bool) -> None:
    for deck in [*BACK_PATTERNS, "unknown"]:
        new, old = Painter((60, 60), mode), Painter((60, 60), mode)
        new.card_back((4, 6), deck, sideways=sideways, scale=scale)
        x, y = 4, 6
        w, h = SIDEWAYS_SIZE if sideways else BACK_SIZE
        top = y if sideways else y - scale
        old.draw.rectangle((x, top, x + w * scale - 1, top + h * scale - 1), outline=old.ink(), width=scale)
        pattern, fill = BACK_PATTERNS.get(deck, _blue_back), old.ink(DECK_RGB.get(deck))
        for row in range(1, h - 1):
            for col in range(1, w - 1):
                if pattern(col, row):
                    cx, cy = x + col * scale, top + row * scale
                    old.draw.rectangle((cx, cy, cx + scale - 1, cy + scale - 1), fill=fill)
        assert _same(new.image, old.image), (deck, scale, mode, sideways)


@pytest.mark.parametrize("mode", MODES)
def test_the_small_font_is_drawn_as_before(mode: str) -> None:
    text = "".join(_TINY_GLYPHS) + "~?"  # every glyph, and two it lacks (drawn as a space)
    new, old = Painter((4 * len(text) + 8, 12), mode), Painter((4 * len(text) + 8, 12), mode)
    width = new.tiny((2, 3), text)
    x, fill = 2, old.ink()
    draw = ImageDraw.Draw(old.image)
    for char in text.upper():
        glyph = _TINY_GLYPHS.get(char, _TINY_GLYPHS[" "])
        for row, bits in enumerate(glyph):
            for col, bit in enumerate(bits):
                if bit == "#":
                    draw.point((x + col, 3 + row), fill=fill)
        x += len(glyph[0]) + 1
    assert _same(new.image, old.image) and width == x - 2 - 1
