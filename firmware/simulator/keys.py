"""The simulator's key map and the mock-pin presses behind each key."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from baccarat_core.rounds import AREAS

from ..board import PropBoard

AREA_KEYS = "12345"
HOLD_KEYS = "qwert"
AREA_NAMES = ("Player", "Banker", "Tie", "Player Pair", "Banker Pair")

KEY_MAP_LINES: tuple[str, ...] = (
    "BET   1 Player  2 Banker  3 Tie  4 Player Pair  5 Banker Pair",
    "CLEAR q Player  w Banker  e Tie  r Player Pair  t Banker Pair (= hold 0.5 s)",
    "CHIP  , or <- smaller   . or -> larger    DEAL  space or d    QUIT  x",
)


@dataclass(frozen=True)
class KeyAction:
    kind: str  # "press", "hold", "left", "right", "deal", "quit"
    area: str | None = None


def action_for(key: str) -> KeyAction | None:
    """The action of a typed key (terminal names: "left", "right" for the arrow keys)."""
    if key in AREA_KEYS and key:
        return KeyAction("press", AREAS[AREA_KEYS.index(key)])
    if key in HOLD_KEYS and key:
        return KeyAction("hold", AREAS[HOLD_KEYS.index(key)])
    if key in (",", "<", "left"):
        return KeyAction("left")
    if key in (".", ">", "right"):
        return KeyAction("right")
    if key in (" ", "d", "D"):
        return KeyAction("deal")
    if key in ("x", "X", "\x03", "\x1b"):
        return KeyAction("quit")
    return None


class PinDriver:
    """Presses the board's buttons by driving their mock pins."""

    def __init__(self, board: PropBoard, *, tap_seconds: float = 0.06, hold_seconds: float = 0.5) -> None:
        self.board = board
        self.tap_seconds = tap_seconds
        self.hold_seconds = hold_seconds

    def _input(self, action: KeyAction):
        """The board input behind an action, and its level when pressed."""
        if action.kind in ("press", "hold"):
            return self.board.areas[action.area].button.pin, self.board.pressed_level(action.area)
        if action.kind in ("left", "right"):
            return self.board.arrows[action.kind].button.pin, self.board.pressed_level(f"arrow_{action.kind}")
        return self.board.deal.button.pin, self.board.pressed_level("deal")

    def down(self, action: KeyAction) -> None:
        pin, high = self._input(action)
        (pin.drive_high if high else pin.drive_low)()

    def up(self, action: KeyAction) -> None:
        pin, high = self._input(action)
        (pin.drive_low if high else pin.drive_high)()

    def tap(self, action: KeyAction) -> None:
        """A short press, or a hold just past the hold time, in the background."""
        length = self.hold_seconds + 0.15 if action.kind == "hold" else self.tap_seconds

        def run() -> None:
            self.down(action)
            time.sleep(length)
            self.up(action)

        threading.Thread(target=run, daemon=True).start()
