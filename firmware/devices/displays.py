"""OLED displays: what one is (:class:`DisplaySpec`), opening its luma device,
and sending frames only when they change (:class:`Screen`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PIL import Image

from .wiring import COLOR_DRIVERS, DRIVERS, GREYSCALE_DRIVERS, DisplaySpec

__all__ = [
    "COLOR_DRIVERS",
    "DRIVERS",
    "GREYSCALE_DRIVERS",
    "DisplaySpec",
    "Screen",
    "open_dummy_device",
    "open_luma_device",
]

log = logging.getLogger("baccarat.displays")

DeviceFactory = Callable[[DisplaySpec], Any]


def open_luma_device(spec: DisplaySpec) -> Any:
    """The real luma.oled device a display spec describes."""
    from luma.core.interface.serial import i2c, spi
    from luma.oled import device as oled

    if spec.interface == "i2c":
        serial = i2c(port=spec.port, address=spec.address)
    else:
        serial = spi(
            port=spec.port, device=spec.device, gpio_DC=spec.dc, gpio_RST=spec.reset, bus_speed_hz=spec.bus_speed_hz
        )
    driver = getattr(oled, spec.driver)
    return driver(serial, width=spec.width, height=spec.height, rotate=spec.rotate)


def open_dummy_device(spec: DisplaySpec) -> Any:
    """A luma ``dummy`` device of the same size and mode (tests and the simulator)."""
    from luma.core.device import dummy

    return dummy(width=spec.width, height=spec.height, rotate=spec.rotate, mode=spec.mode)


class Screen:
    """One display: renders are sent only when the picture changed; a device that
    fails is reported once and redrawn in full when it answers again."""

    def __init__(self, spec: DisplaySpec, device: Any | None) -> None:
        self.spec = spec
        self.device = device
        self.last_frame: Image.Image | None = None
        self.failing = False
        self.frames_sent = 0

    @property
    def role(self) -> str:
        """``placard``, ``table`` or ``bets``."""
        return self.spec.role

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

    @classmethod
    def open(cls, spec: DisplaySpec, factory: DeviceFactory) -> Screen:
        """Open the device; a display that does not answer is logged and left out."""
        try:
            device = factory(spec)
        except Exception as error:  # luma raises its own errors, OSError, or RuntimeError
            log.error("display %s is missing (%s): %s; running without it", spec.role, spec.describe().strip(), error)
            return cls(spec, None)
        return cls(spec, device)

    def show(self, image: Image.Image) -> bool:
        """Send ``image`` if it differs from the last frame sent; True if sent."""
        if self.device is None:
            return False
        if self.spec.driver in GREYSCALE_DRIVERS and image.mode == "RGB":
            image = image.convert("L").convert("RGB")
        if self.last_frame is not None and _same(self.last_frame, image):
            return False
        try:
            self.device.display(image)
        except OSError as error:
            if not self.failing:
                log.error(
                    "display %s stopped answering (%s); the game goes on, retrying every second", self.role, error
                )
            self.failing = True
            self.last_frame = None
            return False
        if self.failing:
            log.warning("display %s answers again; redrawn in full", self.role)
            self.failing = False
        self.last_frame = image
        self.frames_sent += 1
        return True

    def off(self) -> None:
        """Blank the display and put it to sleep (SIGTERM, shutdown)."""
        if self.device is None:
            return
        try:
            self.device.clear()
            self.device.hide()
        except OSError as error:
            log.warning("display %s did not blank: %s", self.role, error)

    def close(self) -> None:
        """Release the device's bus."""
        if self.device is None:
            return
        try:
            self.device.cleanup()
        except Exception as error:  # a device that is already gone
            log.debug("display %s clean-up: %s", self.role, error)


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.mode == b.mode and a.tobytes() == b.tobytes()
