"""The simulator's key map: which key presses which input."""

from __future__ import annotations

from baccarat_core.records import record
from baccarat_core.rounds import AREAS

AREA_KEYS = "12345"
HOLD_KEYS = "qwert"

KEY_MAP_LINES: tuple[str, ...] = (
    "BET   1 Player  2 Banker  3 Tie  4 Player Pair  5 Banker Pair",
    "CLEAR q Player  w Banker  e Tie  r Player Pair  t Banker Pair (= hold 0.5 s)",
    "CHIP  , or <- smaller   . or -> larger    DEAL  space or d    QUIT  x",
)


@record
class KeyAction:
    """What a key does: ``tap`` or ``hold`` an input (by the board's input name), or ``quit``."""

    kind: str
    input: str = ""  # none for quit


def action_for(key: str) -> KeyAction | None:
    """The action of a typed key (terminal names: "left", "right" for the arrow keys)."""
    if key and key in AREA_KEYS:
        return KeyAction("tap", AREAS[AREA_KEYS.index(key)])
    if key and key in HOLD_KEYS:
        return KeyAction("hold", AREAS[HOLD_KEYS.index(key)])
    if key in (",", "<", "left"):
        return KeyAction("tap", "arrow_left")
    if key in (".", ">", "right"):
        return KeyAction("tap", "arrow_right")
    if key in (" ", "d", "D"):
        return KeyAction("tap", "deal")
    if key in ("x", "X", "\x03", "\x1b"):
        return KeyAction("quit")
    return None


def press_length(action: KeyAction, hold_seconds: float) -> float:
    """How long a key keeps its input down: a short tap, or just past the hold time."""
    return hold_seconds + 0.15 if action.kind == "hold" else 0.06
