"""The tutorial's plugin (examples/relay, docs/develop/tutorial.md) as its author ships it:
installed with pip, it imports the prop only through ``firmware.plugin``, and its own tests pass
with the prop's testing fixtures, which pytest finds by itself."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_plugin_api import foreign_imports

EXAMPLE = ROOT / "examples" / "relay"
TUTORIAL = ROOT / "docs" / "develop" / "tutorial.md"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/relay installed with pip into a folder of its own, as a user installs it."""
    target = tmp_path_factory.mktemp("relay-site")
    build = tmp_path_factory.mktemp("relay-build")
    source = build / "relay"  # a copy: the build leaves its build/ and egg-info beside the sources
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": str(build)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (target / "baccarat_relay" / "__init__.py").is_file()
    return target


def test_the_relays_own_tests_pass_with_the_installed_fixtures(site: Path, tmp_path: Path) -> None:
    """Its tests, run as its author runs them: pytest in its folder, the plugin installed, the
    prop's fixtures found through the pytest11 entry point (no -p, no sys.path hack)."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_relay.py").write_bytes((EXAMPLE / "tests" / "test_relay.py").read_bytes())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(tests)],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed and int(passed.group(1)) >= 8, done.stdout[-500:]
    assert "skipped" not in done.stdout and "error" not in done.stdout.lower(), done.stdout[-500:]


def test_the_relay_imports_the_prop_only_through_the_plugin_api() -> None:
    module = EXAMPLE / "baccarat_relay" / "__init__.py"
    place = ROOT / "firmware" / "services" / "relay" / "__init__.py"  # read as if it were a package of the prop's
    assert not foreign_imports(place, ("firmware.services.relay",), text=module.read_text(encoding="utf-8"))
    assert "from firmware.plugin import" in module.read_text(encoding="utf-8")
    tests = (EXAMPLE / "tests" / "test_relay.py").read_text(encoding="utf-8")
    assert not foreign_imports(place, (), text=tests), "the relay's tests go around the API"


def test_the_tutorial_quotes_the_relay_as_it_is() -> None:
    """Each block the tutorial marks ``# from examples/relay/...`` is in that file, word for word."""
    page = TUTORIAL.read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in re.split(r"```(?:python|toml)\n", page)[1:]]
    quoted = [b for b in blocks if b.startswith("# from examples/relay/")]
    assert len(quoted) >= 5, "the tutorial quotes too little of the relay"
    for block in quoted:
        head, body = block.split("\n", 1)
        source = (ROOT / head.removeprefix("# from ").strip()).read_text(encoding="utf-8")
        assert body.rstrip("\n") in source, block[:120]
