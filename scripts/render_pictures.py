#!/usr/bin/env python3
"""Render what each display shows, with the daemon's own code, for the README
and for the tests' reference images.

    python scripts/render_pictures.py            # writes docs/pictures/*.png
    python scripts/render_pictures.py --reference  # rewrites tests/reference/*.png

The scene: the reference edgework, limits $25 - $1000, a red deck, a bomb with a
five-minute timer and three strikes; the player bets $25 + $1 + $1 on Banker ...
(47 s into the countdown) and the round that follows; then the countdown runs out.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baccarat_core.inputs import Arrow, Deal, Press  # noqa: E402
from firmware.app import build_daemon, mock_pin_factory  # noqa: E402
from firmware.config import load_config  # noqa: E402
from firmware.devices.displays import open_dummy_device  # noqa: E402
from firmware.devices.wiring import ROLES  # noqa: E402
from firmware.scene import render_view  # noqa: E402
from firmware.simulator.pins import ManualClock  # noqa: E402

#: (driver, width, height, mode) of the displays a builder would pick.
SIZES: tuple[tuple[str, int, int, str], ...] = (
    ("ssd1306", 128, 64, "1"),
    ("ssd1306", 128, 32, "1"),
    ("ssd1322", 256, 64, "RGB"),
    ("ssd1351", 128, 128, "RGB"),
)


def _scene_daemon(clock: ManualClock):
    from baccarat_core import TableLimits
    from baccarat_core.records import replace
    from baccarat_core.timer import BombRules

    config = load_config()
    config = replace(
        config,
        limits=TableLimits(25, 1000),
        first_color="red",
        timing=replace(config.timing, card_seconds=0.0, result_seconds=0.0),
        bomb=BombRules(300.0, 3),
    )
    frames: list[Image.Image] = []

    def recording(cfg):
        device = open_dummy_device(cfg)
        if cfg.role == "table":
            show = device.display

            def display(image):
                show(image)
                frames.append(image.copy())

            device.display = display
        return device

    daemon = build_daemon(
        config, pin_factory=mock_pin_factory(), device_factory=recording, rng=random.Random(7), clock=clock
    )
    return daemon, frames


def scene_frames() -> tuple[dict[str, Image.Image], list[Image.Image]]:
    """Frames of every role at every size while chips are on the table, and the
    table display's frames through a whole round; then every display once the countdown ran out."""
    clock = ManualClock()
    daemon, table_frames = _scene_daemon(clock)
    daemon.start()
    daemon.ready.wait(10)
    game = daemon.module.next_round()
    side = "player" if game.winner == "banker" else "banker"  # a losing bet: the round ends in a strike
    for action in (
        Arrow("right"),
        Arrow("right"),
        Press(side),
        Arrow("left"),
        Press(side),
        Press("tie"),
        Arrow("left"),
        Press(side),
        Press("tie"),
    ):
        daemon.submit(action)
    daemon.wait_idle()
    clock.advance(47.4)  # the countdown started at the first press: 04:13 left
    daemon.wait_idle()
    pictures = {}
    for driver, width, height, mode in SIZES:
        for role in ROLES:
            view = daemon.call(daemon.scene).result(5).view(role)
            pictures[f"{role}-{driver}-{width}x{height}"] = render_view(role, view, (width, height), mode)
    table_frames.clear()
    daemon.submit(Deal())
    daemon.wait_idle()
    view = daemon.call(daemon.scene).result(5).table
    pictures["table-after-round-ssd1306-128x64"] = render_view("table", view, (128, 64), "1")
    strip = [f.copy() for f in table_frames]
    clock.advance(300.0)  # the countdown runs out
    daemon.wait_idle()
    exploded = daemon.call(daemon.scene).result(5)
    pictures["exploded-ssd1306-128x64"] = render_view("table", exploded.view("table"), (128, 64), "1")
    pictures["casing-exploded-ssd1306-128x32"] = render_view("casing", exploded.view("casing"), (128, 32), "1")
    daemon.stop()
    daemon.board.close()
    return pictures, strip


def oled_look(image: Image.Image, scale: int = 3) -> Image.Image:
    """Scaled up, with mono pixels in an OLED's white-blue, for the README."""
    rgb = image.convert("RGB")
    if image.mode == "1":
        rgb = Image.eval(rgb, lambda v: v)  # copy
        pixels = rgb.load()
        for y in range(rgb.height):
            for x in range(rgb.width):
                if pixels[x, y] != (0, 0, 0):
                    pixels[x, y] = (170, 220, 255)
    return rgb.resize((rgb.width * scale, rgb.height * scale), Image.NEAREST)


def round_strip(frames: list[Image.Image], scale: int = 2) -> Image.Image:
    gap = 6
    width = len(frames) * (frames[0].width * scale + gap) + gap
    strip = Image.new("RGB", (width, frames[0].height * scale + 2 * gap), (40, 40, 40))
    for number, frame in enumerate(frames):
        strip.paste(oled_look(frame, scale), (gap + number * (frame.width * scale + gap), gap))
    return strip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", action="store_true", help="rewrite tests/reference instead")
    args = parser.parse_args()
    pictures, strip = scene_frames()
    if args.reference:
        out = ROOT / "tests" / "reference"
        out.mkdir(parents=True, exist_ok=True)
        for name, image in pictures.items():
            image.save(out / f"{name}.png")
        print(f"wrote {len(pictures)} reference images to {out}")
        return 0
    out = ROOT / "docs" / "pictures"
    out.mkdir(parents=True, exist_ok=True)
    for name, image in pictures.items():
        oled_look(image).save(out / f"{name}.png")
    round_strip(strip).save(out / "round-strip.png")
    frames = [oled_look(f, 3) for f in strip]
    frames[0].save(out / "round.gif", save_all=True, append_images=frames[1:], duration=700, loop=0)
    print(f"wrote {len(pictures) + 2} pictures to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
