"""The history: how each game went, beside the state file (or in memory when saving is off).

On always; the web console's History view and ``baccarat history`` read it. Docs:
``docs/run/history.md``.
"""

from __future__ import annotations

from firmware.plugin import Prop, Running, Service


class History(Service):
    """Records every game (:mod:`firmware.history`): the daemon's hooks and the commands' path."""

    name = "history"
    section = None
    title = "History"
    always = True
    order = 10
    docs = "run/history.md"

    def start(self, prop: Prop, settings: object) -> Running:
        """Attach the recorder before the game thread starts; the web console finds it by name."""
        from firmware.plugin import state_path

        from ..history import attach_history

        keeper = attach_history(prop.daemon, prop.commands, prop.config, state_path(prop.config))
        return Running(keeper.close, keeper)
