"""The simulator in a window: luma.emulator's pygame device shows the whole prop.

Keys 1-5 drive the betting-area pins down while held and up on release, so a
real 0.5 s hold clears an area, as on the prop; q-t hold for you.
"""

from __future__ import annotations

import time

from ..daemon import Daemon
from .compose import compose
from .keys import AREA_KEYS, action_for, press_length
from .pins import PinDriver


def run_window(daemon: Daemon, *, hold_seconds: float = 0.5, max_seconds: float | None = None) -> int:
    """Run the simulator in a pygame window until it is closed (the daemon is started and stopped here)."""
    import pygame
    from luma.emulator.device import pygame as pygame_device

    daemon.start()
    daemon.ready.wait(10)
    driver = PinDriver(daemon.board)
    first = compose(daemon)
    device = pygame_device(width=first.width, height=first.height, mode="RGB", transform="none", scale=2)
    pygame.display.set_caption("Baccarat prop simulator")
    started = time.monotonic()
    held: dict[int, str] = {}
    last = None
    try:
        while max_seconds is None or time.monotonic() - started < max_seconds:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    return 0
                if event.type == pygame.KEYDOWN:
                    key = {pygame.K_LEFT: "left", pygame.K_RIGHT: "right"}.get(event.key, event.unicode)
                    action = action_for(key)
                    if action is None:
                        continue
                    if action.kind == "quit":
                        return 0
                    if key and key in AREA_KEYS:  # a real hold: pin down until the key comes up
                        driver.press(action.input)
                        held[event.key] = action.input
                    else:
                        driver.tap_in_background(action.input, press_length(action, hold_seconds))
                elif event.type == pygame.KEYUP and event.key in held:
                    driver.release(held.pop(event.key))
            picture = compose(daemon)
            signature = picture.tobytes()
            if signature != last:
                device.display(picture)
                last = signature
            time.sleep(1 / 30)
        return 0
    except SystemExit:  # luma's window closes on Escape
        return 0
    finally:
        daemon.stop()
        daemon.board.close()
        pygame.quit()
