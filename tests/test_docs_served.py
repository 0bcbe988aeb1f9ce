"""The docs site served by the prop at /docs/ on the console's port (issue 32 part 5): read-only, no
login, only the site's own files, each page's inline scripts allowed by hash and nothing from
elsewhere; in Chromium at a phone's and a desktop's width with every request off the prop refused;
and `baccarat docs`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.web import docs_site
from tests import browser
from tests.browser import new_page, web_factory  # noqa: F401 (a fixture)
from tests.conftest import ROOT
from tests.test_docs_site import site as _site

chromium = browser.chromium
site = _site  # the built site, once a module (tests/test_docs_site.py)
PASSWORD = "a password for the console"


@pytest.fixture
def served(site, web_factory, monkeypatch):  # noqa: F811 (the fixture above)
    """A prop whose console has a password, serving ``site``."""
    monkeypatch.setattr(docs_site, "SITE", site)
    return web_factory(settings={"password": PASSWORD})


def test_the_docs_need_no_login_while_the_console_does(served):
    status, headers, body = served.request("GET", "/docs/")
    assert status == 200 and headers["content-type"].startswith("text/html"), status
    assert b"Baccarat prop" in body
    assert served.request("GET", "/")[0] == 303  # the console sends a stranger to its login
    status, headers, _ = served.request("GET", "/docs/run/console/")
    assert status == 200 and "set-cookie" not in headers


def test_a_page_may_run_only_its_own_inline_scripts(served):
    """The Content-Security-Policy names each inline script of the page by its hash, and nothing from
    another origin; the theme's scripts run (the browser test below sees no refusal)."""
    status, headers, body = served.request("GET", "/docs/play/party/")
    policy = headers["content-security-policy"]
    hashes = docs_site.script_hashes(body)
    assert status == 200 and len(hashes) >= 2, hashes
    for source in hashes:
        assert source in policy
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "default-src 'self'" in policy and "http" not in policy
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"


def test_folders_get_their_slash_and_assets_their_type(served):
    assert served.request("GET", "/docs")[:2][0] == 302
    status, headers, _ = served.request("GET", "/docs/run/console")
    assert status == 302 and headers["location"] == "/docs/run/console/"
    status, headers, _ = served.request("GET", "/docs/search/search_index.json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    status, headers, body = served.request("GET", "/docs/build/wiring.svg")
    assert status == 200 and headers["content-type"] == "image/svg+xml" and body.startswith(b"<")
    status, headers, _ = served.request("HEAD", "/docs/")
    assert status == 200


@pytest.mark.parametrize(
    "path",
    [
        "/docs/../pyproject.toml",
        "/docs/%2e%2e/pyproject.toml",
        "/docs/play/%2e%2e/%2e%2e/pyproject.toml",
        "/docs/..%2fpyproject.toml",
        "/docs/.hidden",
        "/docs/outside/",
        "/docs/no-such-page/",
        "/docs/%00",
    ],
)
def test_nothing_outside_the_site_is_served(served, site, path):
    """`..` in any spelling, a hidden name, a symlink that leads out of the site: a 404 (never the file)."""
    (site / ".hidden").write_text("secret")
    outside = site / "outside"
    if not outside.exists():
        outside.symlink_to(ROOT)
    status, _, body = served.request("GET", path)
    assert status in (404, 400), (path, status)
    assert b"secret" not in body and b"[project]" not in body and b"baccarat-prop" not in body


def test_the_docs_are_read_only(served):
    status, _, _ = served.request("POST", "/docs/", b"x", {"Content-Type": "text/plain"})
    assert status == 405


def test_a_prop_without_a_built_site_says_how_to_build_it(web_factory, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setattr(docs_site, "SITE", tmp_path / "site")
    web = web_factory()
    status, _, body = web.request("GET", "/docs/")
    assert status == 404 and b"not built" in body and b"scripts/build_docs.sh" in body
    assert web.request("GET", "/docs/run/console/")[0] == 404


def test_baccarat_docs_prints_the_address_of_the_running_prop(served, tmp_path):
    """`baccarat docs --print --port N`: this machine's address of the site (the console is bound to
    localhost here); exit 0. Without a prop there: one line and a non-zero exit."""
    run = [
        sys.executable,
        "-m",
        "firmware.cli",
        "docs",
        "--print",
        "--config",
        str(ROOT / "firmware" / "config" / "default-config.toml"),
    ]
    env = {**os.environ, "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    done = subprocess.run(
        [*run, "--port", str(served.service.port)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [f"http://127.0.0.1:{served.service.port}/docs/"]
    served.service.stop()
    done = subprocess.run(
        [*run, "--port", str(served.service.port)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "nothing serves the docs" in done.stderr and "Traceback" not in done.stderr


# -- in Chromium ------------------------------------------------------------------------------------

#: Pages looked at in Chromium: one of each part, and the long ones.
PAGES = [
    "",
    "play/party/",
    "play/simulator/",
    "run/console/",
    "run/outputs/",
    "build/wiring/",
    "build/pinmap/",
    "integrate/mqtt/",
    "integrate/home-assistant/",
    "operate/read-only-root/",
    "develop/",
    "reference/config/",
    "performance/",
]


def _open(chromium, width: int, served):
    """A page of ``width`` whose every request off the prop is refused (and recorded), and whose
    console errors are recorded."""
    context, page = new_page(chromium, width=width, height=844 if width < 600 else 900, touch=width < 600)
    outside: list[str] = []
    errors: list[str] = []
    origin = served.url

    def route(request_route):
        url = request_route.request.url
        if url.startswith(origin) or url.startswith("data:") or url.startswith("blob:"):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    context.route("**/*", route)
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, outside, errors


@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "desktop"])
def test_the_pages_show_offline_at_a_phones_and_a_desktops_width(chromium, served, width):
    """Each page loads with nothing fetched from outside the prop, no script refused or failing, and
    no page wider than the screen (a phone scrolls down, never sideways; wide tables scroll inside
    their own box). With BACCARAT_SCREENSHOT_DIR set, a picture of each."""
    shots = os.environ.get("BACCARAT_SCREENSHOT_DIR")
    context, page, outside, errors = _open(chromium, width, served)
    try:
        for path in PAGES:
            response = page.goto(f"{served.url}/docs/{path}")
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, (path, width, overflow)
            if shots:
                name = (path.strip("/").replace("/", "-") or "home") + f"-{width}.png"
                page.screenshot(path=str(Path(shots) / name), full_page=True)
    finally:
        context.close()
    assert outside == [], outside
    assert errors == [], errors


def test_the_search_works_offline(chromium, served):
    """The search runs in the page on the site's own index: a game master's words find the page."""
    context, page, outside, errors = _open(chromium, 1280, served)
    try:
        page.goto(f"{served.url}/docs/")
        page.wait_for_load_state("networkidle")
        page.locator("input.md-search__input").click(force=True)  # behind its label on a desktop
        page.keyboard.type("stuck lock")  # typed, as the search reads keys
        results = page.locator(".md-search-result__item")
        results.first.wait_for(timeout=10_000)
        assert "outputs" in page.locator(".md-search-result__link").first.get_attribute("href")
    finally:
        context.close()
    assert outside == [] and errors == [], (outside, errors)
