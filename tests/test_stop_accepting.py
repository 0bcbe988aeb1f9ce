"""A server stopped while it is accepting connections leaves none half made (``stop_accepting``
in firmware/system/aloop.py: the console's site and Clue Control's switch).

asyncio's accept takes loop steps; a server closed between them (CPython issue 109564) drops the
connection with an "Error on transport creation" that only its debug mode reports, and the
half-made transport is collected unclosed (a traceback on stderr under Python 3.13). Each test
puts the stop exactly there: the accepts' tasks exist, their first step has not run, and one
more connection waits in the kernel for the next accept.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
import warnings
from collections.abc import Awaitable, Callable

from aiohttp import web

from firmware.services.clue_control.switch import Switch
from firmware.web.listening import ListeningSite

#: The console's listening backlog here: the kernel queues one more, asyncio accepts this many at a step.
BACKLOG = 4
#: Clue Control's switch listens with asyncio's default backlog.
SWITCH_BACKLOG = 100


def answer(client: socket.socket) -> str:
    """What a client gets at the stop: "closed" (by the server) or "reset" (still queued in the
    kernel when the listening socket closed)."""
    try:
        return "closed" if client.recv(100) == b"" else "data"
    except ConnectionResetError:
        return "reset"


#: Starts a server, returns its port and the coroutine function that stops it.
Start = Callable[[], Awaitable[tuple[int, Callable[[], Awaitable[None]]]]]


def stop_while_accepting(start: Start, backlog: int, *, read: bool = True) -> tuple[list[str], list[str], list[str]]:
    """Serve, queue ``backlog`` + 1 connections in the kernel, stop once asyncio has made tasks
    for ``backlog`` of them; return the loop's complaints, what collecting the leftovers reported
    (unclosed transports, exceptions ignored) and, if ``read``, what each client got."""
    loop = asyncio.new_event_loop()
    loop.set_debug(True)  # asyncio reports a failed transport creation only in debug mode
    complaints: list[str] = []
    loop.set_exception_handler(lambda _loop, context: complaints.append(str(context.get("message"))))
    clients: list[socket.socket] = []

    async def scenario() -> None:
        port, stop = await start()
        clients.extend(socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(backlog + 1))
        for _ in range(100):  # until asyncio has accepted: it takes at most ``backlog`` at a step...
            if asyncio.all_tasks() - {asyncio.current_task()}:
                break
            await asyncio.sleep(0)
        # ...so one is still queued; the others' tasks run after this coroutine's step, as the
        # accept of the last one would.
        assert len(asyncio.all_tasks()) == 1 + backlog
        async with asyncio.timeout(10):  # (in this task: wait_for would start it a step later on 3.11)
            await stop()  # the stop, now

    leftovers: list[str] = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda what: leftovers.append(f"{what.exc_type.__name__}: {what.exc_value}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            try:
                loop.run_until_complete(scenario())
            finally:
                loop.run_until_complete(asyncio.sleep(0))
                loop.close()
            gc.collect()
    finally:
        sys.unraisablehook = hook
    leftovers += [str(w.message) for w in caught if "unclosed transport" in str(w.message)]
    answers = [answer(client) for client in clients] if read else []
    for client in clients:
        client.close()
    return complaints, leftovers, answers


def console_site(site_class: type[web.TCPSite]) -> Start:
    async def start() -> tuple[int, Callable[[], Awaitable[None]]]:
        runner = web.AppRunner(web.Application(), handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        site = site_class(runner, "127.0.0.1", 0, backlog=BACKLOG)
        await site.start()
        return site.port, runner.cleanup

    return start


async def clue_control_switch() -> tuple[int, Callable[[], Awaitable[None]]]:
    switch = Switch(lambda commands, sender: None, ["lock"], host="127.0.0.1", port=0, max_connections=200)
    await switch.start()
    return switch.port, switch.close


def test_the_consoles_stop_closes_the_connections_it_was_accepting() -> None:
    complaints, leftovers, answers = stop_while_accepting(console_site(ListeningSite), BACKLOG)
    assert complaints == []
    assert leftovers == []
    assert answers == ["closed"] * BACKLOG + ["reset"]  # accepted: closed by the server; queued: reset


def test_clue_controls_stop_closes_the_connections_it_was_accepting() -> None:
    """Its sessions are closed at the stop by the switch itself, so each one accepted must have
    reached it (``connection_made``) first; one that had not would hold its stop open (3.12 on)."""
    complaints, leftovers, answers = stop_while_accepting(clue_control_switch, SWITCH_BACKLOG)
    assert complaints == []
    assert leftovers == []
    assert answers == ["closed"] * SWITCH_BACKLOG + ["reset"]


def test_without_it_the_race_is_there() -> None:
    """The same stop with aiohttp's own site: asyncio reports the half-made transports. If this
    fails, asyncio or aiohttp fixed the race and ``stop_accepting`` can go."""
    complaints, leftovers, _ = stop_while_accepting(console_site(web.TCPSite), BACKLOG, read=False)
    assert any("transport creation" in message for message in complaints), complaints
    assert any("unclosed transport" in line for line in leftovers), leftovers
