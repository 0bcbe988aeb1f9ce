"""The displays' font, read from ``firmware/render/fonts/``, is Pillow's built-in courB08 glyph for glyph.

The prop ships the font as files so that a start opens a ``.pbm`` (one image reader) rather than
Pillow's embedded PNG (five readers: ``firmware/render/canvas.py``). Run as a script with
``--write`` to write the files again from the installed Pillow.
"""

from __future__ import annotations

import base64
import inspect
import io
import re
import sys
from pathlib import Path

from PIL import Image, ImageFont

from firmware.render import canvas

FONTS = Path(canvas.__file__).resolve().parent / "fonts"
#: Pillow's own loader of its built-in courB08: renamed in Pillow 10.1 (Raspberry Pi OS Bookworm's
#: python3-pil, 9.4, has only ``load_default``, which is that font there).
BUILT_IN = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)


def pillows_copy() -> tuple[bytes, Image.Image]:
    """The metrics and the glyph sheet embedded in Pillow's :data:`BUILT_IN` loader."""
    source = inspect.getsource(BUILT_IN)
    metrics, png = (base64.b64decode(blob) for blob in re.findall(r'b"""(.*?)"""', source, re.S))
    return metrics, Image.open(io.BytesIO(png))


def test_every_glyph_draws_as_pillows_own() -> None:
    ours = canvas.FONT
    pillows = BUILT_IN()
    for code in range(32, 256):
        a, b = ours.getmask(chr(code)), pillows.getmask(chr(code))
        assert (a.size, bytes(a)) == (b.size, bytes(b)), f"glyph {code} differs"
    line = "TABLE LIMITS $25 - $1,000 BANKER 8"
    assert ours.getbbox(line) == pillows.getbbox(line)


def test_the_files_are_pillows_bytes() -> None:
    metrics, sheet = pillows_copy()
    assert (FONTS / "courB08.pil").read_bytes() == metrics
    with Image.open(FONTS / "courB08.pbm") as ours:
        assert ours.mode == sheet.mode == "1"
        assert ours.size == sheet.size and ours.tobytes() == sheet.tobytes()


def test_the_font_opens_one_image_reader() -> None:
    """What a start pays for: the PPM reader, not the PNG, JPEG, GIF and BMP ones."""
    import subprocess

    code = (
        "import sys; from firmware.render import canvas; "
        "print(sorted(m for m in sys.modules if m.startswith('PIL.') and m.endswith('ImagePlugin')))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "['PIL.PpmImagePlugin']"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    data, image = pillows_copy()
    (FONTS / "courB08.pil").write_bytes(data)
    image.save(FONTS / "courB08.pbm")
