"""hardware/: the pin map, wiring diagram and front panel agree with the default config."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware.devices.header import BCM_TO_PHYSICAL, I2C1_PINS, SPI0_PINS
from hardware import generate
from tests import browser
from tests.browser import png_image

chromium = browser.chromium  # the fixture: Debian's Chromium, shared by the session (the browser tier)

HARDWARE = Path(generate.__file__).parent
DOCS = HARDWARE.parent / "docs"
SVG = "http://www.w3.org/2000/svg"
CONFIG = generate.DEFAULT_CONFIG


def _config_gpios(config: dict) -> dict[str, int]:
    """Every GPIO the config names, keyed by "section.key" (read straight from the TOML)."""
    out = {}
    for section in ("inputs", "status_light", "deck_light"):
        for key, value in config[section].items():
            if type(value) is int:
                out[f"{section}.{key}"] = value
    for display in config["displays"]:
        for key in ("dc", "reset"):
            if key in display:
                out[f"{display['role']}.{key}"] = display[key]
    for output in config.get("outputs", []):
        out[f"outputs.{output['name']}"] = output["pin"]
    return out


def _pinmap_rows(text: str) -> list[tuple[int, int]]:
    """(BCM, header pin) of every GPIO row of PINMAP.md's tables."""
    return [(int(m[1]), int(m[2])) for m in re.finditer(r"^\| [^|]+ \| GPIO(\d+) \| (\d+) \|", text, re.M)]


def _copy_with(tmp_path: Path, old: str, new: str) -> Path:
    text = CONFIG.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "config.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", list(generate.outputs()))
def test_checked_in_files_are_up_to_date(name: str) -> None:
    assert (HARDWARE / name).read_text(encoding="utf-8") == generate.outputs()[name], (
        f"hardware/{name} is stale: run python3 hardware/generate.py"
    )


def test_check_mode_agrees() -> None:
    assert generate.stale() is None
    assert generate.main(["--check"]) == 0


def test_every_config_gpio_is_in_the_pinmap_with_its_header_pin() -> None:
    config = generate.load_config(CONFIG)
    rows = set(_pinmap_rows((HARDWARE / "PINMAP.md").read_text(encoding="utf-8")))
    for key, gpio in _config_gpios(config).items():
        assert (gpio, BCM_TO_PHYSICAL[gpio]) in rows, f"{key} = GPIO{gpio} missing from PINMAP.md"
    for gpio in [*I2C1_PINS.values(), SPI0_PINS["MOSI"], SPI0_PINS["SCLK"], SPI0_PINS["CE0"]]:
        assert (gpio, BCM_TO_PHYSICAL[gpio]) in rows


def test_pin_rows_match_header() -> None:
    for row in generate.pin_rows(generate.load_config(CONFIG)):
        if row.bcm is not None:
            assert BCM_TO_PHYSICAL[row.bcm] == row.physical, row


def test_a_changed_pin_makes_the_docs_differ(tmp_path: Path) -> None:
    moved = _copy_with(tmp_path, "tie = 13", "tie = 18")
    fresh = generate.outputs(moved)
    assert fresh["PINMAP.md"] != (HARDWARE / "PINMAP.md").read_text(encoding="utf-8")
    assert fresh["wiring.svg"] != (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert (18, 12) in _pinmap_rows(fresh["PINMAP.md"])
    assert (13, 33) not in _pinmap_rows(fresh["PINMAP.md"])
    assert generate.stale(moved) == "PINMAP.md"


def test_check_fails_when_a_file_is_stale(tmp_path: Path) -> None:
    for name, text in generate.outputs().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert generate.stale(directory=tmp_path) is None
    (tmp_path / "wiring.svg").write_text("<svg/>", encoding="utf-8")
    assert generate.stale(directory=tmp_path) == "wiring.svg"


def test_default_config_has_no_pin_conflicts() -> None:
    config = generate.load_config(CONFIG)
    assert generate.conflicts(config) == []
    gpios = list(_config_gpios(config).values())
    assert len(gpios) == len(set(gpios)), "a GPIO is used twice"
    buses = {*I2C1_PINS.values(), *SPI0_PINS.values(), 0, 1, generate.SHUTDOWN_GPIO}
    assert not buses & set(gpios), "a GPIO collides with I2C/SPI bus pins or the shutdown pin"
    assert all(gpio in BCM_TO_PHYSICAL for gpio in gpios)


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("tie = 13", "tie = 5", "GPIO5 is used twice"),  # two buttons
        ("tie = 13", "tie = 24", "GPIO24 is used twice"),  # a button on the display's DC
        ("tie = 13", "tie = 2", "GPIO2 is used twice: I2C1 SDA"),  # I2C bus
        ("blue = 4", "blue = 9", "GPIO9 is used twice: SPI0 MISO"),  # SPI bus (MISO is owned too)
        ("reset = 25", "reset = 7", "GPIO7 is used twice: SPI0 CE1"),
        ("deal = 21", "deal = 12", "GPIO12 is used twice"),  # the shutdown button's pin
        ("pin = 15 ", "pin = 6 ", "GPIO6 is used twice: [inputs] banker and [outputs] lock"),  # an output
        ("pin = 15 ", "pin = 3 ", "GPIO3 is used twice: I2C1 SCL and [outputs] lock"),
    ],
)
def test_conflicts_are_reported(tmp_path: Path, old: str, new: str, words: str) -> None:
    config = generate.load_config(_copy_with(tmp_path, old, new))
    assert any(words in problem for problem in generate.conflicts(config)), generate.conflicts(config)
    with pytest.raises(ValueError):
        generate.render_pinmap(config)


@pytest.mark.parametrize("name", ["wiring.svg", "front-panel.svg"])
def test_svgs_parse(name: str) -> None:
    root = ET.parse(HARDWARE / name).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_wiring_svg_labels_all_40_pins_and_every_part() -> None:
    svg = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    texts = [t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    for pin in range(1, 41):
        assert any(re.fullmatch(rf"{pin}  .+|.+  {pin}", t) for t in texts), f"header pin {pin} unlabelled"
    for row in generate.pin_rows(generate.load_config(CONFIG)):
        if row.kind in ("input", "led", "output", "spare"):
            assert row.role in texts


def test_front_panel_has_a_place_for_every_part_and_nothing_overlaps() -> None:
    config = generate.load_config(CONFIG)
    keys = {c.key for c in generate.CUTOUTS}
    for key in _config_gpios(config):
        section, name = key.split(".")
        if section == "inputs":
            assert key in keys
        elif section == "status_light":
            assert key in keys
        elif section == "deck_light":
            assert "deck_light" in keys
    for display in config["displays"]:
        assert f"displays.{display['role']}" in keys
    cutouts = generate.CUTOUTS
    for i, a in enumerate(cutouts):
        if a.key != "mount":
            half_w, half_h = a.body_w / 2, a.body_h / 2
            assert generate.EDGE_MM <= a.x - half_w and a.x + half_w <= generate.PANEL_MM - generate.EDGE_MM, a
            assert generate.EDGE_MM <= a.y - half_h and a.y + half_h <= generate.PANEL_MM - generate.EDGE_MM, a
        for b in cutouts[i + 1 :]:
            assert not generate.overlaps(a, b), (a.label, b.label)


def test_the_drilling_template_prints_on_one_a4_page_at_1_to_1(chromium) -> None:
    """Rendered by Chromium at a known scale: the page is A4, every mark lies inside the margin a
    printer leaves blank, and the panel and the scale bar measure what they say in mm."""
    svg_text = (HARDWARE / "front-panel.svg").read_text(encoding="utf-8")
    root = ET.fromstring(svg_text)
    assert (root.get("width"), root.get("height")) == ("210mm", "297mm")
    assert "print at 100 %" in svg_text and "Scale 1:1 on A4" in svg_text

    scale = 2  # device pixels per CSS pixel; a CSS pixel is 25.4 / 96 mm
    px_per_mm = scale * 96 / 25.4
    context = chromium.new_context(viewport={"width": 900, "height": 1200}, device_scale_factor=scale)
    try:
        page = context.new_page()
        page.set_content(f'<html><body style="margin:0; background:white">{svg_text}</body></html>')
        shot = png_image(page.screenshot(full_page=True))
    finally:
        context.close()
    width, height = shot.size
    pixels = shot.load()
    page_w, page_h = round(210 * px_per_mm), round(297 * px_per_mm)
    ink = [(x, y) for y in range(0, height, 2) for x in range(0, width, 2) if sum(pixels[x, y]) < 3 * 235]
    left, right = min(x for x, _ in ink) / px_per_mm, max(x for x, _ in ink) / px_per_mm
    top, bottom = min(y for _, y in ink) / px_per_mm, max(y for _, y in ink) / px_per_mm
    margin = generate.PRINT_MARGIN_MM
    assert right < page_w / px_per_mm and bottom < page_h / px_per_mm
    assert margin <= left and right <= 210 - margin, (left, right)
    assert margin <= top and bottom <= 297 - margin, (top, bottom)

    def longest_run(colour: tuple[int, int, int]) -> float:
        best = 0
        for y in range(height):
            run = 0
            for x in range(width):
                run = run + 1 if pixels[x, y] == colour else 0
                best = max(best, run)
        return best / px_per_mm

    # The panel's fill, inside its 0.5 mm outline; the scale bar, solid black.
    assert abs(longest_run((0xF3, 0xEF, 0xE6)) - (generate.PANEL_MM - 0.5)) < 0.6
    assert abs(longest_run((0, 0, 0)) - generate.SCALE_BAR_MM) < 0.5


def test_resistors_keep_led_current_within_pin_limits() -> None:
    res = generate.resistors(generate.load_config(CONFIG))
    assert len(res) == 5
    for r in res.values():
        assert r.ohms in {v * 10**d for v in generate.E12 for d in range(4)}
        assert r.ohms >= r.ideal_ohms
        assert r.worst_ma <= generate.PIN_LIMIT_MA
    assert sum(r.worst_ma for r in res.values()) <= generate.TOTAL_LIMIT_MA
    assert generate.resistor_for("red", 2.0).ohms == 270  # (3.3 - 2.0) V / 5 mA = 260 Ω -> 270 Ω


def test_readme_embeds_the_generated_files_and_names_the_resistors() -> None:
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "![" in readme and "wiring.svg" in readme and "front-panel.svg" in readme and "PINMAP.md" in readme
    for r in generate.resistors(generate.load_config(CONFIG)).values():
        assert f"{r.ohms} Ω" in readme
    assert f"gpio_pin={generate.SHUTDOWN_GPIO}" in readme


def test_the_outputs_are_in_the_pin_map_and_the_wiring_with_their_driver(tmp_path: Path) -> None:
    """The reference build's lock, and an active-low relay output added to it: each in PINMAP.md at its
    header pin with the driver it needs (never the lock on the pin), and on the wiring picture."""
    pinmap = (HARDWARE / "PINMAP.md").read_text(encoding="utf-8")
    row = next(line for line in pinmap.splitlines() if line.startswith("| lock output |"))
    assert "| GPIO15 | 10 | output |" in row and "logic-level N-MOSFET" in row and "10 kΩ gate → GND" in row
    assert "GPIO15 UART RX" not in pinmap.split("## Free GPIOs")[1], "the lock's pin is still listed free"
    relay = '\n[[outputs]]\nname = "siren"\npin = 14\nactive_high = false\non = "strike"\nmode = "pulse"\n'
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.read_text(encoding="utf-8") + relay, encoding="utf-8")
    fresh = generate.outputs(path)
    row = next(line for line in fresh["PINMAP.md"].splitlines() if line.startswith("| siren output |"))
    assert "| GPIO14 | 8 | output |" in row and "active-low relay module" in row
    assert (14, 8) in _pinmap_rows(fresh["PINMAP.md"])
    texts = [t.text for t in ET.fromstring(fresh["wiring.svg"]).iter("{http://www.w3.org/2000/svg}text")]
    assert "siren output" in texts and "lock output" in texts and texts.count("relay / MOSFET") == 2


def test_the_optional_casing_display_has_its_bus_in_the_parts_list_the_pin_map_and_the_wiring(tmp_path: Path) -> None:
    """Issue 32: the casing display's I2C pins were in neither the parts list nor the pin map. Its own bus
    (i2c-gpio on the two free GPIOs) is in PINMAP.md as optional, and becomes the display's once the
    config has one; the README's parts list and wiring give the same pins and overlay line."""
    pinmap = (HARDWARE / "PINMAP.md").read_text(encoding="utf-8")
    for name, gpio in generate.CASING_PINS.items():
        row = next(line for line in pinmap.splitlines() if line.startswith(f"| optional casing display {name} |"))
        assert f"| GPIO{gpio} | {BCM_TO_PHYSICAL[gpio]} | bus (i2c-gpio) |" in row and generate.CASING_OVERLAY in row
        assert (gpio, BCM_TO_PHYSICAL[gpio]) in _pinmap_rows(pinmap)
    free = pinmap.split("## Free GPIOs")[1]
    assert "GPIO14 UART TX (pin 8, or the casing display SDA)" in free and "(pin 12, or the casing display SCL)" in free
    texts = [t.text for t in ET.fromstring((HARDWARE / "wiring.svg").read_text()).iter(f"{{{SVG}}}text")]
    assert "optional casing display SDA" in texts and "casing display SCL" in texts
    parts = (DOCS / "build" / "parts.md").read_text(encoding="utf-8")
    parts = parts.split("## Bill of materials")[1].split("\n## ")[0]
    assert "**casing** display" in parts and "GPIO14 (SDA, pin 8) and GPIO18 (SCL, pin 12)" in parts
    assert f"`{generate.CASING_OVERLAY}`" in (DOCS / "build" / "wiring.md").read_text(encoding="utf-8")
    # With a casing display in the config, the bus is its own: no longer optional, no longer free.
    casing = (
        '\n[[displays]]\nrole = "casing"\ndriver = "ssd1306"\ninterface = "i2c"\nport = 3\naddress = 0x3C\n'
        "width = 128\nheight = 32\n"
    )
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.read_text(encoding="utf-8") + casing, encoding="utf-8")
    fresh = generate.outputs(path)["PINMAP.md"]
    assert "| casing display SDA | GPIO14 | 8 |" in fresh and "optional casing" not in fresh
    assert "| casing | SSD1306 | 128×32 | I2C bus 3 (/dev/i2c-3), address 0x3C |" in fresh
    assert fresh.split("## Free GPIOs\n\n")[1].splitlines()[0] == "none"
    # A config that gives one of those GPIOs to another part leaves the casing display's bus out.
    moved = generate.outputs(_copy_with(tmp_path, "tie = 13", "tie = 18"))["PINMAP.md"]
    assert "casing display" not in moved


def test_the_sd_card_warning_points_at_the_read_only_root() -> None:
    power = (DOCS / "build" / "power.md").read_text(encoding="utf-8")
    warning = power.split("## Safe shutdown")[1].split("```")[0]
    assert "(../operate/read-only-root.md)" in warning
    page = (DOCS / "operate" / "read-only-root.md").read_text(encoding="utf-8")
    assert "\n## What was tried where\n" in page and "\n## Trixie's traps\n" in page
    pointer = (HARDWARE / "README.md").read_text(encoding="utf-8")
    row = "| 18. A read-only root: what was tried where, and Trixie's traps | [A read-only root]"
    assert row + "(../docs/operate/read-only-root.md#what-was-tried-where) |" in pointer
