"""``baccarat casing --out FILE``: each format opened and checked, the bomb it draws, bad input.

The SVG is parsed (its QR code rebuilt from its rectangles and compared with
segno's matrix), the PNG's pixels are sampled where the drawing puts things,
and the PDF is read back with pypdf (its page, its size, its text).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from baccarat_core.bomb import RandomBombs
from firmware import cli
from firmware.casing import Casing, plates_for_ports
from firmware.casing.drawing import to_svg
from firmware.casing.layout import HEIGHT, MANUAL_URL, WIDTH, draw_casing, qr_modules

pypdf = pytest.importorskip("pypdf", reason="pip install pypdf (scripts/test.sh does)")

SVG = "{http://www.w3.org/2000/svg}"
BOMB = ["--serial", "KT4NE1", "--ports", "Serial,Parallel,PS/2,USB", "--lit", "FRK", "--unlit", "CAR,BOB"]
BOMB += ["--batteries", "AA,D,D", "--solved", "3"]


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main(["casing", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in (g.get("class") or "").split()]


def test_svg_shows_the_bomb_and_a_qr_code_to_the_manual(tmp_path: Path, capsys) -> None:
    out = tmp_path / "casing.svg"
    code, stdout, _ = run([*BOMB, "--out", str(out)], capsys)
    assert code == 0 and stdout == f"wrote {out} (serial number KT4NE1)\n"
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    assert (root.get("width"), root.get("height")) == (f"{WIDTH:g}mm", f"{HEIGHT:g}mm")
    assert root.get("viewBox") == f"0 0 {WIDTH:g} {HEIGHT:g}"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "KT4NE1" in texts and "SERIAL #" in texts
    assert [g.get("data-serial") for g in groups(root, "serial")] == ["KT4NE1"]
    plates = [g.get("data-ports") for g in groups(root, "plate")]
    assert plates == ["Parallel,Serial", "PS/2", "USB"], "ports from a list go on the game's plates"
    lit = [g.get("data-label") for g in groups(root, "lit")]
    unlit = [g.get("data-label") for g in groups(root, "unlit")]
    assert lit == ["FRK"] and sorted(unlit) == ["BOB", "CAR"]
    assert sorted(g.get("data-holder") for g in groups(root, "battery")) == ["AA", "D", "D"]
    assert [g.get("data-solved") for g in groups(root, "solved")] == ["3"]
    assert [g.get("data-strikes") for g in groups(root, "strikes")] == ["0"]
    timer = groups(root, "timer")[0]
    assert "none" in timer.get("class").split(), "no timer: its place shows none"
    # Every widget sits inside one of the four sides.
    sides = {g.get("id") for g in groups(root, "side")}
    assert sides == {"side-1", "side-2", "side-3", "side-4"}

    # The QR code, rebuilt from its rectangles, is segno's code of the manual's address.
    qr = groups(root, "qr")[0]
    assert qr.get("data-url") == MANUAL_URL
    count = int(qr.get("data-modules"))
    x0, y0, size = (float(qr.get(k)) for k in ("data-x", "data-y", "data-size"))
    cell = size / (count + 8)
    grid = [[False] * count for _ in range(count)]
    for rect in qr.iter(f"{SVG}rect"):
        if rect.get("fill") != "#000000":
            continue
        row = round((float(rect.get("y")) - y0) / cell) - 4
        first = round((float(rect.get("x")) - x0) / cell) - 4
        for col in range(first, first + round(float(rect.get("width")) / cell)):
            grid[row][col] = True
    assert tuple(map(tuple, grid)) == qr_modules()


def sample_qr(image: Image.Image, dpi: int) -> tuple[tuple[bool, ...], ...]:
    """The QR code read off a PNG of the casing, module by module, where the drawing puts it."""
    root = ET.fromstring(to_svg(draw_casing(Casing("X"))))
    group = groups(root, "qr")[0]
    x0, y0, size = (float(group.get(k)) for k in ("data-x", "data-y", "data-size"))
    count = int(group.get("data-modules"))
    px = dpi / 25.4
    cell = size / (count + 8)
    return tuple(
        tuple(
            max(image.getpixel((int((x0 + (4 + c + 0.5) * cell) * px), int((y0 + (4 + r + 0.5) * cell) * px)))) < 100
            for c in range(count)
        )
        for r in range(count)
    )


def test_png_is_the_same_drawing_in_pixels(tmp_path: Path, capsys) -> None:
    out = tmp_path / "casing.png"
    code, _, _ = run([*BOMB, "--out", str(out), "--dpi", "150"], capsys)
    assert code == 0
    image = Image.open(out)
    assert image.format == "PNG"
    assert image.size == (round(WIDTH * 150 / 25.4), round(HEIGHT * 150 / 25.4))
    assert round(image.info["dpi"][0]) == 150, "the PNG says its resolution, so it prints 1:1"
    image = image.convert("RGB")
    assert sample_qr(image, 150) == qr_modules()
    # The serial sticker's red band, where the SVG says the sticker is.
    svg = tmp_path / "casing.svg"
    run([*BOMB, "--out", str(svg)], capsys)
    sticker = groups(ET.parse(svg).getroot(), "serial")[0]
    band = sticker.findall(f"{SVG}rect")[1]
    x, y = float(band.get("x")) + float(band.get("width")) / 2, float(band.get("y")) + 1
    r, g, b = image.getpixel((int(x * 150 / 25.4), int(y * 150 / 25.4)))
    assert r > 180 and g < 90 and b < 90, (r, g, b)


@pytest.mark.parametrize(("paper", "size"), [("a4", (841.89, 595.28)), ("letter", (792.0, 612.0))])
def test_pdf_is_one_landscape_sheet_with_the_casing_1_to_1(tmp_path: Path, capsys, paper, size) -> None:
    out = tmp_path / "casing.pdf"
    code, _, _ = run([*BOMB, "--out", str(out), "--paper", paper], capsys)
    assert code == 0
    pdf = pypdf.PdfReader(io.BytesIO(out.read_bytes()))
    assert len(pdf.pages) == 1
    page = pdf.pages[0]
    assert (round(float(page.mediabox.width), 1), round(float(page.mediabox.height), 1)) == (
        round(size[0], 1),
        round(size[1], 1),
    )
    text = page.extract_text()
    for word in ("SERIAL #", "KT4NE1", "FRK", "CAR", "BOB", "Parallel", "PS/2", "USB", "THE MANUAL", "STRIKES"):
        assert word in text, word
    assert pdf.metadata.title == "Bomb casing, serial number KT4NE1"


def test_seed_draws_the_bomb_deck_seed_draws(tmp_path: Path, capsys) -> None:
    out = tmp_path / "game2.svg"
    assert run(["--seed", "7", "--game", "2", "--out", str(out)], capsys)[0] == 0
    bomb = RandomBombs(7).bomb(2)
    root = ET.parse(out).getroot()
    assert groups(root, "serial")[0].get("data-serial") == bomb.serial
    assert [tuple(filter(None, g.get("data-ports").split(","))) for g in groups(root, "plate")] == list(bomb.plates)
    assert sorted(g.get("data-holder") for g in groups(root, "battery")) == sorted(bomb.batteries)


def test_config_edgework_by_default(tmp_path: Path, capsys) -> None:
    out = tmp_path / "c.svg"
    assert run(["--out", str(out)], capsys)[0] == 0  # the reference build's config: fixed edgework
    root = ET.parse(out).getroot()
    assert groups(root, "serial")[0].get("data-serial") == "AB3DE4"
    default = (Path(__file__).resolve().parent.parent / "firmware" / "config" / "default-config.toml").read_text()
    lines = [line for line in default.splitlines() if not line.startswith(("serial =", "ports =", "lit =", "unlit ="))]
    text = "\n".join(lines).replace('mode = "fixed"', 'mode = "random"\nseed = 11', 1)
    assert 'mode = "random"' in text
    config = tmp_path / "random.toml"
    config.write_text(text)
    assert run(["--config", str(config), "--game", "3", "--out", str(out)], capsys)[0] == 0
    assert groups(ET.parse(out).getroot(), "serial")[0].get("data-serial") == RandomBombs(11).bomb(3).serial


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out", "x.gif"], "--out x.gif: the file name must end in .svg, .png, .pdf"),
        (["--seed", "3", "--serial", "AB1", "--out", "x.svg"], "--serial describes a bomb and the seed draws one"),
        (["--serial", "AB!", "--out", "x.svg"], "must be 1 to 6 letters or digits"),
        (["--serial", "AB1", "--ports", "Paralel", "--out", "x.svg"], "did you mean Parallel?"),
        (["--serial", "AB1", "--batteries", "AAA", "--out", "x.svg"], "is not a battery holder"),
        (["--out", "/nonexistent-dir/x.svg"], "cannot write (No such file or directory)"),
        (["--dpi", "10", "--out", "x.png"], "dpi 10 is below 72"),
        (["--paper", "a3", "--out", "x.pdf"], "invalid choice: 'a3'"),
        (["--game", "2", "--out", "x.svg"], "--game is only read with --seed"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        code, out, err = run(argv, capsys)
    except SystemExit as exit_:  # argparse's own refusals
        code, captured = exit_.code, capsys.readouterr()
        out, err = captured.out, captured.err
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert not any(tmp_path.iterdir()), "a refused command wrote a file"


def test_plates_for_ports_never_puts_two_alike_on_one_plate() -> None:
    plates = plates_for_ports(("Serial", "Serial", "DVI-D", "Stereo RCA", "DVI-D", "Parallel"))
    assert plates == (("Parallel", "Serial"), ("Serial",), ("DVI-D", "Stereo RCA"), ("DVI-D",))
    for plate in plates:
        assert len(set(plate)) == len(plate)


def test_ports_none_is_no_port_and_minutes_print_the_clock(tmp_path: Path, capsys) -> None:
    """``--ports none`` (what ``status`` prints for no ports) draws no plate and counts no port; a
    casing for a party with a countdown shows its full time, not NO TIMER (issue 32, path 3)."""
    from baccarat_core.edgework import join_names, split_list

    assert split_list("none") == split_list(" None ") == () and split_list(join_names(())) == ()
    out = tmp_path / "casing.svg"
    code, said, _ = run(["--out", str(out), "--serial", "AB1CD2", "--ports", "none", "--minutes", "5"], capsys)
    assert code == 0, said
    root = ET.parse(out).getroot()
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "none" not in text.lower().split() and "05:00" in text and "TIME LEFT" in text and "NO TIMER" not in text
    assert not groups(root, "plate")
    code, said, _ = run(["--out", str(out), "--serial", "AB1CD2"], capsys)
    assert code == 0 and "NO TIMER" in " ".join(t.text or "" for t in ET.parse(out).getroot().iter(f"{SVG}text"))
