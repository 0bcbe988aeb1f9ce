"""Sound: the original's cues through a sound card or a piezo buzzer (``[sound]``).

On always; ``output = "none"`` (the default) plays nothing. Docs: ``docs/build/sound.md``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from firmware.plugin import (
    BCM_TO_PHYSICAL,
    I2S_PINS,
    Key,
    PinUse,
    Prop,
    Running,
    Section,
    Service,
    gpio_problem,
    one_of,
)

from ..sound.settings import DEFAULT_BUZZER_PIN, OUTPUTS, SoundSettings

if TYPE_CHECKING:
    pass

log = logging.getLogger("baccarat")


def _device_problem(value: str) -> str | None:
    if value and not any(c.isspace() or not c.isprintable() for c in value):
        return None
    return 'must be an ALSA device name without spaces, such as "default" or "hw:1,0"'


#: The ``[sound]`` keys.
SOUND_KEYS: tuple[Key, ...] = (
    Key("output", str, "none", check=one_of(*OUTPUTS), help="alsa: a sound card; buzzer: a piezo on `pin`"),
    Key(
        "device",
        str,
        "default",
        check=_device_problem,
        help='alsa: a name from `aplay -L`, e.g. "plughw:CARD=Device,DEV=0"',
    ),
    Key("pin", int, DEFAULT_BUZZER_PIN, check=gpio_problem, help="buzzer: the passive piezo's BCM GPIO"),
    Key(
        "volume",
        float,
        0.8,
        check=lambda v: None if 0 <= v <= 1 else "must be from 0.0 (silent) to 1.0 (full)",
        help="0.0-1.0 (the buzzer has one loudness; 0 mutes it)",
    ),
    Key("i2s", bool, False, help="alsa on an I2S amplifier (MAX98357A): GPIO18-21 are the card's"),
)


def sound_settings(values: dict[str, Any], section: Section) -> SoundSettings:
    """The settings from the checked keys; ``i2s`` only with ``output = "alsa"``."""
    if values["i2s"] and values["output"] != "alsa":
        raise section.fail("i2s", 'is for output = "alsa" (an I2S amplifier is an ALSA sound card)')
    return SoundSettings(values["output"], values["device"], values["pin"], float(values["volume"]), values["i2s"])


def parse_sound_section(data: Any) -> SoundSettings:
    """The ``[sound]`` table alone (as ``tomllib`` reads it; absent keys take the defaults): for
    ``python -m firmware.sound``, the bring-up check."""
    from firmware.plugin import read_keys

    section = Section("sound", data)
    return sound_settings(read_keys(section, SOUND_KEYS), section)


class Sound(Service):
    """Plays the cues as the game shows its events (:mod:`firmware.sound`)."""

    name = "sound"
    title = "Sound"
    keys = SOUND_KEYS
    always = True
    order = 20
    docs = "build/sound.md"
    reader = sound_settings

    def describe(self, settings: SoundSettings) -> list[str]:
        """Where the cues go."""
        if settings.output == "alsa":
            i2s = ", an I2S card on GPIO18-21 (dtparam=i2s=on)" if settings.i2s else ""
            return [f'Sound: ALSA "{settings.device}"{i2s}, volume {settings.volume:g}']
        if settings.output == "buzzer":
            return [f"Sound: piezo on GPIO{settings.pin} (header pin {BCM_TO_PHYSICAL[settings.pin]})"]
        return []

    def gpios(self, settings: SoundSettings) -> list[PinUse]:
        """The buzzer's pin; an I2S card's four lines."""
        uses = []
        if settings.i2s:
            uses += [PinUse(gpio, f"I2S {name} ([sound] i2s)", "bus") for name, gpio in I2S_PINS.items()]
        uses += [PinUse(pin, f"[sound] {key}", "sound") for key, pin in settings.pins.items()]
        return uses

    def groups(self, settings: SoundSettings) -> list[str]:
        """The device groups the service user needs: ``audio`` for a sound card."""
        return ["audio"] if settings.output != "none" else []

    def start(self, prop: Prop, settings: SoundSettings) -> Running | None:
        """Play each cue as its event shows; the self-test plays each cue too."""
        if settings.output == "none":
            return None
        from ..sound import SoundListener, make_player
        from ..sound.cues import CUES

        player = make_player(settings, pin_factory=prop.pin_factory, simulate=prop.simulate)
        sound = SoundListener(player, card_seconds=prop.daemon.card_seconds)
        prop.daemon.on_shown.append(sound.on_shown)
        prop.commands.use_sound(sound.play, CUES)  # the self-test plays each cue
        log.info("sound: %s", settings.output)
        return Running(sound.close, sound)  # closed after the daemon stopped: no cue on a dark prop
