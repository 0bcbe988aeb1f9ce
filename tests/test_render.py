"""What the displays show, checked on the pixels (issue: prop daemon)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from baccarat_core import TableLimits
from firmware.render import BetsView, TableView, render_bets, render_placard, render_table
from scripts.render_pictures import SIZES, scene_frames
from tests.conftest import make_config
from tests.pixels import find_text

REFERENCE = Path(__file__).parent / "reference"


@pytest.fixture(scope="module")
def scene():
    return scene_frames()


def test_frames_match_the_reference_images(scene):
    pictures, _ = scene
    assert len(pictures) == len(list(REFERENCE.glob("*.png")))
    for name, image in pictures.items():
        reference = Image.open(REFERENCE / f"{name}.png")
        assert reference.size == image.size, name
        diff = ImageChops.difference(reference.convert("RGB"), image.convert("RGB")).getbbox()
        assert diff is None, (
            f"{name} differs from tests/reference in {diff}; if the change is wanted, "
            "run python scripts/render_pictures.py --reference"
        )


def test_a_round_is_shown_card_by_card(scene):
    _, strip = scene
    assert len(strip) >= 5
    # Each frame during the deal says DEALING; the last one shows the result.
    assert all(find_text(f, "DEALING") for f in strip[:-1])
    assert find_text(strip[-1], "WINS") or find_text(strip[-1], "TIE")


@pytest.mark.parametrize("driver, width, height, mode", SIZES)
def test_every_display_size_shows_its_text(driver, width, height, mode):
    size = (width, height)
    placard = render_placard(TableLimits(100, 150000), size, mode)
    assert placard.size == size and placard.mode == mode
    assert find_text(placard, "TABLE LIMITS")
    assert find_text(placard, "$100 - $150,000") or find_text(
        placard.resize((width // 2, height // 2), Image.NEAREST), "$100 - $150,000"
    )
    table = render_table(
        TableView("silver", 40, ("10H", "KD"), ("AS", "9C", "5D"), 0, 5, "BANKER WINS +$0.95"), size, mode
    )
    assert find_text(table, "10", scale=2 if height >= 96 else 1) and find_text(table, "BANKER WINS")
    assert find_text(table, "SILVER", dark_on_light=True) or find_text(table, "SILVER")
    bets = render_bets(BetsView({"player": (100, 25, 25), "tie": (5,)}, 25, True, True), size, mode)
    assert bets.size == size
    if height >= 48:
        assert find_text(bets, "$150") and find_text(bets, "CHIP $25")


def test_a_wrong_stack_order_is_visible():
    good = render_bets(BetsView({"player": (25, 1)}, 1), (128, 64), "1")
    bad = render_bets(BetsView({"player": (1, 25)}, 1), (128, 64), "1")
    assert find_text(good, "$26") and find_text(bad, "$26")
    assert ImageChops.difference(good, bad).getbbox() is not None


def test_displays_of_every_kind_run_in_the_daemon(rig_factory):
    displays = [
        {"role": "placard", "driver": "ssd1306", "interface": "i2c", "address": 0x3C, "width": 128, "height": 32},
        {
            "role": "table",
            "driver": "ssd1351",
            "interface": "spi",
            "port": 0,
            "device": 0,
            "dc": 24,
            "reset": 25,
            "width": 128,
            "height": 128,
        },
        {
            "role": "bets",
            "driver": "ssd1322",
            "interface": "spi",
            "port": 0,
            "device": 1,
            "dc": 14,
            "reset": 18,
            "width": 256,
            "height": 64,
        },
    ]
    rig = rig_factory(make_config(displays=displays))
    rig.tap("player")
    assert rig.frame("bets").size == (256, 64)
    assert find_text(rig.frame("bets"), "$1")
    assert rig.frame("table").size == (128, 128) and rig.frame("table").mode == "RGB"
    assert find_text(rig.frame("placard"), "TABLE LIMITS")
