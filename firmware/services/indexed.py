"""The prop's own services known before they are imported: a start imports only those its config
turns on (issue 44, item 3).

The registry needs a service's place before its config is read: its name, the table it reads, its
``always``, its ``order`` and ``after``, and whether it adds commands. For the prop's own services
these are in :data:`firmware.services.index.INDEX`, keyed by the entry point's value
(``module:Class``); the registry makes an :class:`Indexed` of each service there whose ``always``
is false, and imports its module only when more is asked of it (its ``keys`` to read its section,
its ``start``, ``check-config``'s and ``doctor``'s questions), or when the config has its section
(:meth:`~firmware.services.registry.Services.require`). A third party's service, or one whose entry
point the index does not name, is imported as before.

The index is written by ``python -m firmware.services.indexed`` from the classes themselves, and
``tests/test_service_index.py`` fails while it differs from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: What the index holds of each service (besides ``commands``: whether it adds any).
PLACE = ("name", "table", "always", "order", "after")


class Indexed:
    """A service of the prop's own, known by its place (:data:`PLACE`) until more is asked of it:
    then its module is imported (``load()``) and every other attribute is the service's own."""

    def __init__(self, entry: dict[str, Any], load: Callable[[], Any]) -> None:
        self.name: str = entry["name"]
        self.table: str | None = entry["table"]
        self.always: bool = entry["always"]
        self.order: int = entry["order"]
        self.after: tuple[str, ...] = tuple(entry["after"])
        self._commands: bool = entry["commands"]
        self._load = load
        self._service: Any = None

    def loaded(self) -> Any:
        """The service itself (its module imported now, once); raises what importing it raises."""
        if self._service is None:
            self._service = self._load()
        return self._service

    def commands(self) -> Sequence[Any]:
        """Its commands: none without importing it when the index says it adds none."""
        return self.loaded().commands() if self._commands else ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)

    def __repr__(self) -> str:
        return f"<{self.name} service, not imported yet>" if self._service is None else repr(self._service)
