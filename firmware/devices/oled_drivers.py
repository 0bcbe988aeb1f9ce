"""luma.oled's drivers for the prop's displays, sending only what changed.

SSD1306, SSD1309, SH1106 and SH1107 are small subclasses of luma's that send only the pages
that changed, and within a page only the changed columns, through luma's ``command`` and
``data`` (:data:`PAGE_DRIVERS`); the greyscale and colour drivers keep luma's
``diff_to_previous`` framebuffer (:data:`FRAMEBUFFER_DRIVERS`). Each has ``invalidate()``: the
next frame goes out in full. :mod:`.oled` builds them on luma's interfaces.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import luma.core.error as luma_error
import luma.oled.const as luma_const
import luma.oled.device as oled
from luma.core.device import device as luma_device
from luma.core.framebuffer import diff_to_previous
from PIL import Image

__all__ = ["FRAMEBUFFER_DRIVERS", "PAGE_DRIVERS", "segments"]

#: I2C bytes a separate window costs beyond its pixels: the address and control
#: bytes of the command and of the data transfer, and the window commands.
_SSD1306_WINDOW_COST = 2 + 6 + 2
_SH1106_PAGE_COST = 2 + 3 + 2


# -- sending only what changed: page-addressed monochrome controllers ---------------------------

#: Each byte with its bits in reverse order ("Bit Twiddling Hacks": reverse a byte in three
#: operations with 64-bit arithmetic; a test compares it with the reversed binary digits).
_REVERSED_BITS = bytes((i * 0x0202020202 & 0x010884422010) % 1023 for i in range(256))


def _page_bytes(image: Image.Image, pages: int) -> list[bytes]:
    """The controller's page bytes of a mode-"1" image in device orientation.

    Page ``p``, column ``x``: bit ``i`` is pixel ``(x, 8p + i)``, as luma packs
    them. Transposed, each column is a row of packed bytes, first pixel in the
    top bit; reversing the bits puts the first pixel in bit 0.
    """
    packed = image.transpose(Image.Transpose.TRANSPOSE).tobytes()
    return [packed[p::pages].translate(_REVERSED_BITS) for p in range(pages)]


def _differing(old: bytes, new: bytes) -> list[int]:
    """The columns whose byte differs."""
    if old == new:
        return []
    return [x for x, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def _runs(columns: Sequence[int], gap: int) -> list[tuple[int, int]]:
    """Ascending column numbers as ``(first, last)`` runs; runs at most ``gap`` columns apart are joined
    (a separate transfer would cost more than sending the unchanged columns between them)."""
    runs: list[tuple[int, int]] = []
    for x in columns:
        if runs and x - runs[-1][1] - 1 <= gap:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((x, x))
    return runs


class _ChangedPages:
    """Mixin for luma's page-addressed monochrome drivers: ``display()`` sends only
    the pages that changed since the last frame, and within them only the changed
    columns (runs of changes far apart go separately). The first frame, and the
    first after :meth:`invalidate` or after a failed transfer, goes out in full."""

    _sent: list[bytes] | None = None
    # What the luma driver after this mixin in the bases has (luma ships no types):
    mode: str
    size: tuple[int, int]
    _pages: int
    preprocess: Callable[[Image.Image], Image.Image]
    command: Callable[..., None]
    data: Callable[[list[int]], None]

    def invalidate(self) -> None:
        """Send the next frame in full (at start, and when the display answers again)."""
        self._sent = None

    def display(self, image: Image.Image) -> None:
        """Send the parts of ``image`` that differ from the last frame sent."""
        assert image.mode == self.mode
        assert image.size == self.size
        pages = _page_bytes(self.preprocess(image), self._pages)
        sent, self._sent = self._sent, None  # unknown until every transfer went through
        if sent is None:
            self._send_full(pages)
        else:
            self._send_changes(pages, [_differing(a, b) for a, b in zip(sent, pages, strict=True)])
        self._sent = pages

    def _send_full(self, pages: list[bytes]) -> None:
        raise NotImplementedError

    def _send_changes(self, pages: list[bytes], changed: list[list[int]]) -> None:
        raise NotImplementedError


def _plan_windows(changed: Sequence[tuple[int, int] | None], cost: int) -> list[tuple[int, int, int, int]]:
    """Group changed pages into windows ``(first_page, last_page, first_col, last_col)``
    so that the bytes sent (``cost`` a window plus the window's area) are fewest."""
    n = len(changed)
    best: list[float] = [0.0] + [math.inf] * n
    choice: list[tuple[int, int, int] | None] = [None] * (n + 1)
    for end in range(1, n + 1):
        if changed[end - 1] is None:
            best[end], choice[end] = best[end - 1], None
            continue
        lo, hi = math.inf, -math.inf
        for start in range(end - 1, -1, -1):
            cols = changed[start]
            if cols is None:
                continue
            lo, hi = min(lo, cols[0]), max(hi, cols[1])
            total = best[start] + cost + (end - start) * (hi - lo + 1)
            if total < best[end]:
                best[end], choice[end] = total, (start, int(lo), int(hi))
    windows = []
    end = n
    while end > 0:
        step = choice[end]
        if step is None:
            end -= 1
            continue
        start, lo, hi = step
        windows.append((start, end - 1, lo, hi))
        end = start
    return windows[::-1]


#: luma's SSD1306 modes: (width, height) -> multiplex, clock divider, COM pins, first column.
_SSD1306_MODES = {
    (128, 64): (0x3F, 0x80, 0x12, 0),
    (128, 32): (0x1F, 0x80, 0x02, 0),
    (96, 16): (0x0F, 0x60, 0x02, 0),
    (64, 48): (0x2F, 0x80, 0x12, 32),
    (64, 32): (0x1F, 0x80, 0x12, 32),
}


class _ChangedPagesSSD1306(_ChangedPages):
    """SSD1306/SSD1309 in luma's horizontal addressing mode: a column and page window a change."""

    _const: Any  # luma's, as above
    _w: int
    _colstart: int
    _colend: int
    capabilities: Callable[..., None]
    contrast: Callable[[int], None]
    clear: Callable[[], None]
    show: Callable[[], None]

    def __init__(self, serial_interface: Any = None, width: int = 128, height: int = 64, rotate: int = 0, **_: Any):
        """luma's ``ssd1306.__init__`` (the same modes, the same bytes to the panel), without the two
        lookup tables of ``width * height`` entries it builds for its own ``display()``, which this
        class replaces: building them cost 15 M instructions a display (2.5 % of a start each).
        tests/test_recorded_bus.py compares the bytes with luma's own for every mode."""
        luma_device.__init__(self, luma_const.ssd1306, serial_interface)
        self.capabilities(width, height, rotate)
        mode = _SSD1306_MODES.get((width, height))
        if mode is None:
            raise luma_error.DeviceDisplayModeError(f"Unsupported display mode: {width} x {height}")
        multiplex, clock, compins, self._colstart = mode
        self._pages = height // 8
        self._colend = self._colstart + self._w
        c = self._const
        self.command(
            c.DISPLAYOFF,
            c.SETDISPLAYCLOCKDIV, clock,
            c.SETMULTIPLEX, multiplex,
            c.SETDISPLAYOFFSET, 0x00,
            c.SETSTARTLINE,
            c.CHARGEPUMP, 0x14,
            c.MEMORYMODE, 0x00,
            c.SETSEGMENTREMAP,
            c.COMSCANDEC,
            c.SETCOMPINS, compins,
            c.SETPRECHARGE, 0xF1,
            c.SETVCOMDETECT, 0x40,
            c.DISPLAYALLON_RESUME,
            c.NORMALDISPLAY,
        )  # fmt: skip
        self.contrast(0xCF)
        self.clear()
        self.show()

    def _send_full(self, pages: list[bytes]) -> None:
        c = self._const
        self.command(c.COLUMNADDR, self._colstart, self._colend - 1, c.PAGEADDR, 0, self._pages - 1)
        self.data(list(b"".join(pages)))

    def _send_changes(self, pages: list[bytes], changed: list[list[int]]) -> None:
        c = self._const
        start = self._colstart
        # Column bands apart (a card on the left, a score on the right), then windows of pages in each band.
        for b0, b1 in _runs(sorted({x for cols in changed for x in cols}), _SSD1306_WINDOW_COST):
            in_band = [[x for x in cols if b0 <= x <= b1] for cols in changed]
            spans = [(cols[0], cols[-1]) if cols else None for cols in in_band]
            for first, last, x0, x1 in _plan_windows(spans, _SSD1306_WINDOW_COST):
                self.command(c.COLUMNADDR, start + x0, start + x1, c.PAGEADDR, first, last)
                self.data(list(b"".join(pages[p][x0 : x1 + 1] for p in range(first, last + 1))))


class _ChangedPagesSH110x(_ChangedPages):
    """SH1106/SH1107 (page addressing only): a page address and column start a changed page."""

    _column_offset = 0

    def _set_page(self, page: int, column: int) -> None:
        raise NotImplementedError

    def _send_full(self, pages: list[bytes]) -> None:
        for page, data in enumerate(pages):
            self._set_page(page, self._column_offset)
            self.data(list(data))

    def _send_changes(self, pages: list[bytes], changed: list[list[int]]) -> None:
        for page, cols in enumerate(changed):
            for x0, x1 in _runs(cols, _SH1106_PAGE_COST):
                self._set_page(page, self._column_offset + x0)
                self.data(list(pages[page][x0 : x1 + 1]))


# luma ships no types, so to mypy its drivers are Any, and strict mode flags a class built on one.
class ssd1306(_ChangedPagesSSD1306, oled.ssd1306):  # type: ignore[misc]
    """luma.oled's SSD1306 sending only what changed."""


class ssd1309(_ChangedPagesSSD1306, oled.ssd1309):  # type: ignore[misc]
    """luma.oled's SSD1309 sending only what changed."""


class sh1106(_ChangedPagesSH110x, oled.sh1106):  # type: ignore[misc]
    """luma.oled's SH1106 sending only what changed (its RAM is 132 columns wide:
    luma's ``page_address_offset``, 2 by default, centres a 128-column panel)."""

    def __init__(
        self,
        serial_interface: Any = None,
        width: int = 128,
        height: int = 64,
        rotate: int = 0,
        page_address_offset: int = 0x02,
        **kwargs: Any,
    ) -> None:
        self._column_offset = page_address_offset
        super().__init__(serial_interface, width, height, rotate, page_address_offset, **kwargs)

    def _set_page(self, page: int, column: int) -> None:
        # luma's order: page address, lower column nibble, higher column nibble
        self.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)


class sh1107(_ChangedPagesSH110x, oled.sh1107):  # type: ignore[misc]
    """luma.oled's SH1107 sending only what changed."""

    def _set_page(self, page: int, column: int) -> None:
        # luma's order: higher column nibble, lower column nibble, page address
        self.command(0x10 | column >> 4, column & 0x0F, 0xB0 | page)


#: Page-addressed monochrome drivers: the subclasses above.
PAGE_DRIVERS: dict[str, type] = {"ssd1306": ssd1306, "ssd1309": ssd1309, "sh1106": sh1106, "sh1107": sh1107}

# -- greyscale and colour controllers: luma's diff_to_previous --------------------------------------


def segments(width: int, height: int) -> int:
    """The finest square grid (of 16, 4, 1 cells) that divides the panel exactly."""
    for n in (4, 2):
        if width % n == 0 and height % n == 0:
            return n * n
    return 1


class _Framebuffered:
    """Mixin for luma's greyscale and colour drivers: ``invalidate()`` starts a new
    ``diff_to_previous`` framebuffer, whose first frame luma sends in full."""

    _w: int  # luma's
    _h: int
    framebuffer: Any

    def invalidate(self) -> None:
        """Send the next frame in full (at start, and when the display answers again)."""
        self.framebuffer = diff_to_previous(num_segments=segments(self._w, self._h))


class _FramebufferDrivers(Mapping[str, type]):
    """Driver name -> luma's class with ``invalidate()``, each class made when first asked for (most
    props have none of these displays, and a class made from luma's costs a start 130,000
    instructions)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names
        self._made: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        if name not in self._names:
            raise KeyError(name)
        made = self._made.get(name)
        if made is None:
            base = getattr(oled, name)
            doc = f"luma.oled's {name.upper()} with ``invalidate()``."
            made = self._made.setdefault(name, type(name, (_Framebuffered, base), {"__doc__": doc}))
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


#: Greyscale and colour drivers: luma's classes with ``invalidate()``.
FRAMEBUFFER_DRIVERS: Mapping[str, type] = _FramebufferDrivers(
    ("ssd1322", "ssd1325", "ssd1327", "ssd1362", "ssd1351", "ssd1331")
)
