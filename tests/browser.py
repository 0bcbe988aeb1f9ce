"""Helpers for the web tests: a daemon with its web console, an HTTP client, a real Chromium.

The daemon is the tests' usual one (MockFactory pins, luma dummy displays);
the console is the real ``WebService`` on a free loopback port. The browser is
Debian's ``chromium`` driven by Playwright (``scripts/test.sh`` installs both;
Playwright's own browser download is never used).
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from baccarat_core.records import replace
from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster, state_document
from firmware.services import erm, webhooks
from firmware.services.webhooks.sender import WebhookSender
from firmware.services.webhooks.settings import WebhookSettings
from firmware.web.backend import DaemonBackend
from firmware.web.extension import ExtensionFactory
from firmware.web.server import WebService
from firmware.web.settings import WebSettings
from tests.conftest import Rig, make_config

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

TOKEN = "erm-token-0123456789"


def chromium_path() -> str | None:
    """Debian's Chromium, if installed."""
    for name in ("chromium", "/usr/bin/chromium", "chromium-browser"):
        found = shutil.which(name) or (name if Path(name).is_file() else None)
        if found:
            return found
    return None


_session: dict[str, Any] = {}  # the one Playwright and Chromium of this pytest process


def _lend_the_thread(mark: bool) -> None:
    """Playwright's sync API marks its event loop as running in this thread between its calls (its
    dispatcher greenlet is suspended inside ``run_forever``). Left so after a browser module, any later
    test in this process that runs asyncio itself (Clue Control's, the doctests' ``asyncio.run``) is
    refused with "cannot be called from a running event loop". So the mark is taken off when a
    module is done with the browser and put back before Playwright is called again."""
    import asyncio

    if mark:
        loop = _session.pop("loop", None)
        if loop is not None:
            asyncio._set_running_loop(loop)
    else:
        loop = asyncio._get_running_loop()
        if loop is not None:
            _session["loop"] = loop
            asyncio._set_running_loop(None)


def _shared_chromium(config: pytest.Config) -> Any:
    """The process's Chromium (a pytest-xdist worker has its own): launched at the first module that
    asks, again if it went away, closed with Playwright when the session ends."""
    _lend_the_thread(True)
    launched = _session.get("browser")
    if launched is not None and launched.is_connected():
        return launched
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (scripts/test.sh does)")
    path = chromium_path()
    if path is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; scripts/test.sh does)")
    playwright = _session.get("playwright")
    if playwright is None:
        playwright = _session["playwright"] = sync_api.sync_playwright().start()

        def stop() -> None:
            _lend_the_thread(True)
            browser = _session.pop("browser", None)
            if browser is not None and browser.is_connected():
                browser.close()
            _session.pop("playwright").stop()

        config.add_cleanup(stop)
    launched = _session["browser"] = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
    return launched


@contextlib.contextmanager
def shared_chromium(config: pytest.Config) -> Iterator[Any]:
    """The session's Chromium for one module: no browser context open on entry, what it left open
    closed on exit, and the thread's event loop free again between modules (:func:`_lend_the_thread`)."""
    launched = _shared_chromium(config)
    for context in launched.contexts:
        context.close()
    try:
        yield launched
    finally:
        if launched.is_connected():
            for context in launched.contexts:
                context.close()
        _lend_the_thread(False)


@pytest.fixture
def chromium_session(request: pytest.FixtureRequest) -> Any:
    """:func:`shared_chromium` for a test that borrows the browser as modules do, more than once."""
    return lambda: shared_chromium(request.config)


@pytest.fixture(scope="module")
def chromium(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, for a test module (which takes the fixture as
    ``chromium = browser.chromium``); the test is skipped where either is not installed.

    One Chromium serves the whole session: each module gets it with no browser context open, and
    what it leaves open is closed after it, so modules share no cookies, pages or storage (each
    test makes its own context: :func:`new_page`)."""
    with shared_chromium(request.config) as launched:
        yield launched


def new_page(chromium: Any, *, width: int = 1280, height: int = 800, touch: bool = False) -> tuple[Any, Any]:
    """A fresh browser context (no cookies) of ``width`` x ``height`` CSS pixels at scale 1, with
    a touch screen if ``touch``, and its page (10 s timeouts); close the context when done."""
    context = chromium.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1, has_touch=touch, is_mobile=False
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    """A page of 1280 x 1000 in a fresh context of :func:`chromium` (``page = browser.page``)."""
    context, made = new_page(chromium, height=1000)
    yield made
    context.close()


#: The keys of ``[web]`` that the webhooks service reads, by their settings' field names.
WEBHOOK_FIELDS = {
    "webhooks": "hooks",
    "webhook_timeout_seconds": "timeout_seconds",
    "webhook_retries": "retries",
    "webhook_outbox": "outbox",
}


def console_parts(
    settings: dict[str, Any], *, token: str | None = TOKEN
) -> tuple[dict[str, Any], list[ExtensionFactory]]:
    """``settings`` as a test gives them (``[web]``'s keys, the webhooks' and the controller token
    among them): the console's own, and the extensions the erm and webhooks services would hand it
    (their ``console_factory``; the webhooks retry after 0.05 s, doubling)."""
    own = dict(settings)
    token = own.pop("controller_token", token)
    hooks = {field: own.pop(key) for key, field in WEBHOOK_FIELDS.items() if key in own}
    hooks["hooks"] = tuple(hooks.get("hooks", ()))
    return own, [erm.console_factory(token), webhooks.console_factory(WebhookSettings(**hooks), backoff=0.05)]


class WebRig:
    """A running daemon with its web console, and a plain HTTP client for it."""

    def __init__(self, rig: Rig, backend: DaemonBackend, service: WebService) -> None:
        self.rig = rig
        self.daemon = rig.daemon
        self.backend = backend
        self.service = service
        self.cookie: str | None = None
        self.csrf: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.service.port}"

    @property
    def webhooks(self) -> WebhookSender:
        """The console's webhook sender (the webhooks service's extension)."""
        return next(e for e in self.service.extensions if isinstance(e, WebhookSender))

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | dict | None = None,
        headers: dict[str, str] | None = None,
        *,
        host: str | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request with a fresh connection; returns status, headers, body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.service.port, timeout=timeout)
        headers = dict(headers or {})
        if isinstance(body, dict):
            body = json.dumps(body)
            headers.setdefault("Content-Type", "application/json")
        if host is not None:
            headers["Host"] = host
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def login(self, password: str | None = None) -> None:
        """Get a session (logging in when a password is set) and its CSRF token."""
        if password is not None:
            status, headers, _ = self.request(
                "POST", "/login", f"password={password}", {"Content-Type": "application/x-www-form-urlencoded"}
            )
            assert status == 303, status
            self.cookie = headers["set-cookie"].split(";")[0]
            status, _, body = self.request("GET", "/api/session", headers={"Cookie": self.cookie})
        else:
            status, headers, body = self.request("GET", "/api/session")
            self.cookie = headers["set-cookie"].split(";")[0]
        assert status == 200, body
        self.csrf = json.loads(body)["csrf"]

    def post(
        self,
        path: str,
        payload: Any,
        *,
        csrf: bool = True,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, dict[str, Any]]:
        """A POST with the session cookie (and the CSRF header unless ``csrf=False``)."""
        headers = {"Cookie": self.cookie or "", "Content-Type": content_type}
        if csrf:
            headers["X-CSRF-Token"] = self.csrf or ""
        body = raw if raw is not None else json.dumps(payload).encode()
        status, _, data = self.request("POST", path, body, headers)
        return status, json.loads(data)

    def command(self, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A game-master command through the console's API."""
        return self.post("/api/command", payload)

    def state(self) -> dict[str, Any]:
        """The module's state document, read on the game thread."""
        return self.daemon.call(
            lambda: state_document(self.daemon.module, self.daemon.shown(), self.daemon.board.outputs.states())
        ).result(5)


@pytest.fixture
def web_factory(mock_factory) -> Iterator:
    """Make a daemon with its web console attached before it starts; both stop at the end."""
    made: list[WebRig] = []

    def make(
        *,
        seed: int = 1,
        front_panel: bool = True,
        settings: dict[str, Any] | None = None,
        clock: Any = None,
        **sections: Any,
    ) -> WebRig:
        sections.setdefault("state", {"file": ""})
        sections.setdefault("control", {"socket": ""})
        config = make_config(**sections)
        timed = (
            {"clock": clock, "schedule_clock": clock} if clock is not None else {}
        )  # the countdown on a manual clock
        daemon = build_daemon(
            config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(seed), **timed
        )
        rig = Rig(daemon, mock_factory, clock)
        pins = rig.driver if front_panel else None  # the page's front panel is the rig's hand
        backend = DaemonBackend(daemon, GameMaster(daemon, default_limits=config.limits), pins, name="test-prop")
        own, extensions = console_parts(settings or {})
        web_settings = replace(WebSettings(enabled=True, port=0, front_panel=front_panel), **own)
        service = WebService(backend, web_settings, extensions=extensions)
        service.start()
        web = WebRig(rig, backend, service)
        made.append(web)
        daemon.start()
        assert daemon.ready.wait(5), "daemon did not get ready"
        return web

    yield make
    for web in made:
        web.service.stop()
        web.daemon.stop()
        close_daemon(web.daemon)


def png_image(data: bytes) -> Image.Image:
    """A screenshot as an RGB image."""
    return Image.open(io.BytesIO(data)).convert("RGB")


def lit_mask(frame: Image.Image) -> list[list[bool]]:
    """Which pixels of a display frame are lit (any channel above a quarter)."""
    rgb = frame.convert("RGB")
    width, height = rgb.size
    pixels = rgb.load()
    return [[max(pixels[x, y]) > 64 for x in range(width)] for y in range(height)]


def wait_count(rig: Rig, kind: str, count: int, timeout: float = 5.0) -> None:
    """Wait until ``rig`` has seen ``count`` events of ``kind``."""
    import time

    deadline = time.monotonic() + timeout
    while rig.kinds().count(kind) < count:
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{rig.kinds().count(kind)} {kind} events within {timeout} s, not {count}; got {rig.kinds()}"
            )
        time.sleep(0.01)
    rig.daemon.wait_idle()
