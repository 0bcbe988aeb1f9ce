"""What a room controller needs to look after the prop: its version, since when it runs, its last problem,
and the last pre-game self-test's result.

:class:`Diagnostics` is a logging handler on the prop's ``baccarat`` logger: it
keeps the last warning or error line (``WARNING baccarat.displays: ...``) and its
time, and calls ``on_change`` so that the MQTT service publishes the retained
diagnostics document (``P/diagnostics``, docs/integrate/mqtt.md) again. Nothing runs
while nothing goes wrong: no timer, and the start time is a time stamp (a
controller shows "up for 3 hours" from it), not a counter to publish.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from baccarat_core import strict

#: The logger whose warnings and errors (its children's too) become the last problem.
LOGGER = "baccarat"
#: Longest last-problem line (Home Assistant refuses a sensor state of more than 255 characters).
MAX_LINE = 250
#: The last problem before any.
NONE = "none"


def timestamp(seconds: float) -> str:
    """ISO 8601 in UTC, to the second: ``2025-06-01T20:15:03+00:00``."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


class Diagnostics(logging.Handler):
    """The prop's version, start time and last warning or error, as one JSON-ready document.

    ``on_change()`` is called, on the thread that logged, after each new warning or
    error; it must return at once. A record logged inside :meth:`quiet` (while the
    document itself is sent) is kept out, so that a failure to send it cannot feed itself.
    """

    def __init__(self, on_change: Callable[[], None], *, started: float | None = None) -> None:
        super().__init__(logging.WARNING)
        self.on_change = on_change
        self.started = timestamp(started if started is not None else datetime.now(UTC).timestamp())
        self._version: str | None = None
        self._last: tuple[str, str] | None = None
        self._self_test: dict[str, Any] | None = None
        self._state = threading.Lock()
        self._local = threading.local()

    @property
    def version(self) -> str:
        """The installed version (``firmware.__version__``), read once, at the first use."""
        if self._version is None:
            import firmware

            self._version = firmware.__version__
        return self._version

    def attach(self) -> None:
        """Listen to the ``baccarat`` logger."""
        logging.getLogger(LOGGER).addHandler(self)

    def detach(self) -> None:
        """Stop listening."""
        logging.getLogger(LOGGER).removeHandler(self)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Records logged on this thread inside the block are not a last problem."""
        self._local.quiet = True
        try:
            yield
        finally:
            self._local.quiet = False

    def emit(self, record: logging.LogRecord) -> None:
        """Keep a warning or error line as the last problem (logging's handler interface)."""
        if getattr(self._local, "quiet", False):
            return
        try:
            line = strict.one_line(f"{record.levelname} {record.name}: {record.getMessage()}", MAX_LINE)
        except Exception:  # a record whose arguments do not fit its message: logging's own report
            self.handleError(record)
            return
        with self._state:
            self._last = (line, timestamp(record.created))
        self.on_change()

    def self_test_done(self, ok: bool, summary: str, at: float | None = None) -> None:
        """Keep the last self-test's result (``ok`` and its summary line) and when it ended."""
        result = {
            "ok": ok,
            "summary": strict.one_line(summary, MAX_LINE),
            "at": timestamp(at if at is not None else datetime.now(UTC).timestamp()),
        }
        with self._state:
            self._self_test = result

    def document(self) -> dict[str, Any]:
        """``{"version", "started", "last_error", "last_error_at", "self_test"}``; ``self_test`` is
        ``{"ok", "summary", "at"}`` of the last pre-game self-test, or None before the first."""
        with self._state:
            last = self._last
            self_test = self._self_test
        return {
            "version": self.version,
            "started": self.started,
            "last_error": last[0] if last else NONE,
            "last_error_at": last[1] if last else None,
            "self_test": self_test,
        }
