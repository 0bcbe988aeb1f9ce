"""A game's totals so far, from the lines a start reads after it stopped mid-game.

A clean stop's ``stop`` line carries the game's totals, and so does the round whose line ends each
write (its ``totals``, :mod:`.lines`): a start reads the file back from its end to the last line
that carries them (:meth:`.store.FileStore.last_game`), and adds what the few lines after it
say. However long the game, that is a handful of lines: a start costs the same after 10 rounds as
after 300 (``benchmarks/instructions.py``, ``cut``). A game whose lines carry no totals (a file
from before them, or a game of fewer rounds than a write holds) is read from its ``start`` line.
"""

from __future__ import annotations

from typing import Any

#: What the totals hold (besides ``first_move``, when the players have moved).
KEYS = ("game", "started", "gestures", "rounds", "hints", "commands", "strikes")


def carried(line: dict[str, Any]) -> dict[str, Any] | None:
    """The totals ``line`` carries (a clean stop's, a round's ``totals``), or None."""
    if line["t"] == "round":
        totals = line.get("totals")
        return totals if isinstance(totals, dict) else None
    if line["t"] == "stop" and all(key in line for key in KEYS):
        return {key: line[key] for key in (*KEYS, "first_move") if key in line}
    return None


def game_number(lines: list[dict[str, Any]]) -> int | None:
    """The game number of an unfinished game's lines (its start line's, or the totals')."""
    first = lines[0]
    if "game" in first:
        return int(first["game"])
    totals = carried(first)
    return None if totals is None else int(totals["game"])


def sum_up(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals of an unfinished game, from its lines, oldest first, the first carrying totals
    (:func:`carried`): those, with what each later line adds; and ``progress``, the players' last
    (a round is progress at its own time). Raises ValueError if the first line carries none."""
    first = lines[0]
    base = carried(first)
    if base is None:
        raise ValueError(f"a {first['t']} line carries no totals")
    totals = dict(base)
    progress = float(first["at"]) if first["t"] == "round" else first.get("progress")
    for line in lines[1:]:
        kind = line["t"]
        if kind == "round":
            totals["gestures"] = max(totals["gestures"], int(line["n"]))
            totals["rounds"] += line["result"] is not None
            totals["strikes"] = max([totals["strikes"], *(int(s["strikes"]) for s in line["strikes"])])
            progress = max(float(line["at"]), progress or 0.0)
        elif kind == "hint":
            totals["hints"] += 1
        elif kind == "command":
            totals["commands"] += 1
        elif kind == "strike":
            totals["strikes"] = max(totals["strikes"], int(line["strikes"]))
        if "first_move" in line and "first_move" not in totals:
            totals["first_move"] = line["first_move"]
        if "progress" in line:
            progress = max(float(line["progress"]), progress or 0.0)
    totals["progress"] = progress
    return totals
