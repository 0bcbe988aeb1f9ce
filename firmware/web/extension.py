"""What a service adds to the web console: routes on its port, trusted requests, work on its loop.

The console (:mod:`firmware.web.server`) serves one port. A room service that answers over HTTP
(Escape Room Master's polling: :mod:`firmware.services.erm`) or works on the console's event loop
(the webhooks: :mod:`firmware.services.webhooks`) does not import the console: at its start it hands
the prop a factory, ``prop.extend_console(factory)``, and the console calls ``factory(host)`` when
it is made, on its own thread, once the game is ready (aiohttp is loaded by then; the factory may
import what it needs then, so that a start pays nothing for it). ``host`` is the console as its
pages see it (:class:`~firmware.web.host.Host`: its backend, the command path, its quiet log).

An extension is a :class:`ConsoleExtension`; every method has a default that does nothing, so an
extension defines only what it uses:

>>> class Hello(ConsoleExtension):
...     def register(self, app):
...         from aiohttp import web
...
...         async def hello(request):
...             return web.Response(text="hello")
...
...         app.router.add_get("/hello", hello)
>>> sorted(Hello().health_paths), Hello().cross_origin("/hello"), Hello().trusted(None)
([], False, None)

A factory handed over after the console has started is refused with one log line: the prop's
own services start before the console (their ``order`` is below the web service's 50).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

    from .host import Host

log = logging.getLogger("baccarat.web")


class ConsoleExtension:
    """Something a service adds to the console (see the module's text)."""

    #: Paths whose answer says whether the game runs (a controller's poll): the console answers
    #: ``503`` for them, with the right credentials, while the game thread does not come round.
    health_paths: frozenset[str] = frozenset()

    def register(self, app: web.Application) -> None:
        """Add routes to the console's app (called once, before it serves)."""

    def cross_origin(self, path: str) -> bool:
        """A page of another origin may read this path's answers (``Access-Control-Allow-Origin: *``
        and an answer to the browser's preflight): a controller polling from its own page."""
        return False

    def trusted(self, request: Any) -> bool | None:
        """Whether ``request`` may use the connections kept for trusted clients: None when it is
        not for this extension, else whether its credentials are right."""
        return None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The console's event loop runs (called on it, once)."""

    async def close(self) -> None:
        """The console stops (on its loop): finish or drop the work in flight."""


#: ``factory(host) -> ConsoleExtension``: what a service hands the prop (``prop.extend_console``).
ExtensionFactory = Callable[["Host"], ConsoleExtension]


def make_extensions(factories: Sequence[ExtensionFactory], host: Host) -> list[ConsoleExtension]:
    """Each factory's extension for the console ``host``; one that fails is one log line, and left out."""
    made = []
    for factory in factories:
        try:
            made.append(factory(host))
        except Exception as error:
            logging.getLogger("baccarat.web").error(
                "web: a console extension (%r) could not be made: %s", factory, error
            )
    return made
