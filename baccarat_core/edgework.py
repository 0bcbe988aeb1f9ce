"""The bomb's edgework that the rules read, and its validation."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import cast

from .errors import BaccaratError, EdgeworkError
from .numbers import check_count, show_value
from .records import record, replace
from .strict import MAX_BATTERY_HOLDERS, MAX_INDICATORS, MAX_PLATES, MAX_PORTS, MAX_SOLVED

#: The six vanilla port kinds, in the manual's column order.
VANILLA_PORTS: tuple[str, ...] = ("DVI-D", "Parallel", "PS/2", "RJ-45", "Serial", "Stereo RCA")

#: The game's two battery holders and the batteries each holds: a pair of AA cells, or one D cell.
BATTERY_HOLDERS: dict[str, int] = {"AA": 2, "D": 1}

_SERIAL = re.compile(r"[A-Z0-9]{1,6}")
_LABEL = re.compile(r"[A-Z0-9]{1,8}")
_PORT_NAME = re.compile(r"[A-Za-z0-9 ./+-]{1,32}")


def _port_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_VANILLA_BY_KEY: dict[str, str] = {_port_key(name): name for name in VANILLA_PORTS}
_VANILLA_BY_KEY.update({"dvi": "DVI-D", "stereo": "Stereo RCA", "rca": "Stereo RCA"})


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def near_vanilla_port(name: str) -> str | None:
    """The vanilla kind ``name`` is probably a typo of (``Paralel``, ``Seiral``, ``PS3``), or None.

    Close means one edit for spellings of up to 5 letters and digits, two for longer ones.
    """
    key = _port_key(name)
    if not key or key in _VANILLA_BY_KEY:
        return None
    for spelling, kind in _VANILLA_BY_KEY.items():
        if abs(len(spelling) - len(key)) <= 2 and _distance(key, spelling) <= (1 if len(spelling) <= 5 else 2):
            return kind
    return None


def normalize_port(name: str) -> str:
    """The manual's spelling of a vanilla port (case and punctuation ignored), or the name as given
    for any other kind of port; a near miss of a vanilla kind is an error that names the kind."""
    if not isinstance(name, str):
        raise EdgeworkError(f"port {show_value(name)} is not a port name")
    cleaned = name.strip()
    if not cleaned:
        raise EdgeworkError("a port name is empty")
    if not _PORT_NAME.fullmatch(cleaned) or not _port_key(cleaned):
        raise EdgeworkError(
            f"port {show_value(name)} is not a port name (1-32 ASCII letters, digits, spaces or . / + -)"
        )
    key = _port_key(cleaned)
    if key in _VANILLA_BY_KEY:
        return _VANILLA_BY_KEY[key]
    near = near_vanilla_port(cleaned)
    if near is not None:
        raise EdgeworkError(
            f"port {show_value(name)} is not one of the six vanilla kinds; did you mean {near}? "
            "(other names count toward the total only)"
        )
    return cleaned


def check_solved(value: object) -> int:
    """The bomb's solved count, checked: a whole number from 0 to :data:`~.strict.MAX_SOLVED`
    (the one check for every source)."""
    try:
        return check_count(value, "solved count", maximum=MAX_SOLVED)
    except BaccaratError as error:
        raise EdgeworkError(str(error)) from None


def check_battery_holder(name: object) -> str:
    """A battery holder's kind, upper case: ``AA`` (two AA cells) or ``D`` (one D cell)."""
    cleaned = name.strip().upper() if isinstance(name, str) else None
    if cleaned not in BATTERY_HOLDERS:
        raise EdgeworkError(f"batteries: {show_value(name)} is not a battery holder (AA: two AA cells, D: one D cell)")
    return cleaned


def _plates(plates: object) -> tuple[tuple[str, ...], ...]:
    """Port plates, each a list of port names (an empty list is an empty plate)."""
    if not isinstance(plates, list | tuple):
        raise EdgeworkError(f"plates {show_value(plates)} is not a list of port plates")
    if len(plates) > MAX_PLATES:
        raise EdgeworkError(f"{len(plates)} port plates are more than a bomb has (at most {MAX_PLATES})")
    for plate in plates:
        if not isinstance(plate, list | tuple) or not all(isinstance(p, str) for p in plate):
            raise EdgeworkError(f"plates: {show_value(plate)} is not a port plate (a list of port names)")
    if sum(len(plate) for plate in plates) > MAX_PORTS:
        raise EdgeworkError(f"plates: they hold more ports than a bomb has (at most {MAX_PORTS})")
    try:
        return tuple(tuple(normalize_port(p) for p in plate) for plate in plates)
    except EdgeworkError as error:
        raise EdgeworkError(f"plates: {error}") from None


@record
class Edgework:
    """Serial number, ports (one entry per port), indicators and solved count: what the rules read;
    and, when known, the battery holders and the port plates, which a casing shows.

    ``batteries`` holds one entry per holder (``AA`` or ``D``, see :data:`BATTERY_HOLDERS`); the
    rules never read it. ``plates`` is None when only the ports are known, else the port plates in
    order, each a tuple of its ports (empty for an empty plate); ``ports`` is then every plate's
    ports in order (given as ``()``, it is filled in from the plates; given, it must hold the same
    ports).
    """

    serial: str
    ports: tuple[str, ...] = ()
    lit: tuple[str, ...] = ()
    unlit: tuple[str, ...] = ()
    solved: int = 0
    batteries: tuple[str, ...] = ()
    plates: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        serial = str(self.serial).strip()
        if not serial.isascii() or not _SERIAL.fullmatch(serial.upper()):
            raise EdgeworkError(f"serial {show_value(self.serial)} must be 1 to 6 letters or digits")
        object.__setattr__(self, "serial", serial.upper())
        if self.plates is not None:
            plates = _plates(self.plates)
            object.__setattr__(self, "plates", plates)
            on_plates = tuple(port for plate in plates for port in plate)
            if not self.ports:
                object.__setattr__(self, "ports", on_plates)
            elif len(self.ports) > MAX_PORTS or sorted(map(normalize_port, self.ports)) != sorted(on_plates):
                raise EdgeworkError(
                    f"ports {show_value(list(self.ports))} are not the ports on the plates "
                    f"({join_names(on_plates)}); give one of them, or both alike"
                )
        if len(self.ports) > MAX_PORTS:
            raise EdgeworkError(f"{len(self.ports)} ports are more than a bomb has (at most {MAX_PORTS})")
        if len(self.lit) + len(self.unlit) > MAX_INDICATORS:
            raise EdgeworkError(
                f"{len(self.lit) + len(self.unlit)} indicators are more than a bomb has (at most {MAX_INDICATORS})"
            )
        object.__setattr__(self, "ports", tuple(normalize_port(p) for p in self.ports))
        object.__setattr__(self, "lit", tuple(_label(x, "lit") for x in self.lit))
        object.__setattr__(self, "unlit", tuple(_label(x, "unlit") for x in self.unlit))
        seen: dict[str, str] = {}
        for kind, labels in (("lit", self.lit), ("unlit", self.unlit)):
            for label in labels:
                if label in seen:
                    again = f"twice as {kind}" if seen[label] == kind else "both lit and unlit"
                    raise EdgeworkError(f"indicator {label} is given {again}; a bomb carries each label once")
                seen[label] = kind
        object.__setattr__(self, "solved", check_solved(self.solved))
        if not isinstance(self.batteries, list | tuple):
            raise EdgeworkError(f"batteries {show_value(self.batteries)} is not a list of battery holders")
        if len(self.batteries) > MAX_BATTERY_HOLDERS:
            raise EdgeworkError(
                f"{len(self.batteries)} battery holders are more than a bomb has (at most {MAX_BATTERY_HOLDERS})"
            )
        object.__setattr__(self, "batteries", tuple(check_battery_holder(b) for b in self.batteries))

    @property
    def battery_count(self) -> int:
        """Batteries in all holders (two per AA holder, one per D holder)."""
        return sum(BATTERY_HOLDERS[holder] for holder in self.batteries)

    @property
    def other_ports(self) -> tuple[str, ...]:
        """Ports that are none of the six vanilla kinds: they count toward the total only."""
        return tuple(p for p in self.ports if p not in VANILLA_PORTS)

    @property
    def letters(self) -> str:
        """The serial's letters, in order."""
        return "".join(c for c in self.serial if c.isalpha())

    @property
    def digits(self) -> str:
        """The serial's digits, in order."""
        return "".join(c for c in self.serial if c.isdigit())

    def vanilla_port_counts(self) -> dict[str, int]:
        """How many ports of each vanilla kind, in the manual's column order."""
        return {kind: self.ports.count(kind) for kind in VANILLA_PORTS}

    def has_lit(self, label: str) -> bool:
        """True when a lit indicator carries ``label``."""
        return label.upper() in self.lit

    def with_solved(self, solved: int) -> Edgework:
        """The same edgework with another solved count."""
        return replace(self, solved=solved)

    def to_dict(self) -> dict[str, object]:
        """The JSON form, as :meth:`from_dict` reads it (``batteries`` and ``plates`` only when known)."""
        data: dict[str, object] = {
            "serial": self.serial,
            "ports": list(self.ports),
            "lit": list(self.lit),
            "unlit": list(self.unlit),
            "solved": self.solved,
        }
        if self.batteries:
            data["batteries"] = list(self.batteries)
        if self.plates is not None:
            data["plates"] = [list(plate) for plate in self.plates]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Edgework:
        """Build edgework from a mapping (config file, network message).

        Unknown keys and wrong types are errors that name the key.
        """
        if not isinstance(data, dict):
            raise EdgeworkError(f"edgework {show_value(data)} is not a table")
        known = {"serial", "ports", "lit", "unlit", "solved", "batteries", "plates"}
        for key in data:
            if key not in known:
                raise EdgeworkError(f"unknown edgework key {show_value(key)}")
        if "serial" not in data:
            raise EdgeworkError("edgework has no serial")
        lists = {}
        for key in ("ports", "lit", "unlit", "batteries"):
            value = data.get(key, [])
            if isinstance(value, str):
                value = split_list(value)
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise EdgeworkError(f"edgework {key} {show_value(value)} is not a list of names")
            lists[key] = tuple(value)
        serial = data["serial"]
        if not isinstance(serial, str):
            raise EdgeworkError(f"serial {show_value(serial)} must be 1 to 6 letters or digits")
        plates = data.get("plates")
        if plates is not None and not isinstance(plates, list | tuple):
            raise EdgeworkError(f"edgework plates {show_value(plates)} is not a list of port plates")
        # The solved count is checked by __post_init__ (check_solved), after the serial, as for every caller.
        solved = cast(int, data.get("solved", 0))
        return cls(
            serial,
            lists["ports"],
            lists["lit"],
            lists["unlit"],
            solved,
            lists["batteries"],
            None if plates is None else tuple(plates),
        )


def _label(label: str, kind: str) -> str:
    """An indicator label, upper case; 1-8 letters or digits."""
    cleaned = str(label).strip()
    if not cleaned.isascii() or not _LABEL.fullmatch(cleaned.upper()):
        raise EdgeworkError(f"{kind} indicator {show_value(label)} is not a label of 1-8 letters or digits")
    return cleaned.upper()


def split_list(text: str | None) -> tuple[str, ...]:
    """Split a comma-separated list; ``None``, blank or ``none`` (what :func:`join_names` writes for
    no names) is the empty list."""
    if text is None or not text.strip() or text.strip().lower() == "none":
        return ()
    return tuple(part.strip() for part in text.split(","))


def join_names(names: Iterable[str]) -> str:
    """``Parallel, Serial``, or ``none`` for no names."""
    return ", ".join(names) if names else "none"
