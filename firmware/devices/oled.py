"""luma.oled devices for the prop's displays: opened on luma's own I2C and SPI
interfaces, sending only what changed, with the errors luma really raises.

- :func:`open_device` builds the luma device. SSD1306, SSD1309, SH1106 and
  SH1107 come back as small subclasses (:mod:`.oled_drivers`) that send only the pages that changed,
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
import traceback
from collections.abc import Callable
from typing import Any

import luma.core.error
from luma.core.framebuffer import diff_to_previous
from luma.core.interface.serial import i2c, noop, spi
from PIL import Image, ImageChops  # ImageChops: luma.core.framebuffer loads it anyway

from .oled_drivers import _REVERSED_BITS as _REVERSED_BITS  # the bit table, where its test reads it
from .oled_drivers import FRAMEBUFFER_DRIVERS, PAGE_DRIVERS, segments

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
        framebuffer = diff_to_previous(num_segments=segments(width, height))
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


#: Image modes without an alpha band: :func:`_same` compares them in C.
_NO_ALPHA = frozenset({"1", "L", "RGB"})


def _same(a: Image.Image, b: Image.Image) -> bool:
    """The same picture, pixel for pixel. Compared by Pillow's C difference, not by each picture's
    bytes: ``tobytes()`` packs every pixel in a loop (about 128,000 instructions for a 128x64
    picture, twice a frame, where the difference and its bounding box take 51,000 together)."""
    if a.size != b.size or a.mode != b.mode:
        return False
    if a.mode not in _NO_ALPHA:  # getbbox looks at an alpha band alone
        return a.tobytes() == b.tobytes()
    return ImageChops.difference(a, b).getbbox() is None


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
