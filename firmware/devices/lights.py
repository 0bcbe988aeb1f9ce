"""The status light and the deck-colour light, built on gpiozero."""

from __future__ import annotations

from gpiozero import LED, RGBLED

#: RGB mix per deck back colour. Silver is a dim white where PWM is available.
DECK_COLORS: dict[str, tuple[float, float, float]] = {
    "red": (1.0, 0.0, 0.0),
    "blue": (0.0, 0.0, 1.0),
    "green": (0.0, 1.0, 0.0),
    "silver": (0.35, 0.35, 0.4),
}


class StatusLight:
    """Off while armed, a red flash on each strike, steady green once solved, steady red once the
    bomb exploded."""

    def __init__(self, red: LED, green: LED, *, flash_seconds: float = 1.0) -> None:
        self.red = red
        self.green = green
        self.flash_seconds = flash_seconds

    def armed(self) -> None:
        """Both LEDs off."""
        self.red.off()
        self.green.off()

    def strike(self) -> None:
        """One red flash of ``flash_seconds`` (gpiozero blinks it on its own thread); none once solved."""
        if self.green.is_lit:
            return
        self.red.blink(on_time=self.flash_seconds, off_time=0, n=1, background=True)

    def solved(self) -> None:
        """Steady green."""
        self.red.off()
        self.green.on()

    def exploded(self) -> None:
        """Steady red (a strike's flash that is still on becomes steady: ``on`` stops the blink)."""
        self.green.off()
        self.red.on()

    def off(self) -> None:
        """Both LEDs off (the daemon's stop)."""
        self.armed()

    def blink_both(self, period: float = 0.5) -> None:
        """Red and green blink together until the next call (the game master's "identify")."""
        half = period / 2
        self.red.blink(on_time=half, off_time=half, background=True)
        self.green.blink(on_time=half, off_time=half, background=True)


class DeckLight:
    """An RGB LED showing the back colour of the current deck."""

    def __init__(self, led: RGBLED, *, pwm: bool = True) -> None:
        self.led = led
        self.pwm = pwm
        self.color: str | None = None

    def show(self, color: str) -> None:
        """Show a deck colour (``red``, ``blue``, ``green``, ``silver``)."""
        mix: tuple[float, ...] = DECK_COLORS[color]
        if not self.pwm:  # on/off pins: silver shows as white
            mix = tuple(1.0 if c > 0 else 0.0 for c in mix)
        self.led.color = mix
        self.color = color

    def off(self) -> None:
        """Dark."""
        self.led.off()
        self.color = None

    def blink_white(self, period: float = 0.5) -> None:
        """White on and off until the next call (the game master's "identify")."""
        half = period / 2
        self.led.blink(on_time=half, off_time=half, on_color=(1, 1, 1), off_color=(0, 0, 0), background=True)
