"""What lets a room controller in a browser (Escape Room Master) reach the token-gated endpoints.

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

from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

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
