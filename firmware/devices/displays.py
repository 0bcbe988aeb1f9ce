"""OLED displays: what one is (:class:`DisplaySpec`), opening its luma device,
and sending frames only when they change (:class:`Screen`)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from . import oled
from .wiring import COLOR_DRIVERS, DRIVERS, GREYSCALE_DRIVERS, DisplaySpec

__all__ = [
    "COLOR_DRIVERS",
    "DRIVERS",
    "GREYSCALE_DRIVERS",
    "DisplayRefused",
    "DisplaySpec",
    "Screen",
    "check_spec",
    "open_dummy_device",
    "open_luma_device",
]

log = logging.getLogger("baccarat.displays")

DeviceFactory = Callable[[DisplaySpec], Any]


class DisplayRefused(Exception):
    """luma refuses a display's driver, size, rotation or bus settings: a mistake in the
    settings, which no retry mends (not a display that does not answer)."""

    def __init__(self, role: str, problem: str) -> None:
        super().__init__(f"{role}: {problem}")
        self.role = role
        self.problem = problem


def _settings(spec: DisplaySpec) -> dict[str, Any]:
    """The size and bus settings :func:`oled.open_device` and :func:`oled.check_display` take."""
    return {
        "width": spec.width,
        "height": spec.height,
        "rotate": spec.rotate,
        "port": spec.port,
        "address": spec.address,
        "device": spec.device,
        "dc": spec.dc,
        "reset": spec.reset,
        "bus_speed_hz": spec.bus_speed_hz,
    }


def open_luma_device(spec: DisplaySpec) -> Any:
    """The real luma.oled device a display spec describes (it sends only what changed).

    When the open fails, luma is asked about the settings (:func:`check_spec`, once per
    spec): if it refuses them, :class:`DisplayRefused` is raised instead of the bus's
    error, so a size the driver does not support is not mistaken for a missing display.
    Asking only on failure spares every start building each device twice.
    """
    try:
        return oled.open_device(spec.driver, spec.interface, **_settings(spec))
    except Exception:
        problem = _problem(spec)
        if problem is not None:
            raise DisplayRefused(spec.role, problem) from None
        raise


def open_dummy_device(spec: DisplaySpec) -> Any:
    """A luma ``dummy`` device of the same size and mode (tests and the simulator)."""
    from luma.core.device import dummy

    return dummy(width=spec.width, height=spec.height, rotate=spec.rotate, mode=spec.mode)


@functools.cache
def _problem(spec: DisplaySpec) -> str | None:
    return check_spec(spec)  # a display that keeps failing to open is asked once


def check_spec(spec: DisplaySpec) -> str | None:
    """Luma's objection to this display's driver, size, rotation or bus settings, or None
    (asks luma by building the device on a bus that goes nowhere)."""
    return oled.check_display(spec.driver, spec.interface, **_settings(spec))


class Screen(oled.Screen):
    """One display of the prop (see :class:`oled.Screen`: frames only when they change; a display
    that stops answering is logged once, retried, reopened and redrawn in full), for a spec.

    On luma's ``dummy`` device, and on a connector that does not answer at first:

    >>> from PIL import Image, ImageDraw
    >>> from firmware.devices.displays import Screen, open_dummy_device
    >>> from firmware.devices.wiring import DisplaySpec
    >>> spec = DisplaySpec("bets", "ssd1306", "i2c", 128, 64, address=0x3D)
    >>> screen = Screen.open(spec, open_dummy_device)
    >>> screen.size, screen.mode
    ((128, 64), '1')
    >>> picture = Image.new("1", screen.size)
    >>> ImageDraw.Draw(picture).text((0, 0), "$25", fill=255)
    >>> screen.show(picture), screen.show(picture.copy())  # the same picture again is not sent
    (True, False)
    >>> plugged = False
    >>> def connector(spec):
    ...     if not plugged:
    ...         raise OSError(121, "Remote I/O error")  # nothing answers at 0x3D
    ...     return open_dummy_device(spec)
    >>> loose = Screen.open(spec, connector)  # logged: missing, trying again every second
    >>> loose.failing, loose.show(picture)
    (True, False)
    >>> plugged = True
    >>> loose.show(picture), loose.failing  # opened afresh and drawn in full
    (True, False)
    """

    def __init__(self, spec: DisplaySpec, device: Any | None, reopen: Callable[[], Any] | None = None) -> None:
        super().__init__(spec.role, device, reopen=reopen, greyscale=spec.driver in GREYSCALE_DRIVERS)
        self.spec = spec

    @property
    def size(self) -> tuple[int, int]:
        """The picture size after rotation (a quarter turn swaps width and height)."""
        if self.spec.rotate % 2:
            return (self.spec.height, self.spec.width)
        return (self.spec.width, self.spec.height)

    @property
    def mode(self) -> str:
        """The image mode to draw in."""
        return getattr(self.device, "mode", None) or self.spec.mode

    @property
    def colour(self) -> bool:
        """True for a display that shows colours (SSD1351, SSD1331), not only grey levels."""
        return self.spec.driver in COLOR_DRIVERS

    @classmethod
    def open(cls, spec: DisplaySpec, factory: DeviceFactory) -> Screen:
        """Open the device. A display that does not answer is logged and left out: tried again
        every second if it may answer later (a loose wire, no power: :func:`oled.may_answer_later`),
        never if its bus or library is missing or not permitted (that needs a fix and a restart)."""

        def reopen() -> Any:
            return factory(spec)

        try:
            device = factory(spec)
        except DisplayRefused:  # the settings are wrong: for the caller to report, not to retry
            raise
        except Exception as error:  # luma's errors, OSError, ImportError, ... (see hardware/README.md)
            later = oled.may_answer_later(error)
            log.error(
                "display %s is missing (%s): %s; running without it%s",
                spec.role,
                spec.describe().strip(),
                oled.describe_bus_error(error),
                ", trying again every second" if later else " until the prop restarts",
            )
            return cls(spec, None, reopen=reopen if later else None)
        return cls(spec, device, reopen=reopen)
