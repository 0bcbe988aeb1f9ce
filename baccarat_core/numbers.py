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


def check_count(value: object, what: str, *, maximum: int | None = None) -> int:
    """``value`` if it is a whole number from 0 to ``maximum``; else a :class:`BaccaratError` naming it.

    Booleans and floats are not whole numbers here, even ``true`` or ``3.0``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise BaccaratError(f"{what} {show_value(value)} is not a whole number")
    if value < 0:
        raise BaccaratError(f"{what} {value} is negative")
    if maximum is not None and value > maximum:
        raise BaccaratError(f"{what} {value} is above the most allowed ({maximum})")
    return value


def parse_count(text: str, what: str, *, maximum: int | None = None) -> int:
    """A whole number typed by a person (ASCII digits only), checked by :func:`check_count`."""
    cleaned = text.strip()
    if cleaned.startswith("-") and _DIGITS.fullmatch(cleaned[1:]):
        raise BaccaratError(f"{what} {cleaned} is negative")
    if not _DIGITS.fullmatch(cleaned):
        raise BaccaratError(f"{what} {show_value(text)} is not a whole number")
    return check_count(int(cleaned), what, maximum=maximum)


def parse_dollars(text: str, what: str = "amount", *, maximum: int | None = None) -> int:
    """Whole dollars typed by a person: ``25``, ``$25``, ``1,000``, ``$10,000``."""
    cleaned = text.strip()
    if cleaned.startswith("$"):
        cleaned = cleaned[1:]
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", cleaned):
        cleaned = cleaned.replace(",", "")
    if cleaned.startswith("-") and _DIGITS.fullmatch(cleaned[1:]):
        raise BaccaratError(f"{what} {text.strip()} is negative")
    if not _DIGITS.fullmatch(cleaned):
        raise BaccaratError(f"{what} {show_value(text)} is not a whole number of dollars")
    return check_count(int(cleaned), what, maximum=maximum)


def show_value(value: object, limit: int = 40) -> str:
    """A value as a message quotes it, cut short: as JSON spells it (``"3"``, ``true``, ``{"a": 1}``),
    else (a value JSON has no spelling for) as Python shows it."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
