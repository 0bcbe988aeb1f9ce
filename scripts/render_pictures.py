#!/usr/bin/env python3
"""Render what each display shows, with the daemon's own code, for the README
and for the tests' reference images.

    python scripts/render_pictures.py            # writes docs/pictures/*.png
    python scripts/render_pictures.py --reference  # rewrites tests/reference/*.png

The scene: the reference edgework, limits $25 - $1000, a red deck, a bomb with a
five-minute timer and three strikes; the player bets $25, $5 and $1 on the side
that loses and $5 and $1 on Tie (47 s into the countdown), and the round that
follows (six cards, a strike), dealt with the original's pacing on a clock
that this script moves (so the frames and their times are the daemon's own,
without the wait): the strip and the GIF show the table display (and the GIF the
bets display beside it) at each moment it changed. Then the countdown runs out.
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
from firmware.devices.wiring import COLOR_DRIVERS, ROLES  # noqa: E402
from firmware.game.scene import render_view  # noqa: E402
from firmware.simulator.pins import ManualClock  # noqa: E402

#: The clock's step while a deal is shown: every moment of the original's timeline is a multiple of it.
TICK = 1 / 16

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
        timing=replace(config.timing, pacing="original"),
        bomb=BombRules(300.0, 3),
    )
    daemon = build_daemon(
        config,
        pin_factory=mock_pin_factory(),
        device_factory=open_dummy_device,
        rng=random.Random(7),
        schedule_clock=clock,
    )
    return daemon


#: ``(seconds after the gesture, role, picture)``: each frame of the round.
Frame = tuple[float, str, Image.Image]


def scene_frames() -> tuple[dict[str, Image.Image], list[Frame]]:
    """Frames of every role at every size while chips are on the table, and the table and bets
    displays' frames through a whole round, each with its moment; then every display once the
    countdown ran out."""
    clock = ManualClock(0.0)
    daemon = _scene_daemon(clock)
    round_frames: list[Frame] = []
    gesture = [0.0]  # the clock's reading at the deal: the frames' moments count from it
    daemon.on_frame.append(lambda role, image: round_frames.append((clock() - gesture[0], role, image.copy())))
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
            pictures[f"{role}-{driver}-{width}x{height}"] = render_view(
                role, view, (width, height), mode, colour=driver in COLOR_DRIVERS
            )
    round_frames.clear()
    gesture[0] = clock()
    for role in ("table", "bets"):  # the table as the gesture finds it, a second before
        round_frames.append((-1.0, role, daemon.screens[role].last_frame.copy()))
    daemon.submit(Deal())
    daemon.catch_up()
    while daemon.call(lambda: daemon.dealing, during_round=True).result(5):
        clock.advance(TICK)
        daemon.catch_up()
    daemon.wait_idle()
    view = daemon.call(daemon.scene).result(5).table
    pictures["table-after-round-ssd1306-128x64"] = render_view("table", view, (128, 64), "1")
    dealt = list(round_frames)
    clock.advance(300.0)  # the countdown runs out
    daemon.wait_idle()
    exploded = daemon.call(daemon.scene).result(5)
    pictures["exploded-ssd1306-128x64"] = render_view("table", exploded.view("table"), (128, 64), "1")
    pictures["casing-exploded-ssd1306-128x32"] = render_view("casing", exploded.view("casing"), (128, 32), "1")
    daemon.stop()
    daemon.board.close()
    return pictures, dealt


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


def table_moments(frames: list[Frame]) -> list[tuple[float, Image.Image]]:
    """The table display's frames of the round from the gesture on, each with its moment."""
    return [(at, image) for at, role, image in frames if role == "table" and at >= 0]


def round_strip(frames: list[tuple[float, Image.Image]], scale: int = 2, per_row: int = 5) -> Image.Image:
    """The frames in rows of ``per_row``, each with its moment under it (seconds after the gesture)."""
    from PIL import ImageDraw

    from firmware.render.canvas import draw_text

    gap, label = 6, 12
    first = frames[0][1]
    cell_w, cell_h = first.width * scale + gap, first.height * scale + label + gap
    rows = (len(frames) + per_row - 1) // per_row
    strip = Image.new("RGB", (min(len(frames), per_row) * cell_w + gap, rows * cell_h + gap), (40, 40, 40))
    draw = ImageDraw.Draw(strip)
    for number, (at, frame) in enumerate(frames):
        x, y = gap + (number % per_row) * cell_w, gap + (number // per_row) * cell_h
        strip.paste(oled_look(frame, scale), (x, y))
        draw_text(draw, (x, y + frame.height * scale + 2), f"{at:.2f} s", (220, 220, 220))
    return strip


def round_gif(frames: list[Frame], scale: int = 3) -> tuple[list[Image.Image], list[int]]:
    """The table and bets displays side by side at each moment either changed, and how long each
    picture stays (ms): the round at its own pace, the last picture held two seconds."""
    shown: dict[str, Image.Image] = {}
    moments: list[tuple[float, Image.Image]] = []
    for at, role, image in frames:
        if role not in ("table", "bets"):
            continue
        shown[role] = image
        if "table" in shown and "bets" in shown:
            table, bets = oled_look(shown["table"], scale), oled_look(shown["bets"], scale)
            both = Image.new("RGB", (table.width + bets.width + 12, max(table.height, bets.height)), (40, 40, 40))
            both.paste(table, (0, 0))
            both.paste(bets, (table.width + 12, 0))
            if moments and moments[-1][0] == at:
                moments[-1] = (at, both)
            else:
                moments.append((at, both))
    durations = [round((b[0] - a[0]) * 1000) for a, b in zip(moments, moments[1:], strict=False)] + [2000]
    return [image for _, image in moments], durations


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
    round_strip(table_moments(strip)).save(out / "round-strip.png")
    frames, durations = round_gif(strip)
    frames[0].save(out / "round.gif", save_all=True, append_images=frames[1:], duration=durations, loop=0)
    print(f"wrote {len(pictures) + 2} pictures to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
