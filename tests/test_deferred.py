"""Pillow's EXIF and TIFF tag tables are run when first used, not at a start (firmware/system/deferred.py,
issue 44): a start's ``PIL.Image`` leaves them unrun; the first use runs each once, on any thread."""

from __future__ import annotations

import subprocess
import sys
import threading

from firmware.system.deferred import defer
from tests.conftest import ROOT


def run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()


def test_a_start_draws_without_running_the_tag_tables_and_a_photo_still_reads_them():
    out = run(
        "import sys, io, firmware\n"
        "from PIL import Image\n"
        "im = Image.new('1', (128, 64)); im.save(io.BytesIO(), 'PNG')\n"
        "tables = [sys.modules['PIL.ExifTags'], sys.modules['PIL.TiffTags']]\n"
        "ran = lambda: ['Base' in tables[0].__dict__, 'TAGS_V2' in tables[1].__dict__]\n"
        "print(ran())\n"
        "from PIL.ExifTags import Base\n"
        "Image.new('RGB', (2, 2)).save(io.BytesIO(), 'TIFF')\n"
        "print(ran(), int(Base.Orientation))\n"
    )
    assert out.splitlines() == ["[False, False]", "[True, True] 274"]


def test_the_first_use_runs_the_module_once_whatever_the_threads(tmp_path, monkeypatch):
    (tmp_path / "counted_once.py").write_text(
        "import builtins\nbuiltins.RUNS = getattr(builtins, 'RUNS', 0) + 1\nVALUE = 7\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    defer("counted_once")
    module = sys.modules["counted_once"]
    assert getattr(builtins, "RUNS", 0) == 0
    seen: list[int] = []
    threads = [threading.Thread(target=lambda: seen.append(module.VALUE)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [7] * 8 and builtins.RUNS == 1
    del builtins.RUNS
    del sys.modules["counted_once"]


def test_a_name_already_loaded_or_not_there_is_left_alone():
    before = sys.modules["json"]
    defer("json")
    defer("no_such_module_anywhere")
    assert sys.modules["json"] is before and "no_such_module_anywhere" not in sys.modules
