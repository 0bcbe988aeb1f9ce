"""What an output reports when it switches: an event like the module's own.

:class:`OutputSwitched` goes through the daemon's hooks with the game's events, so
the log, MQTT's events topic, the webhooks and the console hear of an output as
they hear of a strike. Nothing here imports a hardware library: the saved state
and the network read it without loading gpiozero.
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Any, ClassVar

from baccarat_core.events import ENGLISH, Event
from baccarat_core.names import named
from baccarat_core.records import record

#: Why an output switched, besides the game event that switched it (its kind: ``solved``, ...).
COMMAND = "command"  # the game master's ``output`` command
ENDED = "ended"  # a pulse ran its time
CUT_OFF = "cut-off"  # max_on_seconds reached
RESTART = "restart"  # held on before the prop restarted


@record
class OutputSwitched(Event):
    """An output went on or off: ``cause`` is the game event's kind (``solved``, ``strike``,
    ``reset``, ``deal``), ``command``, ``ended``, ``cut-off`` or ``restart``; ``seconds`` is how
    long it stays on by itself (a pulse, or the ``max_on_seconds`` cut-off), None for "until told"."""

    kind: ClassVar[str] = "output"
    name: str
    on: bool
    cause: str
    seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"event": "output", "name": "lock", "on": true, "cause": "solved", "seconds": null}``."""
        seconds = None if self.seconds is None else round(self.seconds, 3)
        return {"event": self.kind, "name": self.name, "on": self.on, "cause": self.cause, "seconds": seconds}

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``output lock on (solved)``, ``output horn on for 1 s (strike)``, ``output lock off (cut-off)``."""
        if not self.on:
            return t.gettext("output {name} off ({cause})").format(name=self.name, cause=named(self.cause, t))
        if self.seconds is not None:
            return t.gettext("output {name} on for {seconds} s ({cause})").format(
                name=self.name, seconds=f"{self.seconds:g}", cause=named(self.cause, t)
            )
        return t.gettext("output {name} on ({cause})").format(name=self.name, cause=named(self.cause, t))
