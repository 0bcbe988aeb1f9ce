"""The simulator in a window: luma.emulator's pygame device shows the whole prop.

Keys 1-5 drive the betting-area pins down while held and up on release, so a
real 0.5 s hold clears an area, as on the prop; q-t hold for you.

The picture is scaled by a whole number with nearest-neighbour sampling (luma's
``identity`` transform: ``pygame.transform.scale``), so every display pixel is
a crisp square; by default the largest scale that fits the screen.
"""

from __future__ import annotations

import os
import threading
import time
from types import ModuleType

from firmware.game.daemon import Daemon

from .compose import compose
from .keys import AREA_KEYS, action_for, press_length
from .pins import PinDriver
from .screenlog import RecentLog

#: Room left on the screen for the window's frame, a panel or a dock.
SCREEN_MARGIN = (40, 120)
#: The scale when the screen's size is unknown (SDL's dummy or offscreen driver).
FALLBACK_SCALE = 2
MAX_SCALE = 8


def fit_scale(size: tuple[int, int], screen: tuple[int, int] | None) -> int:
    """The largest whole scale at which a picture of ``size`` fits ``screen`` (less a margin), 1 at least."""
    if screen is None or screen[0] <= 0 or screen[1] <= 0:
        return FALLBACK_SCALE
    room_w, room_h = screen[0] - SCREEN_MARGIN[0], screen[1] - SCREEN_MARGIN[1]
    return max(1, min(MAX_SCALE, room_w // size[0], room_h // size[1]))


def screen_size(pygame: ModuleType) -> tuple[int, int] | None:
    """The desktop's size from SDL (``pygame.display`` initialised), or None when SDL cannot know it."""
    display = pygame.display
    if display.get_driver() in ("dummy", "offscreen"):
        return None
    sizes = display.get_desktop_sizes() if hasattr(display, "get_desktop_sizes") else []
    if sizes:
        return tuple(sizes[0])
    info = display.Info()
    return (info.current_w, info.current_h) if info.current_w > 0 else None


def run_window(
    daemon: Daemon,
    *,
    hold_seconds: float = 0.5,
    max_seconds: float | None = None,
    scale: int | None = None,
    recent: RecentLog | None = None,
) -> int:
    """Run the simulator in a pygame window until it is closed (the daemon is started and stopped here).

    ``scale``: display pixels per picture pixel (default: the largest that fits the screen).
    ``recent``: log lines to show under the key map.
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame
    from luma.emulator.device import pygame as pygame_device

    changed = threading.Event()

    def mark(*_: object) -> None:
        changed.set()

    daemon.on_shown.append(mark)  # strikes are read again (on the game thread) once an event is shown
    daemon.start()
    daemon.ready.wait(10)
    driver = PinDriver(daemon.board)
    strikes = daemon.call(lambda: daemon.shown().strikes, during_round=True).result(5)
    first = compose(daemon, log=recent.shown() if recent is not None else None, strikes=strikes)
    pygame.display.init()
    if scale is None:
        scale = fit_scale(first.size, screen_size(pygame))
    device = pygame_device(
        width=first.width,
        height=first.height,
        mode="RGB",
        transform="identity" if scale > 1 else "none",
        scale=scale,
    )
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
            if changed.is_set():
                changed.clear()
                strikes = daemon.call(lambda: daemon.shown().strikes, during_round=True).result(5)
            picture = compose(daemon, log=recent.shown() if recent is not None else None, strikes=strikes)
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
        if mark in daemon.on_shown:
            daemon.on_shown.remove(mark)
        daemon.board.close()
        pygame.quit()
