"""The simulator's window (luma.emulator's pygame device) with SDL's dummy video
driver: keys go to the mock pins, a held key is a real hold (issue: prop daemon)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from firmware.simulator.window import run_window
from tests.conftest import make_config


@pytest.fixture(autouse=True)
def dummy_video(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def _until(condition, timeout: float = 20.0) -> bool:
    """True once ``condition()`` is, False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _key(pygame, kind, key, char=""):
    pygame.event.post(pygame.event.Event(kind, key=key, unicode=char, mod=0, scancode=0))


def test_window_keys_drive_the_pins(mock_factory, tmp_path):
    import random

    import pygame

    from firmware.app import build_daemon
    from firmware.devices.displays import open_dummy_device

    config = make_config()
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(3))
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("exit", run_window(daemon, max_seconds=60)))
    thread.start()
    assert daemon.ready.wait(5)
    assert _until(lambda: pygame.display.get_init() and pygame.display.get_surface() is not None), "no window"
    banker = daemon.board.inputs["banker"]

    def down() -> bool:
        return bool(banker.button.pin.state) == banker.pressed_high

    _key(pygame, pygame.KEYDOWN, pygame.K_2, "2")
    assert _until(down), "the key did not drive the pin"
    time.sleep(2 * config.timing.debounce_seconds)  # at least the debounce: a lower bound (longer is still a tap)
    _key(pygame, pygame.KEYUP, pygame.K_2)
    assert _until(lambda: daemon.module.stacks["banker"] == [1]), daemon.module.stacks
    _key(pygame, pygame.KEYDOWN, pygame.K_2, "2")  # held: clears the area once the hold's time is up
    assert _until(down), "the key did not drive the pin"
    assert _until(lambda: daemon.module.stacks["banker"] == []), daemon.module.stacks
    _key(pygame, pygame.KEYUP, pygame.K_2)
    assert _until(lambda: not down())
    _key(pygame, pygame.KEYDOWN, pygame.K_x, "x")
    thread.join(8)
    assert result.get("exit") == 0
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"


def test_the_window_is_scaled_by_a_whole_number_with_crisp_pixels(mock_factory):
    import random

    import pygame

    from firmware.app import build_daemon
    from firmware.devices.displays import open_dummy_device
    from firmware.simulator.compose import compose
    from firmware.simulator.screenlog import RecentLog

    daemon = build_daemon(
        make_config(), pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(3)
    )
    recent = RecentLog()
    recent.add("a log line under the key map")
    result: dict = {}
    thread = threading.Thread(
        target=lambda: result.setdefault("exit", run_window(daemon, max_seconds=3, scale=3, recent=recent))
    )
    thread.start()
    assert daemon.ready.wait(5)
    time.sleep(1.0)
    picture = compose(daemon, log=recent.lines, strikes=0)
    surface = pygame.display.get_surface()
    assert surface.get_size() == (picture.width * 3, picture.height * 3)
    shown = pygame.image.tobytes(surface, "RGB")
    thread.join(8)
    assert result.get("exit") == 0
    from PIL import Image

    window = Image.frombytes("RGB", (picture.width * 3, picture.height * 3), shown)
    # Nearest-neighbour: every picture pixel is a 3x3 square of its own colour, no blur.
    assert window.resize(picture.size, Image.NEAREST).tobytes() == picture.tobytes()
    assert window.tobytes() == picture.resize(window.size, Image.NEAREST).tobytes()


def test_the_default_scale_is_the_largest_that_fits_the_screen():
    from firmware.simulator.window import FALLBACK_SCALE, fit_scale

    assert fit_scale((484, 230), (1920, 1080)) == 3  # 1452x690 fits, 1936 wide does not
    assert fit_scale((484, 230), (3840, 2160)) == 7
    assert fit_scale((484, 230), (800, 600)) == 1
    assert fit_scale((484, 230), (400, 300)) == 1  # never below 1
    assert fit_scale((484, 230), None) == FALLBACK_SCALE  # SDL's dummy driver knows no screen


def test_no_pygame_banner():
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    code = "import firmware.simulator, pygame"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "pygame" not in out.stdout + out.stderr
    bare = subprocess.run([sys.executable, "-c", "import pygame"], capture_output=True, text=True, env=env)
    assert "pygame" in bare.stdout  # the banner that the simulator hides
