"""How the prop is wired, as plain values: the inputs, the lights, the outputs, the displays.

The config builds these; the devices take them. Nothing here imports a
hardware library, so ``check-config`` and ``hardware/generate.py`` run on
the standard library alone.
"""

from __future__ import annotations

from baccarat_core.records import record
from baccarat_core.rounds import AREAS

#: The board's inputs by name: the five areas, the two arrows, the deck.
INPUT_NAMES: tuple[str, ...] = (*AREAS, "arrow_left", "arrow_right", "deal")

#: The prop's displays by role, in the order they are listed: the placard (the table limits),
#: the table (the deck and the round being dealt), the bets (the five stacks and the chip) and,
#: optionally, the casing (the serial number, the countdown and the strikes: for a prop with no
#: bomb casing around it).
ROLES: tuple[str, ...] = ("placard", "table", "bets", "casing")
#: Roles a build may leave out without ``check-config`` pointing it out.
OPTIONAL_ROLES: frozenset[str] = frozenset({"casing"})


@record
class InputWiring:
    """Where the inputs are wired (BCM numbers by input name) and how they read."""

    pins: dict[str, int]
    pull_up: bool = True
    deal_active_high: bool = False


@record
class StatusLightWiring:
    """The status light's red and green LEDs."""

    red: int
    green: int
    active_high: bool = True


@record
class DeckLightWiring:
    """The RGB LED that shows the deck's back colour."""

    red: int
    green: int
    blue: int
    active_high: bool = True
    pwm: bool = True


#: What an output does when its event comes: ``hold`` (on until reset or a command) or ``pulse``
#: (on for ``pulse_seconds``).
OUTPUT_MODES: tuple[str, ...] = ("hold", "pulse")
#: What the game master's ``output`` command can ask of an output.
OUTPUT_STATES: tuple[str, ...] = ("on", "off", "pulse")


@record
class OutputWiring:
    """One switched output (a relay module, a MOSFET driving a lock, a buzzer): its pin, and the
    game events (by their kinds: ``solved``, ``strike``, ``reset``, ``deal``) that switch it.

    ``on`` and ``off_on`` are None for "only by command"; ``max_on_seconds`` None for no cut-off.
    """

    name: str
    pin: int
    active_high: bool = True
    on: str | None = None
    mode: str = "hold"
    pulse_seconds: float = 1.0
    max_on_seconds: float | None = None
    off_on: str | None = "reset"

    def behaviour(self) -> str:
        """``on at solved (hold), off at reset``: what switches it."""
        if self.on is None:
            when = "only by command"
        elif self.mode == "pulse":
            when = f"a {self.pulse_seconds:g} s pulse at {self.on}"
        else:
            when = f"on at {self.on} (hold)"
        off = f", off at {self.off_on}" if self.off_on is not None else ""
        cut = f", never on longer than {self.max_on_seconds:g} s" if self.max_on_seconds is not None else ""
        return when + off + cut

    def describe(self) -> str:
        """``lock     GPIO15, on at solved (hold), off at reset``: what ``check-config`` prints."""
        level = " (active low)" if not self.active_high else ""
        return f"{self.name:8} GPIO{self.pin}{level}, {self.behaviour()}"


#: luma.oled drivers the renderer supports, with the image mode it draws for them.
DRIVERS: dict[str, str] = {
    "ssd1306": "1",
    "sh1106": "1",
    "ssd1309": "1",
    "sh1107": "1",
    "ssd1322": "RGB",
    "ssd1325": "RGB",
    "ssd1327": "RGB",
    "ssd1362": "RGB",
    "ssd1351": "RGB",
    "ssd1331": "RGB",
}
#: Drivers whose panels are greyscale (rendered in grey levels) rather than colour.
GREYSCALE_DRIVERS = frozenset({"ssd1322", "ssd1325", "ssd1327", "ssd1362"})
COLOR_DRIVERS = frozenset({"ssd1351", "ssd1331"})


@record
class DisplaySpec:
    """One display: its role on the prop, its luma driver, size and bus."""

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
        """The image mode the renderer draws for this driver (``"1"`` or ``"RGB"``)."""
        return DRIVERS[self.driver]

    def describe(self) -> str:
        """``table    ssd1306 128x64 on I2C bus 1 address 0x3D, rotate 0``."""
        size = f"{self.width}x{self.height}"
        if self.interface == "i2c":
            where = f"I2C bus {self.port} address 0x{self.address:02X}"
        else:
            rst = f", RST GPIO{self.reset}" if self.reset is not None else ""
            where = f"SPI{self.port} CE{self.device}, DC GPIO{self.dc}{rst}"
        return f"{self.role:8} {self.driver} {size} on {where}, rotate {self.rotate}"
