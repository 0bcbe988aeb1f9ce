"""tests/tiers.py: the markers a test earns by what it uses, the install tests' files first, the time
a test's subprocesses may take, and hypothesis's profiles (docs/develop/tests.md)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import settings

from tests import tiers
from tests.conftest import ROOT
from tests.mosquitto import Broker


def _item(*fixtures: tuple[str, object]) -> SimpleNamespace:
    """A collected test's stand-in: its fixtures by name, with their functions."""
    defs = {name: [SimpleNamespace(func=func)] for name, func in fixtures}
    return SimpleNamespace(fixturenames=list(defs), _fixtureinfo=SimpleNamespace(name2fixturedefs=defs))


def _plain():
    return 1


def _broker(tmp_path):
    return Broker(tmp_path)


def _benchmark():
    from tests.mosquitto import mosquitto_binary

    return mosquitto_binary()


def test_a_test_earns_its_markers_by_the_fixtures_it_uses():
    assert tiers.tiers_of(_item(("tmp_path", _plain))) == set()
    assert tiers.tiers_of(_item(("chromium", _plain), ("page", _plain))) == {"browser"}
    assert tiers.tiers_of(
        _item(
            ("chromium_session", _plain),
        )
    ) == {"browser"}
    assert tiers.tiers_of(_item(("broker", _broker))) == {"broker"}
    assert tiers.tiers_of(_item(("prop", _plain), ("mqtt", _broker), ("chromium", _plain))) == {"broker", "browser"}
    assert tiers.tiers_of(_item(("bench", _benchmark))) == {"broker"}


def test_the_suites_own_tests_carry_their_markers(request):
    """In this session: every test that drives Chromium is ``browser``, none without it is."""
    for item in request.session.items:
        if isinstance(item, pytest.Function):
            drives = any(name in item.fixturenames for name in tiers.BROWSER_FIXTURES)
            assert drives == (item.get_closest_marker("browser") is not None), item.nodeid
    assert request.node.get_closest_marker("browser") is None and request.node.get_closest_marker("broker") is None


def test_the_install_tests_files_come_first_then_the_longest(monkeypatch):
    def item(name: str, install: bool, file: str = "test_quick.py") -> SimpleNamespace:
        marker = object() if install else None
        return SimpleNamespace(
            name=name, path=Path(file), get_closest_marker=lambda m, marker=marker: marker if m == "install" else None
        )

    long = sorted(tiers.LONG_FILES)[0]
    items = [item("a", False), item("b", True), item("c", False), item("d", True), item("e", False, long)]
    monkeypatch.setattr(tiers, "tiers_of", lambda item: set())  # markers are not the point here
    tiers.pytest_collection_modifyitems(SimpleNamespace(getoption=lambda name: False), items)
    assert [i.name for i in items] == ["b", "d", "e", "a", "c"]
    assert all((ROOT / "tests" / name).is_file() for name in tiers.LONG_FILES)  # none renamed away


def test_a_subprocess_gets_what_is_left_of_its_tests_time(monkeypatch):
    monkeypatch.setattr(tiers, "_deadline", None)
    assert tiers.seconds_left() is None and tiers.seconds_left(60) == 60  # a test without a timeout
    monkeypatch.setattr(tiers, "_deadline", time.monotonic() + 100)
    assert 99 < tiers.seconds_left() <= 100 and tiers.seconds_left(30) == 30
    monkeypatch.setattr(tiers, "_deadline", time.monotonic() - 5)
    assert tiers.seconds_left() == 1.0, "never 0 or less: subprocess.run would not even start"


@pytest.mark.timeout(300)
def test_the_deadline_is_this_tests_timeout_less_a_tenth():
    left = tiers.seconds_left()
    assert left is not None and 260 < left <= 270  # 300 s, less 30 s to report and clean up


def test_the_profiles_scale_a_tests_examples():
    loaded = settings.get_current_profile_name()
    try:
        settings.load_profile("ci")
        assert tiers.examples(1200) == 1200
        settings.load_profile("dev")
        assert tiers.examples(1200) == 120 and tiers.examples(50) == 10
    finally:
        settings.load_profile(loaded)
