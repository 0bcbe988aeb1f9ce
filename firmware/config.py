"""The prop's TOML config: pins, displays, edgework, limits, timing, network.

``load_config(path)`` reads and validates a file once, up front; every problem
is a :class:`ConfigError` whose one-line message names the key and the value.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baccarat_core import BaccaratError, Edgework, TableLimits
from baccarat_core.deck import COLORS
from baccarat_core.limits import MINIMUMS

from .errors import ConfigError
from .header import BCM_TO_PHYSICAL, I2C1_PINS, SPI0_PINS

DEFAULT_CONFIG = Path(__file__).with_name("default-config.toml")

ROLES: tuple[str, ...] = ("placard", "table", "bets")

#: luma.oled drivers the renderer supports, with their colour mode.
DRIVERS: dict[str, str] = {
    "ssd1306": "1", "sh1106": "1", "ssd1309": "1", "sh1107": "1",
    "ssd1322": "RGB", "ssd1325": "RGB", "ssd1327": "RGB", "ssd1362": "RGB",
    "ssd1351": "RGB", "ssd1331": "RGB",
}
#: Drivers whose panels are greyscale (rendered in grey levels) rather than colour.
GREYSCALE_DRIVERS = frozenset({"ssd1322", "ssd1325", "ssd1327", "ssd1362"})
COLOR_DRIVERS = frozenset({"ssd1351", "ssd1331"})

#: SPI buses: GPIOs taken by the kernel driver when a display uses them.
SPI_BUS_PINS: dict[int, dict[str, int]] = {
    0: SPI0_PINS,
    1: {"MOSI": 20, "MISO": 19, "SCLK": 21, "CE0": 18, "CE1": 17, "CE2": 16},
}

INPUT_PINS = ("player", "banker", "tie", "player_pair", "banker_pair", "arrow_left", "arrow_right", "deal")


@dataclass(frozen=True)
class InputsConfig:
    pins: dict[str, int]
    pull_up: bool = True
    deal_active_high: bool = False


@dataclass(frozen=True)
class StatusLightConfig:
    red: int
    green: int
    active_high: bool = True


@dataclass(frozen=True)
class DeckLightConfig:
    red: int
    green: int
    blue: int
    active_high: bool = True
    pwm: bool = True


@dataclass(frozen=True)
class TimingConfig:
    hold_seconds: float = 0.5
    debounce_seconds: float = 0.02
    strike_flash_seconds: float = 1.0
    card_seconds: float = 0.6


@dataclass(frozen=True)
class DisplayConfig:
    role: str
    driver: str
    interface: str
    width: int
    height: int
    rotate: int = 0
    port: int = 1
    address: int = 0x3C
    device: int = 0
    dc: int | None = None
    reset: int | None = None
    bus_speed_hz: int = 8_000_000

    @property
    def mode(self) -> str:
        return DRIVERS[self.driver]

    def describe(self) -> str:
        size = f"{self.width}x{self.height}"
        if self.interface == "i2c":
            where = f"I2C bus {self.port} address 0x{self.address:02X}"
        else:
            rst = f", RST GPIO{self.reset}" if self.reset is not None else ""
            where = f"SPI{self.port} CE{self.device}, DC GPIO{self.dc}{rst}"
        return f"{self.role:8} {self.driver} {size} on {where}, rotate {self.rotate}"


@dataclass(frozen=True)
class MqttConfig:
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


@dataclass(frozen=True)
class Config:
    edgework: Edgework
    limits: TableLimits | None
    first_color: str | None
    inputs: InputsConfig
    status_light: StatusLightConfig
    deck_light: DeckLightConfig
    timing: TimingConfig
    displays: tuple[DisplayConfig, ...]
    mqtt: MqttConfig | None = None
    state_file: str | None = None
    control_socket: str | None = None
    source: str = "<defaults>"
    extra: dict[str, Any] = field(default_factory=dict)

    def gpio_roles(self) -> dict[int, str]:
        """Every GPIO the prop uses, with its role (bus pins included)."""
        roles: dict[int, str] = {}
        for name, pin in self.inputs.pins.items():
            roles[pin] = f"input {name}"
        for name in ("red", "green"):
            roles[getattr(self.status_light, name)] = f"status light {name}"
        for name in ("red", "green", "blue"):
            roles[getattr(self.deck_light, name)] = f"deck light {name}"
        for display in self.displays:
            if display.interface == "spi":
                roles[display.dc] = f"{display.role} display DC"
                if display.reset is not None:
                    roles[display.reset] = f"{display.role} display RST"
        return roles


# -- reading -------------------------------------------------------------------

class _Section:
    """Typed access to one table of the file, reporting problems by key."""

    def __init__(self, name: str, data: Any) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"[{name}] must be a table, not {data!r}")
        self.name = name
        self.data = data
        self.used: set[str] = set()

    def fail(self, key: str, problem: str) -> ConfigError:
        value = self.data.get(key)
        shown = f"0x{value:02X}" if key == "address" and type(value) is int else _show(value)
        return ConfigError(f"[{self.name}] {key} = {shown}: {problem}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ..., *, check=None) -> Any:
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                raise ConfigError(f"[{self.name}] {key} is missing")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            wording = {str: "a string in quotes", int: "a whole number", float: "a number",
                       bool: "true or false", list: "a list"}
            names = " or ".join(wording.get(k, k.__name__) for k in kinds if not (k is int and float in kinds))
            raise self.fail(key, f"must be {names}")
        if check is not None:
            problem = check(value)
            if problem:
                raise self.fail(key, problem)
        return value

    def gpio(self, key: str, default: Any = ...) -> int:
        return self.get(key, int, default, check=_gpio_problem)

    def finish(self) -> None:
        for key in self.data:
            if key not in self.used:
                raise ConfigError(f"[{self.name}] {key}: unknown key")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _gpio_problem(value: int) -> str | None:
    if value not in BCM_TO_PHYSICAL:
        return "not a GPIO on the 40-pin header (BCM numbers 0-27)"
    if value in (0, 1):
        return "GPIO0/1 carry the HAT EEPROM bus; pick another pin"
    return None


def _non_negative(value: float) -> str | None:
    return "must not be negative" if value < 0 else None


def _positive(value: float) -> str | None:
    return "must be above zero" if value <= 0 else None


def load_config(path: str | Path | None = None) -> Config:
    """Read and validate a config file (the reference build's when ``path`` is None)."""
    file = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{file}: cannot read ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{file}: not valid TOML ({error})") from None
    try:
        return parse_config(data, source=str(file))
    except ConfigError as error:
        raise ConfigError(f"{file}: {error}") from None


def parse_config(data: dict[str, Any], *, source: str = "<config>") -> Config:
    known = {"edgework", "limits", "deck", "inputs", "status_light", "deck_light", "timing",
             "displays", "mqtt", "state", "control"}
    for key in data:
        if key not in known:
            raise ConfigError(f"[{key}]: unknown section")

    edgework = _edgework(_Section("edgework", data.get("edgework", {})))
    limits = _limits(_Section("limits", data.get("limits", {})))

    deck = _Section("deck", data.get("deck", {}))
    first = deck.get("first_color", str, "random",
                     check=lambda v: None if v in (*COLORS, "random")
                     else f"must be random or one of {', '.join(COLORS)}")
    deck.finish()

    inputs = _Section("inputs", data.get("inputs", {}))
    pins = {name: inputs.gpio(name) for name in INPUT_PINS}
    inputs_cfg = InputsConfig(pins, inputs.get("pull_up", bool, True),
                              inputs.get("deal_active_high", bool, False))
    inputs.finish()

    status = _Section("status_light", data.get("status_light", {}))
    status_cfg = StatusLightConfig(status.gpio("red"), status.gpio("green"),
                                   status.get("active_high", bool, True))
    status.finish()

    light = _Section("deck_light", data.get("deck_light", {}))
    light_cfg = DeckLightConfig(light.gpio("red"), light.gpio("green"), light.gpio("blue"),
                                light.get("active_high", bool, True), light.get("pwm", bool, True))
    light.finish()

    timing = _Section("timing", data.get("timing", {}))
    timing_cfg = TimingConfig(
        hold_seconds=float(timing.get("hold_seconds", float, 0.5, check=_positive)),
        debounce_seconds=float(timing.get("debounce_seconds", float, 0.02, check=_non_negative)),
        strike_flash_seconds=float(timing.get("strike_flash_seconds", float, 1.0, check=_positive)),
        card_seconds=float(timing.get("card_seconds", float, 0.6, check=_non_negative)),
    )
    timing.finish()
    if timing_cfg.debounce_seconds >= timing_cfg.hold_seconds:
        raise ConfigError(f"[timing] debounce_seconds = {timing_cfg.debounce_seconds}: "
                          f"must be shorter than hold_seconds ({timing_cfg.hold_seconds})")

    raw_displays = data.get("displays", [])
    if not isinstance(raw_displays, list):
        raise ConfigError(f"[[displays]] must be a list of tables, not {raw_displays!r}")
    displays = tuple(_display(_Section(f"displays.{i}", d)) for i, d in enumerate(raw_displays))
    roles = [d.role for d in displays]
    for role in ROLES:
        if roles.count(role) > 1:
            raise ConfigError(f"[displays] role = \"{role}\": used by more than one display")
    addresses = [(d.port, d.address) for d in displays if d.interface == "i2c"]
    for spot in addresses:
        if addresses.count(spot) > 1:
            raise ConfigError(f"[displays] address = 0x{spot[1]:02X}: two displays on I2C bus "
                              f"{spot[0]} share it (use 0x3C and 0x3D, or a TCA9548A mux)")
    spi_spots = [(d.port, d.device) for d in displays if d.interface == "spi"]
    for spot in spi_spots:
        if spi_spots.count(spot) > 1:
            raise ConfigError(f"[displays] device = {spot[1]}: two displays on SPI{spot[0]} CE{spot[1]}")

    mqtt = _mqtt(_Section("mqtt", data["mqtt"])) if "mqtt" in data else None

    state = _Section("state", data.get("state", {}))
    state_file = state.get("file", str, None)
    state.finish()
    control = _Section("control", data.get("control", {}))
    control_socket = control.get("socket", str, None)
    control.finish()

    config = Config(edgework, limits, None if first == "random" else first, inputs_cfg, status_cfg,
                    light_cfg, timing_cfg, displays, mqtt, state_file, control_socket, source)
    _check_pins(config)
    return config


def _edgework(section: _Section) -> Edgework:
    serial = section.get("serial", str)
    lists = {}
    for key in ("ports", "lit", "unlit"):
        value = section.get(key, list, [])
        if not all(isinstance(v, str) for v in value):
            raise section.fail(key, "must be a list of names in quotes")
        lists[key] = tuple(value)
    solved = section.get("solved", int, 0, check=_non_negative)
    section.finish()
    try:
        return Edgework(serial, lists["ports"], lists["lit"], lists["unlit"], solved)
    except BaccaratError as error:
        raise ConfigError(f"[edgework] {error}") from None


def _limits(section: _Section) -> TableLimits | None:
    mode = section.get("mode", str, "random",
                       check=lambda v: None if v in ("random", "fixed") else "must be random or fixed")
    if mode == "random":
        for key in ("min", "max"):
            if key in section.data:
                raise section.fail(key, 'is only read with mode = "fixed"')
        section.finish()
        return None
    minimum = section.get("min", int, check=lambda v: None if v in MINIMUMS
                          else f"is not one of the manual's minimums ({', '.join(map(str, MINIMUMS))})")
    maximum = section.get("max", int, check=lambda v: None if v > minimum else f"must be above min ({minimum})")
    section.finish()
    try:
        return TableLimits(minimum, maximum)
    except BaccaratError as error:
        raise ConfigError(f"[limits] {error}") from None


def _display(section: _Section) -> DisplayConfig:
    role = section.get("role", str, check=lambda v: None if v in ROLES
                       else f"must be one of {', '.join(ROLES)}")
    driver = section.get("driver", str, check=lambda v: None if v in DRIVERS
                         else f"is not a supported luma.oled driver ({', '.join(DRIVERS)})")
    interface = section.get("interface", str, check=lambda v: None if v in ("i2c", "spi")
                            else "must be i2c or spi")
    width = section.get("width", int, check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels")
    height = section.get("height", int, check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels")
    rotate = section.get("rotate", int, 0, check=lambda v: None if v in (0, 1, 2, 3)
                         else "must be 0, 1, 2 or 3 (quarter turns)")
    if interface == "i2c":
        port = section.get("port", int, 1, check=_non_negative)
        address = section.get("address", int, 0x3C, check=lambda v: None if 0x03 <= v <= 0x77
                              else "is not a 7-bit I2C address (0x03-0x77)")
        section.finish()
        return DisplayConfig(role, driver, interface, width, height, rotate, port=port, address=address)
    port = section.get("port", int, 0, check=lambda v: None if v in SPI_BUS_PINS else "must be 0 or 1")
    device = section.get("device", int, 0, check=lambda v: None if v in (0, 1, 2) else "must be 0, 1 or 2")
    dc = section.gpio("dc", 24)
    reset = section.gpio("reset", None)
    speed = section.get("bus_speed_hz", int, 8_000_000, check=_positive)
    section.finish()
    return DisplayConfig(role, driver, interface, width, height, rotate, port=port, device=device,
                         dc=dc, reset=reset, bus_speed_hz=speed)


def _mqtt(section: _Section) -> MqttConfig:
    def text(key: str, default: Any = None) -> Any:
        return section.get(key, str, default)

    cfg = MqttConfig(
        host=section.get("host", str, check=lambda v: None if v.strip() else "must not be empty"),
        port=section.get("port", int, 1883, check=lambda v: None if 1 <= v <= 65535 else "must be 1-65535"),
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
        keepalive=section.get("keepalive", int, 30, check=_positive),
        queue_limit=section.get("queue_limit", int, 1000, check=_positive),
        reconnect_min_seconds=float(section.get("reconnect_min_seconds", float, 1.0, check=_positive)),
        reconnect_max_seconds=float(section.get("reconnect_max_seconds", float, 30.0, check=_positive)),
    )
    section.finish()
    if cfg.reconnect_max_seconds < cfg.reconnect_min_seconds:
        raise section.fail("reconnect_max_seconds", f"must not be below reconnect_min_seconds "
                                                    f"({cfg.reconnect_min_seconds})")
    for key in ("cert_file", "key_file", "ca_file"):
        if getattr(cfg, key) and not cfg.tls:
            raise section.fail(key, "is only read with tls = true")
    if bool(cfg.cert_file) != bool(cfg.key_file):
        raise section.fail("cert_file" if cfg.cert_file else "key_file",
                           "a client certificate needs both cert_file and key_file")
    for key in ("topic_prefix", "bomb_prefix", "prop"):
        if any(c in getattr(cfg, key) for c in "#+") or not getattr(cfg, key):
            raise section.fail(key, "must be a topic without wildcards")
    return cfg


def _check_pins(config: Config) -> None:
    seen: dict[int, str] = {}

    def claim(pin: int, role: str) -> None:
        if pin in seen:
            raise ConfigError(f"GPIO{pin} is used twice: {seen[pin]} and {role}")
        seen[pin] = role

    for display in config.displays:
        if display.interface == "i2c" and display.port == 1:
            for name, pin in I2C1_PINS.items():
                seen.setdefault(pin, f"I2C bus 1 {name}")
        if display.interface == "spi":
            # With SPI enabled the kernel owns every line of the bus, chip selects included.
            for name, pin in SPI_BUS_PINS[display.port].items():
                seen.setdefault(pin, f"SPI{display.port} {name}")
    for pin, role in _ordered_roles(config):
        claim(pin, role)


def _ordered_roles(config: Config) -> list[tuple[int, str]]:
    out = [(pin, f"[inputs] {name}") for name, pin in config.inputs.pins.items()]
    out += [(config.status_light.red, "[status_light] red"), (config.status_light.green, "[status_light] green")]
    out += [(getattr(config.deck_light, c), f"[deck_light] {c}") for c in ("red", "green", "blue")]
    for d in config.displays:
        if d.interface == "spi":
            out.append((d.dc, f"[{d.role} display] dc"))
            if d.reset is not None:
                out.append((d.reset, f"[{d.role} display] reset"))
    return out


def describe_wiring(config: Config) -> str:
    """The wiring a config describes, as ``check-config`` prints it."""
    lines = [f"Config {config.source} is valid.", "",
             f"Edgework: serial {config.edgework.serial}, ports {', '.join(config.edgework.ports) or 'none'}, "
             f"lit {', '.join(config.edgework.lit) or 'none'}, unlit {', '.join(config.edgework.unlit) or 'none'}, "
             f"{config.edgework.solved} solved",
             f"Limits: {config.limits.placard() if config.limits else 'random at start'}; "
             f"first deck: {config.first_color or 'random colour'}", "",
             "GPIO (BCM)  header pin  role"]
    for pin, role in sorted(_ordered_roles(config), key=lambda item: item[0]):
        lines.append(f"GPIO{pin:<8d} pin {BCM_TO_PHYSICAL[pin]:<6d}  {role}")
    pull = "pull-up, wire to GND" if config.inputs.pull_up else "pull-down, wire to 3V3"
    deal = "active-high sensor" if config.inputs.deal_active_high else f"button ({pull})"
    lines += ["", f"Buttons: {pull}; deal input: {deal}",
              f"LEDs: status {'active-high' if config.status_light.active_high else 'active-low'}, "
              f"deck RGB {'common cathode' if config.deck_light.active_high else 'common anode'}"
              f"{' with PWM' if config.deck_light.pwm else ''}", "", "Displays:"]
    for display in config.displays:
        lines.append("  " + display.describe())
    missing = [r for r in ROLES if r not in {d.role for d in config.displays}]
    if missing:
        lines.append(f"  (no {', '.join(missing)} display)")
    if config.mqtt:
        m = config.mqtt
        lines += ["", f"MQTT: {m.host}:{m.port} as {m.client_id}{' with TLS' if m.tls else ''}, "
                      f"topics {m.topic_prefix}/..."]
    return "\n".join(lines)
