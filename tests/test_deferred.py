"""Pillow's EXIF and TIFF tag tables are run when first used, not at a start (firmware/system/deferred.py,
issue 44): a start's ``PIL.Image`` leaves them unrun; the first use runs each once, on any thread."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from firmware.system.deferred import install
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

    install(("counted_once",))
    import counted_once as module

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


def test_a_name_already_loaded_stays_and_one_not_there_is_not_found(tmp_path, monkeypatch):
    before = sys.modules["json"]
    install(("json", "no_such_module_anywhere"))
    import json

    assert json is before
    with pytest.raises(ModuleNotFoundError):
        import no_such_module_anywhere  # noqa: F401


def test_the_package_names_its_deferred_submodule_as_a_plain_import_does():
    out = run(
        "import firmware, PIL.ExifTags, PIL.Image\n"
        "print(PIL.ExifTags.Base.Orientation.value, PIL.Image.ExifTags is PIL.ExifTags)"
    )
    assert out == "274 True"


def test_gpiozero_s_metadata_lookup_loads_no_mail_parser_until_a_distribution_s_metadata_is_read():
    out = run(
        "import sys, firmware, gpiozero, importlib.metadata\n"
        "mail = lambda: sorted(m for m in sys.modules if m.startswith(('email.', 'calendar')))\n"
        "print(mail())\n"
        "print(importlib.metadata.metadata('gpiozero')['Name'], 'email.message' in sys.modules)\n"
    )
    assert out.splitlines() == ["[]", "gpiozero True"]
