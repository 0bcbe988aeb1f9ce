"""What the displays show, checked on the pixels (issue: prop daemon)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from baccarat_core import TableLimits
from firmware.render import BetsView, TableView, render_bets, render_placard, render_table
from scripts.render_pictures import SIZES, scene_frames, table_moments
from tests.conftest import make_config, spi_display
from tests.pixels import find_text, lit_pixels

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
    _, frames = scene
    strip = table_moments(frames)
    # The README's round (six cards): each lands face down and turns 1 s later, at the original's
    # moments on the daemon's own clock; every frame during the deal says DEALING, the last the result.
    assert [at for at, _ in strip] == [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2.5, 3.5, 4.5, 5.5, 6.75]
    assert all(find_text(f, "DEALING") for _, f in strip[:-1])
    assert find_text(strip[-1][1], "WINS") or find_text(strip[-1][1], "TIE")


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
    assert find_text(table, "10", scale=2 if height >= 96 else 1)
    # 128x32 has room for "BANKER +$0.95" beside the deck's colour, not for "WINS" too.
    assert find_text(table, "BANKER WINS +$0.95" if height >= 48 else "BANKER +$0.95")
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
        spi_display("table", "ssd1351", (128, 128), device=0, dc=24, reset=25),
        spi_display("bets", "ssd1322", (256, 64), device=1, dc=14, reset=18),
    ]
    rig = rig_factory(make_config(displays=displays))
    rig.tap("player")
    assert rig.frame("bets").size == (256, 64)
    assert find_text(rig.frame("bets"), "$1")
    assert rig.frame("table").size == (128, 128) and rig.frame("table").mode == "RGB"
    assert find_text(rig.frame("placard"), "TABLE LIMITS")


# -- the font: no letter clipped at the start of a line (issue 13) ------------------------------


def _ink(image: Image.Image) -> int:
    return sum(1 for v in image.convert("L").tobytes() if v)


def test_no_glyph_loses_a_column_at_the_start_of_a_line():
    from PIL import ImageDraw

    from firmware.render.canvas import FONT, Painter

    for code in range(33, 127):
        char = chr(code)
        # The whole glyph: drawn behind another character, so nothing cuts its left column.
        whole = Image.new("1", (20, 11))
        ImageDraw.Draw(whole).text((0, 0), " " + char, font=FONT, fill=1)
        p = Painter((20, 16), "1")
        p.text((0, 2), char)
        assert _ink(p.image) == _ink(whole), f"{char!r} lost ink when drawn at x=0"


def test_the_placard_T_has_its_whole_crossbar_and_serif():
    # "TABLE LIMITS" on a 128x32 placard is centred at x = (128 - 12 * 6) // 2 = 28.
    image = render_placard(TableLimits(5, 200), (128, 32), "1")
    rows = ["".join("#" if image.getpixel((x, y)) else "." for x in range(27, 35)) for y in range(image.height)]
    # courB08's T: a 6-pixel crossbar with serifs below both ends, then the stem.
    tops = [y for y, row in enumerate(rows) if row == ".######."]
    assert tops, "no 6-pixel crossbar starting at x=28:\n" + "\n".join(rows)
    y = tops[0]
    assert rows[y + 1] == ".#.##.#." and rows[y + 2] == "...##...", "\n".join(rows[y : y + 6])


def test_text_of_n_characters_stays_within_6n_plus_one_columns():
    from firmware.render.canvas import Painter

    p = Painter((64, 16), "1")
    p.text((10, 2), "AWAY")  # A, W, Y have ink in the last column of their cell
    box = p.image.getbbox()
    assert box is not None and box[0] == 10 and box[2] <= 10 + 4 * 6 + 1


def test_compact_bets_rows_do_not_touch():
    stacks = {area: (1000, 500, 100, 25, 5, 1, 1) for area in ("player", "banker", "tie", "player_pair", "banker_pair")}
    image = render_bets(BetsView(stacks, 100, True, True), (128, 32), "1")
    for row in range(5):
        top = row * 6
        assert lit_pixels(image, (0, top, 94, top + 5)) > 0, f"row {row} is empty"
        gap = (0, top + 5, 94, top + 6)
        assert lit_pixels(image, gap) == 0, f"row {row} touches the next one"


def test_the_tiny_dollar_sign_is_an_S_with_a_bar_through_it():
    from firmware.render.canvas import Painter

    p = Painter((16, 8), "1")
    width = p.tiny((0, 0), "$")
    rows = ["".join("#" if p.image.getpixel((x, y)) else "." for x in range(width)) for y in range(5)]
    middle = width // 2
    assert all(row[middle] == "#" for row in rows), rows  # the bar, top to bottom
    assert rows[1][0] == "#" and rows[1][-1] == "." and rows[3][0] == "." and rows[3][-1] == "#", rows  # the S


def test_bets_show_money_as_everywhere_else():
    image = render_bets(BetsView({"player": (1000,), "banker": (25000, 5000)}, 1000, True, True), (128, 64), "1")
    assert find_text(image, "$1000") and not find_text(image, "$1,000")
    assert find_text(image, "$30,000")
    assert find_text(image, "CHIP $1000")
