"""The self-test as the daemon runs it: a :class:`~firmware.game.daemon.Mode` that has the prop until it ends.

:class:`SelfTest` is one run of the test described in :mod:`firmware.selftest` (which starts it:
:class:`~firmware.selftest.SelfTester`); it is loaded when a test starts, not with the prop.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any

from baccarat_core.inputs import Input
from baccarat_core.records import record
from firmware.devices.wiring import INPUT_NAMES
from firmware.errors import PropError
from firmware.selftest.parts import (
    FAILED,
    FINE,
    INPUT_LABELS,
    LIGHTS,
    NOT_ANSWERING,
    NOT_PRESSED,
    NOT_SWITCHED,
    NOT_TESTED,
    OFF,
    OK,
    SKIPPED,
    SelfTestPart,
    SelfTestResult,
    SelfTestSettings,
    SelfTestStep,
    input_name,
    summarize,
)

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

    from firmware.game.daemon import Daemon
    from firmware.selftest.parts import Outputs

log = logging.getLogger("baccarat.selftest")


@record(frozen=False, eq=False, repr=False)
class SelfTest:
    """One run of the test: a :class:`~firmware.game.daemon.Mode` (see the module's docstring)."""

    daemon: Daemon
    settings: SelfTestSettings
    done: Future[dict[str, Any]]
    _: KW_ONLY
    sound: Callable[[str], None] | None = None
    cues: Sequence[str] = ()
    outputs: Outputs | None = None
    switch: Collection[str] = ()

    def __post_init__(self) -> None:
        self.cues = tuple(self.cues)
        self.switch = frozenset(self.switch)
        self.due = 0.0
        self.finished = False
        self.parts: dict[tuple[str, str], SelfTestPart] = {}
        self.asking: str | None = None  # the button asked for now
        self.pressed: set[str] = set()  # buttons ticked off
        self.result: dict[str, Any] | None = None
        self._lines: list[str] = ["SELF-TEST"]
        self._on: str | None = None  # an output switched on now
        self._steps: deque[Callable[[], float]] = deque(self._plan())

    # -- the plan ---------------------------------------------------------------------------
    def _plan(self) -> list[Callable[[], float]]:
        """The steps in order; every part is *not tested* until its step has run."""
        for role in self.daemon.screens:
            self._record("display", role, NOT_TESTED)
        steps: list[Callable[[], float]] = [self._patterns]
        for light in LIGHTS:
            self._record("light", light[0], NOT_TESTED)
            steps.append(partial(self._light, *light))
        if self.sound is None:
            self._record("sound", "all", OFF, "no sound output in the config")
        else:
            for cue in self.cues:
                self._record("sound", cue, NOT_TESTED)
                steps.append(partial(self._cue, cue))
        names = list(self.outputs.output_names()) if self.outputs is not None else []
        for name in names:
            if name in self.switch:
                self._record("output", name, NOT_TESTED)
                steps.append(partial(self._output, name))
            else:
                self._record("output", name, NOT_SWITCHED, "name it in the command to switch it")
        steps.append(self._lights_out)
        for name in INPUT_NAMES:
            self._record("button", name, NOT_TESTED)
            steps.append(partial(self._ask, name))
        return steps

    # -- the daemon's side (Mode) ----------------------------------------------------------------
    def tick(self, now: float) -> None:
        """The current step's time is over: a button asked for was not pressed, or the next step."""
        if self.asking is not None:
            self._record("button", self.asking, NOT_PRESSED, f"not pressed within {self.settings.button_seconds:g} s")
            self.asking = None
        self._next(now)

    def take(self, action: Input) -> None:
        """A button was pressed: ticked off if it is still to be tested."""
        name = input_name(action)
        if name is None or name in self.pressed or self.finished:
            return
        self.pressed.add(name)
        self._record("button", name, OK)
        self._emit("button", name, f"{INPUT_LABELS[name]} pressed: OK")
        if name == self.asking:
            self.asking = None
            self._next(time.monotonic())

    def skip(self) -> str:
        """Give up on the button asked for now; returns its name."""
        name = self.asking
        if name is None:
            raise PropError("the self-test is not waiting for a button now")
        self._record("button", name, SKIPPED, "skipped by the game master")
        self.asking = None
        self._next(time.monotonic())
        return name

    def cancel(self) -> None:
        """End the test now: whatever was not reached is *not tested*."""
        if self.asking is not None:
            self._record("button", self.asking, NOT_TESTED, "cancelled")
            self.asking = None
        self._steps.clear()
        self._finish(cancelled=True)

    def end(self, stopped: bool) -> None:
        """The daemon gave the prop back to the game, its displays drawn and the test's events handed
        to the services: the reply goes out now (``stopped``: the prop itself stops)."""
        self._output_off()
        if self.done.done():
            return
        if stopped or self.result is None:
            self.done.set_exception(PropError("the prop stopped during the self-test"))
        else:
            self.done.set_result(self.result)

    # -- steps (each returns how long it lasts) ------------------------------------------------
    def _next(self, now: float) -> None:
        while self._steps:
            seconds = self._steps.popleft()()
            if seconds > 0:
                self.due = now + seconds
                return
        if not self.finished:
            self._finish(cancelled=False)

    def _patterns(self) -> float:
        from firmware.render.testcard import render_pattern  # drawn only when a test runs, never at start

        for role, screen in self.daemon.screens.items():
            self.daemon.send_frame(role, render_pattern(role, screen.size, screen.mode))
            self._record("display", role, *self._display_state(role))
        self._emit("displays", "all", "a test pattern on every display: look for dark rows or columns")
        return self.settings.display_seconds

    def _display_state(self, role: str) -> tuple[str, str]:
        screen = self.daemon.screens[role]
        if screen.failing:
            return NOT_ANSWERING, "the frame did not go through (see the log)"
        if screen.device is None:
            return NOT_ANSWERING, "not opened at start: its bus is missing or not permitted (see the log)"
        return OK, ""

    def _light(self, name: str, light: str, color: tuple[float, float, float]) -> float:
        board = self.daemon.board
        try:
            board.lights_off()
            if light == "status":
                (board.status.red if color[0] else board.status.green).on()
            else:
                board.deck_light.led.color = color
        except Exception as error:  # noqa: BLE001 - named in the result, never a traceback
            self._record("light", name, FAILED, _error(error))
            return 0.0
        self._record("light", name, OK, "look for it")
        self._show(["LIGHTS", name.upper()])
        self._emit("light", name, f"{name} light on for {self.settings.light_seconds:g} s: look for it")
        return self.settings.light_seconds

    def _cue(self, cue: str) -> float:
        assert self.sound is not None  # the plan has cues only with a sound output
        try:
            self.sound(cue)
        except Exception as error:  # noqa: BLE001
            self._record("sound", cue, FAILED, _error(error))
            return 0.0
        self._record("sound", cue, OK, "listen for it")
        self._show(["SOUND", cue.upper().replace("_", " ")])
        self._emit("sound", cue, f"sound {cue}: listen for it")
        return self.settings.sound_seconds

    def _output(self, name: str) -> float:
        assert self.outputs is not None
        self._output_off()  # the one before goes off first: never two at once, none left on
        try:
            self.outputs.set_output(name, True)
            self._on = name
        except Exception as error:  # noqa: BLE001
            self._record("output", name, FAILED, _error(error))
            return 0.0
        self._record("output", name, OK, f"switched on for {self.settings.output_seconds:g} s")
        self._show(["OUTPUT", name.upper()])
        self._emit("output", name, f"output {name} on for {self.settings.output_seconds:g} s")
        return self.settings.output_seconds

    def _lights_out(self) -> float:
        self._output_off()
        try:
            self.daemon.board.lights_off()
        except Exception:  # noqa: BLE001 - the light's own step named it already
            pass
        return 0.0

    def _ask(self, name: str) -> float:
        if name in self.pressed:
            return 0.0  # pressed before its turn
        self.asking = name
        label = INPUT_LABELS[name]
        number = INPUT_NAMES.index(name) + 1
        self._show([f"PRESS {number}/{len(INPUT_NAMES)}", label])
        self._emit("button", name, f"press {label} (within {self.settings.button_seconds:g} s)")
        return self.settings.button_seconds

    def _output_off(self) -> None:
        name, self._on = self._on, None
        if name is not None and self.outputs is not None:
            try:
                self.outputs.set_output(name, False)
            except Exception as error:  # noqa: BLE001
                log.error("self-test: output %s did not switch off: %s", name, _error(error))

    # -- results --------------------------------------------------------------------------------
    def _record(self, part: str, name: str, result: str, detail: str = "") -> None:
        self.parts[(part, name)] = SelfTestPart(part, name, result, detail)

    def _show(self, lines: list[str]) -> None:
        """Words on every display; a display that stops answering is marked so."""
        from firmware.render.testcard import render_words

        self._lines = lines
        for role, screen in self.daemon.screens.items():
            self.daemon.send_frame(role, render_words(lines, screen.size, screen.mode))
            if screen.failing and self.parts[("display", role)].result == OK:
                self._record("display", role, NOT_ANSWERING, "stopped answering during the test")

    def _emit(self, step: str, name: str, prompt: str) -> None:
        self.daemon.emit([SelfTestStep(step, name, prompt)])

    def _finish(self, *, cancelled: bool) -> None:
        self.finished = True
        self.due = float("inf")
        self._output_off()
        if cancelled:
            for key, part in self.parts.items():
                if part.result == NOT_TESTED:
                    self.parts[key] = SelfTestPart(part.part, part.name, NOT_TESTED, "cancelled")
        order = {"display": 0, "light": 1, "sound": 2, "output": 3, "button": 4}
        parts = tuple(sorted(self.parts.values(), key=lambda p: order.get(p.part, 9)))
        ok = all(p.result in FINE for p in parts)
        result = SelfTestResult(ok, summarize(parts) + (" (cancelled)" if cancelled else ""), parts)
        self.daemon.emit([result])
        self.result = result.to_dict()  # the reply, once the daemon has shown the game again (end)


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
