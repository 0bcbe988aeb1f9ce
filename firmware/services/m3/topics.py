"""The M3 and Escape Room Techs (BAC) topics, read and written without a broker.

Two references, one prefix ``<name>`` (``[m3] name``):

- **M3**, as the Anidea FX framework's ``network_mqtt_M3.cpp`` speaks it: commands on
  ``<name>/set/<what>``; ``<name>/solve`` and ``<name>/output<N>`` say ``Yes`` or ``No``;
  ``<name>/heartbeat`` every 10 s. Outputs count from 0, as the framework's ``output0``.
- **The BAC's master command table** (learn.escaperoomtechs.com): the same ``set`` commands by
  the BAC's names (``Solve``, ``Game_Reset``, ``Room_Reset``, ``Enable``...), and its events on
  ``<name>/get/<Event>`` (no payload): ``Solve``, ``Unsolve``, ``Miss`` (a strike), ``Fail`` (the
  bomb exploded), ``Game_Reset``, ``Room_Reset``, ``Enable``, ``Disable``, ``heartbeat``.

Subtopics and payloads are read case-insensitively. An output's state comes from the payload
(``high``, ``yes``, ``on``, ``one``, ``1``, ``true``: on; anything else: off) or from one more
level, as the BAC's older table writes it (``<name>/set/output5/Off``):

>>> parse_set("Output_1", "ON", ("lock", "horn")).request
{'command': 'output', 'name': 'horn', 'state': 'on'}
>>> parse_set("relay0/off", "", ("lock",)).request
{'command': 'output', 'name': 'lock', 'state': 'off'}
>>> parse_set("Room_Reset", "1", ()).request, parse_set("Room_Reset", "1", ()).then
({'command': 'reset'}, 'Room_Reset')
>>> parse_set("hit", "1", ())
Traceback (most recent call last):
...
baccarat_core.strict.InputError: the BAC's Hit has nothing to do on this prop (a winning round solves it)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from baccarat_core import events as ev
from baccarat_core.numbers import show_value
from baccarat_core.patterns import Pattern
from baccarat_core.records import record
from baccarat_core.strict import InputError
from firmware.plugin import output_name

#: The ERT table's (and the Anidea framework's) heartbeat: every 10 seconds.
HEARTBEAT_SECONDS = 10.0
#: Payloads that switch an output on (any other switches it off), lower-cased.
ON_WORDS = frozenset({"high", "yes", "on", "one", "1", "true"})
#: The longest payload read, in bytes: the words are short, a controller's buttons send a few.
MAX_PAYLOAD = 256

#: ``set`` subtopics (lower-cased) -> the prop's command, and the BAC event to publish once it ran.
COMMANDS: dict[str, tuple[str, str | None]] = {
    "solve": ("force_solve", None),
    "reset": ("reset", None),
    "game_reset": ("reset", None),
    "room_reset": ("reset", "Room_Reset"),
    "enable": ("enable", None),
    "disable": ("disable", None),
}
#: The BAC's (and the framework's) commands this prop has no counterpart for, and why.
UNSUPPORTED: dict[str, str] = {
    "unsolve": "only a reset takes a solve back",
    "hit": "a winning round solves it",
    "miss": "only the players' bets make strikes",
    "fail": "only the strike limit or the countdown explodes the bomb",
    "init": "it starts itself",
    "learn": "it has nothing to learn",
}
_BAC_NAMES = {"unsolve": "Unsolve", "hit": "Hit", "miss": "Miss", "fail": "Fail", "init": "Init", "learn": "learn"}
#: ``output3``, ``Output_3``, ``relay0``, ``relay0/Off``: an output (relays are outputs too).
_OUTPUT = Pattern(r"(output|relay)_?([0-9]{1,3})(?:/([^/]*))?")
_INPUT = Pattern(r"input_?[0-9]{1,3}(?:/[^/]*)?")

#: The game's events (by kind) -> the BAC event published on ``<name>/get/<Event>``.
BAC_EVENTS: dict[str, str] = {"solved": "Solve", "strike": "Miss", "exploded": "Fail", "reset": "Game_Reset"}


@record
class Action:
    """What a ``set`` message asks: the prop's command, and the BAC event to publish once it ran."""

    request: dict[str, Any]
    then: str | None = None


def is_on(text: str) -> bool:
    """An M3 payload's state: on for ``high``, ``yes``, ``on``, ``one``, ``1``, ``true`` (any case).

    >>> is_on("HIGH"), is_on(" true\\n"), is_on("0"), is_on("off")
    (True, True, False, False)
    """
    return text.strip().lower() in ON_WORDS


def parse_set(subtopic: str, payload: str, outputs: Sequence[str]) -> Action:
    """What ``<name>/set/<subtopic>`` with ``payload`` asks (``outputs``: the outputs' names in
    config order); an :class:`InputError` says why nothing runs."""
    what = subtopic.lower()
    if what in COMMANDS:
        command, then = COMMANDS[what]
        return Action({"command": command}, then)
    found = _OUTPUT.fullmatch(what)
    if found:
        state = found.group(3) if found.group(3) is not None else payload
        name = output_name(outputs, int(found.group(2)))
        return Action({"command": "output", "name": name, "state": "on" if is_on(state) else "off"})
    if what in UNSUPPORTED:
        raise InputError(f"the BAC's {_BAC_NAMES[what]} has nothing to do on this prop ({UNSUPPORTED[what]})")
    if _INPUT.fullmatch(what):
        raise InputError("this prop's inputs are the players' buttons: a controller cannot set them")
    known = ", ".join([*COMMANDS, "output<N>", "relay<N>"])
    raise InputError(f"unknown command {show_value(subtopic, 60)} (known: {known})")


def state_in_topic(subtopic: str) -> bool:
    """Whether ``subtopic`` names an output and its state both (``output5/Off``): it needs no payload.

    >>> state_in_topic("output5/Off"), state_in_topic("output5"), state_in_topic("solve")
    (True, False, False)
    """
    found = _OUTPUT.fullmatch(subtopic.lower())
    return found is not None and found.group(3) is not None


def yes_no(on: object) -> str:
    """``Yes`` or ``No``, as M3 says a state."""
    return "Yes" if on else "No"


def state_topics(name: str, document: dict[str, Any], outputs: Sequence[str]) -> dict[str, str]:
    """The retained state topics from a state document: ``<name>/solve``, ``<name>/enable`` and
    ``<name>/output<N>`` (by the outputs' names in config order), each ``Yes`` or ``No``.

    >>> state_topics("b", {"solved": True, "enabled": True, "outputs": [{"name": "lock", "on": False}]}, ("lock",))
    {'b/solve': 'Yes', 'b/enable': 'Yes', 'b/output0': 'No'}
    """
    on = {output["name"]: output["on"] for output in document.get("outputs", ())}
    topics = {f"{name}/solve": yes_no(document["solved"]), f"{name}/enable": yes_no(document["enabled"])}
    for index, output in enumerate(outputs):
        if output in on:
            topics[f"{name}/output{index}"] = yes_no(on[output])
    return topics


#: What the Anidea framework announces at each connect, command and state topic alike, that this
#: prop has (its ``learn`` and inputs it has not: they are refused).
ANNOUNCED = ("enable", "solve", "reset")


def announcements(name: str, outputs: Sequence[str]) -> list[str]:
    """The topics the Anidea framework's ``reconnect`` publishes empty (not retained) after each
    connect, in its order: each command topic, then its state topic; then each output's.

    >>> announcements("b", ("lock",))
    ['b/set/enable', 'b/enable', 'b/set/solve', 'b/solve', 'b/set/reset', 'b/reset', 'b/set/output0', 'b/output0']
    """
    topics: list[str] = []
    for what in [*ANNOUNCED, *(f"output{index}" for index in range(len(outputs)))]:
        topics += [f"{name}/set/{what}", f"{name}/{what}"]
    return topics


def bac_events(events: Iterable[ev.Event]) -> list[str]:
    """The BAC events the game's ``events`` make, in order (``Miss`` for a strike...).

    >>> bac_events([ev.Strike("loss", "lost", 1), ev.EnabledChanged(False), ev.Exploded("strikes", 3)])
    ['Miss', 'Disable', 'Fail']
    """
    out: list[str] = []
    for event in events:
        if isinstance(event, ev.EnabledChanged):
            out.append("Enable" if event.enabled else "Disable")
        elif event.kind in BAC_EVENTS:
            out.append(BAC_EVENTS[event.kind])
    return out
