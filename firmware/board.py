"""The prop's hardware as one board composed of small gpiozero devices.

Like gpiozero's own boards, it is built from devices passed down the same
``pin_factory``; the daemon only sees inputs arriving and lights to set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpiozero import LED, RGBLED, Button, DigitalInputDevice

from baccarat_core.inputs import Arrow, Deal, Hold, Input, Press
from baccarat_core.rounds import AREAS

from .buttons import BettingArea, DebouncedButton
from .config import Config
from .lights import DeckLight, StatusLight

InputSink = Callable[[Input], None]


class PropBoard:
    """Five betting areas, two arrows, the deal input, the status and deck lights."""

    def __init__(self, config: Config, *, pin_factory=None) -> None:
        self._sink: InputSink = lambda action: None
        self.config = config
        inputs, timing = config.inputs, config.timing
        self._devices: list = []

        def button(pin: int, *, hold: bool = False, active_high: bool | None = None) -> Button | DigitalInputDevice:
            if active_high is None:
                kwargs = {"pull_up": inputs.pull_up}
            else:  # a sensor that drives its output: no pull, polarity from config
                kwargs = {"pull_up": None, "active_state": active_high}
            if hold:
                device = Button(pin, hold_time=timing.hold_seconds, pin_factory=pin_factory, **kwargs)
            else:  # no hold wanted: a plain input, without Button's hold thread waking 10 times a second
                device = DigitalInputDevice(pin, pin_factory=pin_factory, **kwargs)
            self._devices.append(device)
            return device

        self.areas = {
            area: BettingArea(button(inputs.pins[area], hold=True),
                              on_press=self._emitter(Press(area)), on_hold=self._emitter(Hold(area)),
                              debounce=timing.debounce_seconds)
            for area in AREAS
        }
        self.arrows = {
            side: DebouncedButton(button(inputs.pins[f"arrow_{side}"]), on_press=self._emitter(Arrow(side)),
                                  debounce=timing.debounce_seconds)
            for side in ("left", "right")
        }
        deal_polarity = True if inputs.deal_active_high else None
        self.deal = DebouncedButton(button(inputs.pins["deal"], active_high=deal_polarity),
                                    on_press=self._emitter(Deal()), debounce=timing.debounce_seconds)
        status = config.status_light
        red = LED(status.red, active_high=status.active_high, pin_factory=pin_factory)
        green = LED(status.green, active_high=status.active_high, pin_factory=pin_factory)
        self.status = StatusLight(red, green, flash_seconds=timing.strike_flash_seconds)
        light = config.deck_light
        rgb = RGBLED(light.red, light.green, light.blue, active_high=light.active_high, pwm=light.pwm,
                     pin_factory=pin_factory)
        self.deck_light = DeckLight(rgb, pwm=light.pwm)
        self._devices += [red, green, rgb]

    def pressed_level(self, name: str) -> bool:
        """The pin level (True = high) of input ``name`` while it is pressed."""
        inputs = self.config.inputs
        if name == "deal" and inputs.deal_active_high:
            return True
        return not inputs.pull_up

    def connect(self, sink: InputSink) -> None:
        """Send every input from now on to ``sink`` (called from gpiozero's threads)."""
        self._sink = sink

    def _emitter(self, action: Input) -> Callable[[], None]:
        return lambda: self._sink(action)

    def lights_off(self) -> None:
        self.status.off()
        self.deck_light.off()

    def close(self) -> None:
        # gpiozero's Button.close() waits up to 0.1 s for its hold thread: close them together.
        closers = [threading.Thread(target=device.close) for device in self._devices]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()
