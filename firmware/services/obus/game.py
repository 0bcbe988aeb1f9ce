"""The prop's side of an OBUS bomb: the ``obus_sync`` command, and :class:`PropGame`, which sends it.

``obus_sync`` is the one command the roles need beyond the built-in ones: it brings the prop's
game to the bomb's state on the game thread, in one step, as every command runs
(:meth:`~firmware.plugin.Prop.commands`). Its arguments, any of them:

- ``forget``: a fresh game (as ``reset``) with these edgework keys from the bus (``serial``,
  ``ports``, ``lit``, ``unlit``; the others stay the prop's) and a solved count of 0;
- ``edgework``: the same keys, without a fresh game (the solved count kept);
- ``table``: open (true) or close (false) the table, as ``enable`` and ``disable`` do;
- ``left``, ``rate``, ``start``: the countdown's seconds left and speed, and start it;
- ``strikes``: the bomb's strikes (the prop's next strike counts on from them);
- ``solved``: the bomb's solved modules (the count the next deck reads, as ``set_solved``);
- ``end``: the bomb's game is over: ``timer`` or ``strikes`` (the prop explodes, as its own bomb
  does) or ``solved`` (the bomb is defused: the prop shows its solve).

The game master can send it too (``obus_sync end=timer``): it is checked like every command. Without
arguments it changes nothing, and the state document (with its ``obus`` part) is made again.
"""

from __future__ import annotations

import logging
import math
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from baccarat_core import Edgework
from baccarat_core.timer import MAX_TIMER_SECONDS
from firmware.plugin import Argument, CommandError, CommandSpec

if TYPE_CHECKING:
    from baccarat_core import BaccaratModule
    from baccarat_core.events import Event
    from firmware.plugin import Noise, Prop

log = logging.getLogger("baccarat.obus")

ENDS = ("solved", "timer", "strikes")
#: The countdown's speed from the bus: from half to four times the normal.
MIN_RATE, MAX_RATE = 0.5, 4.0
#: The edgework keys the bus may set.
BUS_EDGEWORK = ("serial", "ports", "lit", "unlit")


def _number(name: str, low: float, high: float) -> Any:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise CommandError(f"obus_sync: {name} {value!r} is not a number")
        if not low <= value <= high:
            raise CommandError(f"obus_sync: {name} {value!r} is not from {low:g} to {high:g}")
        return float(value)

    return check


def _count(name: str, high: int) -> Any:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise CommandError(f"obus_sync: {name} {value!r} is not a whole number from 0 to {high}")
        return value

    return check


def _flag(name: str) -> Any:
    def check(value: Any) -> bool:
        if value in (True, "true", "on", "1", 1) or value in (False, "false", "off", "0", 0):
            return value in (True, "true", "on", "1", 1)
        raise CommandError(f"obus_sync: {name} {value!r} is not true or false")

    return check


def _end(value: Any) -> str:
    if value not in ENDS:
        raise CommandError(f"obus_sync: end {value!r} is not one of {', '.join(ENDS)}")
    return str(value)


def _keys(name: str) -> Any:
    def check(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict) or not set(value) <= set(BUS_EDGEWORK):
            raise CommandError(f"obus_sync: {name} takes an object of {', '.join(BUS_EDGEWORK)}")
        return dict(value)

    return check


def _word(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def _merged(module: BaccaratModule, bus: dict[str, Any], solved: int) -> Edgework:
    """The module's edgework with the bus's keys, and ``solved`` modules solved."""
    data = {**module.edgework.to_dict(), **bus, "solved": solved}
    if "ports" in bus:
        data.pop("plates", None)  # the bus's ports replace the prop's port plates
    try:
        return Edgework.from_dict(data)
    except Exception as error:  # noqa: BLE001 - the rules' own error names the value
        raise CommandError(f"obus_sync: the bus's edgework: {error}") from None


def _produce(master: Any, args: dict[str, Any]) -> Any:
    def produce(module: BaccaratModule) -> list[Event]:
        events: list[Event] = []
        # the edgework checked against the module's before anything changes: a refusal changes nothing
        given = _merged(module, args["edgework"], module.edgework.solved) if args.get("edgework") else None
        if args.get("forget") is not None:
            _merged(module, args["forget"], 0)
            events += module.reset(master.default_limits)
            try:
                events += module.set_edgework(_merged(module, args["forget"], 0))
            except CommandError as error:  # the bomb a reset drew does not take the bus's keys: it stays
                log.warning("%s (the bomb drawn at the reset stays)", error)
        if given is not None:
            events += module.set_edgework(given)
        if args.get("table") is not None:
            events += module.set_enabled(bool(args["table"]))
        timer = module.timer
        over = module.solved or module.exploded
        if timer is not None and not over:
            if args.get("left") is not None:
                timer.left = args["left"]
            if args.get("rate") is not None:
                timer.rate = args["rate"]
            if args.get("start"):
                events += module.start_timer()
        if args.get("strikes") is not None and not over:
            module.strikes = args["strikes"]
        end = args.get("end")
        if end in ("timer", "strikes"):
            events += module.explode(end)
        elif end == "solved" and not over:
            events += module.force_solve()
        return events

    return produce


def _run_sync(master: Any, command: Any) -> Future[Any]:
    args = command.args
    daemon = master.daemon
    if args.get("solved") is not None:
        daemon.set_solved(args["solved"], only_if_changed=True)
    running = daemon.apply(_produce(master, args))
    out: Future[Any] = Future()

    def done(f: Future[Any]) -> None:
        try:
            out.set_result({"events": [e.to_dict() for e in f.result()]})
        except Exception as error:  # noqa: BLE001 - passed on to the waiter
            out.set_exception(error)

    running.add_done_callback(done)
    return out


def sync_command() -> CommandSpec:
    """``obus_sync``: see the module's text."""
    return CommandSpec(
        "obus_sync",
        _run_sync,
        (
            Argument("forget", _keys("forget")),
            Argument("edgework", _keys("edgework")),
            Argument("table", _flag("table"), _word),
            Argument("left", _number("left", 0.0, MAX_TIMER_SECONDS), _word),
            Argument("rate", _number("rate", MIN_RATE, MAX_RATE), _word),
            Argument("start", _flag("start"), _word),
            Argument("strikes", _count("strikes", 255), _word),
            Argument("solved", _count("solved", 9999), _word),
            Argument("end", _end),
        ),
        help="the OBUS bomb's state on the prop (the obus service sends it): left=, strikes=, solved=, end=",
    )


class PropGame:
    """The :class:`~.roles.Game` the roles drive: each call one ``obus_sync`` through the prop's
    command path (refusals are notes of ``noise``); ``changed`` calls ``on_change``."""

    def __init__(self, prop: Prop, noise: Noise) -> None:
        self.commands = prop.commands
        self.noise = noise
        self.on_change: list[Any] = []

    def _send(self, **args: Any) -> None:
        request = {"command": "obus_sync", **{k: v for k, v in args.items() if v is not None}}
        with self.noise.capturing("obus"):
            self.commands.handle(request)

    def forget(self, edgework: dict[str, Any]) -> None:
        """A fresh game with the bus's edgework, the table closed until the bomb starts."""
        self._send(forget=edgework, table=False, solved=0)

    def edgework(self, edgework: dict[str, Any]) -> None:
        """The bus's edgework, the game going on."""
        self._send(edgework=edgework)

    def begin(self, left: float, strikes: int, solved: int) -> None:
        """The bomb started: the table opens, the countdown runs from ``left``."""
        self._send(table=True, left=_seconds(left), rate=1.0, start=True, strikes=min(strikes, 255), solved=solved)

    def sync(
        self,
        left: float | None,
        strikes: int | None,
        solved: int | None,
        rate: float | None = None,
        *,
        start: bool = False,
    ) -> None:
        """The bomb's time left, strikes and solved count (``start``: the countdown runs)."""
        self._send(
            start=start or None,
            left=None if left is None else _seconds(left),
            rate=None if rate is None else min(max(rate, MIN_RATE), MAX_RATE),
            strikes=None if strikes is None else min(strikes, 255),
            solved=solved,
        )

    def end(self, how: str) -> None:
        """The bomb's game is over."""
        self._send(end=how)

    def changed(self) -> None:
        """The bus's view changed: an ``obus_sync`` of nothing, a batch of its own, so that the state
        document (its ``obus`` part) is made again and every surface that shows it hears of it."""
        self._send()
        for call in self.on_change:
            call()


def _seconds(left: float) -> float:
    return min(max(left, 0.0), MAX_TIMER_SECONDS)
