"""The ``[mqtt]`` table: the broker, the prop's topics, and the keys Home Assistant and Room 2.0 add.

Three services read ``[mqtt]``, each its own keys (:mod:`firmware.services.mqtt`): the MQTT
connection and the prop's topics (:class:`MqttConfig`), Home Assistant's discovery
(:class:`HomeAssistantSettings`) and Room 2.0 (:class:`RoomSettings`). The values a broker would
refuse are refused here, in one line naming the key, rather than by a broker that hangs up
without saying why.

>>> mqtt_value_problem("room", "Casino/+")
'contains +, an MQTT wildcard, which brokers refuse in a topic; choose a name without + or #'
"""

from __future__ import annotations

from typing import Any

from baccarat_core import strict
from baccarat_core.patterns import Pattern
from baccarat_core.records import record
from firmware.config.core import TRIGGER_EVENTS
from firmware.config.sections import Key, Section, port_problem, show_setting, within
from firmware.errors import ConfigError

#: Largest ``[mqtt] queue_limit``.
MAX_QUEUE_LIMIT = 100_000

#: A Room 2.0 request another prop or the room's controller acts on: ``REQU <prop> -> <command>``
#: (a prop name may hold spaces) or ``PROG <program>``.
ROOM_REQUEST = Pattern(r"REQU \S(?:.*\S)? -> \S(?:.*\S)?|PROG \S(?:.*\S)?")
#: Longest Room 2.0 request, and most requests on one event.
MAX_ROOM_REQUEST = 200
MAX_ROOM_REQUESTS = 16


@record
class MqttConfig:
    """The MQTT connection and the prop's topics (``[mqtt]``)."""

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
    keepalive: int = 30
    queue_limit: int = 1000
    reconnect_min_seconds: float = 1.0
    reconnect_max_seconds: float = 30.0


@record
class HomeAssistantSettings:
    """Home Assistant's discovery (``[mqtt] home_assistant``, ``home_assistant_prefix``)."""

    enabled: bool = False
    prefix: str = "homeassistant"


@record
class RoomSettings:
    """Room 2.0 (``[mqtt] room``, ``prop``, ``[mqtt.room_requests]``): on when ``room`` is set."""

    room: str | None = None
    prop: str = "baccarat"
    #: Outbox requests per game event, in config order: ``(("solved", ("REQU ...",)), ...)``.
    requests: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _text(name: str, default: Any = None, help: str = "", **options: Any) -> Key:  # noqa: A002 - Key's field
    return Key(name, str, default, check=options.pop("check", None), help=help, **options)


_SECONDS = within(0, 3600, above=True)

#: The MQTT service's keys.
MQTT_KEYS: tuple[Key, ...] = (
    _text("host", ..., "the broker's host name or address", check=lambda v: None if v.strip() else "must not be empty"),
    Key("port", int, 1883, check=port_problem, help="the broker's port (8883 is TLS's)"),
    _text("client_id", "baccarat", "the client id (one per prop on a broker)"),
    _text("username", None, "the broker's user name"),
    _text("password", None, "the broker's password", secret=True),
    Key("tls", bool, False, help="connect with TLS"),
    _text("ca_file", None, "TLS: the CA certificate (PEM) the broker's is checked against"),
    _text("cert_file", None, "TLS: a client certificate (PEM), with key_file"),
    _text("key_file", None, "TLS: the client certificate's key (PEM, no pass phrase)"),
    _text("topic_prefix", "bomb/baccarat", "the prop's topics: <prefix>/state, <prefix>/command, ..."),
    _text("bomb_prefix", "bomb", "the bomb's shared topics: <prefix>/edgework, <prefix>/solved"),
    Key("keepalive", int, 30, check=within(0, 65535, above=True), help="seconds between pings"),
    Key("queue_limit", int, 1000, check=within(0, MAX_QUEUE_LIMIT, above=True), help="messages kept while offline"),
    Key("reconnect_min_seconds", float, 1.0, check=_SECONDS, help="first pause before reconnecting"),
    Key("reconnect_max_seconds", float, 30.0, check=_SECONDS, help="longest pause before reconnecting"),
)
#: Home Assistant's keys in ``[mqtt]``.
HOME_ASSISTANT_KEYS: tuple[Key, ...] = (
    Key("home_assistant", bool, False, help="publish Home Assistant's MQTT discovery (Home Assistant 2024.11+)"),
    _text("home_assistant_prefix", "homeassistant", "Home Assistant's discovery prefix"),
)
#: Room 2.0's keys in ``[mqtt]`` (``room_requests`` is a table of its own: :func:`room_requests`).
ROOM_KEYS: tuple[Key, ...] = (
    _text("room", None, "the Room 2.0 room: Room/<room>/Props/<prop>/... (unset: no Room 2.0)"),
    _text("prop", "baccarat", "the prop's name in Room 2.0"),
)

#: The ``[mqtt]`` values a broker sees, by what they become: the first levels of the prop's topics,
#: one level of a Room 2.0 topic (``Room/<room>/Props/<prop>/...``), or who the prop is.
TOPIC_STARTS = ("topic_prefix", "bomb_prefix", "home_assistant_prefix")
TOPIC_LEVELS = ("room", "prop")
IDENTITIES = ("client_id", "username")


def check_values(section: Section, values: dict[str, Any]) -> None:
    """Refuse what a broker would refuse among ``values`` (:func:`mqtt_value_problem`)."""
    for key in (*TOPIC_STARTS, *TOPIC_LEVELS, *IDENTITIES):
        value = values.get(key)
        problem = None if value is None else mqtt_value_problem(key, value)
        if problem:
            raise section.fail(key, problem)


def mqtt_config(values: dict[str, Any], section: Section) -> MqttConfig:
    """The connection from the MQTT service's keys, checked across keys (TLS files load)."""
    values = {
        **values,
        "topic_prefix": values["topic_prefix"].rstrip("/"),
        "bomb_prefix": values["bomb_prefix"].rstrip("/"),
    }
    for key in ("reconnect_min_seconds", "reconnect_max_seconds"):
        values[key] = float(values[key])
    cfg = MqttConfig(**values)
    if cfg.reconnect_max_seconds < cfg.reconnect_min_seconds:
        raise section.fail(
            "reconnect_max_seconds", f"must not be below reconnect_min_seconds ({cfg.reconnect_min_seconds})"
        )
    for key in ("cert_file", "key_file", "ca_file"):
        if getattr(cfg, key) and not cfg.tls:
            raise section.fail(key, "is only read with tls = true")
    if bool(cfg.cert_file) != bool(cfg.key_file):
        raise section.fail(
            "cert_file" if cfg.cert_file else "key_file", "a client certificate needs both cert_file and key_file"
        )
    check_values(section, values)
    if cfg.tls:
        _check_tls(section, cfg)
    return cfg


def room_settings(values: dict[str, Any], section: Section) -> RoomSettings:
    """Room 2.0's settings from its keys and ``[mqtt.room_requests]``."""
    check_values(section, values)
    requests = room_requests(section)
    if requests and values["room"] is None:
        raise ConfigError('[mqtt.room_requests] is only read with room set ([mqtt] room = "...")')
    return RoomSettings(values["room"], values["prop"], requests)


def mqtt_string_problem(value: str) -> str | None:
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


#: Longest name a convention (M3, node-redscape) gives the prop in one topic level, in bytes.
MAX_NAME_BYTES = 64


def topic_level_problem(value: str) -> str | None:
    """Why ``value`` cannot name the prop in one level of an MQTT topic, or None.

    >>> topic_level_problem("baccarat") is None
    True
    >>> topic_level_problem("room/baccarat")
    'must be one topic level, without /'
    """
    if not value.strip():
        return "must not be empty"
    problem = mqtt_string_problem(value)
    if problem:
        return problem
    wildcard = next((c for c in value if c in "+#"), None)
    if wildcard:
        return f"contains {wildcard}, an MQTT wildcard, which brokers refuse in a topic; choose a name without + or #"
    if "/" in value:
        return "must be one topic level, without /"
    if value.startswith("$"):
        return "must not start with $: brokers keep those topics to themselves ($SYS/...)"
    if len(value.encode("utf-8")) > MAX_NAME_BYTES:
        return f"must be at most {MAX_NAME_BYTES} bytes"
    return None


def mqtt_value_problem(key: str, value: str) -> str | None:
    """Why the broker would refuse ``[mqtt] key = value`` (see :data:`TOPIC_STARTS` and its neighbours)."""
    if not value:
        if key in ("room", "username"):  # room = "" is no Room 2.0; username = "" an empty user name
            return None
        return "must not be empty"
    problem = mqtt_string_problem(value)
    if problem or key == "username":
        return problem
    wildcard = next((c for c in value if c in "+#"), None)
    if wildcard:
        where = "a client id" if key == "client_id" else "a topic"
        return f"contains {wildcard}, an MQTT wildcard, which brokers refuse in {where}; choose a name without + or #"
    if key in TOPIC_LEVELS and "/" in value:
        return "must be one topic level, without /: it goes into Room/<room>/Props/<prop>/..."
    if key in TOPIC_STARTS and value.startswith("$"):
        return "must not start with $: brokers keep those topics to themselves ($SYS/...)"
    return None


def room_requests(mqtt: Section) -> tuple[tuple[str, tuple[str, ...]], ...]:
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
