"""The prop's hardware as one board composed of small gpiozero devices.

Like gpiozero's own boards, it is built from devices passed down the same
``pin_factory``; the daemon only sees inputs arriving and lights to set.
The wiring comes in as plain values (:class:`InputWiring`,
:class:`StatusLightWiring`, :class:`DeckLightWiring`, :class:`OutputWiring`), never as the config.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Sequence

from gpiozero import LED, RGBLED, Device, DigitalInputDevice
from gpiozero.exc import BadPinFactory
from gpiozero.pins import Factory

from baccarat_core.inputs import Arrow, Deal, Hold, Input, Press
from baccarat_core.rounds import AREAS

from .buttons import BettingArea, Clock, DebouncedButton, HoldTimer
from .lights import DeckLight, StatusLight
from .outputs import Outputs
from .wiring import INPUT_NAMES, DeckLightWiring, InputWiring, OutputWiring, StatusLightWiring

__all__ = ["INPUT_NAMES", "DeckLightWiring", "InputWiring", "OutputWiring", "PropBoard", "StatusLightWiring"]

InputSink = Callable[[Input], None]

#: gpiozero's own pin factories by the names ``GPIOZERO_PIN_FACTORY`` takes (its entry points).
BUILT_IN_FACTORIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
}


def named_pin_factory() -> Factory | None:
    """The pin factory ``GPIOZERO_PIN_FACTORY`` names, if it is one of gpiozero's own four, else None.

    gpiozero finds a named factory by reading the entry points of every installed
    distribution (6 ms on the benchmark PC, more with Raspberry Pi OS's packages in a
    ``--system-site-packages`` venv, at every start); its own four are imported here
    directly. For any other name, or none, None: gpiozero then chooses as it always does.
    Errors are gpiozero's own (the factory's constructor raises them either way).
    """
    name = os.environ.get("GPIOZERO_PIN_FACTORY") or ""
    found = BUILT_IN_FACTORIES.get(name.lower())
    if found is None:
        return None
    try:
        module = importlib.import_module(found[0])
    except ImportError as error:  # gpiozero lets it through; the command line wants one line
        raise BadPinFactory(f"GPIOZERO_PIN_FACTORY={name}: {error}") from None
    return getattr(module, found[1])()


class PropBoard:
    """Five betting areas, two arrows, the deal input, the status and deck lights, the outputs.

    On gpiozero's mock pins, with a clock the debounce filters read (a contact that
    chatters for 2 ms is no press; one closed for 50 ms is):

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> from firmware.devices.board import PropBoard
    >>> from firmware.devices.wiring import INPUT_NAMES, DeckLightWiring, InputWiring, StatusLightWiring
    >>> pins = dict(zip(INPUT_NAMES, (5, 6, 13, 19, 26, 16, 20, 21)))
    >>> now = [0.0]
    >>> board = PropBoard(
    ...     InputWiring(pins), StatusLightWiring(22, 27), DeckLightWiring(17, 23, 24),
    ...     pin_factory=MockFactory(pin_class=MockPWMPin), clock=lambda: now[0],
    ... )
    >>> heard = []
    >>> board.connect(heard.append)
    >>> player = board.areas["player"].button.pin  # pulled up: the contact pulls it low
    >>> player.drive_low(); now[0] += 0.002; player.drive_high()  # bounce
    >>> player.drive_low(); now[0] += 0.05; player.drive_high()  # a press, counted on release
    >>> heard
    [Press(area='player')]
    >>> board.deck_light.show("blue")
    >>> board.deck_light.led.value
    (0.0, 0.0, 1.0)
    >>> board.close()
    """

    def __init__(
        self,
        inputs: InputWiring,
        status: StatusLightWiring,
        deck: DeckLightWiring,
        outputs: Sequence[OutputWiring] = (),
        *,
        hold_seconds: float = 0.5,
        debounce_seconds: float = 0.02,
        flash_seconds: float = 1.0,
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self._sink: InputSink = lambda action: None
        self._devices: list[Device] = []
        self._holds: HoldTimer | None = None
        self.outputs = Outputs()
        try:
            self._build(inputs, status, deck, hold_seconds, debounce_seconds, flash_seconds, pin_factory, clock)
            #: The switched outputs (relays, locks), by name; none unless the wiring has them.
            self.outputs = Outputs(outputs, pin_factory=pin_factory)
        except BaseException:
            self.close()
            raise

    def _build(
        self,
        inputs: InputWiring,
        status: StatusLightWiring,
        deck: DeckLightWiring,
        hold_seconds: float,
        debounce_seconds: float,
        flash_seconds: float,
        pin_factory: Factory | None,
        clock: Clock,
    ) -> None:
        def device(pin: int, *, sensor: bool = False) -> DigitalInputDevice:
            # Plain inputs: holds are timed by one HoldTimer, not a Button's HoldThread each.
            if sensor:  # a sensor that drives its output high: no pull
                kwargs: dict[str, object] = {"pull_up": None, "active_state": True}
            else:
                kwargs = {"pull_up": inputs.pull_up}
            made = DigitalInputDevice(pin, pin_factory=pin_factory, **kwargs)
            self._devices.append(made)
            return made

        button_high = not inputs.pull_up
        self._holds = holds = HoldTimer(clock=clock)
        self.areas: dict[str, BettingArea] = {
            area: BettingArea(
                device(inputs.pins[area]),
                on_press=self._emitter(Press(area)),
                on_hold=self._emitter(Hold(area)),
                holds=holds,
                hold_seconds=hold_seconds,
                debounce=debounce_seconds,
                pressed_high=button_high,
                clock=clock,
            )
            for area in AREAS
        }
        self.arrows: dict[str, DebouncedButton] = {
            side: DebouncedButton(
                device(inputs.pins[f"arrow_{side}"]),
                on_press=self._emitter(Arrow(side)),
                debounce=debounce_seconds,
                pressed_high=button_high,
                clock=clock,
            )
            for side in ("left", "right")
        }
        self.deal = DebouncedButton(
            device(inputs.pins["deal"], sensor=inputs.deal_active_high),
            on_press=self._emitter(Deal()),
            debounce=debounce_seconds,
            pressed_high=inputs.deal_active_high or button_high,
            clock=clock,
        )
        red = LED(status.red, active_high=status.active_high, pin_factory=pin_factory)
        self._devices.append(red)
        green = LED(status.green, active_high=status.active_high, pin_factory=pin_factory)
        self._devices.append(green)
        self.status = StatusLight(red, green, flash_seconds=flash_seconds)
        rgb = RGBLED(
            deck.red, deck.green, deck.blue, active_high=deck.active_high, pwm=deck.pwm, pin_factory=pin_factory
        )
        self._devices.append(rgb)
        self.deck_light = DeckLight(rgb, pwm=deck.pwm)

    @property
    def inputs(self) -> dict[str, BettingArea | DebouncedButton]:
        """Every input by name (:data:`INPUT_NAMES`)."""
        return {**self.areas, "arrow_left": self.arrows["left"], "arrow_right": self.arrows["right"], "deal": self.deal}

    def connect(self, sink: InputSink) -> None:
        """Send every input from now on to ``sink`` (called from gpiozero's threads)."""
        self._sink = sink

    def _emitter(self, action: Input) -> Callable[[], None]:
        return lambda: self._sink(action)

    def catch_up(self) -> None:
        """Return once every hold due by the clock's reading now has fired (a test that moves
        the clock by hand calls this before its next edge, as time would pass on the Pi)."""
        if self._holds is not None:
            self._holds.catch_up()

    def lights_off(self) -> None:
        """Both lights off (the daemon's stop)."""
        self.status.off()
        self.deck_light.off()

    def close(self) -> None:
        """Stop the hold timer and release every pin."""
        if self._holds is not None:
            self._holds.close()
        self.outputs.close()
        for device in self._devices:
            device.close()
