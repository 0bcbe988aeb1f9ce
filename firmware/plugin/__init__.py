"""The public plugin API: everything a room service needs, from one module.

A room system (MQTT, Home Assistant, the web console, Clue Control, a third party's webhook relay)
is a :class:`Service`, found through the entry-point group ``baccarat.services``. It imports
what it needs from here, and nothing else of the prop's (the prop's own services do the same;
``tests/test_plugin_api.py`` holds them to it):

- the base classes: :class:`Service`, :class:`Running`, :class:`Prop`;
- its config section: :class:`Key`, :class:`Section`, :class:`PinUse` and the checks
  (:func:`within`, :func:`one_of`, :func:`port_problem`, :func:`gpio_problem`,
  :func:`show_setting`, :func:`did_you_mean`, :func:`read_keys`, :func:`secret_problem`),
  :class:`ConfigError`;
- its ``check-config`` and ``doctor`` lines: :class:`Finding` with :data:`OK`, :data:`WARN`,
  :data:`FAIL`;
- the commands it adds to the one command path: :class:`CommandSpec`, :class:`Argument`,
  :class:`CommandError`;
- the events its hooks receive: :class:`Event` and each kind (:class:`Solved`,
  :class:`Strike`, :class:`RoundPlayed`, ...), documented with their fields in the docs'
  "Add a room service" page;
- a quiet log for hostile input: :class:`Noise`; a URL fit for a log line: :func:`redact_url`,
  :func:`scrub_urls`;
- the services' one asyncio event loop: :func:`event_loop` (started by the first that asks),
  :func:`release_event_loop` when done; :func:`stop_accepting` before closing a server on it;
- what it adds to the web console (routes on its port, work on its loop): :class:`ConsoleExtension`,
  handed over with :meth:`Prop.extend_console`;
- for the test suite of a plugin: :mod:`firmware.plugin.testing` (a pytest plugin, on by
  itself once the prop is installed).

>>> from firmware.plugin import Key, Running, Service
>>> class Hello(Service):
...     name = "hello"
...     keys = (Key("greeting", str, "hello", help="what to say at start"),)
...     def start(self, prop, settings):
...         return Running(lambda: None, settings["greeting"])
>>> Hello().table
'hello'
>>> Hello.order, Hello.always  # after the prop's own; on only where the config has [hello]
(100, False)

Hooks of a service installed from another distribution than the prop's run on a thread of
their own (:mod:`firmware.plugin.hooks`): a slow or stuck hook never holds up the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baccarat_core.events import (
    AreaCleared,
    ArrowClicked,
    CardDealt,
    CardLanded,
    ChipAdded,
    ChipsCleared,
    ChipsReordered,
    DealStarted,
    DeckAppeared,
    DenominationChanged,
    EdgeworkChanged,
    EnabledChanged,
    Event,
    Exploded,
    InputIgnored,
    LimitsSet,
    ModuleReset,
    RoundPlayed,
    Solved,
    SolvedCountChanged,
    Strike,
    TimeAdded,
    TimerStarted,
)
from firmware.config.findings import FAIL, OK, WARN, Finding
from firmware.config.sections import (
    Key,
    PinUse,
    Section,
    did_you_mean,
    gpio_problem,
    one_of,
    port_problem,
    read_keys,
    secret_problem,
    show_setting,
    within,
)
from firmware.errors import ConfigError, PropError
from firmware.plugin.base import Prop, Running, Service

if TYPE_CHECKING:
    from firmware.broker.client import failure_reason, speaks_tls
    from firmware.broker.conventions import Convention, output_name, start_on_mqtt
    from firmware.broker.link import Handler, Link
    from firmware.broker.settings import (
        HOME_ASSISTANT_KEYS,
        MQTT_KEYS,
        ROOM_KEYS,
        HomeAssistantSettings,
        MqttConfig,
        RoomSettings,
        check_values,
        mqtt_config,
        room_settings,
        topic_level_problem,
    )
    from firmware.config.core import TRIGGER_EVENTS
    from firmware.config.model import Config
    from firmware.devices.header import BCM_TO_PHYSICAL, I2S_PINS
    from firmware.devices.switching import OutputSwitched
    from firmware.game.daemon import Daemon
    from firmware.room.builtins import set_edgework
    from firmware.room.command_table import Argument, CommandError, CommandSpec
    from firmware.room.commands import GameMaster
    from firmware.room.diagnostics import Diagnostics
    from firmware.room.saved_state import private_dir, state_path
    from firmware.room.state_file import write_atomic
    from firmware.selftest.parts import SelfTestResult, SelfTestStep
    from firmware.services.probe import tcp_reachable
    from firmware.system.aloop import acquire as event_loop
    from firmware.system.aloop import release as release_event_loop
    from firmware.system.aloop import stop_accepting
    from firmware.system.netaddr import reachable_urls
    from firmware.system.noise import QUIET_SECONDS, Noise
    from firmware.system.redact import redact_url, scrub_urls
    from firmware.web.auth import same_secret
    from firmware.web.client_tls import aiohttp_bare, ready_for_clients
    from firmware.web.extension import ConsoleExtension
    from firmware.web.host import ConsoleHost
    from firmware.web.replies import json_reply, text_reply, wait_words
    from firmware.web.settings import is_loopback
    from firmware.web.throttle import Throttle, address_key

__all__ = [
    "AreaCleared",
    "Argument",
    "ArrowClicked",
    "BCM_TO_PHYSICAL",
    "CardDealt",
    "CardLanded",
    "ChipAdded",
    "ChipsCleared",
    "ChipsReordered",
    "CommandError",
    "CommandSpec",
    "Config",
    "ConsoleExtension",
    "ConsoleHost",
    "ConfigError",
    "Convention",
    "Daemon",
    "DealStarted",
    "DeckAppeared",
    "DenominationChanged",
    "Diagnostics",
    "EdgeworkChanged",
    "EnabledChanged",
    "Event",
    "Exploded",
    "FAIL",
    "Finding",
    "GameMaster",
    "HOME_ASSISTANT_KEYS",
    "Handler",
    "HomeAssistantSettings",
    "I2S_PINS",
    "InputIgnored",
    "Key",
    "LimitsSet",
    "Link",
    "MQTT_KEYS",
    "ModuleReset",
    "MqttConfig",
    "Noise",
    "OK",
    "OutputSwitched",
    "PinUse",
    "Prop",
    "PropError",
    "QUIET_SECONDS",
    "ROOM_KEYS",
    "RoomSettings",
    "RoundPlayed",
    "Running",
    "Section",
    "SelfTestResult",
    "SelfTestStep",
    "Service",
    "Solved",
    "SolvedCountChanged",
    "Strike",
    "TRIGGER_EVENTS",
    "Throttle",
    "TimeAdded",
    "TimerStarted",
    "WARN",
    "address_key",
    "aiohttp_bare",
    "check_values",
    "did_you_mean",
    "event_loop",
    "failure_reason",
    "gpio_problem",
    "is_loopback",
    "json_reply",
    "mqtt_config",
    "one_of",
    "output_name",
    "port_problem",
    "private_dir",
    "reachable_urls",
    "read_keys",
    "ready_for_clients",
    "redact_url",
    "release_event_loop",
    "room_settings",
    "same_secret",
    "secret_problem",
    "scrub_urls",
    "set_edgework",
    "show_setting",
    "speaks_tls",
    "start_on_mqtt",
    "state_path",
    "stop_accepting",
    "tcp_reachable",
    "text_reply",
    "topic_level_problem",
    "wait_words",
    "within",
    "write_atomic",
]

#: Names loaded when first asked for: the command table loads at the first command, not at a
#: start (a start runs none), and the quiet log only for a service that needs one.
_LAZY: dict[str, str | tuple[str, str]] = {
    "Argument": "firmware.room.command_table",
    "CommandError": "firmware.room.command_table",
    "CommandSpec": "firmware.room.command_table",
    "Noise": "firmware.system.noise",
    "QUIET_SECONDS": "firmware.system.noise",
    "Config": "firmware.config.model",
    "Daemon": "firmware.game.daemon",
    "GameMaster": "firmware.room.commands",
    "private_dir": "firmware.room.saved_state",
    "state_path": "firmware.room.saved_state",
    "write_atomic": "firmware.room.state_file",
    # the self-test's events (the prop's own, beside the module's): loaded with the self-test
    "SelfTestStep": "firmware.selftest.parts",
    "SelfTestResult": "firmware.selftest.parts",
    "Diagnostics": "firmware.room.diagnostics",
    "set_edgework": "firmware.room.builtins",
    "tcp_reachable": "firmware.services.probe",
    "is_loopback": "firmware.web.settings",
    "reachable_urls": "firmware.system.netaddr",
    "OutputSwitched": "firmware.devices.switching",
    "BCM_TO_PHYSICAL": "firmware.devices.header",
    "I2S_PINS": "firmware.devices.header",
    "TRIGGER_EVENTS": "firmware.config.core",
    "Link": "firmware.broker.link",
    "Handler": "firmware.broker.link",
    "failure_reason": "firmware.broker.client",
    "speaks_tls": "firmware.broker.client",
    "Convention": "firmware.broker.conventions",
    "start_on_mqtt": "firmware.broker.conventions",
    "output_name": "firmware.broker.conventions",
    "MqttConfig": "firmware.broker.settings",
    "RoomSettings": "firmware.broker.settings",
    "HomeAssistantSettings": "firmware.broker.settings",
    "MQTT_KEYS": "firmware.broker.settings",
    "HOME_ASSISTANT_KEYS": "firmware.broker.settings",
    "ROOM_KEYS": "firmware.broker.settings",
    "check_values": "firmware.broker.settings",
    "mqtt_config": "firmware.broker.settings",
    "room_settings": "firmware.broker.settings",
    "topic_level_problem": "firmware.broker.settings",
    # what a service adds to the web console (firmware.web.extension), and what it may log of a URL
    "ConsoleExtension": "firmware.web.extension",
    "ConsoleHost": "firmware.web.host",
    "ready_for_clients": "firmware.web.client_tls",
    "aiohttp_bare": "firmware.web.client_tls",
    "redact_url": "firmware.system.redact",
    "scrub_urls": "firmware.system.redact",
    "Throttle": "firmware.web.throttle",
    # the services' one asyncio loop (firmware.system.aloop): event_loop() to use it, release after
    "event_loop": ("firmware.system.aloop", "acquire"),
    "release_event_loop": ("firmware.system.aloop", "release"),
    "stop_accepting": "firmware.system.aloop",
    "address_key": "firmware.web.throttle",
    "same_secret": "firmware.web.auth",
    "json_reply": "firmware.web.replies",
    "text_reply": "firmware.web.replies",
    "wait_words": "firmware.web.replies",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'firmware.plugin' has no attribute {name!r}")
    module, attribute = where if isinstance(where, tuple) else (where, name)
    value = getattr(__import__(module, fromlist=[attribute]), attribute)
    globals()[name] = value
    return value
