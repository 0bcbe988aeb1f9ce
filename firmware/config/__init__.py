"""The prop's TOML config: the core's sections (pins, displays, edgework, limits, timing, the bomb,
the outputs, the state file) and each room service's own.

``load_config(path)`` reads and validates a file once, up front; every problem is a
:class:`ConfigError` whose one-line message names the file, the section, the key and the value.
The core's keys are declared in :mod:`.config_sections`; each room service declares its own
(:class:`firmware.plugin.Service`), and its settings are :attr:`Config.settings` by the
service's name. :func:`pin_uses` and :func:`pin_problems` (:mod:`.config_report`) are the one pin
and bus validator: ``check-config``, ``run`` and ``hardware/generate.py`` all ask them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from baccarat_core import strict
from baccarat_core.records import replace
from firmware.config.core import (
    CORE_KEYS,
    MAX_OUTPUT_SECONDS,
    MAX_SECONDS,
    OUTPUT_EVENTS,
    OUTPUT_NAME,
    TIMING_CHECKS,
    TRIGGER_EVENTS,
    read_bomb,
    read_deck,
    read_deck_light,
    read_display,
    read_edgework,
    read_inputs,
    read_limits,
    read_output,
    read_status_light,
    read_timing,
    timing_problem,
)
from firmware.config.model import Config, TimingConfig
from firmware.config.report import SHUTDOWN_GPIO, describe_edgework, describe_wiring, pin_problems, pin_uses
from firmware.config.sections import (
    MAX_STRING,
    SECRET_KEYS,
    PinUse,
    Section,
    did_you_mean,
    read_keys,
    repeated,
    show_setting,
)
from firmware.devices.wiring import DisplaySpec, OutputWiring
from firmware.errors import ConfigError

__all__ = [
    "CORE_KEYS",
    "DEFAULT_CONFIG",
    "MAX_CONFIG_BYTES",
    "MAX_OUTPUT_SECONDS",
    "MAX_SECONDS",
    "MAX_STRING",
    "OUTPUT_EVENTS",
    "OUTPUT_NAME",
    "SECRET_KEYS",
    "SHUTDOWN_GPIO",
    "TIMING_CHECKS",
    "TRIGGER_EVENTS",
    "Config",
    "ConfigError",
    "PinUse",
    "TimingConfig",
    "describe_edgework",
    "describe_wiring",
    "load_config",
    "parse_config",
    "pin_problems",
    "pin_uses",
    "timing_problem",
]

DEFAULT_CONFIG = Path(__file__).with_name("default-config.toml")

#: Largest config file read (the reference config is about 6 KB).
MAX_CONFIG_BYTES = 256 * 1024

#: The core's sections (each service's is its own: :attr:`firmware.plugin.Service.table`).
CORE_SECTIONS: tuple[str, ...] = ("edgework", "limits", "deck", "inputs", "status_light", "deck_light", "timing")
CORE_SECTIONS += ("displays", "state", "bomb", "outputs", "display")


# -- reading -------------------------------------------------------------------


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
    """Validate the tables of a config file (as ``tomllib`` reads them): the core's, then each
    installed room service's.

    ``check_pins=False`` leaves GPIOs taken twice to the caller (:func:`pin_problems`),
    for tools that list every problem rather than stop at the first.
    """
    from firmware.services.registry import installed

    services = installed()
    services.require(data)  # the services whose sections the file has: imported now, the others never
    tables = services.tables()
    for name in data:
        if name not in CORE_SECTIONS and name not in tables and name not in services.broken:
            raise ConfigError(f"[{name}]: unknown section{did_you_mean(name, [*CORE_SECTIONS, *tables])}")
    config = _core(data, source)
    settings: dict[str, Any] = {}
    secrets = False
    for table, owners in tables.items():
        present = table in data
        if not present and not any(owner.always for owner in owners):
            continue
        section = Section(table, data.get(table, {}), error=owners[0].error, present=present)
        for owner in owners:
            if present or owner.always:
                values = read_keys(section, owner.keys, finish=False)
                settings[owner.name] = owner.configure(values, section, config)
                secrets = secrets or any(key.secret and values.get(key.name) for key in owner.keys)
        section.finish()
    for service in services:
        if service.table is None and service.always:  # a service without a section of its own
            settings[service.name] = service.configure({}, Section(service.name, {}, present=False), config)
    for service in services:
        for need in service.needs if service.name in settings else ():
            if need not in settings and (needed := services.get(need)) is not None:
                required = " and ".join(f"{key.name} = ..." for key in needed.keys if key.default is ...)
                raise ConfigError(
                    f"[{service.table}] needs [{needed.table}] ({needed.title}): add an [{needed.table}] section"
                    + (f" with {required}" if required else "")
                )
    unchecked = {name: data[name] for name in services.broken if name in data and name not in tables}
    config = replace(config, settings=settings, unchecked=unchecked, has_secrets=secrets)
    if check_pins:
        problems = pin_problems(config)
        if problems:
            raise ConfigError(problems[0])
    return config


def _core(data: dict[str, Any], source: str) -> Config:
    """The core's sections."""
    edgework, bombs = read_edgework(Section("edgework", data.get("edgework", {})))
    limits = read_limits(Section("limits", data.get("limits", {})))
    first = read_deck(Section("deck", data.get("deck", {})))
    inputs = read_inputs(Section("inputs", data.get("inputs", {})))
    status = read_status_light(Section("status_light", data.get("status_light", {})))
    light = read_deck_light(Section("deck_light", data.get("deck_light", {})))
    timing = TimingConfig(**read_timing(Section("timing", data.get("timing", {}))))
    displays = _displays(data.get("displays", []))
    outputs = _outputs(data.get("outputs", []))
    state = read_keys(Section("state", data.get("state", {})), CORE_KEYS["state"])
    bomb = read_bomb(Section("bomb", data.get("bomb", {})))
    display = read_keys(Section("display", data.get("display", {})), CORE_KEYS["display"])
    return Config(
        edgework,
        limits,
        first,
        inputs,
        status,
        light,
        timing,
        displays,
        state_file=state["file"],
        source=source,
        bombs=bombs,
        bomb=bomb,
        outputs=outputs,
        display_language=display["language"],
    )


T = TypeVar("T")


def _tables(raw: Any, name: str, read: Callable[[Section], T]) -> tuple[T, ...]:
    """Each table of ``[[name]]``, read as ``name.0``, ``name.1``, ..."""
    if not isinstance(raw, list):
        raise ConfigError(f"[[{name}]] must be a list of tables, not {show_setting(raw)}")
    return tuple(read(Section(f"{name}.{i}", table)) for i, table in enumerate(raw))


def _displays(raw: Any) -> tuple[DisplaySpec, ...]:
    displays = _tables(raw, "displays", read_display)
    role = repeated(d.role for d in displays)
    if role is not None:
        raise ConfigError(f'[displays] role = "{role}": used by more than one display')
    spot = repeated((d.port, d.address) for d in displays if d.interface == "i2c")
    if spot is not None:
        raise ConfigError(
            f"[displays] address = 0x{spot[1]:02X}: two displays on I2C bus "
            f"{spot[0]} share it (use 0x3C and 0x3D, or a TCA9548A mux)"
        )
    spot = repeated((d.port, d.device) for d in displays if d.interface == "spi")
    if spot is not None:
        raise ConfigError(f"[displays] device = {spot[1]}: two displays on SPI{spot[0]} CE{spot[1]}")
    return displays


def _outputs(raw: Any) -> tuple[OutputWiring, ...]:
    outputs = _tables(raw, "outputs", read_output)
    name = repeated(o.name for o in outputs)
    if name is not None:
        raise ConfigError(f'[[outputs]] name = "{name}": used by more than one output')
    return outputs
