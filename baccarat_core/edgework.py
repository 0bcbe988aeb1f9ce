"""The bomb's edgework that the rules read, and its validation."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import BaccaratError, EdgeworkError
from .numbers import check_count

#: The six vanilla port kinds, in the manual's column order.
VANILLA_PORTS: tuple[str, ...] = ("DVI-D", "Parallel", "PS/2", "RJ-45", "Serial", "Stereo RCA")

_SERIAL = re.compile(r"[A-Z0-9]{1,6}")
_LABEL = re.compile(r"[A-Z0-9]{1,8}")


def _port_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_VANILLA_BY_KEY: dict[str, str] = {_port_key(name): name for name in VANILLA_PORTS}
_VANILLA_BY_KEY.update({"dvi": "DVI-D", "stereo": "Stereo RCA", "rca": "Stereo RCA"})


def normalize_port(name: str) -> str:
    """The manual's spelling of a vanilla port (case and punctuation ignored),
    or the name as given for any other kind of port."""
    cleaned = name.strip()
    if not cleaned:
        raise EdgeworkError("a port name is empty")
    if not re.fullmatch(r"[\w ./+-]{1,32}", cleaned):
        raise EdgeworkError(f"port {name!r} is not a port name")
    return _VANILLA_BY_KEY.get(_port_key(cleaned), cleaned)


def check_solved(value: object) -> int:
    """The bomb's solved count, checked: a whole number >= 0 (the one check for every source)."""
    try:
        return check_count(value, "solved count")
    except BaccaratError as error:
        raise EdgeworkError(str(error)) from None


@dataclass(frozen=True)
class Edgework:
    """Serial number, ports (one entry per port), indicators and solved count."""

    serial: str
    ports: tuple[str, ...] = ()
    lit: tuple[str, ...] = ()
    unlit: tuple[str, ...] = ()
    solved: int = 0

    def __post_init__(self) -> None:
        serial = str(self.serial).strip().upper()
        if not _SERIAL.fullmatch(serial):
            raise EdgeworkError(f"serial {self.serial!r} must be 1 to 6 letters or digits")
        object.__setattr__(self, "serial", serial)
        object.__setattr__(self, "ports", tuple(normalize_port(p) for p in self.ports))
        object.__setattr__(self, "lit", tuple(_label(x, "lit") for x in self.lit))
        object.__setattr__(self, "unlit", tuple(_label(x, "unlit") for x in self.unlit))
        object.__setattr__(self, "solved", check_solved(self.solved))

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
        return Edgework(self.serial, self.ports, self.lit, self.unlit, solved)

    def to_dict(self) -> dict[str, object]:
        """The JSON form, as :meth:`from_dict` reads it."""
        return {
            "serial": self.serial,
            "ports": list(self.ports),
            "lit": list(self.lit),
            "unlit": list(self.unlit),
            "solved": self.solved,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Edgework:
        """Build edgework from a mapping (config file, network message).

        Unknown keys and wrong types are errors that name the key.
        """
        if not isinstance(data, dict):
            raise EdgeworkError(f"edgework {data!r} is not a table")
        known = {"serial", "ports", "lit", "unlit", "solved"}
        for key in data:
            if key not in known:
                raise EdgeworkError(f"unknown edgework key {key!r}")
        if "serial" not in data:
            raise EdgeworkError("edgework has no serial")
        lists = {}
        for key in ("ports", "lit", "unlit"):
            value = data.get(key, [])
            if isinstance(value, str):
                value = split_list(value)
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise EdgeworkError(f"edgework {key} {value!r} is not a list of names")
            lists[key] = tuple(value)
        serial = data["serial"]
        if not isinstance(serial, str):
            raise EdgeworkError(f"serial {serial!r} must be 1 to 6 letters or digits")
        return cls(serial, lists["ports"], lists["lit"], lists["unlit"], data.get("solved", 0))


def _label(label: str, kind: str) -> str:
    """An indicator label, upper case; 1-8 letters or digits."""
    cleaned = str(label).strip().upper()
    if not _LABEL.fullmatch(cleaned):
        raise EdgeworkError(f"{kind} indicator {label!r} is not a label of letters")
    return cleaned


def split_list(text: str | None) -> tuple[str, ...]:
    """Split a comma-separated list; ``None`` or blank is the empty list."""
    if text is None or not text.strip():
        return ()
    return tuple(part.strip() for part in text.split(","))


def join_names(names: Iterable[str]) -> str:
    """``Parallel,Serial``, or ``none`` for no names."""
    return ",".join(names) if names else "none"
