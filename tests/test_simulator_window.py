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


def _key(pygame, kind, key, char=""):
    pygame.event.post(pygame.event.Event(kind, key=key, unicode=char, mod=0, scancode=0))


def test_window_keys_drive_the_pins(mock_factory, tmp_path):
    import random

    import pygame

    from firmware.app import build_daemon
    from firmware.devices.displays import open_dummy_device

    daemon = build_daemon(
        make_config(), pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(3)
    )
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("exit", run_window(daemon, max_seconds=6)))
    thread.start()
    assert daemon.ready.wait(5)
    time.sleep(0.5)  # the window is open
    _key(pygame, pygame.KEYDOWN, pygame.K_2, "2")
    time.sleep(0.1)
    _key(pygame, pygame.KEYUP, pygame.K_2)
    time.sleep(0.3)
    assert daemon.module.stacks["banker"] == [1]
    _key(pygame, pygame.KEYDOWN, pygame.K_2, "2")  # held for 0.8 s: clears the area
    time.sleep(0.8)
    _key(pygame, pygame.KEYUP, pygame.K_2)
    time.sleep(0.3)
    assert daemon.module.stacks["banker"] == []
    _key(pygame, pygame.KEYDOWN, pygame.K_x, "x")
    thread.join(8)
    assert result.get("exit") == 0
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"
