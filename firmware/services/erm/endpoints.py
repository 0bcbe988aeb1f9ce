"""Escape Room Master's endpoints on the console's port: ``/status``, ``/enable_status``, ``/json``,
the actions (:data:`CONTROLLER_ACTIONS`) and ``/output/<name>/<state>``, each behind ``?token=``
(``[web] controller_token``).

:class:`ErmEndpoints` is a :class:`~firmware.plugin.ConsoleExtension`: the console serves its
routes, lets a page of another origin read their answers (Escape Room Master polls with ``fetch``
from its own page: :mod:`firmware.web.cors`), keeps connections for a request with the right token,
and answers ``503`` on the health paths while the game does not come round.

:func:`controller_json` is the framework's ``GET /json``: the state as JSON numbers (``status`` 1
once solved, ``enabled`` 1 while the table is open), ``strikes``, and ``outputs``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from firmware.plugin import (
    ConsoleExtension,
    ConsoleHost,
    Throttle,
    address_key,
    json_reply,
    same_secret,
    text_reply,
    wait_words,
)

log = logging.getLogger("baccarat.web")

#: Escape Room Master's requests: each runs these commands in order and answers ``ok``.
CONTROLLER_ACTIONS: dict[str, tuple[str, ...]] = {
    "trigger": ("force_solve",),
    "reset": ("reset",),
    "enable": ("enable",),
    "disable": ("disable",),
    "reset_enable": ("reset", "enable"),
    "reset_disable": ("reset", "disable"),
}
#: The controllers' endpoints (token-gated): the only paths a page of another origin may read
#: (``Access-Control-Allow-Origin: *``: :mod:`firmware.web.cors`).
CONTROLLER_PATHS = frozenset({"/status", "/enable_status", "/json", *(f"/{action}" for action in CONTROLLER_ACTIONS)})
#: The controllers' output switches, ``/output/<name>/<state>`` (token-gated like the paths above).
CONTROLLER_OUTPUT_PREFIX = "/output/"
#: The answers that say how the prop is: ``503`` (with the right token) while the game does not come round.
HEALTH_PATHS = frozenset({"/status", "/enable_status", "/json"})
#: Where a request keeps its token check's outcome (:meth:`ErmEndpoints.check`).
_CHECKED = web.RequestKey("baccarat.token", str)


def is_controller_path(path: str) -> bool:
    """A controllers' endpoint: one of :data:`CONTROLLER_PATHS`, or an output switch."""
    return path in CONTROLLER_PATHS or path.startswith(CONTROLLER_OUTPUT_PREFIX)


def controller_json(state: Mapping[str, Any]) -> dict[str, Any]:
    """``GET /json``: the framework's numbers from a state document.

    ``outputs`` lists the prop's outputs as ``{"name": ..., "on": 0|1}``, from the state
    document's ``outputs`` (each ``{"name": str, "on": bool}``): empty while the prop has none.
    """
    return {
        "status": 1 if state.get("solved") else 0,
        "enabled": 1 if state.get("enabled", True) else 0,
        "strikes": int(state.get("strikes", 0)),
        "outputs": [{"name": str(o["name"]), "on": 1 if o.get("on") else 0} for o in state.get("outputs", ())],
    }


class ErmEndpoints(ConsoleExtension):
    """The token-gated endpoints, on the console ``host`` (its backend, quiet log and command
    path); ``token`` is ``[web] controller_token`` (None: unset, every request refused)."""

    health_paths = HEALTH_PATHS

    def __init__(self, host: ConsoleHost, token: str | None) -> None:
        self.service = host
        self.token = token
        #: Wrong controller tokens: ten per address a minute.
        self.token_throttle = Throttle(window=60.0)

    def cross_origin(self, path: str) -> bool:
        """Every endpoint: Escape Room Master reads them from its own page."""
        return is_controller_path(path)

    def trusted(self, request: Any) -> bool | None:
        """An endpoint's request with the right token (checked once: :meth:`check`)."""
        return self.check(request) == "ok" if is_controller_path(request.path) else None

    def register(self, app: web.Application) -> None:
        """Add the routes to ``app``."""
        app.router.add_get("/status", self._status)
        app.router.add_get("/enable_status", self._enable_status)
        app.router.add_get("/json", self._json)
        for action in CONTROLLER_ACTIONS:  # an action answers GET only: HEAD would run it too
            app.router.add_get(f"/{action}", self._request, allow_head=False)
        app.router.add_get(CONTROLLER_OUTPUT_PREFIX + "{name}/{state}", self._output, allow_head=False)

    def check(self, request: web.Request) -> str:
        """The request's token: ``ok``, ``wrong`` (missing or wrong: counted), ``locked`` (not compared:
        too many wrong ones) or ``unset`` (no ``[web] controller_token``); checked once per request.

        The guesser is the address, and the page a browser says the request came from
        (``Origin``): Escape Room Master's polls from its page are not another site's page
        in the same browser (:class:`~.throttle.Throttle`)."""
        if _CHECKED in request:
            return request[_CHECKED]
        throttle = self.token_throttle
        expected = self.token
        address, origin = request.remote, request.headers.get("Origin")
        if expected is None:
            outcome = "unset"
        elif not throttle.allow(address, origin):
            outcome = "locked"
        elif not same_secret(request.query.get("token"), expected):
            throttle.fail(address, origin)
            outcome = "wrong"
        else:
            throttle.passed(address, origin)
            outcome = "ok"
        request[_CHECKED] = outcome
        return outcome

    async def _token_refused(self, request: web.Request) -> web.Response | None:
        service = self.service
        outcome = self.check(request)
        if outcome == "unset":
            return web.Response(status=403, text="forbidden: set [web] controller_token to use these endpoints\n")
        address = request.remote
        if outcome == "locked":
            wait = self.token_throttle.retry_after(address, request.headers.get("Origin"))
            service.episodes.note(
                "token", f"web: {request.path} refused to {address_key(address)}: too many wrong tokens"
            )
            return web.Response(
                status=429,
                text=f"too many wrong tokens: wait {wait_words(wait)}\n",
                headers={"Retry-After": str(wait)},
            )
        if outcome == "wrong":
            service.episodes.note(
                "token", f"web: {request.path} refused: missing or wrong controller token (from {address_key(address)})"
            )
            await asyncio.sleep(service.wrong_secret_pause)
            return web.Response(status=403, text="forbidden: missing or wrong token\n")
        return None

    async def _status(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        solved = bool(self.service.backend.controller_state().get("solved"))
        return text_reply("triggered" if solved else "not_triggered")

    async def _enable_status(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        enabled = self.service.backend.controller_state().get("enabled", True)
        return text_reply("enabled" if enabled else "disabled")

    async def _json(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        return json_reply(controller_json(self.service.backend.controller_state()))

    async def _request(self, request: web.Request) -> web.StreamResponse:
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        action = request.path.strip("/")
        for name in CONTROLLER_ACTIONS[action]:
            reply = await self.service.run_command({"command": name})
            if not reply.get("ok"):
                log.warning("web: controller request %s failed: %s", action, reply.get("error"))
                return text_reply(f"error: {reply.get('error')}", 500)
        log.info("web: controller request %s done", action)
        return text_reply("ok")

    async def _output(self, request: web.Request) -> web.StreamResponse:
        """``GET /output/<name>/on|off|pulse?token=``: the ``output`` command; ``ok``, or one line why not."""
        refused = await self._token_refused(request)
        if refused is not None:
            return refused
        name, state = request.match_info["name"], request.match_info["state"]
        reply = await self.service.run_command({"command": "output", "name": name, "state": state})
        if not reply.get("ok"):
            log.warning("web: controller output request failed: %s", reply.get("error"))
            return text_reply(f"error: {reply.get('error')}", 400)
        log.info("web: controller output request %s %s done", name[:40], state[:10])
        return text_reply("ok")
