"""The one strict reading of outside data: size, depth, strict JSON, and the documented bounds.

Every input surface (MQTT messages, Room 2.0 words, the control socket, the
saved state file, ``baccarat play`` lines) reads JSON through :func:`loads`:

- a size limit *before* anything is parsed (:data:`MAX_BYTES`, 64 KiB),
- strict UTF-8,
- a nesting limit checked before the parser recurses (:data:`MAX_DEPTH`),
- strict JSON: no ``NaN``/``Infinity``, no number that overflows a float, no
  integer longer than :data:`MAX_INT_DIGITS` digits, no key given twice.

Values are then checked by the rules' own checks (:func:`numbers.check_count`,
:class:`Edgework`, :func:`check_limits`) against the bounds below, which are
the ones the README documents. Every refusal is an :class:`InputError`: one
line, naming the offending value cut short (:func:`numbers.show_value`).
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import BaccaratError
from .limits import TableLimits
from .numbers import format_dollars, show_value
from .patterns import Pattern

#: Largest message, request line or state file read, in bytes (checked before parsing).
MAX_BYTES = 64 * 1024
#: Deepest nesting of JSON arrays and objects (a command needs 2, the state file 4).
MAX_DEPTH = 8
#: Longest integer literal read from JSON (every bound below has far fewer digits).
MAX_INT_DIGITS = 20

#: Largest solved count (a bomb with ten thousand modules is not a bomb).
MAX_SOLVED = 9_999
#: Largest table maximum in dollars (the manual's largest is $150,000).
MAX_TABLE_MAXIMUM = 1_000_000
#: Most ports on a bomb, all kinds together.
MAX_PORTS = 64
#: Most indicators on a bomb, lit and unlit together.
MAX_INDICATORS = 32
#: Most port plates on a bomb (empty ones included).
MAX_PLATES = 64
#: Most battery holders on a bomb.
MAX_BATTERY_HOLDERS = 32
#: Largest ``[edgework] seed`` (TOML's largest whole number).
MAX_SEED = 2**63 - 1
#: Most games a saved game may count since the first start.
MAX_GAMES = 1_000_000_000
#: Longest command id (a string) echoed in a reply.
MAX_ID_LENGTH = 64
#: Largest command id (a whole number): JSON's safe integers.
MAX_ID_NUMBER = 2**53 - 1
#: Most strikes a saved game may hold.
MAX_STRIKES = 1_000_000


class InputError(BaccaratError):
    """Outside data that is too big, too deep, not strict JSON or out of bounds."""


_INTERESTING = Pattern(r'["\\\[\]{}]')
_BRACKETS = Pattern(r"[\[\]{}]")


def deeper_than(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when arrays and objects in ``text`` nest more than ``limit`` levels (strings skipped).

    A linear scan of the brackets, quotes and backslashes only, so a hostile
    message cannot make the parser recurse, nor this check backtrack.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    if "\\" not in text:
        # With no escape, each quote opens or closes a string: what lies outside the strings is every
        # other piece between quotes, and only its brackets are looked at (a history line's strings
        # are most of its quotes: reading a long game after a power cut took a third less).
        depth = 0
        for char in _BRACKETS.findall("".join(text.split('"')[0::2])):
            if char in "[{":
                depth += 1
                if depth > limit:
                    return True
            else:
                depth -= 1
        return False
    depth = 0
    in_string = False
    skip_to = -1
    for match in _INTERESTING.finditer(text):
        at, char = match.start(), match.group()
        if at < skip_to:
            continue
        if in_string:
            if char == "\\":
                skip_to = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def decode_text(data: bytes | bytearray | str, what: str, *, max_bytes: int = MAX_BYTES) -> str:
    """``data`` as text: at most ``max_bytes`` bytes of strict UTF-8."""
    if isinstance(data, str):
        if len(data) > max_bytes or len(data.encode("utf-8", "surrogatepass")) > max_bytes:
            raise InputError(f"{what} is longer than {max_bytes} bytes")
        return data
    if not isinstance(data, bytes | bytearray):
        raise InputError(f"{what} {show_value(data)} is not text")
    if len(data) > max_bytes:
        raise InputError(f"{what} is longer than {max_bytes} bytes ({len(data)})")
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{what} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None


def _no_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number strict JSON allows")


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise InputError(f"a number of {digits} digits is too long (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"number {show_value(text)} is out of range")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"key {show_value(key)} appears twice")
        out[key] = value
    return out


_DECODER = json.JSONDecoder(
    parse_int=_int, parse_float=_float, parse_constant=_no_constant, object_pairs_hook=_object, strict=True
)


def loads(
    data: bytes | bytearray | str, what: str = "message", *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Strict JSON from outside: size first, then UTF-8, depth, and the strict parse."""
    text = decode_text(data, what, max_bytes=max_bytes)
    if deeper_than(text, max_depth):
        raise InputError(f"{what} is nested deeper than {max_depth} levels")
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{what} is not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:  # the depth check above should make this unreachable
        raise InputError(f"{what} is nested too deeply") from None


def one_line(text: str, limit: int = 240) -> str:
    """``text`` on one line of at most ``limit`` characters (the last guard for replies and log lines)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def dumps(value: Any) -> str:
    """JSON as the prop sends it: strict (never ``NaN``), ASCII-safe."""
    return json.dumps(value, allow_nan=False)


def check_bool(value: object, what: str) -> bool:
    """``value`` if it is ``true`` or ``false`` (not ``"false"``, not ``0``)."""
    if not isinstance(value, bool):
        raise InputError(f"{what} {show_value(value)} is not true or false")
    return value


def _whole_dollars(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} {show_value(value)} is not a whole number of dollars")
    return value


def check_limits(minimum: object, maximum: object) -> TableLimits:
    """Table limits from outside: whole dollars, a manual minimum, a maximum up to :data:`MAX_TABLE_MAXIMUM`."""
    low, high = _whole_dollars(minimum, "minimum"), _whole_dollars(maximum, "maximum")
    if high > MAX_TABLE_MAXIMUM:
        raise InputError(
            f"maximum {show_value(high)} is above the largest the prop shows ({format_dollars(MAX_TABLE_MAXIMUM)})"
        )
    return TableLimits(low, high)


def check_request_id(value: object) -> str | int | None:
    """A command's ``id``: a string of at most :data:`MAX_ID_LENGTH` characters, a whole number
    within JSON's safe integers, or null."""
    if value is None or isinstance(value, str) and len(value) <= MAX_ID_LENGTH:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_ID_NUMBER:
        return value
    raise InputError(
        f"id {show_value(value)} must be a string of at most {MAX_ID_LENGTH} characters, a whole number or null"
    )


def check_keys(
    data: object, what: str, *, required: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """``data`` if it is an object with all of ``required`` and nothing beyond ``optional``."""
    if not isinstance(data, dict):
        raise InputError(f"{what} {show_value(data)} is not an object")
    for key in data:
        if key not in required and key not in optional:
            raise InputError(f"{what}: unknown key {show_value(key)}")
    for key in sorted(required):
        if key not in data:
            raise InputError(f"{what}: {key} is missing")
    return data
