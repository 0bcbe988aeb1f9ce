"""Drawing helpers shared by the screens: fonts, colours, suit icons."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

#: Pillow's built-in bitmap font (courB08, 6 pixels a character): crisp on a 1-bit OLED.
#: Capitals and digits are 6 rows tall, so lines can be 9-10 pixels apart.
#:
#: Many of its glyphs (A, B, T, W, ...) have ink one column left of their origin:
#: their cell is really 7 columns wide, overlapping the previous one. Pillow draws a
#: string into a mask that starts at the first glyph's origin, which cuts that column
#: off the first letter of every line ("IABLE LIMITS"). :func:`draw_text` therefore
#: draws behind a space, one column to the right: the ink of ``n`` characters drawn at
#: ``x`` lies in columns ``x`` to ``x + 6n``, and no glyph loses a column.
#:
#: It is read from a copy in ``fonts/`` (a ``.pil`` file of metrics and a ``.pbm`` of glyphs, the
#: same bytes as Pillow's ``load_default_imagefont()``; tests/test_render_font.py compares every
#: glyph): opening a ``.pbm`` loads only Pillow's PPM reader, where the built-in copy's PNG opened
#: through ``Image.open`` loads five image formats' readers, 12.6 M instructions of every start.
FONT = ImageFont.load(str(Path(__file__).resolve().parent / "fonts" / "courB08.pil"))
CHAR_W = 6
LINE_H = 10
_TOP = 2  # blank rows above the capitals in FONT

# A 3x5 font for chip faces and compact layouts: ".#" rows per glyph.
_TINY_GLYPHS: dict[str, tuple[str, ...]] = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("##.", "..#", ".#.", "#..", "###"),
    "3": ("##.", "..#", ".#.", "..#", "##."),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "##.", "..#", "##."),
    "6": (".##", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "##."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "X": ("...", "#.#", ".#.", "#.#", "..."),
    "$": (".###.", "#.#..", ".###.", "..#.#", ".###."),  # an S with the bar through it: 5 wide
    ",": ("...", "...", "...", ".#.", "#.."),
    "+": ("...", ".#.", "###", ".#.", "..."),
    " ": ("...", "...", "...", "...", "..."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "N": ("#.#", "###", "###", "#.#", "#.#"),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "E": ("###", "#..", "##.", "#..", "###"),
    ".": ("...", "...", "...", "...", ".#."),
    "<": ("..#", ".#.", "#..", ".#.", "..#"),
    ">": ("#..", ".#.", "..#", ".#.", "#.."),
}
TINY_W = 4  # 3 pixels and a gap (the "$" is 5 pixels and a gap)
TINY_H = 5


def tiny_width(text: str) -> int:
    """The width :meth:`Painter.tiny` draws ``text`` at (without the gap after the last glyph)."""
    widths = [len(_TINY_GLYPHS.get(char, _TINY_GLYPHS[" "])[0]) + 1 for char in text.upper()]
    return max(0, sum(widths) - 1)


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: Ink) -> None:
    """``text`` in FONT at ``xy`` (the top of the glyph cell) with no column cut off the first letter."""
    x, y = xy
    draw.text((x - CHAR_W + 1, y), " " + text, font=FONT, fill=fill)


# 7x7 suit icons.
SUIT_ICONS: dict[str, tuple[str, ...]] = {
    "H": (".##.##.", "#######", "#######", "#######", ".#####.", "..###..", "...#..."),
    "D": ("...#...", "..###..", ".#####.", "#######", ".#####.", "..###..", "...#..."),
    "C": ("..###..", "..###..", "##.#.##", "#######", "##.#.##", "...#...", "..###.."),
    "S": ("...#...", "..###..", ".#####.", "#######", "#######", "...#...", "..###.."),
}
SUIT_W = 7

#: A card back at scale 1: upright (7x9, standing a pixel above the glyphs' top), and sideways
#: (11x7: a third card, which the dealer lays across).
BACK_SIZE = (7, 9)
SIDEWAYS_SIZE = (11, 7)
#: A drawn (third) card face up sits in a frame: this many pixels on each side of its glyphs.
FRAME_PAD = 2


def _red_back(x: int, y: int) -> bool:
    return (x + y) % 3 == 0  # diagonal stripes


def _blue_back(x: int, y: int) -> bool:
    return (x + y) % 2 == 0  # checks


def _green_back(x: int, y: int) -> bool:
    return y % 2 == 1  # horizontal stripes


def _silver_back(x: int, y: int) -> bool:
    return x % 2 == 1 and y % 2 == 1  # dots


#: Each deck's card back, as the lit cells inside its border: a pattern of its own, so that the
#: decks differ on a monochrome display too (on a colour display, in the deck's colour).
BACK_PATTERNS: dict[str, Callable[[int, int], bool]] = {
    "red": _red_back,
    "blue": _blue_back,
    "green": _green_back,
    "silver": _silver_back,
}

DECK_RGB: dict[str, tuple[int, int, int]] = {
    "red": (230, 40, 40),
    "blue": (60, 110, 255),
    "green": (40, 200, 70),
    "silver": (200, 200, 210),
}
CHIP_RGB: dict[int, tuple[int, int, int]] = {
    1: (235, 235, 235),
    5: (220, 50, 50),
    25: (40, 170, 70),
    100: (90, 90, 90),
    500: (150, 70, 200),
    1000: (240, 150, 30),
    5000: (160, 100, 60),
    25000: (60, 180, 220),
    100000: (240, 210, 40),
}


RGB = tuple[int, int, int]
#: A fill in the image's mode: 0/1, a grey level, or an RGB triple.
Ink = int | RGB


class Painter:
    """Draws on an image of a device's size and mode ("1", "L" or "RGB")."""

    def __init__(self, size: tuple[int, int], mode: str) -> None:
        self.mode = mode
        self.image = Image.new(mode, size)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = size

    @property
    def color(self) -> bool:
        """True on a colour display."""
        return self.mode == "RGB"

    def ink(self, rgb: tuple[int, int, int] | None = None) -> Ink:
        """The foreground for this mode: white, or ``rgb`` on a colour display."""
        if self.mode == "1":
            return 1
        if self.mode == "L":
            return 255
        return rgb if rgb is not None else (255, 255, 255)

    def dark(self) -> Ink:
        """The background colour, for text on a lit bar."""
        return 0 if self.mode != "RGB" else (0, 0, 0)

    def text(
        self, xy: tuple[int, int], text: str, rgb: RGB | None = None, *, scale: int = 1, fill: Ink | None = None
    ) -> None:
        """Capitals and digits with their ink starting at ``xy``."""
        x, y = xy
        fill = self.ink(rgb) if fill is None else fill
        glyphs = text_mask(text)  # drawn once per text (a rank, a word), pasted in this frame's ink
        if scale == 1:
            self.image.paste(fill, (x, y - _TOP), glyphs)
            return
        big = glyphs.resize((glyphs.width * scale, glyphs.height * scale), Image.Resampling.NEAREST)
        self.image.paste(fill, (x, y - _TOP * scale), big)

    def centred(
        self, y: int, text: str, rgb: RGB | None = None, *, left: int = 0, right: int | None = None, scale: int = 1
    ) -> None:
        """``text`` centred between ``left`` and ``right`` (the whole width by default)."""
        right = self.width if right is None else right
        width = len(text) * CHAR_W * scale
        self.text((left + max(0, (right - left - width) // 2), y), text, rgb, scale=scale)

    def tiny(self, xy: tuple[int, int], text: str, fill: Ink | None = None) -> int:
        """Draw with the 3x5 font; returns the width used (:func:`tiny_width`)."""
        x, y = xy
        fill = self.ink() if fill is None else fill
        for char in text.upper():
            glyph = _tiny_mask(char if char in _TINY_GLYPHS else " ")
            self.image.paste(fill, (x, y), glyph)
            x += glyph.width + 1
        return tiny_width(text)

    def suit(self, xy: tuple[int, int], suit: str, *, scale: int = 1) -> None:
        """A 7x7 suit icon (hearts and diamonds red on a colour display)."""
        rgb = (230, 40, 40) if suit in "HD" else (255, 255, 255)
        self.image.paste(self.ink(rgb), xy, _suit_mask(suit, scale))

    def card(self, xy: tuple[int, int], card: str, *, scale: int = 1, drawn: bool = False) -> int:
        """A card as rank and suit icon (``drawn``: a third card, in a frame); returns its width."""
        if drawn:
            x, y = xy
            pad = FRAME_PAD * scale
            width = card_width(card, scale) + 2 * pad
            self.draw.rectangle((x, y - pad, x + width - 1, y + 7 * scale + pad - 1), outline=self.ink(), width=scale)
            self.card((x + pad, y), card, scale=scale)
            return width
        rank, suit = card[:-1], card[-1]
        self.text(xy, rank, scale=scale)
        x = xy[0] + (len(rank) * CHAR_W + 1) * scale  # a column clear of the rank's ink (see FONT)
        self.suit((x, xy[1]), suit, scale=scale)
        return x + SUIT_W * scale - xy[0]

    def card_back(self, xy: tuple[int, int], deck_color: str, *, sideways: bool = False, scale: int = 1) -> int:
        """A face-down card of the ``deck_color`` deck (``sideways``: a third card, laid across);
        returns its width."""
        x, y = xy
        w, h = SIDEWAYS_SIZE if sideways else BACK_SIZE
        top = y if sideways else y - scale
        self.draw.rectangle((x, top, x + w * scale - 1, top + h * scale - 1), outline=self.ink(), width=scale)
        self.image.paste(self.ink(DECK_RGB.get(deck_color)), (x, top), _back_mask(deck_color, sideways, scale))
        return w * scale


# Icons drawn once as 1-bit masks, then pasted in the ink of the moment: a frame costs a paste per
# icon, not a rectangle per pixel (a deal's frames are drawn again whole; issue 44 item 5).


@lru_cache(maxsize=64)
def _tiny_mask(char: str) -> Image.Image:
    """A glyph of the 3x5 font as a 1-bit mask."""
    glyph = _TINY_GLYPHS[char]
    mask = Image.new("1", (len(glyph[0]), len(glyph)))
    mask.putdata([1 if bit == "#" else 0 for bits in glyph for bit in bits])
    return mask


@lru_cache(maxsize=64)
def _suit_mask(suit: str, scale: int) -> Image.Image:
    """A suit icon (:data:`SUIT_ICONS`) as a 1-bit mask, each of its pixels ``scale`` square."""
    rows = SUIT_ICONS[suit]
    mask = Image.new("1", (len(rows[0]), len(rows)))
    mask.putdata([1 if bit == "#" else 0 for bits in rows for bit in bits])
    return mask.resize((mask.width * scale, mask.height * scale), Image.Resampling.NEAREST)


@lru_cache(maxsize=64)
def _back_mask(deck_color: str, sideways: bool, scale: int) -> Image.Image:
    """The pattern inside a card back's frame (:data:`BACK_PATTERNS`) as a 1-bit mask of the whole card."""
    w, h = SIDEWAYS_SIZE if sideways else BACK_SIZE
    pattern = BACK_PATTERNS.get(deck_color, _blue_back)
    mask = Image.new("1", (w, h))
    mask.putdata(
        [1 if 0 < col < w - 1 and 0 < row < h - 1 and pattern(col, row) else 0 for row in range(h) for col in range(w)]
    )
    return mask.resize((w * scale, h * scale), Image.Resampling.NEAREST)


@lru_cache(maxsize=256)
def text_mask(text: str) -> Image.Image:
    """``text`` in FONT as a 1-bit mask, ink from column 0 as :func:`draw_text` draws it
    (used for scaled text and by tests)."""
    image = Image.new("1", (len(text) * CHAR_W + 1, 11))
    draw_text(ImageDraw.Draw(image), (0, 0), text, 1)
    return image


def card_width(card: str, scale: int = 1, *, drawn: bool = False) -> int:
    """The width :meth:`Painter.card` draws ``card`` at."""
    return ((len(card) - 1) * CHAR_W + 1 + SUIT_W + (2 * FRAME_PAD if drawn else 0)) * scale


def back_width(scale: int = 1, *, sideways: bool = False) -> int:
    """The width :meth:`Painter.card_back` draws a card back at."""
    return (SIDEWAYS_SIZE if sideways else BACK_SIZE)[0] * scale
