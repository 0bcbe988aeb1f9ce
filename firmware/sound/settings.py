"""The ``[sound]`` section of the config: plain values, checked; no sound library imported here."""

from __future__ import annotations

import math
from typing import Any

from baccarat_core.records import record

#: The outputs ``[sound] output`` may name.
OUTPUTS: tuple[str, ...] = ("none", "alsa", "buzzer")
#: The buzzer's default pin: GPIO18 (header pin 12), free in the reference build and PWM-capable.
DEFAULT_BUZZER_PIN = 18
_KEYS = ("output", "device", "pin", "volume", "i2s")


class SoundConfigError(Exception):
    """A bad ``[sound]`` value: one line naming the key and the value."""


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


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _fail(key: str, value: Any, problem: str) -> SoundConfigError:
    return SoundConfigError(f"[sound] {key} = {_show(value)}: {problem}")


def parse_sound_section(data: dict[str, Any]) -> SoundSettings:
    """Check the ``[sound]`` table as ``tomllib`` reads it; absent keys take the defaults.

    Raises :class:`SoundConfigError` naming the first bad or unknown key. The
    pin is checked to be a GPIO on the header here; that no other role uses
    it is the config's one pin check (see :attr:`SoundSettings.pins`).
    """
    if not isinstance(data, dict):
        raise SoundConfigError("[sound] must be a table of keys")
    for key in data:
        if key not in _KEYS:
            raise SoundConfigError(f"[sound] {key}: unknown key (known: {', '.join(_KEYS)})")
    defaults = SoundSettings()

    output = data.get("output", defaults.output)
    if not isinstance(output, str) or output not in OUTPUTS:
        raise _fail("output", output, 'must be "none", "alsa" or "buzzer"')

    device = data.get("device", defaults.device)
    if not isinstance(device, str):
        raise _fail("device", device, 'must be a string in quotes, an ALSA device such as "default" or "hw:1,0"')
    if not device or any(c.isspace() or not c.isprintable() for c in device):
        raise _fail("device", device, 'must be an ALSA device name without spaces, such as "default" or "hw:1,0"')

    pin = data.get("pin", defaults.pin)
    if not isinstance(pin, int) or isinstance(pin, bool):
        raise _fail("pin", pin, "must be a whole number (a BCM GPIO)")
    if not 2 <= pin <= 27:
        raise _fail("pin", pin, "must be a GPIO on the 40-pin header, BCM 2-27 (GPIO0/1 are the HAT EEPROM bus)")

    volume = data.get("volume", defaults.volume)
    if isinstance(volume, bool) or not isinstance(volume, int | float):
        raise _fail("volume", volume, "must be a number from 0.0 to 1.0")
    if not (math.isfinite(volume) and 0.0 <= volume <= 1.0):
        raise _fail("volume", volume, "must be from 0.0 (silent) to 1.0 (full)")

    i2s = data.get("i2s", defaults.i2s)
    if not isinstance(i2s, bool):
        raise _fail("i2s", i2s, "must be true or false")
    if i2s and output != "alsa":
        raise _fail("i2s", i2s, 'is for output = "alsa" (an I2S amplifier is an ALSA sound card)')

    return SoundSettings(output, device, pin, float(volume), i2s)
