"""The console's listening socket, closed without abandoning a connection it has just accepted.

asyncio takes a few loop steps to turn an accepted socket into a connection (the accept's task,
then ``connection_made``). Closing the server in between (CPython issue 109564, open in 3.13 and
3.14) leaves a transport half made: asyncio drops the connection silently, and when the
transport is collected Python 3.13 prints an "Exception ignored" traceback on stderr. A console
held by many connections at a stop hit it a few times in ten.

:class:`ListeningSite` is aiohttp's ``TCPSite`` that, at its stop, first stops accepting, lets the
accepts under way finish (aiohttp then closes those connections with the others), and only then
closes the listening socket.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

#: Loop steps an accept under way needs before the listening socket may close: its task's first
#: step makes the transport, which joins the server. (Its ``connection_made`` runs at the next
#: step, which aiohttp's cleanup yields before it closes the connections it knows.)
ACCEPT_STEPS = 1


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
        server = self._server
        if isinstance(server, asyncio.Server):  # started (a TCP server has its sockets)
            loop = asyncio.get_running_loop()
            for sock in server.sockets:
                loop.remove_reader(sock.fileno())
            for _ in range(ACCEPT_STEPS):
                await asyncio.sleep(0)
        await super().stop()
