"""How each game went: a record of every game, its History view, its replay and ``baccarat history``.

- :mod:`.games`: the history file's lines (their schema, read strictly) and the games they make:
  summaries, averages, CSV.
- :mod:`.store`: the file (append-only JSON lines beside the state file, bounded, rotated at a
  game's start), or memory when saving is off.
- :mod:`.keeper`: the recorder, a daemon ``on_handled`` hook like the state keeper (the daemon
  knows nothing of it), and the stuck indicator of the state document.
- :mod:`.replay`: a recorded game round by round, as the players saw the displays (the render
  functions of :mod:`firmware.game.scene`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .keeper import HistoryKeeper
from .store import FileStore, MemoryStore, Store, history_path

if TYPE_CHECKING:
    from firmware.game.daemon import Daemon

    from ..config import Config
    from ..room.commands import GameMaster

__all__ = ["HistoryKeeper", "attach_history", "bomb_limits", "history_path"]

log = logging.getLogger("baccarat.history")


def bomb_limits(config: Config) -> dict[str, Any] | None:
    """The bomb's limits the config sets (``[bomb]``: a timer, a strike limit), as plain values
    to record with each game; None when the config has none."""
    from baccarat_core.records import asdict

    bomb = getattr(config, "bomb", None)
    if bomb is None:
        return None
    to_dict = getattr(bomb, "to_dict", None)
    try:
        data = to_dict() if callable(to_dict) else asdict(bomb)
    except TypeError:  # not a record: its attributes, if it has any
        data = dict(getattr(bomb, "__dict__", {}))
    if not isinstance(data, dict):
        return None
    plain = {
        str(key): value
        for key, value in data.items()
        if not str(key).startswith("_") and (value is None or isinstance(value, bool | int | float | str))
    }
    # Nothing but switches (speed_up) and nones: the bomb has no limits to record.
    if all(value is None or isinstance(value, bool) for value in plain.values()):
        return None
    return plain


def attach_history(daemon: Daemon, commands: GameMaster, config: Config, state_file: Path | None) -> HistoryKeeper:
    """Record every game of ``daemon``: in the history file beside ``state_file``, or in memory
    for this run when saving is off (None). Call before the daemon starts; close the keeper
    after it stopped."""
    store: Store
    if state_file is None:
        store = MemoryStore()
        log.info("how each game went is kept in memory only (saving is off)")
    else:
        path = history_path(state_file)
        store = FileStore(path)
        log.info("how each game went is recorded in %s", path)
    return HistoryKeeper(store, bomb=bomb_limits(config)).attach(daemon, commands)
