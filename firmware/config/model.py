"""The validated config's records: :class:`Config` and :class:`TimingConfig` (read by
:func:`firmware.config.load_config`; named by the plugin API's types without importing the loader)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baccarat_core import Edgework, TableLimits
from baccarat_core.bomb import RandomBombs
from baccarat_core.records import field, record, replace
from baccarat_core.timer import BombRules
from firmware.devices.wiring import DeckLightWiring, DisplaySpec, InputWiring, OutputWiring, StatusLightWiring

__all__ = ["Config", "TimingConfig"]


@record
class TimingConfig:
    """How long things take, in seconds, and how a deal is paced: ``original`` (the original
    module's timeline, :mod:`firmware.game.pacing`) or ``quick`` (each card face up ``card_seconds``
    apart, the clearing ``result_seconds`` after the result)."""

    hold_seconds: float = 0.5
    debounce_seconds: float = 0.02
    strike_flash_seconds: float = 1.0
    card_seconds: float = 0.6
    result_seconds: float = 1.5
    pacing: str = "original"


@record
class Config:
    """A whole, validated config file.

    ``edgework`` is the fixed edgework, or None with ``[edgework] mode = "random"``, where
    ``bombs`` draws each game's bomb instead. ``settings`` holds each configured room service's
    settings by the service's name (a service that is not configured is not there).
    """

    edgework: Edgework | None
    limits: TableLimits | None
    first_color: str | None
    inputs: InputWiring
    status_light: StatusLightWiring
    deck_light: DeckLightWiring
    timing: TimingConfig
    displays: tuple[DisplaySpec, ...]
    state_file: str | None = None
    source: str = "<defaults>"
    bombs: RandomBombs | None = None
    #: ``[bomb]``: the countdown and the strike limit (none of either by default).
    bomb: BombRules = BombRules()
    #: The ``[[outputs]]``: relays and locks the game switches, in config order.
    outputs: tuple[OutputWiring, ...] = ()
    #: Each configured room service's settings, by the service's name.
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: The tables of services that could not be loaded, as the file has them (unchecked; check-config
    #: says so).
    unchecked: Mapping[str, Any] = field(default_factory=dict)
    #: The file holds a secret (a key a service declares ``secret``): it should not be world-readable.
    has_secrets: bool = False
    #: ``[display] language``: the displays' words in a catalog's language ("": the original's English).
    display_language: str = ""

    def with_settings(self, name: str, settings: Any) -> Config:
        """This config with the service ``name``'s settings replaced (``run``'s command-line overrides)."""
        return replace(self, settings={**self.settings, name: settings})
