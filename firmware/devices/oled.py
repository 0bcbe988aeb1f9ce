"""luma.oled devices for the prop's displays: opened on luma's own I2C and SPI
interfaces, sending only what changed, with the errors luma really raises.

- :func:`open_device` builds the luma device. SSD1306, SSD1309, SH1106 and
  SH1107 come back as small subclasses that send only the pages that changed,
  and within a page only the changed columns, through luma's ``command`` and
  ``data``: a chip press on a 128x64 SSD1306 over I2C costs 60 bytes on
  average and about 200 at most, where luma sends 1,034. The greyscale and
  colour drivers keep luma's ``diff_to_previous`` framebuffer. Every device
  has ``invalidate()``: the next frame goes out in full.
- :data:`BUS_ERRORS`, :func:`is_bus_error`, :func:`describe_bus_error`: what a
  display that stopped answering raises through luma. On I2C, luma turns
  EREMOTEIO and EIO from a command into ``luma.core.error.DeviceNotFoundError``
  (not an ``OSError``); the same errors during the data transfer, and every
  other errno, come through as ``OSError``.
- :class:`Screen`: one display's frames, failures and recovery.
- :func:`check_display`: asks luma whether it supports a driver, size and
  mode, by building the device over a bus that goes nowhere (no ``/dev`` node,
  no GPIO is touched), for ``check-config``.

Nothing here reads the config; plain values come in.
"""

from __future__ import annotations

import errno
import logging
import math
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import luma.core.error
import luma.oled.device as oled
from luma.core.framebuffer import diff_to_previous
from luma.core.interface.serial import i2c, noop, spi
from PIL import Image

__all__ = [
    "BUS_ERRORS",
    "FRAMEBUFFER_DRIVERS",
    "PAGE_DRIVERS",
    "Screen",
    "check_display",
    "describe_bus_error",
    "invalidate",
    "is_bus_error",
    "open_device",
]

log = logging.getLogger("baccarat.displays")

#: What a display that stops answering raises from ``display()``, ``clear()`` or
#: ``hide()`` through luma: DeviceNotFoundError for EREMOTEIO/EIO on a command
#: (I2C), OSError for the same during data and for any other errno (ENXIO,
#: ETIMEDOUT, an SPI controller error), DevicePermissionError never after open
#: but kept for symmetry with :func:`open_device`.
BUS_ERRORS: tuple[type[BaseException], ...] = (
    luma.core.error.DeviceNotFoundError,
    luma.core.error.DevicePermissionError,
    OSError,
)

#: I2C bytes a separate window costs beyond its pixels: the address and control
#: bytes of the command and of the data transfer, and the window commands.
_SSD1306_WINDOW_COST = 2 + 6 + 2
_SH1106_PAGE_COST = 2 + 3 + 2


def is_bus_error(error: BaseException) -> bool:
    """True for an error that means "the display did not answer" (see :data:`BUS_ERRORS`)."""
    return isinstance(error, BUS_ERRORS)


#: Errnos of a display that is there in the config but did not answer: a loose wire or a
#: display without power (no acknowledge, an I/O error, a stuck bus). It may answer later.
#: ENOENT (no bus: I2C or SPI not enabled), EACCES (not in the i2c/spi group) and a
#: missing library do not change while the prop runs.
ANSWERS_LATER = frozenset({errno.EREMOTEIO, errno.EIO, errno.ENXIO, errno.ETIMEDOUT, errno.EAGAIN})


def may_answer_later(error: BaseException) -> bool:
    """True if a display that failed to open with ``error`` is worth trying again (see
    :data:`ANSWERS_LATER`): luma's errors carry the kernel's OSError as their cause."""
    cause = error if isinstance(error, OSError) else error.__cause__ or error.__context__
    return isinstance(cause, OSError) and cause.errno in ANSWERS_LATER


def describe_bus_error(error: BaseException) -> str:
    """One line for the log: luma's message and the kernel's errno behind it,
    e.g. ``I2C device not found on address: 0x3C (Remote I/O error, EREMOTEIO)``."""
    cause = error if isinstance(error, OSError) else error.__cause__ or error.__context__
    text = "" if isinstance(error, OSError) else str(error)
    if not isinstance(cause, OSError) or cause.errno is None:
        return text if isinstance(error, luma.core.error.Error) else f"{type(error).__name__}: {error}"
    kernel = f"{cause.strerror}, {errno.errorcode.get(cause.errno, cause.errno)}"
    if cause.filename and str(cause.filename) not in text:
        kernel += f", {cause.filename}"
    return f"{text} ({kernel})" if text else kernel


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


class _ChangedPagesSSD1306(_ChangedPages):
    """SSD1306/SSD1309 in luma's horizontal addressing mode: a column and page window a change."""

    _const: Any  # luma's, as above
    _colstart: int
    _colend: int

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


def _segments(width: int, height: int) -> int:
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
        self.framebuffer = diff_to_previous(num_segments=_segments(self._w, self._h))


def _framebuffered(name: str) -> type:
    base = getattr(oled, name)
    return type(name, (_Framebuffered, base), {"__doc__": f"luma.oled's {name.upper()} with ``invalidate()``."})


#: Greyscale and colour drivers: luma's classes with ``invalidate()``.
FRAMEBUFFER_DRIVERS: dict[str, type] = {
    name: _framebuffered(name) for name in ("ssd1322", "ssd1325", "ssd1327", "ssd1362", "ssd1351", "ssd1331")
}


def invalidate(device: Any) -> None:
    """Make ``device`` send its next frame in full, whatever kind it is (a luma
    ``dummy`` or an emulator has nothing to forget)."""
    method = getattr(device, "invalidate", None)
    if method is not None:
        method()


def _build(driver: str, serial: Any, width: int, height: int, rotate: int) -> Any:
    if driver in PAGE_DRIVERS:
        return PAGE_DRIVERS[driver](serial, width=width, height=height, rotate=rotate)
    if driver in FRAMEBUFFER_DRIVERS:
        framebuffer = diff_to_previous(num_segments=_segments(width, height))
        return FRAMEBUFFER_DRIVERS[driver](serial, width=width, height=height, rotate=rotate, framebuffer=framebuffer)
    raise ValueError(f"unknown display driver {driver!r}")


def open_device(
    driver: str,
    interface: str,
    *,
    width: int,
    height: int,
    rotate: int = 0,
    port: int | None = None,
    address: int = 0x3C,
    device: int = 0,
    dc: int | None = None,
    reset: int | None = None,
    bus_speed_hz: int = 8_000_000,
) -> Any:
    """The luma.oled device on luma's own ``i2c`` (``port`` 1 unless given) or
    ``spi`` (``port`` 0 unless given) interface.

    Raises what luma raises (see hardware/README.md): DeviceNotFoundError for a
    missing bus node or a chip that does not answer, DevicePermissionError
    without the ``i2c`` group, OSError, DeviceDisplayModeError for a size the
    driver does not support, UnsupportedPlatform or ImportError when the GPIO
    library for an SPI display's DC/RST is not usable. A device that fails to
    open leaves no file or GPIO open.
    """
    if interface == "i2c":
        serial = i2c(port=1 if port is None else port, address=address)
    elif interface == "spi":
        serial = spi(
            port=0 if port is None else port, device=device, gpio_DC=dc, gpio_RST=reset, bus_speed_hz=bus_speed_hz
        )
    else:
        raise ValueError(f"unknown display interface {interface!r}")
    try:
        return _build(driver, serial, width, height, rotate)
    except BaseException:
        serial.cleanup()
        raise


# -- a display on the prop -----------------------------------------------------------------------


class Screen:
    """One display: a picture is sent only when it changed; a display that stops
    answering is logged once and tried again with every frame, and when it answers
    again it is opened afresh (luma's init sequence: it may have lost power) and
    redrawn in full. No error from a display ever reaches the caller.

    ``reopen`` builds a new device, as at start. Without it the same device is
    told to :func:`invalidate` and the next frame goes out in full.

    ``device=None``: the display did not open. With ``reopen`` it is failing from
    the start and tried like one that stopped answering; without, it is left out.
    """

    def __init__(
        self, role: str, device: Any | None, *, reopen: Callable[[], Any] | None = None, greyscale: bool = False
    ) -> None:
        self.role = role
        self.device = device
        self.reopen = reopen
        self.greyscale = greyscale
        self.last_frame: Image.Image | None = None
        self.failing = device is None and reopen is not None
        self.frames_sent = 0
        self._released = device is None  # nothing to release before a reopen

    def show(self, image: Image.Image) -> bool:
        """Send ``image`` if it differs from the last frame sent (always while failing); True if sent."""
        if self.device is None and not self.failing:
            return False
        if self.greyscale and image.mode == "RGB":
            image = image.convert("L").convert("RGB")
        if self.last_frame is not None and _same(self.last_frame, image):  # never while failing: no last frame
            return False
        try:
            if self.failing:
                self._recover()
            assert self.device is not None  # opened, or reopened just now
            self.device.display(image)
        except Exception as error:  # a display must never stop the game
            self._failed(error)
            return False
        if self.failing:
            if self.frames_sent:
                log.warning("display %s answers again; redrawn in full", self.role)
            else:
                log.warning("display %s answers now; drawn in full", self.role)
            self.failing = False
        self.last_frame = image
        self.frames_sent += 1
        return True

    def _failed(self, error: Exception) -> None:
        if not self.failing:
            if is_bus_error(error):
                log.error(
                    "display %s stopped answering (%s); the game goes on, retrying every second",
                    self.role,
                    describe_bus_error(error),
                )
            else:
                log.exception("display %s failed; the game goes on, retrying every second", self.role)
        self.failing = True
        self.last_frame = None
        if not self._released:
            invalidate(self.device)  # what reached the panel is unknown: the next frame goes in full

    def _recover(self) -> None:
        """Open the display afresh (raises while it still does not answer)."""
        if self.reopen is None:
            invalidate(self.device)
            return
        if not self._released:  # first, so that an SPI display's DC and RST are free for the new device
            _release(self.device)
            self._released = True
        self.device = self.reopen()
        self._released = False

    def off(self) -> None:
        """Blank the display and put it to sleep (SIGTERM). Never raises, so that every
        display gets its turn; one that does not answer costs a warning."""
        if self.device is None:
            return
        failure: Exception | None = None
        if self.failing and self.reopen is not None:
            try:
                self._recover()
            except Exception as error:
                failure = error
        steps = () if failure is not None else (self.device.clear, self.device.hide)
        for step in steps:
            try:
                step()
            except Exception as error:  # shutdown: a display that does not answer must not stop the others
                failure = failure or error
        if failure is not None:
            log.warning("display %s did not blank: %s", self.role, describe_bus_error(failure))

    def close(self) -> None:
        """Blank it and release its bus (luma's ``cleanup``); never raises."""
        if self.device is None or self._released:
            return
        try:
            self.device.cleanup()
        except Exception as error:  # a device that is already gone
            log.debug("display %s clean-up: %s", self.role, describe_bus_error(error))


def _release(device: Any) -> None:
    """Close a device's bus without blanking the panel (a new device will drive it)."""
    try:
        device.persist = True  # luma's cleanup (and its atexit hook) then skip hide() and clear()
        device.cleanup()
    except Exception as error:  # its bus may be gone already
        log.debug("display device clean-up: %s", describe_bus_error(error))


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.mode == b.mode and a.tobytes() == b.tobytes()


# -- asking luma, without a bus: check-config ----------------------------------------------------


class NullBus:
    """A bus that goes nowhere: the few ``smbus2.SMBus`` and ``spidev.SpiDev``
    methods luma's ``i2c`` and ``spi`` interfaces call, doing nothing."""

    max_speed_hz = 0
    mode = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        """SMBus block write: dropped."""

    def i2c_rdwr(self, *messages: Any) -> None:
        """I2C combined transfer: dropped."""

    def open(self, bus: int, device: int) -> None:
        """``SpiDev.open``: nothing to open."""

    def writebytes(self, data: list[int]) -> None:
        """SPI write: dropped."""

    def close(self) -> None:
        """Nothing to close."""


def check_display(
    driver: str,
    interface: str,
    width: int,
    height: int,
    rotate: int = 0,
    *,
    address: int = 0x3C,
    port: int | None = None,
    device: int = 0,
    dc: int | None = None,
    reset: int | None = None,
    bus_speed_hz: int = 8_000_000,
) -> str | None:
    """Luma's objection to this display, or None: builds luma's real interface and
    device over a :class:`NullBus` (no ``/dev`` node, no GPIO is touched)."""
    if driver not in PAGE_DRIVERS and driver not in FRAMEBUFFER_DRIVERS:
        return f"unknown display driver {driver!r}"
    try:
        if interface == "i2c":
            serial: Any = i2c(bus=NullBus(), address=address)
        elif interface == "spi":
            serial = spi(
                spi=NullBus(),
                gpio=noop(),
                port=port or 0,
                device=device,
                gpio_DC=dc,
                gpio_RST=reset,
                bus_speed_hz=bus_speed_hz,
            )
        else:
            return f"unknown display interface {interface!r}"
    except AssertionError:  # luma checks the speed with a bare assert
        return f"luma's SPI interface does not support bus_speed_hz = {bus_speed_hz}"
    except luma.core.error.DeviceAddressError:
        return f"luma's I2C interface does not take address = {address!r}"
    except luma.core.error.Error as error:
        return f"luma's {interface} interface: {error}"
    try:
        built = _build(driver, serial, width, height, rotate)
    except luma.core.error.DeviceDisplayModeError as error:
        return f"luma.oled's {driver} does not support width = {width}, height = {height} ({error})"
    except luma.core.error.Error as error:
        return f"luma.oled's {driver}: {error}"
    except AssertionError as error:  # luma checks these with bare asserts
        where = traceback.extract_tb(error.__traceback__)[-1]
        if where.name == "capabilities":
            return f"luma.oled's {driver} does not support rotate = {rotate}"
        if where.name == "command" and interface == "i2c":
            return (
                f'luma.oled\'s {driver} does not work with interface = "i2c" (its init sequence is one '
                'command longer than the 32 bytes luma\'s I2C interface sends at once): use "spi"'
            )
        return f"luma.oled's {driver} refuses these settings (an assertion in luma's {where.name})"
    except (ValueError, TypeError) as error:
        return f"luma.oled's {driver} refuses width = {width}, height = {height}: {error}"
    built.persist = True  # its atexit clean-up has nothing to blank
    return None
