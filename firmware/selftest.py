"""The pre-game self-test: every display, light, sound cue and button of the prop, checked in one go.

Like gpiozero's ``pintest``, it names what does not work and never ends in a traceback. It runs
as a :class:`~firmware.daemon.Mode` of the daemon, on the game thread: while it runs, the
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
4. **outputs** (relays, locks; see :class:`Outputs`): listed as *not switched*, unless the
   command names them: a lock is never opened by a test nobody asked for;
5. **buttons**: each input asked for in turn, on the displays and in the log (``press PLAYER``),
   and ticked off when pressed; one not pressed within ``button_seconds`` is *not pressed*.
   A button pressed before its turn is ticked off then and not asked for again.

``skip`` gives up on the button asked for now (*skipped*); ``cancel`` ends the test (what was
not reached is *not tested*). The result is one reply document, one log line (the
:class:`SelfTestResult` event: MQTT publishes it with the other events) and the console's.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from gettext import NullTranslations
from typing import Any, ClassVar, Protocol

from baccarat_core.events import AREA_NAMES, ENGLISH, Event
from baccarat_core.inputs import Arrow, Deal, Hold, Input, Press
from baccarat_core.records import asdict, record

from .daemon import Daemon
from .devices.wiring import INPUT_NAMES
from .errors import PropError
from .render.testcard import render_pattern, render_words

log = logging.getLogger("baccarat.selftest")

#: What each input is called on the displays and in the log.
INPUT_LABELS: dict[str, str] = {
    **{area: name.upper() for area, name in AREA_NAMES.items()},
    "arrow_left": "LEFT ARROW",
    "arrow_right": "RIGHT ARROW",
    "deal": "DECK (DEAL)",
}

#: The lights in the order they are lit: (part name, light, colour).
LIGHTS: tuple[tuple[str, str, tuple[float, float, float]], ...] = (
    ("status red", "status", (1.0, 0.0, 0.0)),
    ("status green", "status", (0.0, 1.0, 0.0)),
    ("deck red", "deck", (1.0, 0.0, 0.0)),
    ("deck green", "deck", (0.0, 1.0, 0.0)),
    ("deck blue", "deck", (0.0, 0.0, 1.0)),
    ("deck white", "deck", (1.0, 1.0, 1.0)),
)

OK = "ok"
NOT_ANSWERING = "not answering"
NOT_PRESSED = "not pressed"
SKIPPED = "skipped"
NOT_TESTED = "not tested"
NOT_SWITCHED = "not switched"
FAILED = "failed"
OFF = "off"
#: Results that are not a fault.
FINE = frozenset({OK, OFF, NOT_SWITCHED})

#: Longest wait for one button that a command may ask for, and the wait when it asks for none.
MAX_BUTTON_SECONDS = 120.0
DEFAULT_BUTTON_SECONDS = 10.0


class Outputs(Protocol):
    """The prop's switched outputs (relays, a maglock), as the self-test sees them."""

    def output_names(self) -> Sequence[str]:
        """Every output, by name."""

    def set_output(self, name: str, on: bool) -> None:
        """Switch ``name`` on or off (raises with the reason when the output fails)."""


@record
class SelfTestSettings:
    """How long each step lasts, in seconds."""

    display_seconds: float = 2.0
    light_seconds: float = 0.6
    sound_seconds: float = 0.8
    output_seconds: float = 1.0
    button_seconds: float = DEFAULT_BUTTON_SECONDS

    def longest(self, cues: int, outputs: int) -> float:
        """The longest a test with ``cues`` sounds and ``outputs`` switched can take: every step
        waited out, no button pressed."""
        return (
            self.display_seconds
            + len(LIGHTS) * self.light_seconds
            + cues * self.sound_seconds
            + outputs * self.output_seconds
            + len(INPUT_NAMES) * self.button_seconds
        )


@record
class SelfTestPart:
    """One thing tested: ``part`` (display, light, sound, output, button), its name, the result."""

    part: str
    name: str
    result: str
    detail: str = ""


@record
class SelfTestStep(Event):
    """The self-test moved on: what the tester should look at, listen for or do now."""

    kind: ClassVar[str] = "self_test"
    step: str
    name: str
    prompt: str

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``self-test: press PLAYER (within 10 s)``."""
        return t.gettext("self-test: {prompt}").format(prompt=self.prompt)


@record
class SelfTestResult(Event):
    """The self-test's result: every part and what it gave."""

    kind: ClassVar[str] = "self_test_result"
    ok: bool
    summary: str
    parts: tuple[SelfTestPart, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"event": "self_test_result", "ok": ..., "summary": ..., "parts": [...]}``."""
        return {"event": self.kind, "ok": self.ok, "summary": self.summary, "parts": [asdict(p) for p in self.parts]}

    def describe(self, t: NullTranslations = ENGLISH) -> str:
        """``self-test passed: ...`` or ``self-test found faults: display table not answering; ...``."""
        said = t.gettext("self-test passed: {summary}") if self.ok else t.gettext("self-test found faults: {summary}")
        return said.format(summary=self.summary)


def summarize(parts: Sequence[SelfTestPart]) -> str:
    """The faults in a few words (``display table not answering; button deal not pressed``), or
    what passed when there are none."""
    faults = [p for p in parts if p.result not in FINE]
    if not faults:
        counts: dict[str, int] = {}
        for p in parts:
            if p.result == OK:
                counts[p.part] = counts.get(p.part, 0) + 1
        done = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items())
        return f"all OK ({done})" if done else "all OK"
    groups: dict[tuple[str, str], list[SelfTestPart]] = {}
    for p in faults:
        groups.setdefault((p.part, p.result), []).append(p)
    said = []
    for (part, result), same in groups.items():
        if len(same) == 1:
            said.append(f"{part} {same[0].name} {result}" + (f" ({same[0].detail})" if same[0].detail else ""))
        else:
            said.append(f"{part}s {', '.join(p.name for p in same)} {result}")
    return "; ".join(said)


def input_name(action: Input) -> str | None:
    """The input's name in :data:`~firmware.devices.wiring.INPUT_NAMES` (a hold counts as a press)."""
    if isinstance(action, Press | Hold):
        return action.area
    if isinstance(action, Arrow):
        return f"arrow_{action.direction}"
    if isinstance(action, Deal):
        return "deal"
    return None


class SelfTest:
    """One run of the test: a :class:`~firmware.daemon.Mode` (see the module's docstring)."""

    def __init__(
        self,
        daemon: Daemon,
        settings: SelfTestSettings,
        done: Future[dict[str, Any]],
        *,
        sound: Callable[[str], None] | None = None,
        cues: Sequence[str] = (),
        outputs: Outputs | None = None,
        switch: Sequence[str] = (),
    ) -> None:
        self.daemon = daemon
        self.settings = settings
        self.done = done
        self.sound = sound
        self.cues = tuple(cues)
        self.outputs = outputs
        self.switch = frozenset(switch)
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
        mode = self.daemon.mode
        if not isinstance(mode, SelfTest):
            raise PropError("no self-test is running")
        return mode


def _with_buttons(settings: SelfTestSettings, seconds: float) -> SelfTestSettings:
    return SelfTestSettings(
        settings.display_seconds, settings.light_seconds, settings.sound_seconds, settings.output_seconds, seconds
    )
