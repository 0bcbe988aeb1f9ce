"""What lets a room controller's page in a browser read the console's controller endpoints.

Escape Room Master polls props with ``fetch`` from its own page, so the browser lets it read an
answer only when the answer says ``Access-Control-Allow-Origin: *`` (the reference prop framework
for it, Escape Room Techs' FX framework, sends that header on every reply and says Escape Room
Master cannot connect without it). :func:`cors_middleware` adds the header to the paths a console
extension declares cross-origin (:meth:`~.extension.ConsoleExtension.cross_origin`) only, and
answers a browser's ``OPTIONS`` preflight there. Every other route (the console's pages, its
session routes, its event stream, its commands) keeps the browser's same-origin rule: a page of
another origin can neither read them nor post to them.

The wildcard carries no credentials: a browser never sends cookies on a request answered with
``*`` unless the page asked, and never lets the page read such an answer then. Such endpoints need
no cookie: their own secret (a ``?token=``) decides.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

#: Added to every answer of a cross-origin path (success, refusal, error).
CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
#: Methods a cross-origin path takes (aiohttp answers ``HEAD`` for each ``GET`` route).
CROSS_ORIGIN_METHODS = "GET, HEAD, OPTIONS"
#: How long a browser may reuse a preflight's answer, in seconds.
PREFLIGHT_MAX_AGE = 600
#: Longest ``Access-Control-Request-Headers`` echoed back (a browser sends a few names).
MAX_REQUEST_HEADERS = 512


def cors_middleware(cross_origin: Callable[[str], bool]) -> Middleware:
    """An aiohttp middleware: ``Access-Control-Allow-Origin: *`` on the paths ``cross_origin``
    accepts (whatever the answer: 200, 403, 405, 500), and an answer to their ``OPTIONS`` preflight.

    Place it first (outermost), so that it sees every answer of those paths, a raised one too.
    """

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not cross_origin(request.path):
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
        "Access-Control-Allow-Methods": CROSS_ORIGIN_METHODS,
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
