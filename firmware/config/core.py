"""The core's sections of the config file: their keys (:class:`~firmware.config.sections.Key`) and readers.

Pins, displays, edgework, limits, timing, the bomb, the outputs and the state file: what the prop
is made of. Each key is declared once, with its type, default, check and help, and read through
that declaration, so that the config reference the docs show is generated from what is checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from baccarat_core import BaccaratError, Edgework, TableLimits
from baccarat_core import events as ev
from baccarat_core.bomb import RandomBombs
from baccarat_core.deck import COLORS
from baccarat_core.limits import MINIMUMS
from baccarat_core.numbers import format_dollars
from baccarat_core.strict import MAX_SEED, MAX_SOLVED, MAX_TABLE_MAXIMUM
from baccarat_core.timer import MAX_STRIKE_LIMIT, MAX_TIMER_SECONDS, BombRules
from firmware.config.sections import Key, Section, gpio_problem, one_of, read_keys, within
from firmware.devices.header import SPI_BUS_PINS
from firmware.devices.wiring import (
    DRIVERS,
    INPUT_NAMES,
    OUTPUT_MODES,
    ROLES,
    DeckLightWiring,
    DisplaySpec,
    InputWiring,
    OutputWiring,
    StatusLightWiring,
)
from firmware.errors import ConfigError
from firmware.game.pacing import PACINGS
from firmware.i18n import language_problem

#: Longest ``[timing]`` duration, in seconds.
MAX_SECONDS = 60.0
#: Game events a config can act on, by their event names: ``[[outputs]] on``, ``[mqtt.room_requests]``.
TRIGGER_EVENTS: tuple[str, ...] = (
    ev.Solved.kind,
    ev.Strike.kind,
    ev.ModuleReset.kind,
    ev.DealStarted.kind,
    ev.Exploded.kind,
)
#: An output's name: a word of lowercase letters, digits, ``_`` or ``-`` (it goes into MQTT topics,
#: URLs, Home Assistant IDs and Room 2.0 commands as written).
OUTPUT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
#: Longest ``pulse_seconds`` and ``max_on_seconds`` of an output.
MAX_OUTPUT_SECONDS = 3600.0
#: What switches an output on or off: a game event (:data:`TRIGGER_EVENTS`), or none (commands only).
OUTPUT_EVENTS: tuple[str, ...] = (*TRIGGER_EVENTS, "none")


def _seconds(*, above: bool) -> Callable[[float], str | None]:
    return within(0, MAX_SECONDS, above=above)


#: Each ``[timing]`` key's check (the file's, and the command line's overrides': :func:`timing_problem`).
TIMING_CHECKS: dict[str, Callable[[float], str | None]] = {
    "hold_seconds": _seconds(above=True),
    "debounce_seconds": _seconds(above=False),
    "strike_flash_seconds": _seconds(above=True),
    "card_seconds": _seconds(above=False),
    "result_seconds": _seconds(above=False),
}


def timing_problem(key: str, value: float) -> str | None:
    """What is wrong with ``value`` as ``[timing] key`` (None: nothing), as the file is checked:
    a command-line flag that overrides a duration goes through the same check."""
    if not math.isfinite(value):
        return "must be a finite number"
    return TIMING_CHECKS[key](value)


def _seed_problem(value: int) -> str | None:
    """0 to 2^63 - 1."""
    return None if 0 <= value <= MAX_SEED else f"must be from 0 to {MAX_SEED}"


def _words(choices: tuple[str, ...], problem: str) -> Callable[[str], str | None]:
    """A check for one of ``choices``, saying ``problem`` otherwise."""

    def check(value: str) -> str | None:
        return None if value in choices else problem

    check.__doc__ = f"one of {', '.join(choices)}"
    return check


def _gpio(name: str, help: str = "", default: Any = ...) -> Key:  # noqa: A002 - Key's field
    return Key(name, int, default, check=gpio_problem, help=help or "BCM GPIO")


#: The core's keys by section, as the config reference lists them (tables of tables: ``displays``
#: and ``outputs``, one table each in ``[[...]]``).
CORE_KEYS: dict[str, tuple[Key, ...]] = {
    "edgework": (
        Key(
            "mode",
            str,
            "fixed",
            check=_words(("fixed", "random"), "must be fixed or random"),
            help="fixed: the keys below; random: a new bomb each game",
        ),
        Key("solved", int, 0, check=within(0, MAX_SOLVED), help="modules already solved on the bomb"),
        Key("seed", int, None, check=_seed_problem, help='mode = "random": the same bombs each time'),
        Key("serial", str, ..., help='mode = "fixed": the serial number, e.g. "AB3DE4"'),
        Key("ports", list, [], help="one entry per port: Parallel, Serial, RJ-45, DVI-D, PS/2, StereoRCA"),
        Key("lit", list, [], help="lit indicator labels"),
        Key("unlit", list, [], help="unlit indicator labels"),
        Key("batteries", list, [], help="battery holders: AA or D (the rules ignore them)"),
        Key("plates", list, None, help='the port plates, instead of ports: [["Parallel"], []]'),
    ),
    "limits": (
        Key(
            "mode",
            str,
            "random",
            check=_words(("random", "fixed"), "must be random or fixed"),
            help="random: drawn as the original draws them",
        ),
        Key("min", int, ..., help=f"fixed: the minimum bet, one of {', '.join(map(str, MINIMUMS))}"),
        Key("max", int, ..., help=f"fixed: the maximum bet, above min, at most {format_dollars(MAX_TABLE_MAXIMUM)}"),
    ),
    "display": (
        Key(
            "language",
            str,
            "",
            check=language_problem,
            help="the displays' words (PLAYER, TABLE LIMITS...) in a language (fr, de, es...); empty: in English",
        ),
    ),
    "deck": (
        Key(
            "first_color",
            str,
            "random",
            check=lambda v: None if v in (*COLORS, "random") else f"must be random or one of {', '.join(COLORS)}",
            help=f"the first deck's back colour: random, {', '.join(COLORS)}",
        ),
    ),
    "inputs": (
        *(_gpio(name, f"BCM GPIO of the {name.replace('_', ' ')} input") for name in INPUT_NAMES),
        Key("pull_up", bool, True, help="buttons wired GPIO -> button -> GND (false: to 3V3)"),
        Key("deal_active_high", bool, False, help="the deck input is a sensor whose output goes high"),
    ),
    "status_light": (
        _gpio("red"),
        _gpio("green"),
        Key("active_high", bool, True, help="LEDs lit by a high pin"),
    ),
    "deck_light": (
        _gpio("red"),
        _gpio("green"),
        _gpio("blue"),
        Key("active_high", bool, True, help="false for a common-anode RGB LED"),
        Key("pwm", bool, True, help="dims the mix for silver (false: silver is white)"),
    ),
    "timing": (
        Key("hold_seconds", float, 0.5, check=TIMING_CHECKS["hold_seconds"], help="hold an area this long to clear it"),
        Key(
            "debounce_seconds", float, 0.02, check=TIMING_CHECKS["debounce_seconds"], help="shorter presses are bounce"
        ),
        Key("strike_flash_seconds", float, 1.0, check=TIMING_CHECKS["strike_flash_seconds"], help="the red flash"),
        Key("card_seconds", float, 0.6, check=TIMING_CHECKS["card_seconds"], help='"quick": seconds between cards'),
        Key(
            "result_seconds",
            float,
            1.5,
            check=TIMING_CHECKS["result_seconds"],
            help='"quick": the result shows this long',
        ),
        Key(
            "pacing", str, "original", check=one_of(*PACINGS), help="original: the original's timeline; quick: face up"
        ),
    ),
    "state": (
        Key("file", str, None, help='where the game is saved ("": not saved; unset: the service\'s state directory)'),
    ),
    "bomb": (
        Key("timer_seconds", float, None, check=within(1, MAX_TIMER_SECONDS), help="a countdown from the first input"),
        Key("strike_limit", int, None, check=within(1, MAX_STRIKE_LIMIT), help="the bomb explodes at this strike"),
        Key("speed_up", bool, True, help="with a timer: each strike makes it faster"),
    ),
    "displays": (
        Key(
            "role",
            str,
            ...,
            check=lambda v: None if v in ROLES else f"must be one of {', '.join(ROLES)}",
            help=f"one of {', '.join(ROLES)}",
        ),
        Key(
            "driver",
            str,
            ...,
            check=lambda v: None if v in DRIVERS else f"is not a supported luma.oled driver ({', '.join(DRIVERS)})",
            help=f"the luma.oled driver: {', '.join(DRIVERS)}",
        ),
        Key("interface", str, ..., check=_words(("i2c", "spi"), "must be i2c or spi"), help="i2c or spi"),
        Key("width", int, ..., check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels", help="pixels"),
        Key("height", int, ..., check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels", help="pixels"),
        Key(
            "rotate",
            int,
            0,
            check=lambda v: None if v in (0, 1, 2, 3) else "must be 0, 1, 2 or 3 (quarter turns)",
            help="quarter turns",
        ),
    ),
    "displays.i2c": (
        Key("port", int, 1, check=within(0, 255), help="i2c: the bus (/dev/i2c-N)"),
        Key(
            "address",
            int,
            0x3C,
            check=lambda v: None if 0x03 <= v <= 0x77 else "is not a 7-bit I2C address (0x03-0x77)",
            help="i2c: the display's address (0x3C or 0x3D)",
        ),
    ),
    "displays.spi": (
        Key("port", int, 0, check=lambda v: None if v in SPI_BUS_PINS else "must be 0 or 1", help="spi: the bus"),
        Key(
            "device",
            int,
            0,
            check=lambda v: None if v in (0, 1, 2) else "must be 0, 1 or 2",
            help="spi: the chip select",
        ),
        _gpio("dc", "spi: the data/command pin", 24),
        _gpio("reset", "spi: the reset pin", None),
        Key("bus_speed_hz", int, 8_000_000, check=within(0, 125_000_000, above=True), help="spi: the clock"),
    ),
    "outputs": (
        Key(
            "name",
            str,
            ...,
            check=lambda v: (
                None
                if OUTPUT_NAME.fullmatch(v)
                else "must be a word of 1-32 lowercase letters, digits, _ or -, starting with a letter"
            ),
            help="a word: commands, MQTT, Home Assistant and the console call it so",
        ),
        _gpio("pin"),
        Key("active_high", bool, True, help="false for a relay board with active-low inputs"),
        Key(
            "on",
            str,
            ...,
            check=_words(OUTPUT_EVENTS, f"must be one of {', '.join(OUTPUT_EVENTS)}"),
            help=f"what switches it on: {', '.join(OUTPUT_EVENTS)}",
        ),
        Key(
            "mode",
            str,
            "hold",
            check=_words(OUTPUT_MODES, f"must be {' or '.join(OUTPUT_MODES)}"),
            help="hold: on until off_on; pulse: pulse_seconds",
        ),
        Key("pulse_seconds", float, 1.0, check=within(0, MAX_OUTPUT_SECONDS, above=True), help="a pulse's length"),
        Key("max_on_seconds", float, None, check=within(0, MAX_OUTPUT_SECONDS, above=True), help="never on longer"),
        Key(
            "off_on",
            str,
            "reset",
            check=_words(OUTPUT_EVENTS, f"must be one of {', '.join(OUTPUT_EVENTS)}"),
            help='what switches it off ("none" when on = "reset")',
        ),
    ),
}


def key(section: str, name: str) -> Key:
    """The core key ``[section] name``."""
    return next(k for k in CORE_KEYS[section] if k.name == name)


def read_named(section: Section, table: str, *names: str) -> list[Any]:
    """The values of ``names`` in ``section``, each read through its key of ``CORE_KEYS[table]``."""
    return [key(table, name).read(section) for name in names]


def read_deck(section: Section) -> str | None:
    """``[deck] first_color``: None for a random colour."""
    first: str = read_keys(section, CORE_KEYS["deck"])["first_color"]
    return None if first == "random" else first


def read_inputs(section: Section) -> InputWiring:
    """``[inputs]``."""
    values = read_keys(section, CORE_KEYS["inputs"])
    return InputWiring({name: values[name] for name in INPUT_NAMES}, values["pull_up"], values["deal_active_high"])


def read_status_light(section: Section) -> StatusLightWiring:
    """``[status_light]``."""
    v = read_keys(section, CORE_KEYS["status_light"])
    return StatusLightWiring(v["red"], v["green"], v["active_high"])


def read_deck_light(section: Section) -> DeckLightWiring:
    """``[deck_light]``."""
    v = read_keys(section, CORE_KEYS["deck_light"])
    return DeckLightWiring(v["red"], v["green"], v["blue"], v["active_high"], v["pwm"])


def read_timing(section: Section) -> dict[str, Any]:
    """``[timing]`` as values (durations as floats); the debounce shorter than the hold."""
    values = read_keys(section, CORE_KEYS["timing"])
    for name in TIMING_CHECKS:
        values[name] = float(values[name])
    if values["debounce_seconds"] >= values["hold_seconds"]:
        raise ConfigError(
            f"[timing] debounce_seconds = {values['debounce_seconds']}: "
            f"must be shorter than hold_seconds ({values['hold_seconds']})"
        )
    return values


def read_bomb(section: Section) -> BombRules:
    """``[bomb]``: ``timer_seconds`` (absent: no timer), ``strike_limit`` (absent: none), ``speed_up``."""
    seconds, limit = read_named(section, "bomb", "timer_seconds", "strike_limit")
    if seconds is None and "speed_up" in section.data:
        raise section.fail("speed_up", "is only read with timer_seconds (without a timer nothing speeds up)")
    (speed_up,) = read_named(section, "bomb", "speed_up")
    section.finish()
    return BombRules(None if seconds is None else float(seconds), limit, speed_up)


def read_output(section: Section) -> OutputWiring:
    """One ``[[outputs]]`` table. Its messages name it by its ``name`` once that is read:
    ``[outputs.lock] pin = 40: ...``."""
    (name,) = read_named(section, "outputs", "name")
    section.name = f"outputs.{name}"
    pin, active_high, on, mode, pulse, max_on = read_named(
        section, "outputs", "pin", "active_high", "on", "mode", "pulse_seconds", "max_on_seconds"
    )
    off_on = section.get("off_on", str, "none" if on == "reset" else "reset", check=key("outputs", "off_on").check)
    section.finish()
    if off_on == on and on != "none":
        raise section.fail("off_on", f'is the event that switches it on (on = "{on}"); pick another, or "none"')
    pulse = float(pulse)
    if max_on is not None and pulse > max_on:
        if "pulse_seconds" in section.data:
            raise section.fail("pulse_seconds", f"must not be longer than max_on_seconds ({max_on:g})")
        pulse = float(max_on)  # the default pulse, cut to what the output may take
    return OutputWiring(
        name,
        pin,
        active_high,
        None if on == "none" else on,
        mode,
        pulse,
        None if max_on is None else float(max_on),
        None if off_on == "none" else off_on,
    )


#: ``[edgework]`` keys that describe a fixed bomb (a random one draws its own).
_FIXED_EDGEWORK_KEYS = ("serial", "ports", "lit", "unlit", "batteries", "plates")


def read_edgework(section: Section) -> tuple[Edgework | None, RandomBombs | None]:
    """The fixed edgework (and None), or None and the random bombs (``mode = "random"``)."""
    mode, solved = read_named(section, "edgework", "mode", "solved")
    if mode == "random":
        for name in _FIXED_EDGEWORK_KEYS:
            if name in section.data:
                raise section.fail(name, 'is only read with mode = "fixed" (a random bomb draws its own)')
        (seed,) = read_named(section, "edgework", "seed")
        section.finish()
        return None, RandomBombs(seed, solved)
    if "seed" in section.data:
        raise section.fail("seed", 'is only read with mode = "random"')
    (serial,) = read_named(section, "edgework", "serial")
    lists = {}
    for name in ("ports", "lit", "unlit", "batteries"):
        (value,) = read_named(section, "edgework", name)
        if not all(isinstance(v, str) for v in value):
            raise section.fail(name, "must be a list of names in quotes")
        lists[name] = tuple(value)
    (plates,) = read_named(section, "edgework", "plates")
    if plates is not None and not all(isinstance(p, list) and all(isinstance(v, str) for v in p) for p in plates):
        raise section.fail("plates", 'must be a list of port plates, each a list of names: [["Parallel"], []]')
    section.finish()
    given: dict[str, Any] = {
        **lists,
        "solved": solved,
        "plates": None if plates is None else tuple(tuple(p) for p in plates),
    }
    try:
        edgework = Edgework(serial, **given)
    except BaccaratError as error:
        # The rules name the value at fault; the message names the key that holds it too:
        # the first that makes the edgework fail when the keys are added one by one.
        keys = _FIXED_EDGEWORK_KEYS
        name = next(
            k
            for n, k in enumerate(keys, 1)
            if n == len(keys) or _fails(serial, {key: given[key] for key in ("solved", *keys[1:n])})
        )
        message = str(error)
        raise ConfigError(
            f"[edgework] {message}" if message.startswith(name) else f"[edgework] {name}: {message}"
        ) from None
    return edgework, None


def _fails(serial: str, given: dict[str, Any]) -> bool:
    """Whether edgework with this serial and these other keys is refused."""
    try:
        Edgework(serial, **given)
    except BaccaratError:
        return True
    return False


def read_limits(section: Section) -> TableLimits | None:
    """``[limits]``: None for limits drawn at random."""
    (mode,) = read_named(section, "limits", "mode")
    if mode == "random":
        for name in ("min", "max"):
            if name in section.data:
                raise section.fail(name, 'is only read with mode = "fixed"')
        section.finish()
        return None
    minimum = section.get(
        "min",
        int,
        check=lambda v: (
            None if v in MINIMUMS else f"is not one of the manual's minimums ({', '.join(map(str, MINIMUMS))})"
        ),
    )
    maximum = section.get(
        "max",
        int,
        check=lambda v: (
            f"must be above min ({minimum})"
            if v <= minimum
            else f"must be at most {format_dollars(MAX_TABLE_MAXIMUM)}"
            if v > MAX_TABLE_MAXIMUM
            else None
        ),
    )
    section.finish()
    try:
        return TableLimits(minimum, maximum)
    except BaccaratError as error:
        raise ConfigError(f"[limits] {error}") from None


def read_display(section: Section) -> DisplaySpec:
    """One ``[[displays]]`` table: its common keys, then its interface's."""
    role, driver, interface, width, height, rotate = read_named(
        section, "displays", "role", "driver", "interface", "width", "height", "rotate"
    )
    if interface == "i2c":
        port, address = read_named(section, "displays.i2c", "port", "address")
        section.finish()
        return DisplaySpec(role, driver, interface, width, height, rotate, port=port, address=address)
    port, device, dc, reset, speed = read_named(
        section, "displays.spi", "port", "device", "dc", "reset", "bus_speed_hz"
    )
    section.finish()
    return DisplaySpec(
        role, driver, interface, width, height, rotate, port=port, device=device, dc=dc, reset=reset, bus_speed_hz=speed
    )
