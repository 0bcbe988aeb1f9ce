"""The config file's machinery: a table read key by key, and the keys a section declares.

Every section of the config file, the core's (:mod:`firmware.config`) and each room service's
(:mod:`firmware.services`), is read through a :class:`Section`: each value's type and limits are
checked as it is read, and every problem is one :class:`~firmware.errors.ConfigError` naming the
table, the key and the value (never a secret's). A service declares its keys as :class:`Key`
records, which the docs' config reference is generated from.

>>> keys = (Key("port", int, 1883, check=port_problem, help="the broker's port"), Key("host", str))
>>> read_keys(Section("mqtt", {"host": "broker"}), keys)
{'port': 1883, 'host': 'broker'}
>>> read_keys(Section("mqtt", {"host": "broker", "prot": 1}), keys)
Traceback (most recent call last):
...
firmware.errors.ConfigError: [mqtt] prot: unknown key (did you mean port?)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from baccarat_core.numbers import show_value
from baccarat_core.records import record
from firmware.devices.header import BCM_TO_PHYSICAL
from firmware.errors import ConfigError

#: Longest string value (paths, topics, names, secrets).
MAX_STRING = 1024

#: Keys whose values never appear in a message, whatever section holds them (a service's
#: :class:`Key` with ``secret=True`` adds its own).
SECRET_KEYS = frozenset({"password", "controller_token"})

#: What a key's type is called in a message: ``must be a whole number``.
TYPE_WORDS: dict[type, str] = {
    str: "a string in quotes",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}

#: A value's check: None when it is fine, else what is wrong (``must be 1-65535``).
Check = Callable[[Any], "str | None"]

_T = TypeVar("_T")


def show_setting(value: Any) -> str:
    """A config value as a message quotes it, as TOML spells it: ``true``, ``nan``, ``"hw:1, 0"``, ``40``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # nan, inf, -inf: TOML's spelling (JSON's would be NaN, Infinity)
    return show_value(value, 60)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean port?)`` when ``name`` is close to one of ``known``, else ``""``."""
    import difflib  # only a config with a mistake in it needs it: not loaded at every start

    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def repeated(items: Iterable[_T]) -> _T | None:
    """The first item that comes a second time in ``items``, or None if each comes once."""
    seen: list[_T] = []
    for item in items:
        if item in seen:
            return item
        seen.append(item)
    return None


def gpio_problem(value: int) -> str | None:
    """Why ``value`` cannot be a part's GPIO, or None: a BCM number on the 40-pin header, not the
    HAT EEPROM bus (GPIO0/1)."""
    if value not in BCM_TO_PHYSICAL:
        return "not a GPIO on the 40-pin header (BCM numbers 0-27)"
    if value in (0, 1):
        return "GPIO0/1 carry the HAT EEPROM bus; pick another pin"
    return None


def port_problem(value: int) -> str | None:
    """1-65535 (a TCP or UDP port)."""
    return None if 1 <= value <= 65535 else "must be 1-65535"


def within(low: float, high: float, *, above: bool = False) -> Check:
    """A check for ``low <= value <= high`` (``low < value`` with ``above``); its docstring says so,
    for the config reference."""
    words = f"{'above' if above else 'at least'} {low:g} and at most {high:g}"

    def check(value: float) -> str | None:
        if value < low or (above and value == low) or value > high:
            return f"must be {words}"
        return None

    check.__doc__ = words
    return check


def secret_problem(minimum: int) -> Check:
    """A check for a password or a token: empty (none set), or at least ``minimum`` characters with
    no spaces at either end and no control characters (its message never quotes the value)."""

    def check(value: str) -> str | None:
        if value == "":
            return None
        if len(value) < minimum:
            return f"must be at least {minimum} characters"
        if value != value.strip() or any(not c.isprintable() for c in value):
            return "must not start or end with spaces or hold control characters"
        return None

    check.__doc__ = f"at least {minimum} characters"
    return check


def one_of(*choices: str) -> Check:
    """A check for a value among ``choices`` (``must be "none", "alsa" or "buzzer"``)."""
    words = (
        ", ".join(f'"{c}"' for c in choices[:-1]) + f' or "{choices[-1]}"' if len(choices) > 1 else f'"{choices[0]}"'
    )

    def check(value: str) -> str | None:
        return None if value in choices else f"must be {words}"

    check.__doc__ = f"one of {words}"
    return check


class Section:
    """One table of the file, read key by key: the section validator of the config loader and
    of every service alike.

    Each value's type (and ``check``) is tested as it is read; every problem is one
    :class:`ConfigError` (or ``error``, a subclass) naming the table, the key and the
    value, never a secret's. :meth:`finish` then refuses any key nobody asked for.
    ``present`` is False for a section the file does not have (read with its defaults).

    >>> timing = Section("timing", {"card_seconds": 0.5, "speed": 2})
    >>> timing.get("card_seconds", float, 0.6, check=within(0, 60))
    0.5
    >>> timing.finish()
    Traceback (most recent call last):
    ...
    firmware.errors.ConfigError: [timing] speed: unknown key
    >>> Section("sound", {"pin": 40}).gpio("pin")
    Traceback (most recent call last):
    ...
    firmware.errors.ConfigError: [sound] pin = 40: not a GPIO on the 40-pin header (BCM numbers 0-27)
    """

    def __init__(
        self,
        name: str,
        data: Any,
        *,
        error: type[ConfigError] = ConfigError,
        present: bool = True,
        secrets: Iterable[str] = (),
    ) -> None:
        if not isinstance(data, dict):
            raise error(f"[{name}] must be a table, not {show_setting(data)}")
        self.name = name
        self.data = data
        self.error = error
        self.present = present
        self.secrets = SECRET_KEYS | frozenset(secrets)
        self.used: set[str] = set()

    def fail(self, key: str, problem: str) -> ConfigError:
        """The error for ``key``, naming its value (a secret's never: only its key)."""
        value = self.data.get(key)
        if key in self.secrets:
            return self.error(f"[{self.name}] {key}: {problem}")
        shown = f"0x{value:02X}" if key == "address" and type(value) is int else show_setting(value)
        return self.error(f"[{self.name}] {key} = {shown}: {problem}")

    def get(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = ...,
        *,
        check: Check | None = None,
    ) -> Any:
        """The value of ``key`` if it has the type ``kind`` and passes ``check``; ``default`` when absent."""
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                raise self.error(f"[{self.name}] {key} is missing")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            names = " or ".join(TYPE_WORDS.get(k, k.__name__) for k in kinds if not (k is int and float in kinds))
            raise self.fail(key, f"must be {names}")
        if isinstance(value, str) and (len(value) > MAX_STRING or "\0" in value):
            raise self.fail(key, f"must be at most {MAX_STRING} characters, without NUL")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(key, "must be a finite number")
        if check is not None:
            problem = check(value)
            if problem:
                raise self.fail(key, problem)
        return value

    @overload
    def gpio(self, key: str, default: int = ...) -> int: ...
    @overload
    def gpio(self, key: str, default: None) -> int | None: ...

    def gpio(self, key: str, default: Any = ...) -> int | None:
        """A BCM GPIO number on the 40-pin header (``default`` when absent, None included; the one
        GPIO rule: :func:`gpio_problem`)."""
        pin: int | None = self.get(key, int, default, check=gpio_problem)
        return pin

    def value(self, key: str, default: Any = None) -> Any:
        """The raw value of ``key`` (``default`` when absent), for a caller that checks it itself."""
        self.used.add(key)
        return self.data.get(key, default)

    def finish(self) -> None:
        """Refuse any key nobody asked for (naming a close one that was asked for)."""
        for key in self.data:
            if key not in self.used:
                raise self.error(f"[{self.name}] {key}: unknown key{did_you_mean(key, self.used)}")


@record
class PinUse:
    """One GPIO the build takes: by a part of the prop, a bus, a reservation or a service."""

    gpio: int
    owner: str  # "[inputs] tie", "I2C1 SDA", "SPI0 CE1", "HAT EEPROM ID_SD", "[sound] pin", ...
    kind: str  # "input", "light", "output", "sound", "display", "bus" or "reserved"


@record
class Key:
    """One key a section declares: its type, its default (``...``: required), its check and a line
    of help, as the config reference shows them. ``secret``: its value never appears in a message,
    a log line, ``check-config`` or a support bundle."""

    name: str
    kind: type | tuple[type, ...]
    default: Any = ...
    check: Check | None = None
    help: str = ""
    secret: bool = False

    def read(self, section: Section) -> Any:
        """This key's value in ``section`` (checked), or its default."""
        return section.get(self.name, self.kind, self.default, check=self.check)

    def type_words(self) -> str:
        """``a whole number``, ``a string in quotes``, ``a number``..."""
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        return " or ".join(TYPE_WORDS.get(k, k.__name__) for k in kinds if not (k is int and float in kinds))

    def limits(self) -> str:
        """What the check allows, in words (its docstring), or ``""``."""
        doc = getattr(self.check, "__doc__", None) if self.check is not None else None
        return " ".join(doc.split()) if doc else ""


def read_keys(section: Section, keys: Iterable[Key], *, finish: bool = True) -> dict[str, Any]:
    """Every key's value in ``section`` (checked, defaults filled in); with ``finish``, any other
    key is refused."""
    keys = tuple(keys)
    section.secrets |= {key.name for key in keys if key.secret}
    values = {key.name: key.read(section) for key in keys}
    if finish:
        section.finish()
    return values
