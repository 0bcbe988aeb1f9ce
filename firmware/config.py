"""The prop's TOML config: pins, displays, edgework, limits, timing, network.

``load_config(path)`` reads and validates a file once, up front; every problem
is a :class:`ConfigError` whose one-line message names the key and the value.
:func:`pin_uses` and :func:`pin_problems` are the one pin and bus validator:
``check-config``, ``run`` and ``hardware/generate.py`` all ask them.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, overload

from baccarat_core import BaccaratError, Edgework, TableLimits, strict
from baccarat_core import events as ev
from baccarat_core.bomb import RandomBombs
from baccarat_core.deck import COLORS
from baccarat_core.limits import MINIMUMS
from baccarat_core.numbers import format_dollars, show_value
from baccarat_core.records import record
from baccarat_core.strict import MAX_SEED, MAX_SOLVED, MAX_TABLE_MAXIMUM
from baccarat_core.timer import MAX_STRIKE_LIMIT, MAX_TIMER_SECONDS, BombRules

from .devices.header import BCM_TO_PHYSICAL, I2C1_PINS, I2S_PINS, RESERVED_PINS, SPI_BUS_PINS
from .devices.wiring import (
    DRIVERS,
    INPUT_NAMES,
    OPTIONAL_ROLES,
    OUTPUT_MODES,
    ROLES,
    DeckLightWiring,
    DisplaySpec,
    InputWiring,
    OutputWiring,
    StatusLightWiring,
)
from .errors import ConfigError
from .pacing import PACINGS
from .sound.settings import DEFAULT_BUZZER_PIN, OUTPUTS, SoundSettings

DEFAULT_CONFIG = Path(__file__).with_name("default-config.toml")

#: Largest config file read (the reference config is about 6 KB).
MAX_CONFIG_BYTES = 256 * 1024
#: Longest string value (paths, topics, names, secrets).
MAX_STRING = 1024
#: Longest ``[timing]`` duration, in seconds.
MAX_SECONDS = 60.0

#: Longest path a Unix socket binds to, in bytes: ``sun_path`` holds 108 with its closing NUL (unix(7)).
MAX_SOCKET_PATH = 107

#: Largest ``[mqtt] queue_limit``.
MAX_QUEUE_LIMIT = 100_000

#: Game events a config can act on, by their event names: ``[mqtt.room_requests]``.
TRIGGER_EVENTS: tuple[str, ...] = (
    ev.Solved.kind,
    ev.Strike.kind,
    ev.ModuleReset.kind,
    ev.DealStarted.kind,
    ev.Exploded.kind,
)
#: A Room 2.0 request another prop or the room's controller acts on: ``REQU <prop> -> <command>``
#: (a prop name may hold spaces) or ``PROG <program>``.
ROOM_REQUEST = re.compile(r"REQU \S(?:.*\S)? -> \S(?:.*\S)?|PROG \S(?:.*\S)?")
#: Longest Room 2.0 request, and most requests on one event.
MAX_ROOM_REQUEST = 200
MAX_ROOM_REQUESTS = 16

#: An output's name: a word of lowercase letters, digits, ``_`` or ``-`` (it goes into MQTT topics,
#: URLs, Home Assistant IDs and Room 2.0 commands as written).
OUTPUT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
#: Longest ``pulse_seconds`` and ``max_on_seconds`` of an output.
MAX_OUTPUT_SECONDS = 3600.0
#: What switches an output on or off: a game event (:data:`TRIGGER_EVENTS`), or none (commands only).
OUTPUT_EVENTS: tuple[str, ...] = (*TRIGGER_EVENTS, "none")

#: Keys whose values never appear in a message.
SECRET_KEYS = frozenset({"password", "controller_token"})

#: The optional shutdown button (the kernel's gpio-shutdown overlay, see hardware/README.md):
#: no input, light or display may use it.
SHUTDOWN_GPIO = 12


@record
class TimingConfig:
    """How long things take, in seconds, and how a deal is paced: ``original`` (the original
    module's timeline, :mod:`firmware.pacing`) or ``quick`` (each card face up ``card_seconds``
    apart, the clearing ``result_seconds`` after the result)."""

    hold_seconds: float = 0.5
    debounce_seconds: float = 0.02
    strike_flash_seconds: float = 1.0
    card_seconds: float = 0.6
    result_seconds: float = 1.5
    pacing: str = "original"


@record
class MqttConfig:
    """The ``[mqtt]`` section: the broker and the prop's topics."""

    host: str
    port: int = 1883
    client_id: str = "baccarat"
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    topic_prefix: str = "bomb/baccarat"
    bomb_prefix: str = "bomb"
    room: str | None = None
    prop: str = "baccarat"
    keepalive: int = 30
    queue_limit: int = 1000
    reconnect_min_seconds: float = 1.0
    reconnect_max_seconds: float = 30.0
    home_assistant: bool = False
    home_assistant_prefix: str = "homeassistant"
    #: Room 2.0 outbox requests per game event, in config order: ``(("solved", ("REQU ...",)), ...)``.
    room_requests: tuple[tuple[str, tuple[str, ...]], ...] = ()


@record
class Config:
    """A whole, validated config file.

    ``edgework`` is the fixed edgework, or None with ``[edgework] mode = "random"``, where
    ``bombs`` draws each game's bomb instead.
    """

    edgework: Edgework | None
    limits: TableLimits | None
    first_color: str | None
    inputs: InputWiring
    status_light: StatusLightWiring
    deck_light: DeckLightWiring
    timing: TimingConfig
    displays: tuple[DisplaySpec, ...]
    mqtt: MqttConfig | None = None
    state_file: str | None = None
    control_socket: str | None = None
    #: The ``[web]`` table as written (validated here; its defaults depend on --simulate,
    #: so :func:`firmware.web.settings.parse_web_section` reads it again at start).
    web_table: dict[str, Any] | None = None
    sound: SoundSettings = SoundSettings()
    source: str = "<defaults>"
    bombs: RandomBombs | None = None
    #: ``[bomb]``: the countdown and the strike limit (none of either by default).
    bomb: BombRules = BombRules()
    #: The ``[[outputs]]``: relays and locks the game switches, in config order.
    outputs: tuple[OutputWiring, ...] = ()


# -- reading -------------------------------------------------------------------


class Section:
    """One table of the file, read key by key: the section validator of the config loader,
    ``[web]`` (:mod:`firmware.web.settings`) and ``[sound]`` alike.

    Each value's type (and ``check``) is tested as it is read; every problem is one
    :class:`ConfigError` (or ``error``, a subclass) naming the table, the key and the
    value, never a secret's. :meth:`finish` then refuses any key nobody asked for.

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

    def __init__(self, name: str, data: Any, *, error: type[ConfigError] = ConfigError) -> None:
        if not isinstance(data, dict):
            raise error(f"[{name}] must be a table, not {show_setting(data)}")
        self.name = name
        self.data = data
        self.error = error
        self.used: set[str] = set()

    def fail(self, key: str, problem: str) -> ConfigError:
        """The error for ``key``, naming its value (a secret's never: only its key)."""
        value = self.data.get(key)
        if key in SECRET_KEYS:
            return self.error(f"[{self.name}] {key}: {problem}")
        shown = f"0x{value:02X}" if key == "address" and type(value) is int else show_setting(value)
        return self.error(f"[{self.name}] {key} = {shown}: {problem}")

    def get(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = ...,
        *,
        check: Callable[[Any], str | None] | None = None,
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
            wording = {
                str: "a string in quotes",
                int: "a whole number",
                float: "a number",
                bool: "true or false",
                list: "a list",
            }
            names = " or ".join(wording.get(k, k.__name__) for k in kinds if not (k is int and float in kinds))
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
        """Refuse any key nobody asked for."""
        for key in self.data:
            if key not in self.used:
                raise self.error(f"[{self.name}] {key}: unknown key")


def _pacing(value: str) -> str | None:
    if value in PACINGS:
        return None
    return "must be " + " or ".join(f'"{name}"' for name in PACINGS)


_T = TypeVar("_T")


def _repeated(items: Iterable[_T]) -> _T | None:
    """The first item that comes a second time in ``items``, or None if each comes once."""
    seen: list[_T] = []
    for item in items:
        if item in seen:
            return item
        seen.append(item)
    return None


def show_setting(value: Any) -> str:
    """A config value as a message quotes it, as TOML spells it: ``true``, ``nan``, ``"hw:1, 0"``, ``40``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # nan, inf, -inf: TOML's spelling (JSON's would be NaN, Infinity)
    return show_value(value, 60)


def gpio_problem(value: int) -> str | None:
    """Why ``value`` cannot be a part's GPIO, or None: a BCM number on the 40-pin header, not the
    HAT EEPROM bus (GPIO0/1)."""
    if value not in BCM_TO_PHYSICAL:
        return "not a GPIO on the 40-pin header (BCM numbers 0-27)"
    if value in (0, 1):
        return "GPIO0/1 carry the HAT EEPROM bus; pick another pin"
    return None


def port_problem(value: int) -> str | None:
    """Why ``value`` cannot be a TCP port, or None."""
    return None if 1 <= value <= 65535 else "must be 1-65535"


def within(low: float, high: float, *, above: bool = False) -> Callable[[float], str | None]:
    """A check for ``low <= value <= high`` (``low < value`` with ``above``)."""

    def check(value: float) -> str | None:
        if value < low or (above and value == low) or value > high:
            return f"must be {'above' if above else 'at least'} {low:g} and at most {high:g}"
        return None

    return check


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


def socket_path_problem(path: str) -> str | None:
    """Why a Unix socket cannot be bound at ``path`` (``~`` expanded), or None; ``""`` (no socket) is fine."""
    length = len(os.fsencode(os.path.expanduser(path)))
    if length > MAX_SOCKET_PATH:
        return (
            f"is {length} bytes long; a Unix socket's path holds at most {MAX_SOCKET_PATH} bytes: "
            "choose a shorter one (e.g. /run/baccarat/control.sock)"
        )
    return None


def load_config(path: str | Path | None = None) -> Config:
    """Read and validate a config file (the reference build's when ``path`` is None)."""
    file = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        with open(file, "rb") as stream:
            raw = stream.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"{file}: cannot read ({error.strerror or error})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{file}: larger than {MAX_CONFIG_BYTES} bytes; not a config file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = error.object[error.start]
        raise ConfigError(f"{file}: not UTF-8 text (byte 0x{byte:02x} at offset {error.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{file}: not valid TOML ({error})") from None
    except RecursionError:
        raise ConfigError(f"{file}: not valid TOML (nested too deeply)") from None
    except ValueError as error:  # tomllib lets Python's int() refuse a number of thousands of digits
        raise ConfigError(f"{file}: not valid TOML ({strict.one_line(str(error), 80)})") from None
    try:
        return parse_config(data, source=str(file))
    except ConfigError as error:
        raise ConfigError(f"{file}: {error}") from None


def parse_config(data: dict[str, Any], *, source: str = "<config>", check_pins: bool = True) -> Config:
    """Validate the tables of a config file (as ``tomllib`` reads them).

    ``check_pins=False`` leaves GPIOs taken twice to the caller (:func:`pin_problems`),
    for tools that list every problem rather than stop at the first.
    """
    known = {
        "edgework",
        "limits",
        "deck",
        "inputs",
        "status_light",
        "deck_light",
        "timing",
        "displays",
        "mqtt",
        "state",
        "control",
        "web",
        "sound",
        "bomb",
        "outputs",
    }
    for key in data:
        if key not in known:
            raise ConfigError(f"[{key}]: unknown section")

    edgework, bombs = _edgework(Section("edgework", data.get("edgework", {})))
    limits = _limits(Section("limits", data.get("limits", {})))

    deck = Section("deck", data.get("deck", {}))
    first = deck.get(
        "first_color",
        str,
        "random",
        check=lambda v: None if v in (*COLORS, "random") else f"must be random or one of {', '.join(COLORS)}",
    )
    deck.finish()

    inputs = Section("inputs", data.get("inputs", {}))
    pins = {name: inputs.gpio(name) for name in INPUT_NAMES}
    inputs_cfg = InputWiring(pins, inputs.get("pull_up", bool, True), inputs.get("deal_active_high", bool, False))
    inputs.finish()

    status = Section("status_light", data.get("status_light", {}))
    status_cfg = StatusLightWiring(status.gpio("red"), status.gpio("green"), status.get("active_high", bool, True))
    status.finish()

    light = Section("deck_light", data.get("deck_light", {}))
    light_cfg = DeckLightWiring(
        light.gpio("red"),
        light.gpio("green"),
        light.gpio("blue"),
        light.get("active_high", bool, True),
        light.get("pwm", bool, True),
    )
    light.finish()

    timing = Section("timing", data.get("timing", {}))
    timing_cfg = TimingConfig(
        hold_seconds=float(timing.get("hold_seconds", float, 0.5, check=TIMING_CHECKS["hold_seconds"])),
        debounce_seconds=float(timing.get("debounce_seconds", float, 0.02, check=TIMING_CHECKS["debounce_seconds"])),
        strike_flash_seconds=float(
            timing.get("strike_flash_seconds", float, 1.0, check=TIMING_CHECKS["strike_flash_seconds"])
        ),
        card_seconds=float(timing.get("card_seconds", float, 0.6, check=TIMING_CHECKS["card_seconds"])),
        result_seconds=float(timing.get("result_seconds", float, 1.5, check=TIMING_CHECKS["result_seconds"])),
        pacing=timing.get("pacing", str, "original", check=_pacing),
    )
    timing.finish()
    if timing_cfg.debounce_seconds >= timing_cfg.hold_seconds:
        raise ConfigError(
            f"[timing] debounce_seconds = {timing_cfg.debounce_seconds}: "
            f"must be shorter than hold_seconds ({timing_cfg.hold_seconds})"
        )

    raw_displays = data.get("displays", [])
    if not isinstance(raw_displays, list):
        raise ConfigError(f"[[displays]] must be a list of tables, not {raw_displays!r}")
    displays = tuple(_display(Section(f"displays.{i}", d)) for i, d in enumerate(raw_displays))
    role = _repeated(d.role for d in displays)
    if role is not None:
        raise ConfigError(f'[displays] role = "{role}": used by more than one display')
    spot = _repeated((d.port, d.address) for d in displays if d.interface == "i2c")
    if spot is not None:
        raise ConfigError(
            f"[displays] address = 0x{spot[1]:02X}: two displays on I2C bus "
            f"{spot[0]} share it (use 0x3C and 0x3D, or a TCA9548A mux)"
        )
    spot = _repeated((d.port, d.device) for d in displays if d.interface == "spi")
    if spot is not None:
        raise ConfigError(f"[displays] device = {spot[1]}: two displays on SPI{spot[0]} CE{spot[1]}")

    raw_outputs = data.get("outputs", [])
    if not isinstance(raw_outputs, list):
        raise ConfigError(f"[[outputs]] must be a list of tables, not {show_setting(raw_outputs)}")
    outputs = tuple(_output(Section(f"outputs.{i}", o)) for i, o in enumerate(raw_outputs))
    name = _repeated(o.name for o in outputs)
    if name is not None:
        raise ConfigError(f'[[outputs]] name = "{name}": used by more than one output')

    mqtt = _mqtt(Section("mqtt", data["mqtt"])) if "mqtt" in data else None

    state = Section("state", data.get("state", {}))
    state_file = state.get("file", str, None)
    state.finish()
    control = Section("control", data.get("control", {}))
    control_socket = control.get("socket", str, None, check=socket_path_problem)
    control.finish()
    sound = parse_sound_section(data.get("sound", {}))
    bomb = _bomb(Section("bomb", data.get("bomb", {})))
    web_table = data.get("web")
    if web_table is not None:
        from .web.settings import parse_web_section

        parse_web_section(web_table, simulate=False)

    config = Config(
        edgework,
        limits,
        None if first == "random" else first,
        inputs_cfg,
        status_cfg,
        light_cfg,
        timing_cfg,
        displays,
        mqtt,
        state_file,
        control_socket,
        web_table,
        sound,
        source,
        bombs=bombs,
        bomb=bomb,
        outputs=outputs,
    )
    problems = pin_problems(config) if check_pins else []
    if problems:
        raise ConfigError(problems[0])
    return config


def _output(section: Section) -> OutputWiring:
    """One ``[[outputs]]`` table. Its messages name it by its ``name`` once that is read:
    ``[outputs.lock] pin = 40: ...``."""
    name = section.get(
        "name",
        str,
        check=lambda v: (
            None
            if OUTPUT_NAME.fullmatch(v)
            else "must be a word of 1-32 lowercase letters, digits, _ or -, starting with a letter"
        ),
    )
    section.name = f"outputs.{name}"
    pin = section.gpio("pin")
    active_high = section.get("active_high", bool, True)

    def event(value: str) -> str | None:
        return None if value in OUTPUT_EVENTS else f"must be one of {', '.join(OUTPUT_EVENTS)}"

    on = section.get("on", str, check=event)
    mode = section.get(
        "mode", str, "hold", check=lambda v: None if v in OUTPUT_MODES else f"must be {' or '.join(OUTPUT_MODES)}"
    )
    seconds = within(0, MAX_OUTPUT_SECONDS, above=True)
    pulse = float(section.get("pulse_seconds", float, 1.0, check=seconds))
    max_on = section.get("max_on_seconds", float, None, check=seconds)
    off_on = section.get("off_on", str, "none" if on == "reset" else "reset", check=event)
    section.finish()
    if off_on == on and on != "none":
        raise section.fail("off_on", f'is the event that switches it on (on = "{on}"); pick another, or "none"')
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


def parse_sound_section(data: Any) -> SoundSettings:
    """The ``[sound]`` table (as ``tomllib`` reads it; absent keys take the defaults).

    The pin is checked to be a GPIO on the header here; that no other part uses it
    is the one pin check (:func:`pin_problems`, through :attr:`SoundSettings.pins`).
    """
    section = Section("sound", data)
    output = section.get(
        "output", str, "none", check=lambda v: None if v in OUTPUTS else 'must be "none", "alsa" or "buzzer"'
    )
    device = section.get(
        "device",
        str,
        "default",
        check=lambda v: (
            None
            if v and not any(c.isspace() or not c.isprintable() for c in v)
            else 'must be an ALSA device name without spaces, such as "default" or "hw:1,0"'
        ),
    )
    pin = section.gpio("pin", DEFAULT_BUZZER_PIN)
    volume = section.get(
        "volume", float, 0.8, check=lambda v: None if 0 <= v <= 1 else "must be from 0.0 (silent) to 1.0 (full)"
    )
    i2s = section.get("i2s", bool, False)
    section.finish()
    if i2s and output != "alsa":
        raise section.fail("i2s", 'is for output = "alsa" (an I2S amplifier is an ALSA sound card)')
    return SoundSettings(output, device, pin, float(volume), i2s)


def _bomb(section: Section) -> BombRules:
    """``[bomb]``: ``timer_seconds`` (absent: no timer), ``strike_limit`` (absent: none), ``speed_up``."""
    seconds = section.get("timer_seconds", float, None, check=within(1, MAX_TIMER_SECONDS))
    limit = section.get("strike_limit", int, None, check=within(1, MAX_STRIKE_LIMIT))
    if seconds is None and "speed_up" in section.data:
        raise section.fail("speed_up", "is only read with timer_seconds (without a timer nothing speeds up)")
    speed_up = section.get("speed_up", bool, True)
    section.finish()
    return BombRules(None if seconds is None else float(seconds), limit, speed_up)


#: ``[edgework]`` keys that describe a fixed bomb (a random one draws its own).
_FIXED_EDGEWORK_KEYS = ("serial", "ports", "lit", "unlit", "batteries", "plates")


def _edgework(section: Section) -> tuple[Edgework | None, RandomBombs | None]:
    """The fixed edgework (and None), or None and the random bombs (``mode = "random"``)."""
    mode = section.get(
        "mode", str, "fixed", check=lambda v: None if v in ("fixed", "random") else "must be fixed or random"
    )
    solved = section.get("solved", int, 0, check=within(0, MAX_SOLVED))
    if mode == "random":
        for key in _FIXED_EDGEWORK_KEYS:
            if key in section.data:
                raise section.fail(key, 'is only read with mode = "fixed" (a random bomb draws its own)')
        seed = section.get(
            "seed", int, None, check=lambda v: None if 0 <= v <= MAX_SEED else f"must be from 0 to {MAX_SEED}"
        )
        section.finish()
        return None, RandomBombs(seed, solved)
    if "seed" in section.data:
        raise section.fail("seed", 'is only read with mode = "random"')
    serial = section.get("serial", str)
    lists = {}
    for key in ("ports", "lit", "unlit", "batteries"):
        value = section.get(key, list, [])
        if not all(isinstance(v, str) for v in value):
            raise section.fail(key, "must be a list of names in quotes")
        lists[key] = tuple(value)
    plates = section.get("plates", list, None)
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
        keys = ("serial", "ports", "lit", "unlit", "batteries", "plates")
        key = next(
            k
            for n, k in enumerate(keys, 1)
            if n == len(keys) or _fails(serial, {name: given[name] for name in ("solved", *keys[1:n])})
        )
        message = str(error)
        raise ConfigError(
            f"[edgework] {message}" if message.startswith(key) else f"[edgework] {key}: {message}"
        ) from None
    return edgework, None


def _fails(serial: str, given: dict[str, Any]) -> bool:
    """Whether edgework with this serial and these other keys is refused."""
    try:
        Edgework(serial, **given)
    except BaccaratError:
        return True
    return False


def _limits(section: Section) -> TableLimits | None:
    mode = section.get(
        "mode", str, "random", check=lambda v: None if v in ("random", "fixed") else "must be random or fixed"
    )
    if mode == "random":
        for key in ("min", "max"):
            if key in section.data:
                raise section.fail(key, 'is only read with mode = "fixed"')
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


def _display(section: Section) -> DisplaySpec:
    role = section.get("role", str, check=lambda v: None if v in ROLES else f"must be one of {', '.join(ROLES)}")
    driver = section.get(
        "driver",
        str,
        check=lambda v: None if v in DRIVERS else f"is not a supported luma.oled driver ({', '.join(DRIVERS)})",
    )
    interface = section.get("interface", str, check=lambda v: None if v in ("i2c", "spi") else "must be i2c or spi")
    width = section.get("width", int, check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels")
    height = section.get("height", int, check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels")
    rotate = section.get(
        "rotate", int, 0, check=lambda v: None if v in (0, 1, 2, 3) else "must be 0, 1, 2 or 3 (quarter turns)"
    )
    if interface == "i2c":
        port = section.get("port", int, 1, check=within(0, 255))
        address = section.get(
            "address",
            int,
            0x3C,
            check=lambda v: None if 0x03 <= v <= 0x77 else "is not a 7-bit I2C address (0x03-0x77)",
        )
        section.finish()
        return DisplaySpec(role, driver, interface, width, height, rotate, port=port, address=address)
    port = section.get("port", int, 0, check=lambda v: None if v in SPI_BUS_PINS else "must be 0 or 1")
    device = section.get("device", int, 0, check=lambda v: None if v in (0, 1, 2) else "must be 0, 1 or 2")
    dc = section.gpio("dc", 24)
    reset = section.gpio("reset", None)
    speed = section.get("bus_speed_hz", int, 8_000_000, check=within(0, 125_000_000, above=True))
    section.finish()
    return DisplaySpec(
        role, driver, interface, width, height, rotate, port=port, device=device, dc=dc, reset=reset, bus_speed_hz=speed
    )


def _mqtt(section: Section) -> MqttConfig:
    def text(key: str, default: Any = None) -> Any:
        return section.get(key, str, default)

    cfg = MqttConfig(
        host=section.get("host", str, check=lambda v: None if v.strip() else "must not be empty"),
        port=section.get("port", int, 1883, check=port_problem),
        client_id=text("client_id", "baccarat"),
        username=text("username"),
        password=text("password"),
        tls=section.get("tls", bool, False),
        ca_file=text("ca_file"),
        cert_file=text("cert_file"),
        key_file=text("key_file"),
        topic_prefix=text("topic_prefix", "bomb/baccarat").rstrip("/"),
        bomb_prefix=text("bomb_prefix", "bomb").rstrip("/"),
        room=text("room"),
        prop=text("prop", "baccarat"),
        keepalive=section.get("keepalive", int, 30, check=within(0, 65535, above=True)),
        queue_limit=section.get("queue_limit", int, 1000, check=within(0, MAX_QUEUE_LIMIT, above=True)),
        reconnect_min_seconds=float(
            section.get("reconnect_min_seconds", float, 1.0, check=within(0, 3600, above=True))
        ),
        reconnect_max_seconds=float(
            section.get("reconnect_max_seconds", float, 30.0, check=within(0, 3600, above=True))
        ),
        home_assistant=section.get("home_assistant", bool, False),
        home_assistant_prefix=text("home_assistant_prefix", "homeassistant").rstrip("/"),
        room_requests=_room_requests(section),
    )
    section.finish()
    if cfg.reconnect_max_seconds < cfg.reconnect_min_seconds:
        raise section.fail(
            "reconnect_max_seconds", f"must not be below reconnect_min_seconds ({cfg.reconnect_min_seconds})"
        )
    if cfg.room_requests and cfg.room is None:
        raise ConfigError('[mqtt.room_requests] is only read with room set ([mqtt] room = "...")')
    for key in ("cert_file", "key_file", "ca_file"):
        if getattr(cfg, key) and not cfg.tls:
            raise section.fail(key, "is only read with tls = true")
    if bool(cfg.cert_file) != bool(cfg.key_file):
        raise section.fail(
            "cert_file" if cfg.cert_file else "key_file", "a client certificate needs both cert_file and key_file"
        )
    for key in (*_TOPIC_STARTS, *_TOPIC_LEVELS, *_IDENTITIES):
        value = getattr(cfg, key)
        problem = None if value is None else _mqtt_value_problem(key, value)
        if problem:
            raise section.fail(key, problem)
    if cfg.tls:
        _check_tls(section, cfg)
    return cfg


#: The ``[mqtt]`` values a broker sees, by what they become: the first levels of the prop's topics,
#: one level of a Room 2.0 topic (``Room/<room>/Props/<prop>/...``), or who the prop is.
_TOPIC_STARTS = ("topic_prefix", "bomb_prefix", "home_assistant_prefix")
_TOPIC_LEVELS = ("room", "prop")
_IDENTITIES = ("client_id", "username")


def _mqtt_string_problem(value: str) -> str | None:
    """What a broker refuses in any MQTT string, or None: a control character or a Unicode non-character.

    MQTT 5.0 section 1.5.4 (and 3.1.1's 1.5.3) forbids them, and Mosquitto drops the whole connection
    for one, in the client id, the username or the will topic alike, without a CONNACK to say why.
    """
    for char in value:
        code = ord(char)
        if code < 0x20 or 0x7F <= code <= 0x9F:
            return f"contains the control character U+{code:04X}, which MQTT brokers refuse"
        if 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
            return f"contains U+{code:04X}, a Unicode non-character, which MQTT brokers refuse"
    return None


def _mqtt_value_problem(key: str, value: str) -> str | None:
    """Why the broker would refuse ``[mqtt] key = value`` (see :data:`_TOPIC_STARTS` and its neighbours)."""
    if not value:
        if key in ("room", "username"):  # room = "" is no Room 2.0; username = "" an empty user name
            return None
        return "must not be empty"
    problem = _mqtt_string_problem(value)
    if problem or key == "username":
        return problem
    wildcard = next((c for c in value if c in "+#"), None)
    if wildcard:
        where = "a client id" if key == "client_id" else "a topic"
        return f"contains {wildcard}, an MQTT wildcard, which brokers refuse in {where}; choose a name without + or #"
    if key in _TOPIC_LEVELS and "/" in value:
        return "must be one topic level, without /: it goes into Room/<room>/Props/<prop>/..."
    if key in _TOPIC_STARTS and value.startswith("$"):
        return "must not start with $: brokers keep those topics to themselves ($SYS/...)"
    return None


def _room_requests(mqtt: Section) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``[mqtt.room_requests]``: per event (:data:`TRIGGER_EVENTS`), Room 2.0 requests to send.

    ``solved = ["REQU Relay -> door:open", "PROG audio-final:start"]``: each a ``REQU`` or
    ``PROG`` line as the Room 2.0 convention writes it, sent on the outbox after the event.
    """
    mqtt.used.add("room_requests")
    table = mqtt.data.get("room_requests", {})
    if not isinstance(table, dict):
        raise mqtt.fail("room_requests", 'must be a table: [mqtt.room_requests] with solved = ["REQU ..."]')
    section = Section("mqtt.room_requests", table)
    requests = []
    for event in table:
        if event not in TRIGGER_EVENTS:
            raise ConfigError(f"[mqtt.room_requests] {event}: not an event (use {', '.join(TRIGGER_EVENTS)})")
        lines = section.get(event, list)
        if len(lines) > MAX_ROOM_REQUESTS:
            raise section.fail(event, f"at most {MAX_ROOM_REQUESTS} requests on one event")
        for line in lines:
            if not isinstance(line, str):
                raise ConfigError(f"[mqtt.room_requests] {event} = {show_setting(line)}: must be a string in quotes")
            if len(line) > MAX_ROOM_REQUEST or not ROOM_REQUEST.fullmatch(line) or not line.isprintable():
                raise ConfigError(
                    f"[mqtt.room_requests] {event} = {show_setting(line)}: must be "
                    f'"REQU <prop> -> <command>" or "PROG <program>" (one line, at most {MAX_ROOM_REQUEST} characters)'
                )
        requests.append((event, tuple(lines)))
    section.finish()
    return tuple(requests)


def _check_tls(section: Section, cfg: MqttConfig) -> None:
    """The TLS files exist and load as paho will load them (``check-config`` and ``run`` both ask)."""
    import ssl  # here: loading it costs 15 ms of every start, and only TLS needs it

    context = ssl.create_default_context()
    for key in ("ca_file", "cert_file", "key_file"):
        name = getattr(cfg, key)
        if name is None:
            continue
        try:
            with open(name, "rb") as stream:
                stream.read(1)
        except OSError as error:
            raise section.fail(key, f"cannot be read ({error.strerror or error})") from None
    if cfg.ca_file:
        try:
            context.load_verify_locations(cafile=cfg.ca_file)
        except (ssl.SSLError, ValueError) as error:
            raise section.fail("ca_file", f"is not a PEM certificate ({_ssl_reason(error)})") from None
    if cfg.cert_file and cfg.key_file:
        try:
            # A key that needs a pass phrase gets an empty one and fails here: the prop cannot type it.
            context.load_cert_chain(cfg.cert_file, cfg.key_file, password=lambda: b"")
        except (ssl.SSLError, ValueError) as error:
            raise section.fail(
                "key_file", f"does not load with cert_file as a client certificate and its key ({_ssl_reason(error)})"
            ) from None


def _ssl_reason(error: Exception) -> str:
    reason = getattr(error, "reason", None) or str(error)
    return strict.one_line(str(reason).replace("_", " ").lower(), 80)


@record
class PinUse:
    """One GPIO the build takes: by a part of the prop, a bus, or a reservation."""

    gpio: int
    owner: str  # "[inputs] tie", "I2C1 SDA", "SPI0 CE1", "HAT EEPROM ID_SD", ...
    kind: str  # "input", "light", "output", "sound", "display", "bus" or "reserved"


def pin_uses(config: Config) -> list[PinUse]:
    """Every GPIO the build takes, reservations and buses first, then the parts in config order.

    Reserved: the HAT EEPROM bus (GPIO0/1) and the shutdown button (:data:`SHUTDOWN_GPIO`).
    Buses: I2C1's SDA and SCL when any display is on I2C (a TCA9548A multiplexer's channels
    hang off I2C1 too); every line of an SPI bus a display uses, both chip selects included,
    since the kernel's SPI driver owns them all.
    """
    uses = [PinUse(gpio, f"HAT EEPROM {name}", "reserved") for name, gpio in RESERVED_PINS.items()]
    uses.append(PinUse(SHUTDOWN_GPIO, f"the shutdown button (GPIO{SHUTDOWN_GPIO})", "reserved"))
    if any(d.interface == "i2c" for d in config.displays):
        uses += [PinUse(gpio, f"I2C1 {name}", "bus") for name, gpio in I2C1_PINS.items()]
    for port in sorted({d.port for d in config.displays if d.interface == "spi"}):
        uses += [PinUse(gpio, f"SPI{port} {name}", "bus") for name, gpio in SPI_BUS_PINS[port].items()]
    if config.sound.i2s:
        uses += [PinUse(gpio, f"I2S {name} ([sound] i2s)", "bus") for name, gpio in I2S_PINS.items()]
    uses += [PinUse(pin, f"[inputs] {name}", "input") for name, pin in config.inputs.pins.items()]
    uses += [PinUse(getattr(config.status_light, c), f"[status_light] {c}", "light") for c in ("red", "green")]
    uses += [PinUse(getattr(config.deck_light, c), f"[deck_light] {c}", "light") for c in ("red", "green", "blue")]
    uses += [PinUse(o.pin, f"[outputs] {o.name}", "output") for o in config.outputs]
    uses += [PinUse(pin, f"[sound] {key}", "sound") for key, pin in config.sound.pins.items()]
    for d in config.displays:
        if d.interface == "spi":
            if d.dc is not None:  # always, from the loader
                uses.append(PinUse(d.dc, f"[{d.role} display] dc", "display"))
            if d.reset is not None:
                uses.append(PinUse(d.reset, f"[{d.role} display] reset", "display"))
    return uses


def pin_problems(config: Config) -> list[str]:
    """Every GPIO taken twice, as ``GPIO9 is used twice: SPI0 MISO and [deck_light] blue``."""
    owners: dict[int, str] = {}
    problems = []
    for use in pin_uses(config):
        if use.gpio in owners:
            if use.kind not in ("bus", "reserved"):  # two buses that share a line are the kernel's business
                problems.append(f"GPIO{use.gpio} is used twice: {owners[use.gpio]} and {use.owner}")
            continue
        owners[use.gpio] = use.owner
    return problems


def _part_uses(config: Config) -> list[PinUse]:
    return [use for use in pin_uses(config) if use.kind not in ("bus", "reserved")]


def describe_edgework(config: Config) -> str:
    """The ``Edgework:`` line of ``check-config``: the fixed bomb, or how the random ones are drawn."""
    e = config.edgework
    if e is None:
        bombs = config.bombs or RandomBombs()
        solved = f"; {bombs.solved} solved at the first start" if bombs.solved else ""
        if bombs.seed is None:
            return f"Edgework: a new bomb drawn at random for each game (no seed){solved}"
        return (
            f"Edgework: a bomb drawn at random for each game, seed {bombs.seed} (game 1 has serial "
            f"{bombs.bomb(1).serial}; baccarat deck --seed {bombs.seed} prints its deck){solved}"
        )
    batteries = f", battery holders {', '.join(e.batteries)}" if e.batteries else ""
    return (
        f"Edgework: serial {e.serial}, ports {', '.join(e.ports) or 'none'}, lit {', '.join(e.lit) or 'none'}, "
        f"unlit {', '.join(e.unlit) or 'none'}{batteries}, {e.solved} solved"
    )


def describe_wiring(config: Config) -> str:
    """The wiring a config describes, as ``check-config`` prints it."""
    lines = [
        f"Config {config.source} is valid.",
        "",
        describe_edgework(config),
        f"Limits: {config.limits.placard() if config.limits else 'random at start'}; "
        f"first deck: {config.first_color or 'random colour'}",
        f"Bomb: {config.bomb.describe()}",
        "",
        "GPIO (BCM)  header pin  role",
    ]
    for use in sorted(_part_uses(config), key=lambda use: use.gpio):
        lines.append(f"GPIO{use.gpio:<8d} pin {BCM_TO_PHYSICAL[use.gpio]:<6d}  {use.owner}")
    pull = "pull-up, wire to GND" if config.inputs.pull_up else "pull-down, wire to 3V3"
    deal = "active-high sensor" if config.inputs.deal_active_high else f"button ({pull})"
    lines += [
        "",
        f"Buttons: {pull}; deal input: {deal}",
        f"LEDs: status {'active-high' if config.status_light.active_high else 'active-low'}, "
        f"deck RGB {'common cathode' if config.deck_light.active_high else 'common anode'}"
        f"{' with PWM' if config.deck_light.pwm else ''}",
        "",
        "Displays:",
    ]
    for display in config.displays:
        lines.append("  " + display.describe())
    missing = [r for r in ROLES if r not in {d.role for d in config.displays} and r not in OPTIONAL_ROLES]
    if missing:
        lines.append(f"  (no {', '.join(missing)} display)")
    if config.outputs:
        lines += ["", "Outputs (off at start and at stop; hardware/README.md shows the driver to wire):"]
        lines += ["  " + output.describe() for output in config.outputs]
    sound = config.sound
    if sound.output == "alsa":
        i2s = ", an I2S card on GPIO18-21 (dtparam=i2s=on)" if sound.i2s else ""
        lines += ["", f'Sound: ALSA "{sound.device}"{i2s}, volume {sound.volume:g}']
    elif sound.output == "buzzer":
        lines += ["", f"Sound: piezo on GPIO{sound.pin} (header pin {BCM_TO_PHYSICAL[sound.pin]})"]
    if config.web_table is not None:
        from .web.settings import parse_web_section

        web = parse_web_section(config.web_table, simulate=False)
        if web.enabled:
            extras = [
                "password set" if web.password else "no password (localhost only)",
                "controllers' token set" if web.controller_token else "no controllers' token",
                f"{len(web.webhooks)} webhook(s)",
            ]
            lines += ["", f"Web console: http://{web.bind}:{web.port}/ ({', '.join(extras)})"]
    if config.mqtt:
        m = config.mqtt
        lines += [
            "",
            f"MQTT: {m.host}:{m.port} as {m.client_id}{' with TLS' if m.tls else ''}, topics {m.topic_prefix}/...",
        ]
    return "\n".join(lines)
