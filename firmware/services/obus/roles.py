"""What both roles share: the prop's side of a bomb (:class:`Game`), the prop's events as the
roles take them (:class:`PropEvent`), and the settings they run with.

A role is a state machine run by one thread, the link's (:mod:`.link`): it takes the bus's
messages (``on_message``), the prop's events (``on_prop``, handed over from the game thread) and
the passing time (``tick``), and answers with frames (``send``) and calls to the prop's game
(:class:`Game`, which runs them through the prop's one command path). Nothing here reads a clock:
``now`` comes from the caller, so the tests drive a role with numbers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from baccarat_core.records import record

from . import protocol as p
from .protocol import Message, Node
from .serial import from_obus

log = logging.getLogger("baccarat.obus")

#: A module that hears no STATE for this long mid-game says the controller is silent.
SILENT_SECONDS = 3.0
#: The controller sends STATE this often (both OBUS controllers do).
STATE_SECONDS = 0.5
#: The info round: INFO START, then this long for the info modules: OBUS's Python controller's 5 s,
#: which every info module's spread slot fits (an id whose last three bits are 6 or 7 answers 3 to
#: 4 s in, after the Arduino controller's 3 s round).
INFO_SECONDS = 5.0
#: Into the info round, the prop sends its own serial number when no info module 1 has.
OWN_SERIAL_AT = 2.5
#: Most modules a controller registers (OBUS's Arduino controller's limit).
MAX_MODULES = 16

#: How byte 7 of STATE is read and written: puzzle modules left (protocol.txt, OBUS's Python
#: controller) or solved (OBUS's Arduino controller).
COUNTS = ("left", "solved")


@record
class PropEvent:
    """One of the prop's events a role cares about: ``kind`` as the event's (``strike``, ``solved``,
    ``exploded``, ``reset``, ``timer_started``, ``time_added``, ``enabled``), with ``value``: the
    cause, the seconds, the table open or not, the time left."""

    kind: str
    value: Any = None


class Game(Protocol):
    """The prop's game as a role drives it (each call goes through the one command path)."""

    def forget(self, edgework: dict[str, Any]) -> None:
        """A new bomb is being set up: a fresh game, ``edgework`` (keys of ``set_edgework``: the ones
        the bus sent), the table closed until the game starts."""

    def begin(self, left: float, strikes: int, solved: int) -> None:
        """The bomb started: the table open, the countdown running from ``left`` seconds."""

    def sync(
        self,
        left: float | None,
        strikes: int | None,
        solved: int | None,
        rate: float | None = None,
        *,
        start: bool = False,
    ) -> None:
        """The bomb's time left, strikes and solved modules (and its countdown's speed), as its
        controller has them; None: unchanged. ``start``: the countdown runs (a game the game master
        reset meanwhile goes on)."""

    def end(self, how: str) -> None:
        """The bomb's game is over: ``solved`` (defused), ``timer`` or ``strikes`` (exploded)."""

    def edgework(self, edgework: dict[str, Any]) -> None:
        """The bus's edgework (``set_edgework``'s keys it sent), the rest and the solved count kept."""

    def changed(self) -> None:
        """The bus's view changed (the modules, the controller's silence): redraw what shows it."""


@record(frozen=False)
class Tally:
    """One module of the bomb as the prop knows it."""

    node: Node
    solved: bool = False
    strikes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """For the state document."""
        return {"type": self.node.type, "id": self.node.id, "solved": self.solved, "strikes": self.strikes}


Send = Callable[[Message], None]
#: ``note(kind, text)``: a warning that the bus can repeat at will (one line, then a count by kind).
Note = Callable[[str, str], None]


def log_note(kind: str, text: str) -> None:
    """A :data:`Note` that logs every line (the service gives its quiet log's instead)."""
    log.warning("%s", text)


def own_frame(message: Message, node: Node) -> bool:
    """True when ``message`` claims to come from ``node`` (this prop's own address)."""
    return message.sender == node


def read_info(message: Message, edgework: dict[str, Any], note: Note) -> None:
    """An info module's message into ``edgework`` (``set_edgework``'s keys): info module 1's serial
    number (in the six characters the prop reads alike, when it has them), 2's indicators, 3's ports.
    A bad one raises :class:`~.protocol.BadFrame`; other info modules are not the manual's."""
    info_id = message.sender.id
    if info_id == p.SERIAL_INFO:
        serial = p.read_serial(message.info)
        six = from_obus(serial)
        if six is None:
            note(
                "serial",
                f"obus: the bomb's serial number {serial} has no six-character form the prop reads alike; "
                "the prop keeps its own serial (its casing and console show it)",
            )
        else:
            edgework["serial"] = six
    elif info_id == p.PORTS_INFO:
        edgework["ports"] = list(p.read_ports(message.info))
    elif info_id == p.INDICATORS_INFO:
        _, lit, unlit = p.read_indicators(message.info)
        edgework["lit"], edgework["unlit"] = list(lit), list(unlit)
