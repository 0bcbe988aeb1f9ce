"""The pre-game self-test: every display, light, sound cue and button of the prop, checked in one go.

Like gpiozero's ``pintest``, it names what does not work and never ends in a traceback. It runs
as a :class:`~firmware.game.daemon.Mode` of the daemon, on the game thread: while it runs, the
inputs go to the test and not to the module, the test draws the displays and sets the lights,
and the game master's commands wait for its end (``status``, ``hint``, ``identify`` and the
test's own skip and cancel run at once). The game is not touched: it stays in memory and in the
state file as it was, and is drawn again when the test ends. The game loop keeps coming round
the whole time, so the service watchdog keeps being pinged.

In order:

1. **displays**: a test pattern (:func:`~firmware.render.testcard.render_pattern`) on each;
   one that did not take it (a bus error, or not opened at start) is *not answering*;
2. **lights**: the status light red, then green, the deck light red, green, blue, white, each
   for ``light_seconds`` (the tester looks: a pin gives no answer back);
3. **sounds**: each cue in turn, ``sound_seconds`` apart (the tester listens);
4. **outputs** (relays, locks; see :class:`~firmware.selftest.parts.Outputs`): listed as *not switched*, unless the
   command names them: a lock is never opened by a test nobody asked for;
5. **buttons**: each input asked for in turn, on the displays and in the log (``press PLAYER``),
   and ticked off when pressed; one not pressed within ``button_seconds`` is *not pressed*.
   A button pressed before its turn is ticked off then and not asked for again.

``skip`` gives up on the button asked for now (*skipped*); ``cancel`` ends the test (what was
not reached is *not tested*). The result is one reply document, one log line (the
:class:`SelfTestResult` event: MQTT publishes it with the other events) and the console's.
The parts, steps and result, and the timings, are the records of :mod:`firmware.selftest.parts`;
the test itself (:class:`~firmware.selftest.mode.SelfTest`) is loaded when a test starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from firmware.errors import PropError
from firmware.selftest.parts import (
    DEFAULT_BUTTON_SECONDS,
    FINE,
    INPUT_LABELS,
    LIGHTS,
    MAX_BUTTON_SECONDS,
    SelfTestPart,
    SelfTestResult,
    SelfTestSettings,
    SelfTestStep,
    input_name,
    summarize,
)

if TYPE_CHECKING:
    from firmware.game.daemon import Daemon
    from firmware.selftest.mode import SelfTest
    from firmware.selftest.parts import Outputs

__all__ = [
    "DEFAULT_BUTTON_SECONDS",
    "FINE",
    "INPUT_LABELS",
    "LIGHTS",
    "MAX_BUTTON_SECONDS",
    "SelfTest",
    "SelfTestPart",
    "SelfTestResult",
    "SelfTestSettings",
    "SelfTestStep",
    "SelfTester",
    "input_name",
    "summarize",
]

log = logging.getLogger("baccarat.selftest")


class SelfTester:
    """Starts self-tests on a daemon, one at a time, and passes skip and cancel to the one running.

    ``sound(cue)`` plays a cue (the sound listener's :meth:`~firmware.sound.SoundListener.play`;
    None: no sound output); ``outputs`` are the prop's switched outputs (None: none).
    """

    #: The timings when none are given.
    default_settings = SelfTestSettings()

    def __init__(
        self,
        daemon: Daemon,
        settings: SelfTestSettings | None = None,
        *,
        sound: Callable[[str], None] | None = None,
        cues: Sequence[str] = (),
        outputs: Outputs | None = None,
    ) -> None:
        self.daemon = daemon
        self._settings = settings
        self.sound = sound
        self.cues = tuple(cues)
        self.outputs = outputs

    @property
    def settings(self) -> SelfTestSettings:
        """The timings: those given, else :attr:`default_settings` (read at each start)."""
        return self._settings or self.default_settings

    @settings.setter
    def settings(self, value: SelfTestSettings | None) -> None:
        self._settings = value

    def longest(self, button_seconds: float | None = None) -> float:
        """The longest a test started now can take, in seconds (front ends wait this long for the reply)."""
        settings = self.settings if button_seconds is None else _with_buttons(self.settings, button_seconds)
        outputs = len(self.outputs.output_names()) if self.outputs is not None else 0
        cues = len(self.cues) if self.sound is not None else 0
        return settings.longest(cues, outputs)

    def start(self, *, button_seconds: float | None = None, switch: Sequence[str] = ()) -> Future[dict[str, Any]]:
        """Run a test (after a round in progress ends); the future holds the result document.

        ``switch`` names the outputs to switch on and off (no others are touched).
        """
        settings = self.settings if button_seconds is None else _with_buttons(self.settings, button_seconds)
        known = list(self.outputs.output_names()) if self.outputs is not None else []
        unknown = [name for name in switch if name not in known]
        if unknown:
            raise PropError(f"self_test: no output named {', '.join(unknown)} (outputs: {', '.join(known) or 'none'})")
        from firmware.selftest.mode import SelfTest  # the test itself: loaded when one starts, not with the prop

        if isinstance(self.daemon.mode, SelfTest):  # answered at once, not after the running test
            raise PropError("a self-test is running already")
        done: Future[dict[str, Any]] = Future()

        def begin() -> None:
            if isinstance(self.daemon.mode, SelfTest):
                raise PropError("a self-test is running already")
            test = SelfTest(
                self.daemon, settings, done, sound=self.sound, cues=self.cues, outputs=self.outputs, switch=switch
            )
            log.info("self-test started: the game is paused and comes back as it was when the test ends")
            self.daemon.take_over(test)

        def started(future: Future[None]) -> None:
            error = future.exception()
            if error is not None and not done.done():
                done.set_exception(error)

        self.daemon.call(begin).add_done_callback(started)
        return done

    def skip(self) -> Future[dict[str, Any]]:
        """Give up on the button the running test asks for now."""
        return self.daemon.call(lambda: {"skipped": self._running().skip()}, during_round=True)

    def cancel(self) -> Future[dict[str, Any]]:
        """End the running test now (its reply says what was not tested)."""

        def run() -> dict[str, Any]:
            self._running().cancel()
            return {"cancelled": True}

        return self.daemon.call(run, during_round=True)

    def _running(self) -> SelfTest:
        from firmware.selftest.mode import SelfTest

        mode = self.daemon.mode
        if not isinstance(mode, SelfTest):
            raise PropError("no self-test is running")
        return mode


def _with_buttons(settings: SelfTestSettings, seconds: float) -> SelfTestSettings:
    return SelfTestSettings(
        settings.display_seconds, settings.light_seconds, settings.sound_seconds, settings.output_seconds, seconds
    )


def __getattr__(name: str) -> Any:
    """``SelfTest``, from :mod:`firmware.selftest.mode`, when first asked for (not at the prop's start)."""
    if name == "SelfTest":
        from firmware.selftest.mode import SelfTest

        return SelfTest
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
