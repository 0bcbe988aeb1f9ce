"""How the game went, for the solved event: the strikes, the hints given and the time it took.

The module counts its strikes; the game master's hints and the time are the prop's. A
:class:`Tally` counts them for the game thread and stamps them on the :class:`~baccarat_core.events.Solved`
event before any hook sees it (its published JSON form stays as it was).

>>> from baccarat_core import events as ev
>>> tally = Tally()
>>> tally.begin(100.0)
>>> tally.hint()
>>> batch = [ev.Solved()]
>>> tally.stamp(batch, strikes=2, now=130.5)
>>> batch[0].strikes, batch[0].hints, batch[0].elapsed
(2, 1, 30.5)
>>> batch[0].to_dict()
{'event': 'solved', 'forced': False}
"""

from __future__ import annotations

from baccarat_core import events as ev
from baccarat_core.records import replace


class Tally:
    """The hints and the start of the game now being played (game thread only)."""

    def __init__(self) -> None:
        self.began: float | None = None
        self.hints = 0

    def begin(self, now: float) -> None:
        """A game begins (the prop's start, or a reset)."""
        self.began = now
        self.hints = 0

    def hint(self) -> None:
        """The game master gave a hint."""
        self.hints += 1

    def stamp(self, events: list[ev.Event], *, strikes: int, now: float) -> None:
        """Put the tally on the batch's solved event (in place); a reset in it begins a new game."""
        for i, event in enumerate(events):
            kind = type(event)
            if kind is ev.ModuleReset:
                self.begin(now)
            elif kind is ev.Solved:
                elapsed = None if self.began is None else round(now - self.began, 3)
                events[i] = replace(event, strikes=strikes, hints=self.hints, elapsed=elapsed)
