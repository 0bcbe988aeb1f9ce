"""KTANE's six-character serial number and OBUS's seven, without changing the manual's answer.

The manual reads a serial number's letters and digits: the first, the second, the second to last,
the last, and the sum (:func:`baccarat_core.deck.serial_letter`, :func:`~baccarat_core.deck.serial_digit`),
never where they stand. A serial of one length fits the other when every one of those ten
readings (five rows of letters, five of digits) is the same: that is :func:`readings`, and both
directions below look for such a serial among the ones one character away.

- **KTANE -> OBUS** (the prop as controller, sending its serial as info module 1 would): a
  seventh character is put in where it changes no reading: a ``Z`` among four letters (it adds 26
  to their sum, which the manual counts round 26) or a ``0`` among four digits, or a copy of a
  letter or digit that the readings take twice anyway. A serial with three letters and three
  digits has none in most cases (:func:`to_obus` gives None).
- **OBUS -> KTANE** (the prop as a module of an OBUS bomb): one character is left out where it
  changes no reading (:func:`from_obus`), else None.

>>> to_obus("AB3DE4"), to_obus("12345A"), to_obus("A13DE4")  # four letters; four digits; 3 and 3
('AB3ZDE4', '123045A', None)
>>> from_obus("AB3ZDE4"), from_obus("KT3XQ47")
('AB3DE4', None)
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from baccarat_core.deck import serial_digit, serial_letter
from baccarat_core.limits import MINIMUMS, RATIO_BOUNDS

from .protocol import SERIAL_LENGTH

#: KTANE's serial number has six characters (the prop's edgework takes 1 to 6).
KTANE_LENGTH = 6
_CHARACTERS = "ZABCDEFGHIJKLMNOPQRSTUVWXY0123456789"


def readings(serial: str) -> tuple[object, ...]:
    """What the manual reads of ``serial``: its letter for each minimum bet, its digit for each
    maximum/minimum row."""
    edgework: Any = SimpleNamespace(
        letters="".join(c for c in serial if c.isalpha()), digits="".join(c for c in serial if c.isdigit())
    )
    letters = tuple(serial_letter(edgework, SimpleNamespace(minimum=m)) for m in MINIMUMS)  # type: ignore[arg-type]
    digits = tuple(
        serial_digit(edgework, SimpleNamespace(ratio_row=row))  # type: ignore[arg-type]
        for row in range(len(RATIO_BOUNDS) + 1)
    )
    return letters + digits


def _has_both(serial: str) -> bool:
    return any(c.isalpha() for c in serial) and any(c.isdigit() for c in serial)


def to_obus(serial: str) -> str | None:
    """A seven-character serial with ``serial``'s readings (a character put in), or None."""
    serial = serial.upper()
    if len(serial) != KTANE_LENGTH:
        return None
    want = readings(serial)
    for position in range(KTANE_LENGTH, -1, -1):
        for char in _CHARACTERS:
            candidate = serial[:position] + char + serial[position:]
            if _has_both(candidate) and readings(candidate) == want:
                return candidate
    return None


def from_obus(serial: str) -> str | None:
    """A six-character serial with ``serial``'s readings (a character left out), or None."""
    if len(serial) != SERIAL_LENGTH:
        return None
    want = readings(serial)
    for position in range(SERIAL_LENGTH - 1, -1, -1):
        candidate = serial[:position] + serial[position + 1 :]
        if readings(candidate) == want:
            return candidate
    return None
