"""Money and counts as people read and type them: one formatter, one parser.

Every dollar amount the prop shows (placard, bets display, log, CLI) goes
through :func:`format_dollars` or :func:`format_cents`; every amount or count
typed by a person (CLI arguments, Room 2.0 words) goes through
:func:`parse_dollars` or :func:`parse_count`; every count that arrives as a
value (JSON, TOML) goes through :func:`check_count`.
"""

from __future__ import annotations

import json
import re
import reprlib

from .errors import BaccaratError

#: Amounts from this many dollars up carry thousands separators ($10,000), as on the placard.
SEPARATORS_FROM = 10_000

_DIGITS = re.compile(r"[0-9]+")


def format_dollars(amount: int) -> str:
    """``$5``, ``$1000``, ``$10,000``, ``-$25``: separators from $10,000 up, as on the placard."""
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    return f"{sign}${amount:,}" if amount >= SEPARATORS_FROM else f"{sign}${amount}"


def format_cents(cents: int, *, signed: bool = False) -> str:
    """Whole cents as dollars and cents: ``$23.75``, ``$10,000.00``; with ``signed``: ``+$23.75``, ``-$26.00``."""
    dollars, rest = divmod(abs(cents), 100)
    text = f"{format_dollars(dollars)}.{rest:02d}"
    if cents < 0:
        return "-" + text
    return ("+" + text) if signed and cents > 0 else text


#: Longest number a person may type (every bound the prop has is far shorter).
MAX_TYPED_DIGITS = 20


def check_count(value: object, what: str, *, maximum: int | None = None, minimum: int = 0) -> int:
    """``value`` if it is a whole number from ``minimum`` to ``maximum``; else a :class:`BaccaratError`
    naming it.

    Booleans and floats are not whole numbers here, even ``true`` or ``3.0``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise BaccaratError(f"{what} {show_value(value)} is not a whole number")
    if value < 0:
        raise BaccaratError(f"{what} {show_value(value)} is negative")
    if value < minimum:
        raise BaccaratError(f"{what} {show_value(value)} is below the least allowed ({minimum})")
    if maximum is not None and value > maximum:
        raise BaccaratError(f"{what} {show_value(value)} is above the most allowed ({maximum})")
    return value


def _typed_number(text: str, cleaned: str, what: str, kind: str) -> int:
    """``cleaned`` as a whole number if it is ASCII digits only (no sign, ``_``, spaces or other scripts)."""
    negative = cleaned.startswith("-") and _DIGITS.fullmatch(cleaned[1:])
    digits = cleaned[1:] if negative else cleaned
    if not _DIGITS.fullmatch(digits):
        raise BaccaratError(f"{what} {show_value(text)} is not {kind}")
    if len(digits) > MAX_TYPED_DIGITS:
        raise BaccaratError(f"{what} {show_value(text)} is too large ({len(digits)} digits)")
    if negative:
        raise BaccaratError(f"{what} {show_value(text.strip())[1:-1]} is negative")
    return int(digits)


def parse_count(text: str, what: str, *, maximum: int | None = None, minimum: int = 0) -> int:
    """A whole number typed by a person (ASCII digits only), checked by :func:`check_count`."""
    number = _typed_number(text, text.strip(), what, "a whole number")
    return check_count(number, what, maximum=maximum, minimum=minimum)


def parse_dollars(text: str, what: str = "amount", *, maximum: int | None = None) -> int:
    """Whole dollars typed by a person: ``25``, ``$25``, ``1,000``, ``$10,000``."""
    cleaned = text.strip()
    if cleaned.startswith("$"):
        cleaned = cleaned[1:]
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", cleaned):
        cleaned = cleaned.replace(",", "")
    return check_count(_typed_number(text, cleaned, what, "a whole number of dollars"), what, maximum=maximum)


def show_value(value: object, limit: int = 40) -> str:
    """A value as a message quotes it, cut short to ``limit`` characters and always one printable line:
    as JSON spells it (``"3"``, ``true``, ``{"a": 1}``), else as Python shows it; a huge number by its size."""
    if isinstance(value, str):
        text = json.dumps(value[: limit + 1], ensure_ascii=False)
        if len(value) > limit + 1:
            text = text[:-1] + '..."'
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        text = f"(a number of {len(str(abs(value))) if value.bit_length() < 4000 else 'over 1000'} digits)"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False) if _small(value) else _REPR.repr(value)
        except (TypeError, ValueError, RecursionError):
            text = _REPR.repr(value)
    text = _printable(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _small(value: object) -> bool:
    """Whether ``value`` is a scalar or a shallow, short container (quoted whole as JSON)."""
    if isinstance(value, dict | list | tuple):
        return len(value) <= 8 and all(not isinstance(v, dict | list | tuple) for v in value)
    return True


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = 30
_REPR.maxother = 40
_REPR.maxlong = 25


def _printable(text: str) -> str:
    """Control characters, line and paragraph separators and lone surrogates as escapes."""
    if text.isprintable():
        return text
    import unicodedata  # only for text that is not printable (most messages never get here)

    return "".join(
        c if c == " " or unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Zl", "Zp", "Cn") else f"\\u{ord(c):04x}"
        for c in text
    )
