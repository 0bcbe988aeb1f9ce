"""A stranger's request that fails costs the log one line, however often it comes (issue 41 item 16):
any OSError a ``/docs/`` path causes (a 256-byte name: ENAMETOOLONG) is a 404, and a 500 anywhere is
one aggregated line (:class:`~firmware.system.noise.Noise`), never a traceback per request."""

from __future__ import annotations

import logging

import pytest

from firmware.web import docs_site
from tests.browser import web_factory  # noqa: F401 (a fixture)
from tests.test_web_hostile import all_text


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A small built site (its front page and one page in a folder)."""
    root = tmp_path / "site"
    (root / "play").mkdir(parents=True)
    (root / "index.html").write_text("<html><body>front</body></html>")
    (root / "play" / "index.html").write_text("<html><body>play</body></html>")
    monkeypatch.setattr(docs_site, "SITE", root)
    return root


@pytest.mark.parametrize(
    "path",
    [
        "/docs/" + "a" * 256,  # ENAMETOOLONG
        "/docs/play/" + "b" * 300 + "/",
        "/docs/" + "/".join(["c" * 250] * 20),  # a path longer than PATH_MAX
        "/docs/index.html/x",  # ENOTDIR
    ],
)
def test_a_path_the_system_cannot_look_up_is_a_404_without_a_line(site, web_factory, caplog, path):  # noqa: F811
    caplog.set_level(logging.DEBUG)
    web = web_factory()
    for _ in range(30):
        status, _, body = web.request("GET", path)
        assert status == 404, (path[:40], status)
        assert b"No such page" in body
    assert web.request("GET", "/docs/play/")[0] == 200
    text = all_text(caplog)
    assert "Traceback" not in text and "failed" not in text, text[-2000:]


def test_a_500_is_one_line_and_a_count_however_many_come(site, web_factory, caplog, monkeypatch):  # noqa: F811
    """A handler that raises on every request: each gets a 500, the log one line naming the error and
    where (no traceback, no query string); the count comes when the service stops."""

    async def broken(self, request):
        raise RuntimeError("a handler's own bug")

    monkeypatch.setattr(docs_site.DocsSite, "page", broken)
    caplog.set_level(logging.DEBUG)
    web = web_factory()
    for _ in range(200):
        status, _, body = web.request("GET", "/docs/anything?token=secret-in-the-query")
        assert status == 500 and b"internal error" in body
    lines = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert len(lines) == 1, lines[:5]
    assert "RuntimeError: a handler's own bug at test_web_failures.py:" in lines[0], lines[0]
    assert "/docs/anything" in lines[0] and "secret" not in all_text(caplog)
    assert "Traceback" not in all_text(caplog)
    web.service.stop()
    counts = [r.getMessage() for r in caplog.records if "more like it" in r.getMessage()]
    assert counts and counts[0].startswith("199 more like it"), counts
