"""One asyncio event loop for every service that needs one (the web console and what rides on it,
Clue Control), on a thread of its own, ``baccarat-asyncio``.

The first service that asks starts it (:func:`acquire`), each gives it back when it stops
(:func:`release`), and the last one to go stops it and waits for its thread. Nothing here imports
asyncio until a service asks: a start whose config needs no loop loads none. While nobody uses it the
loop sleeps in ``epoll`` without a timer, as each service's own loop did.

A service runs its coroutines there with :func:`run` (from another thread) or
``asyncio.run_coroutine_threadsafe`` and keeps to the loop's rule: nothing that blocks. One that
listens calls :func:`stop_accepting` before it closes its server.

>>> import asyncio
>>> loop = acquire()
>>> async def answer():
...     return 42
>>> run(answer(), timeout=5)
42
>>> acquire() is loop  # a second service: the same loop
True
>>> release(); release()  # the last one stops it
"""

from __future__ import annotations

import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

#: The loop's thread's name.
THREAD = "baccarat-asyncio"

#: Loop steps from an accepted socket to its protocol having the connection: the accept's task
#: makes the transport (which joins the server), then the transport calls ``connection_made``.
ACCEPT_STEPS = 2

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_users = 0


def acquire() -> asyncio.AbstractEventLoop:
    """The shared loop, running (started now if no service uses it); give it back with :func:`release`."""
    global _loop, _thread, _users
    with _lock:
        if _loop is None:
            import asyncio

            loop = asyncio.new_event_loop()
            started = threading.Event()
            thread = threading.Thread(target=_serve, args=(loop, started), name=THREAD, daemon=True)
            thread.start()
            started.wait()
            _loop, _thread = loop, thread
        _users += 1
        return _loop


def release() -> None:
    """A service is done with the loop; the last one stops it (and, from another thread, waits for
    its thread: at most 10 s)."""
    global _loop, _thread, _users
    with _lock:
        if _users == 0 or _loop is None:
            return
        _users -= 1
        if _users:
            return
        loop, thread, _loop, _thread = _loop, _thread, None, None
    loop.call_soon_threadsafe(loop.stop)
    if thread is not None and thread is not threading.current_thread():
        thread.join(10)


def run(coroutine: Coroutine[Any, Any, T], *, timeout: float) -> T:
    """Run ``coroutine`` on the shared loop (which a caller has acquired) and wait for its result,
    at most ``timeout`` seconds (``TimeoutError``); call from any thread but the loop's."""
    import asyncio

    loop = _loop
    if loop is None:
        coroutine.close()
        raise RuntimeError("the shared event loop is not running: acquire() it first")
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)


async def stop_accepting(server: asyncio.Server) -> None:
    """Stop accepting on ``server``'s sockets and wait until the connections it has already
    accepted have reached their protocols; close it next, and close those connections with the rest.

    asyncio turns an accepted socket into a connection over a few loop steps. A server closed in
    between (CPython issue 109564) leaves the connection half made: dropped silently, and reported
    by Python 3.13 as an "Exception ignored" traceback on stderr when it is collected.

    >>> import asyncio
    >>> async def serve_and_close():
    ...     server = await asyncio.get_running_loop().create_server(asyncio.Protocol, "127.0.0.1", 0)
    ...     await stop_accepting(server)
    ...     server.close()
    ...     await server.wait_closed()
    ...     return server.is_serving()
    >>> asyncio.run(serve_and_close())
    False
    """
    import asyncio

    loop = asyncio.get_running_loop()
    for sock in server.sockets:
        loop.remove_reader(sock.fileno())
    for _ in range(ACCEPT_STEPS):
        await asyncio.sleep(0)


def _serve(loop: asyncio.AbstractEventLoop, started: threading.Event) -> None:
    import asyncio

    asyncio.set_event_loop(loop)
    loop.call_soon(started.set)
    try:
        loop.run_forever()
    finally:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
