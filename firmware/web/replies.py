"""What every route of the console answers with: the security headers, JSON and text replies, and
the one strict reader of a request's JSON body."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from baccarat_core import strict

#: Longest request body read (a command is a few hundred bytes; a login form with the longest
#: password, percent-encoded, at most 12 KiB).
MAX_BODY = 16 * 1024

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes a form send "Origin: null"
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
}


def json_reply(data: dict[str, Any], status: int = 200) -> web.Response:
    """``data`` as JSON, never cached."""
    return web.json_response(data, status=status, headers={"Cache-Control": "no-store"})


def text_reply(text: str, status: int = 200) -> web.Response:
    """``text`` as plain text, never cached."""
    return web.Response(text=text, status=status, content_type="text/plain", headers={"Cache-Control": "no-store"})


def wait_words(seconds: int) -> str:
    """``45 s``, ``5 min``: how long to wait, for a person."""
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} min"


async def json_body(request: web.Request, timeout: float) -> tuple[dict[str, Any], str | None]:
    """The request's JSON object, read by the project's strict reader, or a one-line problem."""
    if request.content_type != "application/json":
        return (
            {},
            f"send JSON (Content-Type application/json), not {request.content_type or 'nothing'}",
        )
    try:
        raw = await asyncio.wait_for(request.read(), timeout)
    except web.HTTPRequestEntityTooLarge:
        return {}, f"the request is larger than {MAX_BODY} bytes"
    except TimeoutError:
        return {}, f"the request's body did not arrive within {timeout:g} s"
    try:
        data = strict.loads(raw, "the request", max_bytes=MAX_BODY)
    except strict.InputError as error:
        return {}, str(error)
    if not isinstance(data, dict):
        return {}, "the request must be a JSON object"
    return data, None
