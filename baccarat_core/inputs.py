"""The module's inputs as plain objects, and their JSON form."""

from __future__ import annotations

from typing import Any

from .edgework import check_solved
from .errors import BaccaratError
from .numbers import show_value
from .records import record
from .rounds import AREAS


@record
class Press:
    """A short press on a betting area: one chip of the active denomination."""

    area: str


@record
class Hold:
    """A betting area held for the long-press time: the area is cleared."""

    area: str


@record
class Arrow:
    """A denomination arrow: ``"left"`` (smaller chip) or ``"right"`` (larger)."""

    direction: str


@record
class Deal:
    """A gesture at the deck: the round is dealt up to its result; its chips stay on the table
    until the round is finished (:meth:`~baccarat_core.module.BaccaratModule.finish_round`)."""


@record
class SetSolved:
    """The bomb's solved count changed (it arrives with the inputs, in order)."""

    solved: int


Input = Press | Hold | Arrow | Deal | SetSolved


def describe_input(action: Input) -> str:
    """An input in words, as the log names it: ``press player``, ``arrow left``, ``deal``."""
    if isinstance(action, Press | Hold):
        return f"{type(action).__name__.lower()} {action.area}"
    if isinstance(action, Arrow):
        return f"arrow {action.direction}"
    if isinstance(action, SetSolved):
        return f"solved count {action.solved}"
    return "deal"


def check_area(area: object) -> str:
    """``area`` if it names a betting area, else a :class:`BaccaratError`."""
    if not isinstance(area, str) or area not in AREAS:
        raise BaccaratError(f"betting area {show_value(area)} is not one of {', '.join(AREAS)}")
    return area


def parse_input(data: Any) -> Input:
    """One input from its JSON form, e.g. ``{"press": "player"}``."""
    if not isinstance(data, dict) or len(data) != 1:
        raise BaccaratError(f"input {show_value(data)} is not an object with one key")
    ((key, value),) = data.items()
    if key == "press":
        return Press(check_area(value))
    if key == "hold":
        return Hold(check_area(value))
    if key == "arrow":
        if not isinstance(value, str) or value not in ("left", "right"):
            raise BaccaratError(f'arrow {show_value(value)} is not "left" or "right"')
        return Arrow(value)
    if key == "deal":
        if value is not True:
            raise BaccaratError(f"deal {show_value(value)} must be true")
        return Deal()
    if key == "solved":
        return SetSolved(check_solved(value))
    raise BaccaratError(f"unknown input {show_value(key)}")
