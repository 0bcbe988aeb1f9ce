"""The simulator in a window: luma.emulator's pygame device shows the whole prop.

Keys 1-5 drive the betting-area pins down while held and up on release, so a
real 0.5 s hold clears an area, as on the prop; q-t hold for you.
"""

from __future__ import annotations

import time

from ..daemon import Daemon
from .compose import compose
from .keys import AREA_KEYS, PinDriver, action_for


def run_window(daemon: Daemon, *, max_seconds: float | None = None) -> int:
    import pygame
    from luma.emulator.device import pygame as pygame_device

    daemon.start()
    daemon.ready.wait(10)
    driver = PinDriver(daemon.board, hold_seconds=daemon.config.timing.hold_seconds)
    first = compose(daemon)
    device = pygame_device(width=first.width, height=first.height, mode="RGB", transform="none", scale=2)
    pygame.display.set_caption("Baccarat prop simulator")
    started = time.monotonic()
    held: dict[int, object] = {}
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
                        driver.down(action)
                        held[event.key] = action
                    else:
                        driver.tap(action)
                elif event.type == pygame.KEYUP and event.key in held:
                    driver.up(held.pop(event.key))
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
