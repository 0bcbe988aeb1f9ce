"""Live updates for the open pages: what changed, pushed as server-sent events.

The game thread only says *that* the page view changed (the backend's
:class:`~firmware.web.backend.PageView`: frames, state, answer panel and log,
taken together); while no page is open that is one boolean test and nothing
else. With pages open, the web thread's event loop reads the newest page view
once, sends what differs from the last one sent as one update (each new frame
encoded to PNG once for every page), so an update never mixes the frames of one
moment with the text of another. The lights (and, for the console, the
outputs' pins) are polled a few times a second,
and only while a page is open (the red flash ends on a gpiozero thread that
tells nobody).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import web
from PIL import Image

from .backend import ConsoleBackend, PageView
from .replies import SECURITY_HEADERS
from .words import words

__all__ = ["LiveHub", "PageClient", "View", "event_stream", "png_data_url", "words"]

log = logging.getLogger("baccarat.web")

#: Log entries a page keeps; older ones fall off.
LOG_KEEP = 300

#: What a page may see of an update (:class:`PageClient`).
View = Callable[[dict[str, Any]], dict[str, Any]]
#: A comment line on each open event stream this often, so a vanished page is noticed.
HEARTBEAT_SECONDS = 20.0


def png_data_url(image: Image.Image) -> str:
    """``image`` as a ``data:image/png;base64,...`` URL, pixel for pixel."""
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class PageClient:
    """One open page: the updates not yet written to it, merged.

    ``view``, when given, turns each update into what this page may see before it is kept
    (the players' pages: :mod:`.players`); the console's pages see everything.
    """

    def __init__(self, view: View | None = None) -> None:
        self.wake = asyncio.Event()
        self.closed = False
        self.last_seq = 0
        self.view = view
        self._pending: dict[str, Any] = {}
        self._log: list[dict[str, Any]] = []

    def merge(self, update: dict[str, Any]) -> None:
        """Add ``update``; later values replace earlier ones, log lines add up."""
        if self.view is not None:
            update = self.view(update)
        for key, value in update.items():
            if key == "log":
                fresh = [entry for entry in value if entry["seq"] > self.last_seq]
                if fresh:
                    self.last_seq = fresh[-1]["seq"]
                    self._log = (self._log + fresh)[-LOG_KEEP:]
            elif key == "frames":
                self._pending.setdefault("frames", {}).update(value)
            elif key == "sounds":  # every cue plays, even two in one update
                self._pending.setdefault("sounds", []).extend(value)
            else:
                self._pending[key] = value
        if self._pending or self._log:
            self.wake.set()

    def take(self) -> dict[str, Any]:
        """Everything pending, emptied."""
        out = self._pending
        if self._log:
            out["log"] = self._log
        self._pending, self._log = {}, []
        self.wake.clear()
        return out


class LiveHub:
    """Turns the backend's change notices into one update per open page."""

    def __init__(self, backend: ConsoleBackend, *, light_seconds: float = 0.25) -> None:
        self.backend = backend
        self.light_seconds = light_seconds
        self.clients: set[PageClient] = set()
        self.active = False  # read on the game thread: the whole cost of the console while no page is open
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._scheduled = False
        self._sent: PageView | None = None  # the page view every open page has
        self._frames: dict[str, tuple[Image.Image, str]] = {}
        self._lights: dict[str, Any] | None = None
        self._outputs: dict[str, bool] | None = None
        self._light_task: asyncio.Task[None] | None = None
        backend.subscribe(self.changed)
        backend.subscribe_sounds(self.sounds)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop that serves the pages (call on that loop's thread)."""
        self._loop = loop

    # -- any thread -------------------------------------------------------------------------
    def changed(self) -> None:
        """Backend notice: the page view changed. Returns at once; wakes the web thread only if a page is open."""
        if not self.active or self._loop is None:
            return
        with self._lock:
            if self._scheduled:
                return
            self._scheduled = True
        try:
            self._loop.call_soon_threadsafe(self._flush)
        except RuntimeError:  # the loop closed while stopping
            pass

    def sounds(self, cues: list[dict[str, Any]]) -> None:
        """Backend notice (game thread): sounds for the open pages to play now."""
        if not self.active or self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(self.broadcast, {"sounds": cues})
        except RuntimeError:  # the loop closed while stopping
            pass

    # -- the web thread ------------------------------------------------------------------------
    def add(self, client: PageClient) -> None:
        """A page opened: give it everything, and start watching if it is the first."""
        if not self.clients:
            self.active = True
            self.backend.set_watching(True)
            self._lights = self.backend.lights()
            self._outputs = self.backend.output_pins()
            self._light_task = asyncio.get_running_loop().create_task(self._poll_lights())
        self.clients.add(client)
        page = self.backend.page()
        if self._sent is None:
            self._sent = page
        update = self._update(page, None)
        update["lights"] = self._lights
        update["outputs"] = self._outputs
        client.merge(update)

    def remove(self, client: PageClient) -> None:
        """A page closed; the last one stops the watching."""
        self.clients.discard(client)
        if self.clients:
            return
        self.active = False
        self.backend.set_watching(False)
        self._sent = None
        self._frames.clear()
        if self._light_task is not None:
            self._light_task.cancel()
            self._light_task = None

    def close(self) -> None:
        """Stopping: every page's stream ends."""
        for client in list(self.clients):
            client.closed = True
            client.wake.set()

    def broadcast(self, update: dict[str, Any]) -> None:
        """Send ``update`` to every open page."""
        for client in self.clients:
            client.merge(update)

    def _flush(self) -> None:
        with self._lock:
            self._scheduled = False
        if not self.clients:
            return
        page = self.backend.page()  # one moment's frames, state, answer and log, read once
        update = self._update(page, self._sent)
        self._sent = page
        if update:
            self.broadcast(update)

    def _update(self, page: PageView, since: PageView | None) -> dict[str, Any]:
        """What ``page`` shows that ``since`` (None: nothing yet) did not, as one update."""
        update: dict[str, Any] = {}
        frames = {
            role: self._frame_url(role, image)
            for role, image in page.frames.items()
            if since is None or image is not since.frames.get(role)
        }
        if frames:
            update["frames"] = frames
        if since is None or page.state is not since.state:
            update["state"] = {"doc": page.state, "words": words(page.state)}
        if since is None or page.answer is not since.answer:
            update["answer"] = page.answer
        after = 0 if since is None else since.log_seq
        if page.log_seq != after:
            update["log"] = self.backend.log_between(after, page.log_seq)
        return update

    def _frame_url(self, role: str, image: Image.Image | None) -> str | None:
        if image is None:
            return None
        cached = self._frames.get(role)
        if cached is not None and cached[0] is image:
            return cached[1]
        url = png_data_url(image)
        self._frames[role] = (image, url)
        return url

    async def _poll_lights(self) -> None:
        while True:
            await asyncio.sleep(self.light_seconds)
            try:
                lights = self.backend.lights()
                outputs = self.backend.output_pins()
            except Exception:  # noqa: BLE001 - a light closed while stopping
                continue
            if lights != self._lights:
                self._lights = lights
                self.broadcast({"lights": lights})
            if outputs != self._outputs:  # a pulse's end or a cut-off tells nobody: seen here
                self._outputs = outputs
                self.broadcast({"outputs": outputs})


async def event_stream(request: web.Request, hub: LiveHub, view: View | None = None) -> web.StreamResponse:
    """Server-sent events of ``hub``'s updates, through ``view`` when given (the players' pages:
    :class:`PageClient`), until the page goes; a comment line every :data:`HEARTBEAT_SECONDS` so a
    vanished page is noticed."""
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
            **SECURITY_HEADERS,
        }
    )
    await response.prepare(request)
    client = PageClient(view)
    hub.add(client)
    try:
        await response.write(b"retry: 2000\n\n")
        while not client.closed:
            try:
                await asyncio.wait_for(client.wake.wait(), HEARTBEAT_SECONDS)
            except TimeoutError:
                await response.write(b": still here\n\n")
                continue
            if client.closed:
                break
            update = client.take()
            if update:
                data = json.dumps(update, separators=(",", ":"))
                await response.write(f"event: update\ndata: {data}\n\n".encode())
    except (ConnectionResetError, ConnectionError):
        pass
    finally:
        hub.remove(client)
    return response
