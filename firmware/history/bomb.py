"""The OBUS bomb's modules as a game's ``end`` line keeps them (issue 43).

A prop in an OBUS bomb (``[obus]``) has an ``obus`` part in its state document (the service's
view of the bus). When the game ends, :func:`bomb_record` makes of it the end line's ``obus``
field: the role, each module of the bomb (its type and id on the bus, solved or not, its strikes;
the prop's own marked ``prop``), and the bomb's solved count, puzzle modules and strikes. A prop
without ``[obus]`` has no such part, and its end lines are as they always were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: Most modules a bomb's record keeps (OBUS's controller registers 16, and the prop is one more).
MAX_MODULES = 17
#: The bomb's counts the record keeps (from the part's ``bomb``).
COUNTS = ("solved", "puzzles", "strikes")


def _entry(module: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": int(module["type"]),
        "id": int(module["id"]),
        "solved": bool(module["solved"]),
        "strikes": int(module["strikes"]),
    }


def bomb_record(part: Any, *, solved: bool = False) -> dict[str, Any] | None:
    """The end line's ``obus`` field from the state document's ``obus`` part (None: no part, or
    one that says no role). ``solved``: the game ended by the prop's own solve, which the end line
    is written at, before the service has heard of it: the prop's module counts as solved."""
    if not isinstance(part, dict) or part.get("role") not in ("module", "controller"):
        return None
    modules: list[dict[str, Any]] = []
    if part["role"] == "controller":
        own = part.get("prop") or {}
        modules.append({"prop": True, "solved": bool(own.get("solved")), "strikes": int(own.get("strikes", 0))})
        modules += [_entry(m) for m in part.get("modules", [])]
    else:
        node = part.get("node") or {}
        modules.append(
            {
                "prop": True,
                "type": int(node.get("type", 1)),
                "id": int(node.get("id", 0)),
                "solved": bool(part.get("solved_sent")),
                "strikes": int(part.get("strikes_sent", 0)),
            }
        )
        modules += [_entry(m) for m in part.get("modules", [])]  # the others, as the bus showed them
    record: dict[str, Any] = {"role": part["role"], "modules": modules[:MAX_MODULES]}
    bomb = part.get("bomb") or {}
    record.update({key: int(bomb[key]) for key in COUNTS if isinstance(bomb.get(key), int)})
    if solved and not modules[0]["solved"]:
        modules[0]["solved"] = True
        if "solved" in record:
            record["solved"] += 1
    if isinstance(part.get("ended"), str):
        record["ended"] = part["ended"]
    return record


def _module_words(module: dict[str, Any]) -> str:
    kind = "needy" if module.get("type") == 2 else "puzzle"
    name = f"{kind} {module['id']}" if "id" in module else ""
    if module.get("prop"):
        name = f"prop ({name})" if name else "prop"
    strikes = module["strikes"]
    state = "solved" if module["solved"] else "not solved"
    return f"{name}: {state}, {strikes} strike{'' if strikes == 1 else 's'}"


def record_words(record: dict[str, Any]) -> str:
    """An end line's ``obus`` field in one line of plain English words and numbers (the CSV's
    ``bomb`` column, ``baccarat history``'s listing): ``controller; 2/3 solved; 1 strike; prop:
    solved, 0 strikes; puzzle 2: solved, 0 strikes; needy 1: not solved, 1 strike``."""
    parts = [str(record["role"])]
    if "solved" in record and "puzzles" in record:
        parts.append(f"{record['solved']}/{record['puzzles']} solved")
    if "strikes" in record:
        parts.append(f"{record['strikes']} strike{'' if record['strikes'] == 1 else 's'}")
    if record.get("ended"):
        parts.append(f"ended: {record['ended']}")
    parts += [_module_words(module) for module in record["modules"]]
    return "; ".join(parts)


def bus_reader(extras: Iterable[Callable[[], dict[str, Any]]], skip: Callable[[], Any]) -> Callable[[], Any]:
    """A reader of the ``obus`` part among the state document's ``extras`` (the game master's
    :attr:`~firmware.room.commands.GameMaster.document_extras`), leaving out ``skip`` (the history's
    own); None when no extra gives one."""

    def read() -> Any:
        for extra in list(extras):
            if extra == skip:
                continue
            part = extra()
            if isinstance(part, dict) and "obus" in part:
                return part["obus"]
        return None

    return read
