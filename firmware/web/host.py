"""What the console's pages use of the web service: :class:`Host`, a Protocol.

:class:`~.server.WebService` makes the pages (:mod:`.console`, :mod:`.players`, :mod:`.controllers`,
:mod:`.history`) and hands itself to each; they name it by this shape, so that they need not import
the module that imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .auth import LoginHost

if TYPE_CHECKING:
    from aiohttp import web

    from .auth import LoginPage, Session, Sessions
    from .backend import ConsoleBackend
    from .language import PageTexts
    from .live import View


class Host(LoginHost, Protocol):
    """The web service, as its pages see it (:class:`~.server.WebService`)."""

    backend: ConsoleBackend
    sessions: Sessions
    boot: str
    texts: PageTexts

    @property
    def front_panel(self) -> bool:
        """The page shows the module's front panel."""

    def _host_is_local(self, request: web.Request) -> bool: ...

    def _session(self, request: web.Request, *, create: bool = False) -> tuple[Session | None, bool]: ...

    @staticmethod
    def _set_cookie(response: web.StreamResponse, session: Session) -> None: ...

    def _post_session(self, request: web.Request) -> tuple[Session | None, web.Response | None]: ...

    def post_refused(self, request: web.Request, session: Session | None) -> web.Response | None:
        """Why a POST is refused (its session, its origin), or None."""

    async def login_form(
        self, request: web.Request, page: LoginPage, *, wrong: str, pages: str
    ) -> dict[str, str] | web.Response:
        """A login form's POST: its fields, or the page that says why not."""

    async def stream(self, request: web.Request, view: View | None = None) -> web.StreamResponse:
        """The console's event stream."""

    async def run_command(self, payload: dict[str, Any]) -> dict[str, Any]:
        """A command's reply document."""

    async def press_panel(self, request: web.Request, *, name_inputs: bool = True) -> web.Response:
        """A press on the front panel."""


#: :class:`Host` under the name the plugin API gives it (what a console extension's factory gets).
ConsoleHost = Host
