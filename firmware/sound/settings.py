"""The ``[sound]`` settings as plain values (the sound service reads and checks the table:
:mod:`firmware.services.sound`); no sound library imported here."""

from __future__ import annotations

from baccarat_core.records import record

#: The outputs ``[sound] output`` may name.
OUTPUTS: tuple[str, ...] = ("none", "alsa", "buzzer")
#: The buzzer's default pin: GPIO18 (header pin 12), free in the reference build and PWM-capable.
DEFAULT_BUZZER_PIN = 18


@record
class SoundSettings:
    """Where the cues go: ``output`` "none", "alsa" (``device``) or "buzzer" (``pin``), at ``volume``."""

    output: str = "none"
    device: str = "default"
    pin: int = DEFAULT_BUZZER_PIN
    volume: float = 0.8
    #: The ALSA card is an I2S amplifier (MAX98357A, HiFiBerry, ...): the kernel takes
    #: GPIO18-21 (``devices.header.I2S_PINS``), and the config's pin check keeps every other part off them.
    i2s: bool = False

    @property
    def pins(self) -> dict[str, int]:
        """The GPIOs this output takes (for the config's one pin check): only the buzzer's."""
        return {"pin": self.pin} if self.output == "buzzer" else {}
