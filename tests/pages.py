"""Helpers for the pages' tests: a prop of any config with its console and History view, and the
checks the pages' layout tests share (an element's box, whole-pixel frames on a screenshot).

The prop is the tests' usual daemon (MockFactory pins, luma dummy displays) with the real
``WebService`` on a free loopback port, as :mod:`tests.browser` makes it, but from a whole
:class:`~firmware.config.Config` (random edgework cannot be merged over the reference config's
fixed one) and with the History view.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from baccarat_core.records import replace
from firmware.app import build_daemon, close_daemon
from firmware.config import Config, parse_config
from firmware.devices.displays import open_dummy_device
from firmware.history import HistoryKeeper
from firmware.history.store import FileStore
from firmware.room.commands import GameMaster
from firmware.web.backend import DaemonBackend
from firmware.web.history import HistoryPages
from firmware.web.server import WebService
from firmware.web.settings import WebSettings
from tests.browser import WebRig, console_parts
from tests.conftest import Rig, config_data


def random_config(**sections: Any) -> Config:
    """The reference config with a random bomb (seed 7) and ``sections`` merged over it."""
    data = config_data(state={"file": ""}, control={"socket": ""}, **sections)
    data["edgework"] = {"mode": "random", "seed": 7}
    return parse_config(data)


@pytest.fixture
def pages_web(mock_factory, tmp_path) -> Iterator:
    """``make(config, settings={...})``: a daemon of ``config`` with its console (``[web]`` settings
    over a loopback one on a free port) and its History view (a file in ``tmp_path``, its keeper as
    ``web.keeper``); ``clock``: the daemon's (a manual one); every frame sent is in
    ``web.rig.frames``. Stopped at the end."""
    made: list[tuple[WebRig, HistoryKeeper]] = []

    def make(config: Config, *, settings: dict[str, Any] | None = None, seed: int = 1, clock: Any = None) -> WebRig:
        timed = {"clock": clock} if clock is not None else {}
        daemon = build_daemon(
            config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(seed), **timed
        )
        rig = Rig(daemon, mock_factory, clock)
        rig.frames = []
        daemon.on_frame.append(lambda role, image: rig.frames.append((role, image)))
        commands = GameMaster(daemon, default_limits=config.limits)
        keeper = HistoryKeeper(FileStore(tmp_path / f"history-{len(made)}.jsonl")).attach(daemon, commands)
        backend = DaemonBackend(daemon, commands, rig.driver, name="test-prop")
        screens = daemon.screens
        displays = {role: (screens[role].size, screens[role].mode, screens[role].colour) for role in backend.roles}
        own, extensions = console_parts(settings or {}, token=None)
        web_settings = replace(WebSettings(enabled=True, port=0, front_panel=True), **own)
        service = WebService(
            backend, web_settings, history=lambda s: HistoryPages(s, keeper, displays), extensions=extensions
        )
        service.start()
        web = WebRig(rig, backend, service)
        web.keeper = keeper
        made.append((web, keeper))
        daemon.start()
        assert daemon.ready.wait(5), "daemon did not get ready"
        return web

    yield make
    for web, keeper in made:
        web.service.stop()
        web.daemon.stop()
        keeper.close()
        close_daemon(web.daemon)


def box(page: Any, selector: str) -> dict[str, float]:
    """An element's box in page pixels (scrolled pages included)."""
    return page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect(); "
        "return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }",
        selector,
    )


def assert_crisp(shot: Image.Image, area: dict[str, float], frame: Image.Image, what: str) -> int:
    """``frame`` is on the screenshot in ``area`` at a whole scale of at least 1x, every screen pixel
    the colour of its OLED pixel (a smoothed or half-pixel-shifted frame has pixels between);
    returns the scale."""
    scale = area["width"] / frame.width
    wide = f"{what} is drawn {area['width']:g} px wide: not a whole scale of {frame.width}"
    assert scale >= 1 and scale == int(scale), wide
    assert area["height"] == frame.height * scale, f"{what}: {area['height']:g} px high at {scale:g}x"
    scale = int(scale)
    x0, y0 = round(area["x"]), round(area["y"])  # the browser paints a box from the nearest pixel
    source = frame.convert("RGB")
    wrong = []
    for y in range(frame.height * scale):
        for x in range(frame.width * scale):
            want = source.getpixel((x // scale, y // scale))
            got = shot.getpixel((x0 + x, y0 + y))
            if max(abs(a - b) for a, b in zip(want, got, strict=True)) > 24:
                wrong.append((x, y))
    assert not wrong, f"{what}: {len(wrong)} screen pixels are not their OLED pixel's colour, first {wrong[:5]}"
    return scale
