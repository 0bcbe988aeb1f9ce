"""A log handler that keeps what it is given, for code that reports a library's complaints
itself: ``python -m firmware.sound`` prints the first, the plugin fixtures fail with them.

>>> import logging
>>> said = Said(logging.WARNING)
>>> log = logging.getLogger("doc.said")
>>> log.addHandler(said)
>>> log.warning("the %s card is gone", "red")
>>> log.info("not kept: below the level")
>>> log.removeHandler(said)
>>> said.messages
['the red card is gone']
"""

from __future__ import annotations

import logging


class Said(logging.Handler):
    """The messages of the records at ``level`` or above, in the order they came."""

    def __init__(self, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record's message (its arguments filled in)."""
        self.messages.append(record.getMessage())
