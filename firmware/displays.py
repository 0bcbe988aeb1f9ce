"""OLED displays: opening luma devices and sending frames only when they change."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PIL import Image

from .config import GREYSCALE_DRIVERS, DisplayConfig

log = logging.getLogger("baccarat.displays")

DeviceFactory = Callable[[DisplayConfig], Any]


def open_luma_device(cfg: DisplayConfig) -> Any:
    """The real luma.oled device a display config describes."""
    from luma.core.interface.serial import i2c, spi
    from luma.oled import device as oled

    if cfg.interface == "i2c":
        serial = i2c(port=cfg.port, address=cfg.address)
    else:
        serial = spi(port=cfg.port, device=cfg.device, gpio_DC=cfg.dc, gpio_RST=cfg.reset,
                     bus_speed_hz=cfg.bus_speed_hz)
    driver = getattr(oled, cfg.driver)
    return driver(serial, width=cfg.width, height=cfg.height, rotate=cfg.rotate)


def open_dummy_device(cfg: DisplayConfig) -> Any:
    """A luma ``dummy`` device of the same size and mode (tests and the simulator)."""
    from luma.core.device import dummy

    return dummy(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=cfg.mode)


class Screen:
    """One display: renders are sent only when the picture changed; a device that
    fails is reported once and redrawn in full when it answers again."""

    def __init__(self, cfg: DisplayConfig, device: Any | None) -> None:
        self.cfg = cfg
        self.device = device
        self.last_frame: Image.Image | None = None
        self.failing = False
        self.frames_sent = 0
        # [web console] Called as hook(screen, image) on the game thread after each frame sent
        # (firmware/web watches the displays through it). The integrator re-creates this hook.
        self.on_frame: list[Callable[[Screen, Image.Image], None]] = []

    @property
    def role(self) -> str:
        return self.cfg.role

    @property
    def size(self) -> tuple[int, int]:
        """The picture size after rotation (a quarter turn swaps width and height)."""
        if self.cfg.rotate % 2:
            return (self.cfg.height, self.cfg.width)
        return (self.cfg.width, self.cfg.height)

    @property
    def mode(self) -> str:
        return getattr(self.device, "mode", None) or self.cfg.mode

    @classmethod
    def open(cls, cfg: DisplayConfig, factory: DeviceFactory) -> Screen:
        try:
            device = factory(cfg)
        except Exception as error:  # luma raises its own errors, OSError, or RuntimeError
            log.error("display %s is missing (%s): %s; running without it", cfg.role, cfg.describe().strip(),
                      error)
            return cls(cfg, None)
        return cls(cfg, device)

    def show(self, image: Image.Image) -> bool:
        """Send ``image`` if it differs from the last frame sent; True if sent."""
        if self.device is None:
            return False
        if self.cfg.driver in GREYSCALE_DRIVERS and image.mode == "RGB":
            image = image.convert("L").convert("RGB")
        if self.last_frame is not None and _same(self.last_frame, image):
            return False
        try:
            self.device.display(image)
        except OSError as error:
            if not self.failing:
                log.error("display %s stopped answering (%s); the game goes on, retrying every second",
                          self.role, error)
            self.failing = True
            self.last_frame = None
            return False
        if self.failing:
            log.warning("display %s answers again; redrawn in full", self.role)
            self.failing = False
        self.last_frame = image
        self.frames_sent += 1
        for hook in self.on_frame:  # [web console] see __init__
            try:
                hook(self, image)
            except Exception:
                log.exception("frame hook %r failed", hook)
        return True

    def retry(self, image: Image.Image) -> bool:
        """Resend the current picture to a failing display."""
        return self.show(image) if self.failing else False

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
        if self.device is None:
            return
        try:
            self.device.cleanup()
        except Exception as error:  # a device that is already gone
            log.debug("display %s clean-up: %s", self.role, error)


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.mode == b.mode and a.tobytes() == b.tobytes()
