"""Sound for the prop: the original module's cues, synthesised, on an ALSA card, a piezo or the PC.

- :mod:`.synth`: the cues made by this project's code; ``scripts/make_sounds.py``
  writes them to ``wav/<cue>.wav``.
- :mod:`.cues`: which event gets which cue, and the buzzer's tone sequences.
- :mod:`.players`: ``AlsaPlayer`` (``aplay``), ``BuzzerPlayer`` (gpiozero's
  ``TonalBuzzer``), ``PygameMixerPlayer`` (the simulator), ``NullPlayer``.
- :mod:`.listener`: ``SoundListener``, what the daemon calls.
- :mod:`.settings`: the ``[sound]`` settings, as plain values.

Importing this package loads no sound or GPIO library, and not even the cues or
the players until one is asked for (the config imports :mod:`.settings` on every start, and a
prop without sound should not pay for ``subprocess`` and ``wave``);
:func:`make_player` loads the one the settings name.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .settings import OUTPUTS, SoundSettings

if TYPE_CHECKING:
    from .cues import BUZZER_MID_TONE, BUZZER_OCTAVES, BUZZER_SEQUENCES, CUES, CuePlanner, cues_for
    from .listener import SoundListener
    from .players import WAV_DIR, AlsaPlayer, BuzzerPlayer, NullPlayer, Player, Players, PygameMixerPlayer

#: Names loaded on first use, and the module that has them.
_LAZY = {
    **dict.fromkeys(
        ("BUZZER_MID_TONE", "BUZZER_OCTAVES", "BUZZER_SEQUENCES", "CUES", "CuePlanner", "cues_for"), ".cues"
    ),
    "SoundListener": ".listener",
    **dict.fromkeys(
        ("WAV_DIR", "AlsaPlayer", "BuzzerPlayer", "NullPlayer", "Player", "Players", "PygameMixerPlayer"), ".players"
    ),
}


def __getattr__(name: str) -> Any:
    """Load a player or the listener on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUZZER_MID_TONE",
    "BUZZER_OCTAVES",
    "BUZZER_SEQUENCES",
    "CUES",
    "OUTPUTS",
    "WAV_DIR",
    "AlsaPlayer",
    "BuzzerPlayer",
    "CuePlanner",
    "NullPlayer",
    "Player",
    "Players",
    "PygameMixerPlayer",
    "SoundListener",
    "SoundSettings",
    "cues_for",
    "make_player",
]

log = logging.getLogger("baccarat.sound")


def make_player(settings: SoundSettings, pin_factory: Any = None, *, simulate: bool = False) -> Player:
    """The player the settings name.

    ``simulate=True`` (the simulator) plays through the PC's speakers instead:
    the WAV clips for ``alsa``, the buzzer's square waves for ``buzzer``. A
    buzzer pin that cannot be opened is logged once and gives a silent player:
    the prop runs without sound rather than not at all.
    """
    from .players import AlsaPlayer, BuzzerPlayer, NullPlayer, PygameMixerPlayer, buzzer_clips, load_clips

    if settings.output == "none" or settings.volume == 0:
        return NullPlayer()
    if simulate:
        clips = load_clips() if settings.output == "alsa" else buzzer_clips()
        return PygameMixerPlayer(clips, settings.volume)
    if settings.output == "alsa":
        return AlsaPlayer(settings.device, settings.volume)
    from gpiozero import TonalBuzzer

    from .cues import BUZZER_MID_TONE, BUZZER_OCTAVES

    try:
        buzzer = TonalBuzzer(settings.pin, mid_tone=BUZZER_MID_TONE, octaves=BUZZER_OCTAVES, pin_factory=pin_factory)
    except Exception as error:  # GPIO busy, no PWM on this pin factory, ...
        log.warning("buzzer on GPIO%d cannot start (%s); the game goes on without sound", settings.pin, error)
        return NullPlayer()
    return BuzzerPlayer(buzzer)
