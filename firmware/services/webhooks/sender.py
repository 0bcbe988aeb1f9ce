"""Webhooks: a GET or POST to each configured URL when the module is solved, strikes or resets.

For Houdini MC and anything else that takes an HTTP trigger
(``http://houdini:14999/baccarat_solved``). The game thread only hands the
event over to the web thread's event loop; the request, its timeout and the
retries (with a growing pause) run there, so a slow or dead receiver never
holds up the game. Each failed attempt is one log line, with every URL in it
(the hook's, a redirect's) stripped of credentials and query and its path's secrets hidden.

Each delivery has an id (the ``Idempotency-Key`` header; ``"id"`` in a POST's body); the
``solved``, ``strike`` and ``exploded`` ones wait in an outbox on disk until answered, and are
sent again after a restart (:mod:`.outbox`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import aiohttp

from firmware.plugin import ConsoleExtension, aiohttp_bare, ready_for_clients, scrub_urls

from .outbox import DURABLE, HEADER, Outbox, new_id
from .settings import Webhook, WebhookSettings

log = logging.getLogger("baccarat.web")  # the name its lines always had

#: Deliveries kept for the loop while the console starts; beyond, the events are not sent.
MAX_EARLY = 64


class WebhookSender(ConsoleExtension):
    """Delivers events to the configured webhooks from the console's asyncio loop."""

    def __init__(
        self,
        hooks: tuple[Webhook, ...],
        *,
        timeout: float = 3.0,
        retries: int = 3,
        backoff: float = 0.5,
        prop: str = "baccarat",
        outbox: Outbox | None = None,
    ) -> None:
        self.hooks = hooks
        #: The durable deliveries not yet answered (in memory when None is given).
        self.outbox = outbox if outbox is not None else Outbox(None)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.prop = prop
        self.delivered = 0
        self.failed = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: aiohttp.ClientSession | None = None
        self._tasks: set[asyncio.Task[bool]] = set()
        self._early: list[tuple[Webhook, dict[str, Any]]] = []
        self._early_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: WebhookSettings, *, prop: str, backoff: float = 0.5) -> WebhookSender:
        """A sender of ``settings``' hooks, its outbox where they say."""
        return cls(
            settings.hooks,
            timeout=settings.timeout_seconds,
            retries=settings.retries,
            backoff=backoff,
            prop=prop,
            outbox=Outbox(settings.outbox),
        )

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop the requests run on (the web service's); on it, the deliveries a previous run
        left in the outbox are sent again (call from the loop)."""
        for hook, body, delivery in self.outbox.load(self.hooks):
            log.info("webhook %s: sending again after a restart (id %s)", body.get("event"), delivery)
            self._start(hook, body, delivery)
        with self._early_lock:
            self._loop = loop
            early, self._early = self._early, []
        for hook, event in early:  # came while the console was starting (it starts once the game is ready)
            self._spawn(hook, event)

    def on_events(self, events: list[dict[str, Any]]) -> None:
        """Backend event sink (game thread): queue a delivery per matching hook, never wait. Before
        the loop is bound (the console starting) they wait for it, :data:`MAX_EARLY` at most."""
        for event in events:
            for hook in self.hooks:
                if hook.event == event.get("event"):
                    with self._early_lock:
                        loop = self._loop
                        if loop is None:
                            if len(self._early) < MAX_EARLY:
                                self._early.append((hook, event))
                            continue
                    try:
                        loop.call_soon_threadsafe(self._spawn, hook, event)
                    except RuntimeError:  # stopping: the loop is closed
                        log.warning(
                            "webhook %s %s not sent: the web service is stopping", hook.event, hook.redacted_url()
                        )

    def _spawn(self, hook: Webhook, event: dict[str, Any]) -> None:
        delivery = new_id()
        body = {"prop": self.prop, **event, "id": delivery}
        if event.get("event") in DURABLE:
            self.outbox.add(hook, body, delivery)
        self._start(hook, body, delivery)

    def _start(self, hook: Webhook, body: dict[str, Any], delivery: str) -> None:
        task = asyncio.get_running_loop().create_task(self._deliver_once(hook, body, delivery))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver_once(self, hook: Webhook, body: dict[str, Any], delivery: str) -> bool:
        """:meth:`deliver`, then out of the outbox (answered or given up; not when cancelled: stopping)."""
        done = await self.deliver(hook, body, delivery)
        self.outbox.done(delivery)
        return done

    async def deliver(self, hook: Webhook, body: dict[str, Any], delivery: str) -> bool:
        """Send ``body`` (the event, the prop's name and the id) to one hook, retrying; True once delivered."""
        if self._session is None:
            if aiohttp_bare():  # aiohttp's client (its TLS contexts, the CA store), put off at the start: off the loop
                await asyncio.to_thread(ready_for_clients)
            # No keep-alive: webhooks are rare, and an idle pooled connection would mean a timer.
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(force_close=True), timeout=aiohttp.ClientTimeout(total=self.timeout)
            )
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            try:
                kwargs: dict[str, Any] = {"json": body} if hook.method == "POST" else {}
                kwargs["headers"] = {HEADER: delivery}
                async with self._session.request(hook.method, hook.url, **kwargs) as response:
                    await response.read()
                    if response.status < 400:
                        self.delivered += 1
                        return True
                    problem = f"HTTP {response.status}"
                    final = 400 <= response.status < 500 and response.status not in (408, 429)
            except TimeoutError:
                problem, final = f"no answer within {self.timeout:g} s", False
            except aiohttp.TooManyRedirects as error:  # its text names the last URL, query and all
                problem, final = f"too many redirects ({len(error.history)})", False
            except aiohttp.ClientError as error:
                problem, final = f"{scrub_urls(str(error))} ({type(error).__name__})".lstrip(), False
            except ValueError as error:  # a URL aiohttp cannot use
                problem, final = scrub_urls(str(error)), True
            self.failed += 1
            more = "" if final or attempt == attempts else f"; retrying in {self.backoff * 2 ** (attempt - 1):g} s"
            log.warning(
                "webhook %s: %s %s failed (attempt %d of %d): %s%s",
                hook.event,
                hook.method,
                hook.redacted_url(),
                attempt,
                attempts,
                problem,
                more,
            )
            if final:
                break
            if attempt < attempts:
                await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
        log.error("webhook %s: %s %s not delivered", hook.event, hook.method, hook.redacted_url())
        return False

    async def close(self) -> None:
        """Stop: pending deliveries are cancelled (the durable ones stay in the outbox, for the next
        start; the others are dropped: one line says how many of each), the client session closes."""
        pending = list(self._tasks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
            kept = len(self.outbox) if self.outbox.path is not None else 0
            log.warning(
                "web service stopping: %d webhook deliveries dropped, %d kept to send at the next start",
                len(pending) - min(kept, len(pending)),
                kept,
            )
        if self._session is not None:
            await self._session.close()
            self._session = None
