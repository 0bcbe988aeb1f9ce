"""The console's listening socket, closed without abandoning a connection it has just accepted.

:class:`ListeningSite` is aiohttp's ``TCPSite`` that, at its stop, first stops accepting and lets
the accepts under way reach aiohttp (:func:`firmware.system.aloop.stop_accepting`, for CPython
issue 109564), so that aiohttp closes those connections with the others; then it closes the
listening socket. A console held by many connections at a stop hit the issue a few times in ten.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from firmware.system.aloop import stop_accepting


class ListeningSite(web.TCPSite):
    """``aiohttp.web.TCPSite`` whose stop finishes the accepts under way before closing.

    >>> import asyncio
    >>> from aiohttp import web
    >>> async def serve_and_stop():
    ...     runner = web.AppRunner(web.Application())
    ...     await runner.setup()
    ...     await ListeningSite(runner, "127.0.0.1", 0).start()
    ...     await runner.cleanup()  # stops each site: accepts finish, then the socket closes
    ...     return runner.sites
    >>> asyncio.run(serve_and_stop())
    set()
    """

    __slots__ = ()

    async def stop(self) -> None:
        """Stop accepting, let the accepts under way reach aiohttp, then close as ``TCPSite`` does."""
        if isinstance(self._server, asyncio.Server):  # started (a TCP server has its sockets)
            await stop_accepting(self._server)
        await super().stop()
