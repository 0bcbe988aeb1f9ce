"""The prop's switched outputs (a relay, a MOSFET driving a lock or a solenoid), built on gpiozero.

:class:`Output` is one ``DigitalOutputDevice``: on (held), on for a while (a
pulse), off. Whatever asked, an output with ``max_on_seconds`` is never on
longer than that at a time: the cut-off is timed by gpiozero's own background
thread (``blink(n=1)``), so it holds even while the game thread is busy or stuck.
The pin is switched on the caller's thread first, so the edge never waits for
that thread to start.

:class:`Outputs` is the prop's set of them, switched by the game events their
wiring names (by kind: ``solved``, ``strike``, ``reset``, ``deal``) and by the
game master's commands. Every change is reported as an
:class:`~firmware.devices.switching.OutputSwitched` event. It also keeps what a
restart must bring back: the outputs *held* on (never a pulse), each with the
seconds left of its cut-off (:meth:`Outputs.held`), counted on the monotonic clock
and frozen when the prop stops; the state file carries them across the restart
(:mod:`firmware.room.held_outputs`), and :meth:`Outputs.restore` never gives one
more than that, nor more than ``max_on_seconds``.

Everything here is called on one thread (the daemon's game thread), except
:meth:`Outputs.pins`, which reads the pins from any thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory

from .switching import COMMAND, CUT_OFF, ENDED, RESTART, OutputSwitched
from .wiring import OutputWiring

__all__ = ["Output", "OutputSwitched", "Outputs"]


class Output:
    """One output on a gpiozero ``DigitalOutputDevice``: held on, pulsed, or off.

    On gpiozero's mock pins: held on, then a pulse that a 10 s cut-off shortens (the lock has
    been on for a moment already), then off:

    >>> from gpiozero.pins.mock import MockFactory
    >>> from firmware.devices.outputs import Output
    >>> lock = Output(15, max_on_seconds=10, pin_factory=MockFactory())
    >>> lock.on() <= 10, lock.device.value, lock.is_on
    (True, 1, True)
    >>> lock.pulse(60) < 10  # gpiozero's thread switches it off when that runs out
    True
    >>> lock.off(), lock.device.value, lock.is_on
    (True, 0, False)
    >>> lock.close()
    """

    def __init__(
        self,
        pin: int,
        *,
        active_high: bool = True,
        max_on_seconds: float | None = None,
        pin_factory: Factory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = DigitalOutputDevice(pin, active_high=active_high, initial_value=False, pin_factory=pin_factory)
        self.max_on_seconds = max_on_seconds
        self._clock = clock
        self._since: float | None = None  # when it went on (clock), None while off
        #: When it goes off by itself (clock): a pulse's end or the cut-off; None: on until told (or off).
        self.until: float | None = None
        #: On for a pulse (a restart never repeats one), not held.
        self.pulsing = False

    @property
    def is_on(self) -> bool:
        """On as far as the game knows (a timer that ran out is noticed by :meth:`expired`)."""
        return self._since is not None

    def on(self, seconds: float | None = None) -> float | None:
        """Hold it on (for at most ``seconds``); returns how long it stays on by itself, None for
        "until told". A cut-off (``max_on_seconds``) counts from when it went on."""
        return self._start(seconds, pulse=False)

    def pulse(self, seconds: float) -> float | None:
        """On for ``seconds`` (at most what is left of ``max_on_seconds``), then off."""
        return self._start(seconds, pulse=True)

    def _start(self, seconds: float | None, *, pulse: bool) -> float | None:
        now = self._clock()
        if self._since is None:
            self._since = now
            self.device.on()  # the edge, on this thread: it never waits for the timer's thread
        ends = None if seconds is None else now + seconds
        if self.max_on_seconds is not None:
            limit = self._since + self.max_on_seconds
            ends = limit if ends is None else min(ends, limit)
        self.pulsing = pulse
        self.until = ends
        if ends is None:
            self.device.on()  # stops a timer still running; the pin stays on
            return None
        # gpiozero's own thread turns it off: the cut-off holds even if the game thread is stuck.
        self.device.blink(on_time=max(0.0, ends - now), off_time=0, n=1, background=True)
        return ends - now

    def off(self) -> bool:
        """Off (and any timer stopped); False if it was off already."""
        was = self._since is not None
        self._since = None
        self.until = None
        self.pulsing = False
        self.device.off()
        return was

    def expired(self, now: float) -> bool:
        """True once its timer ran out (gpiozero's thread has switched it off, or is about to)."""
        return self.until is not None and now >= self.until

    def close(self) -> None:
        """Release the pin (gpiozero leaves it an input; docs/build/outputs.md says what the pin does then)."""
        self.device.close()


class Outputs:
    """The prop's outputs by name, switched by game events, commands and their own timers.

    >>> from gpiozero.pins.mock import MockFactory
    >>> from firmware.devices.outputs import Outputs
    >>> from firmware.devices.wiring import OutputWiring
    >>> outputs = Outputs([OutputWiring("lock", 15, on="solved")], pin_factory=MockFactory())
    >>> outputs.follow("solved")
    [OutputSwitched(name='lock', on=True, cause='solved', seconds=None)]
    >>> outputs.states(), outputs.held()
    ([{'name': 'lock', 'on': True}], {'lock': None})
    >>> [event.describe() for event in outputs.follow("reset")]
    ['output lock off (reset)']
    >>> outputs.close()
    """

    def __init__(
        self,
        wirings: Sequence[OutputWiring] = (),
        *,
        pin_factory: Factory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.wirings = {w.name: w for w in wirings}
        self.outputs: dict[str, Output] = {}
        self._clock = clock
        self._held: dict[str, float | None] = {}  # name -> end of its cut-off (clock), or None
        self._stopped: float | None = None  # when every output went off for the stop (clock)
        try:
            for w in wirings:
                self.outputs[w.name] = Output(
                    w.pin,
                    active_high=w.active_high,
                    max_on_seconds=w.max_on_seconds,
                    pin_factory=pin_factory,
                    clock=clock,
                )
        except BaseException:
            self.close()
            raise

    @property
    def names(self) -> tuple[str, ...]:
        """Every output's name, in config order."""
        return tuple(self.outputs)

    # -- switching (the game thread) --------------------------------------------------------
    def follow(self, kind: str) -> list[OutputSwitched]:
        """Switch what the game event ``kind`` switches (as it is shown): its ``off_on`` outputs
        off, its ``on`` outputs on (held, or a pulse)."""
        events = self.expire()
        for name, output in self.outputs.items():
            w = self.wirings[name]
            if w.off_on == kind and output.off():
                events.append(self._switched(name, False, kind))
            elif w.on == kind:
                if w.mode == "pulse":
                    events.append(self._switched(name, True, kind, output.pulse(w.pulse_seconds)))
                elif not output.is_on or output.pulsing:
                    events.append(self._switched(name, True, kind, output.on()))
        return events

    def plan(self, kinds: Sequence[str]) -> None:
        """What events about to be shown will leave held on, kept for a restart now: a deal's
        result is saved from its gesture, so a power cut before it shows still opens the lock."""
        for kind in kinds:
            for name, w in self.wirings.items():
                if w.off_on == kind or (w.on == kind and w.mode == "pulse"):
                    self._held.pop(name, None)
                elif w.on == kind and name not in self._held:
                    self._held[name] = None if w.max_on_seconds is None else self._clock() + w.max_on_seconds

    def command(self, name: str, state: str) -> list[OutputSwitched]:
        """The game master's ``on``, ``off`` or ``pulse`` for output ``name`` (KeyError if unknown;
        ValueError for another state). Nothing changes for ``on`` when it is held on, or ``off``
        when it is off: no event then."""
        output = self.outputs[name]
        if state not in ("on", "off", "pulse"):
            raise ValueError(f"output state {state!r} is not on, off or pulse")
        events = self.expire()
        if state == "off":
            if output.off():
                events.append(self._switched(name, False, COMMAND))
        elif state == "pulse":
            events.append(self._switched(name, True, COMMAND, output.pulse(self.wirings[name].pulse_seconds)))
        elif not output.is_on or output.pulsing:
            events.append(self._switched(name, True, COMMAND, output.on()))
        return events

    def restore(self, held: Mapping[str, float | None]) -> list[OutputSwitched]:
        """Outputs held on before a restart, by name: each with the seconds left of its cut-off
        (None: none), of which it gets no more (nor more than its ``max_on_seconds``). One with
        no time left stays off."""
        events = []
        for name, left in held.items():
            output = self.outputs.get(name)
            if output is None:
                continue
            if left is not None and left <= 0:
                self._held.pop(name, None)
                continue
            stays = output.on(left)
            events.append(OutputSwitched(name, True, RESTART, stays))
            self._held[name] = output.until
        return events

    def expire(self) -> list[OutputSwitched]:
        """Outputs whose pulse or cut-off ran out: off (gpiozero's thread did it, or it is done now)."""
        now = self._clock()
        events = []
        for name, output in self.outputs.items():
            if output.expired(now):
                cause = ENDED if output.pulsing else CUT_OFF
                output.off()
                events.append(self._switched(name, False, cause))
        return events

    def next_due(self) -> float | None:
        """The soonest time (clock) an output goes off by itself, or None."""
        due = [output.until for output in self.outputs.values() if output.until is not None]
        return min(due) if due else None

    def all_off(self) -> None:
        """Every output off, the held ones still kept for the next start (the prop's stop), their
        time left frozen as it is now."""
        self._stopped = self._clock()
        for output in self.outputs.values():
            output.off()

    def _switched(self, name: str, on: bool, cause: str, seconds: float | None = None) -> OutputSwitched:
        output = self.outputs[name]
        if output.is_on and not output.pulsing:
            self._held[name] = output.until
        else:
            self._held.pop(name, None)
        return OutputSwitched(name, on, cause, seconds)

    # -- the pre-game self-test (firmware/selftest/__init__.py: its Outputs) --------------------------
    def output_names(self) -> tuple[str, ...]:
        """Every output, by name (the self-test lists them)."""
        return self.names

    def set_output(self, name: str, on: bool) -> None:
        """The self-test's switch: ``name`` on (its ``max_on_seconds`` still holds) or off again. The
        game is not touched: an output the game holds on stays on, and nothing is reported or kept."""
        output = self.outputs[name]
        if name in self._held:
            return  # the game holds it on: the test leaves it so
        if on:
            output.on()
        else:
            output.off()

    # -- reading ----------------------------------------------------------------------------
    def held(self) -> dict[str, float | None]:
        """What a restart brings back: the outputs held on (pulses never), by name, each with the
        seconds left of its cut-off (as at the stop, once stopped), or None for none."""
        now = self._clock() if self._stopped is None else self._stopped
        return {name: None if end is None else max(0.0, end - now) for name, end in self._held.items()}

    def states(self) -> list[dict[str, object]]:
        """``[{"name": "lock", "on": True}, ...]`` in config order, as the state document lists them."""
        return [{"name": name, "on": output.is_on} for name, output in self.outputs.items()]

    def pins(self) -> dict[str, bool]:
        """Each output's pin as it is now, active or not (safe from any thread)."""
        return {name: bool(output.device.value) for name, output in self.outputs.items()}

    def close(self) -> None:
        """Release every pin."""
        for output in self.outputs.values():
            output.close()
