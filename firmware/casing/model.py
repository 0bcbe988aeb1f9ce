"""What the casing shows: only what a player sees on a real bomb, never the deck or the answer."""

from __future__ import annotations

import math
from typing import Any

from baccarat_core.bomb import PLATE_KINDS
from baccarat_core.edgework import Edgework
from baccarat_core.errors import EdgeworkError
from baccarat_core.records import record, replace


def plates_for_ports(ports: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Port plates for ports known only as a list (fixed edgework, MQTT): each port goes on the
    first plate of its kind (the game's two: Parallel and Serial; DVI-D, PS/2, RJ-45 and Stereo
    RCA) that does not hold one like it yet, in the kind's order; any other port on a plate of its own.

    >>> plates_for_ports(("Serial", "RJ-45", "Parallel", "Serial", "USB"))
    (('Parallel', 'Serial'), ('RJ-45',), ('Serial',), ('USB',))
    """
    plates: list[list[str]] = []
    kinds: list[int | None] = []
    for port in ports:
        kind = next((k for k, ports_of in enumerate(PLATE_KINDS) if port in ports_of), None)
        for plate, plate_kind in zip(plates, kinds, strict=True):
            if kind is not None and plate_kind == kind and port not in plate:
                plate.append(port)
                break
        else:
            plates.append([port])
            kinds.append(kind)
    ordered = []
    for plate, kind in zip(plates, kinds, strict=True):
        order = PLATE_KINDS[kind] if kind is not None else tuple(plate)
        ordered.append(tuple(sorted(plate, key=order.index)))
    return tuple(ordered)


@record
class Casing:
    """The sides of the bomb as the players see them.

    ``plates``: each port plate's ports (an empty tuple is an empty plate); ``indicators``:
    ``(label, lit)`` pairs; ``batteries``: one ``AA`` (a pair of AA cells) or ``D`` per holder;
    ``solved``: modules solved on the bomb; ``strikes``. ``timer`` is the countdown's seconds left,
    or None for a bomb without a timer: the place for it is drawn either way. ``outcome`` is
    ``defused`` or ``exploded`` once the game is over (None while it runs). ``bomb``: in an OBUS
    bomb, each of its puzzle modules solved or not (the prop's own first: :func:`bomb_marks`), a
    mark each beside the timer; None for a bomb of the prop alone.
    """

    serial: str
    plates: tuple[tuple[str, ...], ...] = ()
    indicators: tuple[tuple[str, bool], ...] = ()
    batteries: tuple[str, ...] = ()
    solved: int = 0
    strikes: int = 0
    timer: float | None = None
    outcome: str | None = None
    bomb: tuple[bool, ...] | None = None

    @classmethod
    def from_edgework(cls, edgework: Edgework, *, strikes: int = 0, timer: float | None = None) -> Casing:
        """The casing of ``edgework`` (its plates, else its ports put on plates by :func:`plates_for_ports`)."""
        plates = edgework.plates if edgework.plates is not None else plates_for_ports(edgework.ports)
        indicators = sorted([(label, True) for label in edgework.lit] + [(label, False) for label in edgework.unlit])
        return cls(
            edgework.serial,
            tuple(plates),
            tuple(indicators),
            edgework.batteries,
            edgework.solved,
            strikes,
            timer,
        )

    @classmethod
    def from_state(cls, doc: dict[str, Any]) -> Casing:
        """The casing of a state document (``firmware.room.commands.state_document``): its edgework,
        strikes, ``status`` (solved or exploded: the game's outcome) and, when the document has one,
        ``timer`` (seconds left, or an object with ``seconds_left``), and in an OBUS bomb its
        puzzle modules solved or not (``obus``: :func:`bomb_marks`). Nothing else of the document
        is read."""
        edgework = Edgework.from_dict(doc.get("edgework") or {})
        strikes = doc.get("strikes", 0)
        if not isinstance(strikes, int) or isinstance(strikes, bool) or strikes < 0:
            raise EdgeworkError(f"strikes {strikes!r} is not a count")
        casing = cls.from_edgework(edgework, strikes=strikes, timer=timer_seconds(doc.get("timer")))
        outcome = {"solved": "defused", "exploded": "exploded"}.get(str(doc.get("status")))
        if outcome:
            casing = replace(casing, outcome=outcome)
        marks = bomb_marks(doc.get("obus"))
        return casing if marks is None else replace(casing, bomb=marks)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the pages receive (what the drawing shows, in data)."""
        return {
            "serial": self.serial,
            "plates": [list(plate) for plate in self.plates],
            "indicators": [{"label": label, "lit": lit} for label, lit in self.indicators],
            "batteries": list(self.batteries),
            "solved": self.solved,
            "strikes": self.strikes,
            "timer": self.timer,
            "outcome": self.outcome,
            **({"bomb": list(self.bomb)} if self.bomb is not None else {}),
        }


#: Puzzle modules an OBUS bomb's marks show at most (OBUS's controller registers 16, and the prop).
MAX_MARKS = 17


def bomb_marks(part: object) -> tuple[bool, ...] | None:
    """An OBUS bomb's puzzle modules solved or not, the prop's own first, from the state document's
    ``obus`` part (the controller's ``prop`` and ``modules``; a module's ``solved_sent`` and the
    others it heard); needy modules, which never solve, have no mark. None without a part (or a
    part that says no role, or one the service did not make).

    >>> bomb_marks({"role": "controller", "prop": {"solved": True},
    ...             "modules": [{"type": 1, "solved": False}, {"type": 2, "solved": False}]})
    (True, False)
    """
    if not isinstance(part, dict) or part.get("role") not in ("module", "controller"):
        return None
    own = (part.get("prop") or {}).get("solved") if part["role"] == "controller" else part.get("solved_sent")
    modules = part.get("modules")
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        return None
    others = [bool(m.get("solved")) for m in modules if m.get("type") == 1]
    return (bool(own), *others)[:MAX_MARKS]


def timer_seconds(value: object) -> float | None:
    """The countdown's seconds left from a state document's ``timer``: a number, or an object with
    ``seconds_left``; None (no timer) for anything else."""
    if isinstance(value, dict):
        value = value.get("seconds_left")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return max(0.0, float(value))
