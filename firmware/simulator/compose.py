"""One picture of the whole prop for the simulator: displays, lights, key map."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import NotRequired, TypedDict

from PIL import Image, ImageDraw

from firmware.game.daemon import Daemon

from ..devices.wiring import ROLES
from ..render.canvas import draw_text
from .keys import KEY_MAP_LINES

BACKGROUND = (24, 60, 36)  # baize green
GAP = 8
#: Log lines under the key map when :func:`compose` is given a log.
LOG_LINES = 4


class LightStates(TypedDict):
    """What :func:`light_states` reads: each light in words and as the colour to draw."""

    status: str
    status_rgb: tuple[int, int, int]
    deck: str
    deck_rgb: tuple[int, ...]
    #: The outputs' pins in words, ``lock ON, horn off`` (absent when the prop has none).
    outputs: NotRequired[str]


def light_states(daemon: Daemon) -> LightStates:
    """What the status and deck lights (and the outputs) show, read back from their gpiozero devices."""
    status = daemon.board.status
    red, green = bool(status.red.value), bool(status.green.value)
    deck = daemon.board.deck_light
    red_means = "RED (exploded)" if daemon.module.exploded else "RED (strike!)"  # steady once exploded
    states: LightStates = {
        "status": "GREEN (solved)" if green else red_means if red else "off (armed)",
        "status_rgb": (40, 230, 60) if green else (240, 40, 40) if red else (50, 50, 50),
        "deck": deck.color or "off",
        "deck_rgb": tuple(int(c * 255) for c in deck.led.color),
    }
    pins = daemon.board.outputs.pins()
    if pins:
        states["outputs"] = ", ".join(f"{name} {'ON' if on else 'off'}" for name, on in pins.items())
    return states


def _frame(daemon: Daemon, role: str) -> Image.Image | None:
    screen = daemon.screens.get(role)
    if screen is None or screen.last_frame is None:
        return None
    return screen.last_frame.convert("RGB")


def compose(
    daemon: Daemon, *, key_map: bool = True, log: Sequence[str] | None = None, strikes: int | None = None
) -> Image.Image:
    """The whole prop as one picture: the three displays' last frames, the lights (and ``strikes``),
    the key map and, given a ``log``, its last lines (wrapped; the picture's size does not depend on them)."""
    frames = {role: _frame(daemon, role) for role in ROLES}
    sizes = {role: (f.size if f else (128, 64)) for role, f in frames.items()}
    casing = "casing" in daemon.screens  # an optional display: beside the placard when fitted
    width = GAP + sizes["table"][0] + GAP + sizes["bets"][0] + GAP
    top_row = sizes["placard"][0] + (GAP + sizes["casing"][0] if casing else 0)
    width = max(width, GAP + top_row + GAP)
    top_h = max(sizes["placard"][1], sizes["casing"][1]) if casing else sizes["placard"][1]
    top = GAP + top_h + GAP
    lower = max(sizes["table"][1], sizes["bets"][1])
    text_h = (len(KEY_MAP_LINES) + 2) * 11 if key_map else 14
    if daemon.board.outputs.names:
        text_h += 11
    if log is not None:
        text_h += LOG_LINES * 11 + 4
    text_w = max(len(line) for line in KEY_MAP_LINES) * 6 + 2 * GAP if key_map else 0
    width = max(width, text_w)
    height = top + lower + GAP + text_h
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)

    def place(role: str, xy: tuple[int, int]) -> None:
        w, h = sizes[role]
        draw.rectangle((xy[0] - 1, xy[1] - 1, xy[0] + w, xy[1] + h), outline=(90, 90, 90))
        frame = frames[role]
        if frame is not None:
            image.paste(frame, xy)
        else:
            draw_text(draw, (xy[0] + 4, xy[1] + 4), f"no {role} display", (200, 80, 80))

    left = (width - top_row) // 2
    place("placard", (left, GAP))
    if casing:
        place("casing", (left + sizes["placard"][0] + GAP, GAP))
    place("table", (GAP, top))
    place("bets", (GAP + sizes["table"][0] + GAP, top))

    lights = light_states(daemon)
    y = top + lower + GAP
    draw.ellipse((GAP, y, GAP + 9, y + 9), fill=lights["status_rgb"])
    draw_text(draw, (GAP + 14, y), f"STATUS {lights['status']}", (230, 230, 230))
    x = width // 2 + 10
    draw.ellipse((x, y, x + 9, y + 9), fill=lights["deck_rgb"])
    draw_text(draw, (x + 14, y), f"DECK {lights['deck']}", (230, 230, 230))
    if strikes is not None:
        text = f"STRIKES {strikes}"
        draw_text(draw, (width - GAP - len(text) * 6, y), text, (240, 120, 100) if strikes else (230, 230, 230))
    y += 14
    if "outputs" in lights:
        draw_text(draw, (GAP, y), f"OUTPUTS {lights['outputs']}", (240, 200, 120))
        y += 11
    if key_map:
        for number, line in enumerate(KEY_MAP_LINES):
            draw_text(draw, (GAP, y + number * 11), line, (255, 230, 150))
        y += len(KEY_MAP_LINES) * 11
    if log is not None:
        room = (width - 2 * GAP) // 6
        rows: list[str] = []
        for line in log:
            rows += textwrap.wrap(line, room, subsequent_indent="  ") or [""]
        draw.line((GAP, y + 1, width - GAP, y + 1), fill=(60, 100, 70))
        for number, line in enumerate(rows[-LOG_LINES:]):
            draw_text(draw, (GAP, y + 4 + number * 11), line, (200, 220, 200))
    return image
