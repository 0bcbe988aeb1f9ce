"""The self-test's parts, steps and result: what its reply, its events and its log lines are made of.

:mod:`firmware.selftest` runs the test; this module is what a front end needs to ask for one and
read its answer (the timings, the result words), without the daemon.
"""

from __future__ import annotations

from collections.abc import Sequence
from gettext import NullTranslations
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from baccarat_core.events import AREA_NAMES, ENGLISH, Event
from baccarat_core.inputs import Arrow, Deal, Hold, Input, Press
from baccarat_core.records import asdict, record
from firmware.devices.wiring import INPUT_NAMES

if TYPE_CHECKING:  # a type only: a Protocol class made at import costs every start 0.5 M instructions

    class Outputs(Protocol):
        """The prop's switched outputs (relays, a maglock), as the self-test sees them."""

        def output_names(self) -> Sequence[str]:
            """Every output, by name."""

        def set_output(self, name: str, on: bool) -> None:
            """Switch ``name`` on or off (raises with the reason when the output fails)."""


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
