"""The room controllers' endpoints (Escape Room Master), and what lets a controller in a browser reach them.

:class:`ControllerEndpoints` serves ``/status``, ``/enable_status``, ``/json``, the actions
(:data:`CONTROLLER_ACTIONS`) and ``/output/<name>/<state>``, each behind ``?token=``.

Escape Room Master polls props with ``fetch`` from its own page, so the
browser lets it read an answer only when the answer says
``Access-Control-Allow-Origin: *`` (the reference prop framework for it,
Escape Room Techs' FX framework, sends that header on every reply and says
Escape Room Master cannot connect without it). :func:`cors_middleware` adds the
header to the controllers' endpoints only, and answers a browser's ``OPTIONS``
preflight there. Every other route (the console's pages, its session routes,
its event stream, its commands) keeps the browser's same-origin rule: a page
of another origin can neither read them nor post to them.

The wildcard carries no credentials: a browser never sends cookies on a
request answered with ``*`` unless the page asked, and never lets the page read
such an answer then. The endpoints need no cookie: their ``?token=`` is the
secret, and it is checked as before.

:func:`controller_json` is the framework's ``GET /json``: the state as JSON
numbers (``status`` 1 once solved, ``enabled`` 1 while the table is open),
``strikes``, and ``outputs``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from .auth import same_secret
from .replies import json_reply, text_reply, wait_words
from .throttle import address_key

if TYPE_CHECKING:
    from .host import Host as WebService  # its shape: server.py imports this module

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
#: (``Access-Control-Allow-Origin: *``, see :func:`cors_middleware`).
CONTROLLER_PATHS = frozenset({"/status", "/enable_status", "/json", *(f"/{action}" for action in CONTROLLER_ACTIONS)})
#: The controllers' output switches, ``/output/<name>/<state>`` (token-gated like the paths above).
CONTROLLER_OUTPUT_PREFIX = "/output/"
#: Where a request keeps its token check's outcome (:meth:`ControllerEndpoints.check`).
_CHECKED = web.RequestKey("baccarat.token", str)


def is_controller_path(path: str) -> bool:
    """A controllers' endpoint: one of :data:`CONTROLLER_PATHS`, or an output switch."""
    return path in CONTROLLER_PATHS or path.startswith(CONTROLLER_OUTPUT_PREFIX)


#: Added to every answer of a controller endpoint (success, refusal, error).
CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
#: Methods a controller endpoint takes (aiohttp answers ``HEAD`` for each ``GET`` route).
CONTROLLER_METHODS = "GET, HEAD, OPTIONS"
#: How long a browser may reuse a preflight's answer, in seconds.
PREFLIGHT_MAX_AGE = 600
#: Longest ``Access-Control-Request-Headers`` echoed back (a browser sends a few names).
MAX_REQUEST_HEADERS = 512


def cors_middleware(is_controller_path: Callable[[str], bool]) -> Middleware:
    """An aiohttp middleware: ``Access-Control-Allow-Origin: *`` on the paths ``is_controller_path``
    accepts (whatever the answer: 200, 403, 405, 500), and an answer to their ``OPTIONS`` preflight.

    Place it first (outermost), so that it sees every answer of those paths, a raised one too.
    """

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not is_controller_path(request.path):
            return await handler(request)
        if request.method == "OPTIONS":
            return preflight(request)
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            exc.headers.update(CORS_HEADERS)
            raise
        if not response.prepared:
            response.headers.update(CORS_HEADERS)
        return response

    return cors


def preflight(request: web.Request) -> web.Response:
    """The answer to a browser's ``OPTIONS`` before a cross-origin request that is not "simple".

    A ``fetch`` with a header of its own (``Cache-Control``, ``Authorization``) asks first; the
    answer allows ``GET`` with those headers and, where Chrome asks whether a page of a public
    site may reach this private address (Private Network Access), says yes: the token still decides.
    """
    headers = {
        **CORS_HEADERS,
        "Access-Control-Allow-Methods": CONTROLLER_METHODS,
        "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE),
        "Cache-Control": "no-store",
    }
    asked = request.headers.get("Access-Control-Request-Headers", "")
    if asked and len(asked) <= MAX_REQUEST_HEADERS and all(_is_header_name(n.strip()) for n in asked.split(",")):
        headers["Access-Control-Allow-Headers"] = asked
    if request.headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
        headers["Access-Control-Allow-Private-Network"] = "true"
    return web.Response(status=204, headers=headers)


def _is_header_name(name: str) -> bool:
    """An HTTP header name (a token: letters, digits and ``!#$%&'*+-.^_`|~``)."""
    return bool(name) and all(c.isascii() and (c.isalnum() or c in "!#$%&'*+-.^_`|~") for c in name)


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


class ControllerEndpoints:
    """The token-gated endpoints of :class:`~.server.WebService` (its backend, settings, token
    throttle and command path)."""

    def __init__(self, service: WebService) -> None:
        self.service = service

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
        throttle = self.service.token_throttle
        expected = self.service.settings.controller_token
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
            wait = service.token_throttle.retry_after(address, request.headers.get("Origin"))
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
