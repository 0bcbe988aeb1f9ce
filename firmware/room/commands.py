"""Game-master commands: one parser and one executor for MQTT, Room 2.0 and the shell.

A command arrives as a JSON object (``{"command": "set_solved", "solved": 3}``)
or as words (``set-solved 3``, ``reset min=25 max=1000``, ``output lock on``); both become a
:class:`Command`, validated before anything runs. :class:`GameMaster` runs it
on the daemon's game thread and always answers with a reply document, so
every front end answers the same way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from baccarat_core import AREAS, BaccaratError, BaccaratModule, Edgework, TableLimits, strict
from baccarat_core import events as ev
from baccarat_core.bets import bet_outcome, describe_bets, parse_bets
from baccarat_core.edgework import check_solved
from baccarat_core.numbers import parse_count, parse_dollars, show_value
from baccarat_core.records import record
from baccarat_core.timer import check_seconds

from ..daemon import Daemon
from ..devices.wiring import OUTPUT_STATES
from ..errors import PropError
from ..scene import Shown
from ..selftest import MAX_BUTTON_SECONDS, SelfTester
from ..version import version

log = logging.getLogger("baccarat.commands")

T = TypeVar("T")

#: Longest error text in a reply or a log line (the offending values in it are cut shorter still).
MAX_ERROR = 240
#: How long a front end waits for a command's reply (a deal in progress holds a command a few seconds).
COMMAND_TIMEOUT = 30.0

#: Every command, with the argument keys it accepts.
COMMANDS: dict[str, frozenset[str]] = {
    "reset": frozenset({"min", "max"}),
    "force_solve": frozenset(),
    "set_limits": frozenset({"min", "max"}),
    "set_edgework": frozenset({"serial", "ports", "lit", "unlit", "solved", "batteries", "plates"}),
    "set_solved": frozenset({"solved"}),
    "hint": frozenset(),
    "status": frozenset(),
    "enable": frozenset(),
    "disable": frozenset(),
    "identify": frozenset(),
    "bet": frozenset({"bets"}),
    "self_test": frozenset({"button_seconds", "outputs"}),
    "self_test_skip": frozenset(),
    "self_test_cancel": frozenset(),
    "start": frozenset(),
    "add_time": frozenset({"seconds"}),
    "output": frozenset({"name", "state"}),
}
#: The arguments a command's words may give without ``key=``, in order (``set-solved 3``, ``output lock on``).
POSITIONAL: dict[str, tuple[str, ...]] = {"output": ("name", "state")}

#: The argument a lone value in words stands for: ``set-solved 3``, ``add-time 60``.
LONE_ARGUMENT: dict[str, str] = {"set_solved": "solved", "add_time": "seconds"}


class Reply(Future[dict[str, Any]]):
    """A reply document to come (:meth:`GameMaster.handle`), and how long a front end that waits for it
    waits: :data:`COMMAND_TIMEOUT`, or for a self-test as long as the test may last."""

    timeout: float = COMMAND_TIMEOUT


class CommandError(PropError):
    """A command that does not parse or carries a value that fails validation."""


@record
class Command:
    """A validated command, ready to run."""

    name: str
    limits: TableLimits | None = None
    edgework: Edgework | None = None
    solved: int | None = None
    keep_solved: bool = True
    bets: dict[str, int] | None = None
    button_seconds: float | None = None  # self_test: the wait for each button
    outputs: tuple[str, ...] = ()  # self_test: the outputs it may switch
    seconds: float | None = None
    #: ``output``: which output, and ``on``, ``off`` or ``pulse``.
    output: str | None = None
    state: str | None = None


def known_command(text: object) -> str | None:
    """``force-solve``, ``Force_Solve`` -> ``force_solve``; None when ``text`` names no command."""
    name = text.strip().lower().replace("-", "_") if isinstance(text, str) else None
    return name if name in COMMANDS else None


def command_name(text: object) -> str:
    """The command ``text`` names (:func:`known_command`); unknown names are errors."""
    name = known_command(text)
    if name is None:
        raise CommandError(f"unknown command {show_value(text)} (known: {', '.join(COMMANDS)})")
    return name


def parse_command(data: Any) -> Command:
    """A command from its JSON form; ``id`` is allowed and ignored here."""
    if not isinstance(data, dict):
        raise CommandError(f"a command must be a JSON object, not {_short(data)}")
    if "command" not in data:
        raise CommandError('the object has no "command" key')
    name = command_name(data["command"])
    args = {k: v for k, v in data.items() if k not in ("command", "id")}
    for key in args:
        if key not in COMMANDS[name]:
            raise CommandError(f"{name}: unknown argument {show_value(key)}")
    try:
        if name in ("reset", "set_limits"):
            return Command(name, limits=_limits(name, args))
        if name == "set_solved":
            if "solved" not in args:
                raise CommandError('set_solved: missing "solved"')
            return Command(name, solved=check_solved(args["solved"]))
        if name == "set_edgework":
            edgework = Edgework.from_dict({**args, "solved": check_solved(args.get("solved", 0))})
            return Command(name, edgework=edgework, keep_solved="solved" not in args)
        if name == "bet":
            if "bets" not in args:
                raise CommandError('bet: missing "bets" (e.g. {"banker": 25, "tie": 5} or "25 on banker, 5 on tie")')
            return Command(name, bets=parse_bets(args["bets"]))
        if name == "self_test":
            return Command(name, button_seconds=_button_seconds(args.get("button_seconds")), outputs=_names(args))
        if name == "add_time":
            if "seconds" not in args:
                raise CommandError('add_time: missing "seconds" (negative takes time away)')
            return Command(name, seconds=check_seconds(args["seconds"], "seconds"))
        if name == "output":
            return _output(args)
    except BaccaratError as error:
        raise CommandError(f"{name}: {error}") from None
    return Command(name)


def parse_words(text: str) -> Command:
    """A command from words: ``set-solved 3``, ``set-solved:3``, ``reset min=25 max=1000``,
    ``bet 25 on banker, 5 on tie``, ``add-time 60``, ``output lock on``.

    Each argument once: ``set-solved 3 4`` and ``reset min=25 min=50`` are errors.
    """
    line = strict.decode_text(text, "command").replace(":", " ", 1).strip()
    words = line.split()
    if not words:
        raise CommandError("empty command")
    if command_name(words[0]) == "bet":  # the rest is the bets in words, as the players wrote them
        return parse_command({"command": "bet", "bets": line[len(words[0]) :]})
    data: dict[str, Any] = {"command": words[0]}
    name = command_name(words[0])
    positional = POSITIONAL.get(name, (LONE_ARGUMENT.get(name, "solved"),))
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep:  # a lone value: the one argument of set-solved or add-time, the name and state of output
            key = next((name for name in positional if name not in data), positional[-1])
            value = word
        if key in data:
            what = "more than one value" if not sep else f"{show_value(key)} more than once"
            raise CommandError(f"{command_name(words[0])}: {what} given")
        data[key] = _word_value(key, value)
    return parse_command(data)


def _button_seconds(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= MAX_BUTTON_SECONDS:
        raise CommandError(
            f"self_test: button_seconds {show_value(value)} is not a number of seconds from 1 to {MAX_BUTTON_SECONDS:g}"
        )
    return float(value)


def _names(args: dict[str, Any]) -> tuple[str, ...]:
    value = args.get("outputs", [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CommandError(f"self_test: outputs {show_value(value)} is not a list of output names")
    return tuple(value)


def _word_value(key: str, value: str) -> Any:
    if key == "button_seconds":
        try:
            return float(value)
        except ValueError:
            return value  # reported by parse_command
    if key in ("ports", "lit", "unlit", "batteries", "outputs"):
        return [v for v in value.split(",") if v]
    if key == "seconds":
        return float(value) if re.fullmatch(r"[-+]?[0-9]{1,6}(\.[0-9]{1,3})?", value) else value
    if key in ("min", "max", "solved"):
        try:
            return parse_count(value, "solved count") if key == "solved" else parse_dollars(value, key)
        except BaccaratError:
            return value  # reported by parse_command, with the command's name
    return value


def _output(args: dict[str, Any]) -> Command:
    """``output``: a name (checked against the prop's outputs when it runs) and a state."""
    for key in ("name", "state"):
        if key not in args:
            raise CommandError(f'output: missing "{key}" (output <name> on|off|pulse)')
        if not isinstance(args[key], str):
            raise CommandError(f'output: "{key}" must be a string, not {show_value(args[key])}')
    state = args["state"].strip().lower()
    if state not in OUTPUT_STATES:
        raise CommandError(f"output: state {show_value(args['state'])} must be on, off or pulse")
    return Command("output", output=args["name"].strip().lower(), state=state)


def _limits(name: str, args: dict[str, Any]) -> TableLimits | None:
    if not args and name == "reset":
        return None
    if "min" not in args or "max" not in args:
        raise CommandError(f'{name}: give both "min" and "max"' + (" or neither" if name == "reset" else ""))
    return strict.check_limits(args["min"], args["max"])


def _short(value: Any) -> str:
    return show_value(value)


def set_edgework(
    module: BaccaratModule, edgework: Edgework, *, keep_solved: bool, only_if_changed: bool = False
) -> list[ev.Event]:
    """New edgework (keeping the module's solved count unless one is given).

    ``only_if_changed`` skips edgework equal to the module's (a retained message
    arriving again after a reconnect must not re-deal a deck in play).
    """
    if keep_solved:
        edgework = edgework.with_solved(module.edgework.solved)
    if only_if_changed and edgework == module.edgework:
        return []
    return module.set_edgework(edgework)


class GameMaster:
    """The one command path: MQTT, Room 2.0 and the control socket all run commands here.

    ``default_limits`` are what ``reset`` without limits uses: the config's
    fixed limits, or None for a fresh random placard. Every request gets a reply
    document, as MQTT, the socket and the console send it back:

    >>> from firmware.app import build_daemon, close_daemon, mock_pin_factory
    >>> from firmware.config import load_config
    >>> from firmware.devices.displays import open_dummy_device
    >>> from firmware.room.commands import GameMaster
    >>> prop = build_daemon(load_config(), pin_factory=mock_pin_factory(), device_factory=open_dummy_device)
    >>> prop.start()
    >>> master = GameMaster(prop)
    >>> master.handle({"command": "set_solved", "solved": 2, "id": 7}).result(5)
    {'id': 7, 'ok': True, 'command': 'set_solved', 'result': {'events': [{'event': 'solved_count', 'solved': 2}]}}
    >>> master.handle("Set-Solved 3", words=True).result(5)["ok"]  # the shell's and Room 2.0's words
    True
    >>> master.handle({"command": "explode"}).result(5)["error"]
    'unknown command "explode" (known: reset, force_solve, set_limits, set_edgework, set_solved, hint, ...)'
    >>> master.handle({"command": "hint"}).result(5)["result"]["winner"] in ("player", "banker", "tie")
    True
    >>> prop.stop()
    >>> close_daemon(prop)
    """

    def __init__(
        self, daemon: Daemon, *, default_limits: TableLimits | None = None, self_test: SelfTester | None = None
    ) -> None:
        self.daemon = daemon
        self.default_limits = default_limits
        #: The pre-game self-test (firmware/selftest.py): the app gives it the sound and the outputs.
        self.self_test = self_test or SelfTester(daemon)
        self._document: dict[str, Any] | None = None
        self._hooked = False  # _forget_document is one of the daemon's on_handled hooks
        #: ``hook(command, module)``, on the game thread once a command whose events do not say it
        #: was the game master's has run, before its events are handled: ``hint`` (it makes none)
        #: and ``bet`` (its presses look like the players'). The history records them.
        self.on_command: list[Callable[[Command, BaccaratModule], None]] = []
        #: ``extra() -> dict``: more keys for the state document, called on the game thread as it
        #: is built (the history's stuck indicator, :mod:`firmware.history`).
        self.document_extras: list[Callable[[], dict[str, Any]]] = []

    def document(self) -> dict[str, Any]:
        """The state document now, as the players see the game (:func:`state_document` of the
        daemon's :meth:`~firmware.daemon.Daemon.shown`), built at most once a batch: MQTT, Room
        2.0 and the console share it (call on the game thread: an ``on_settled`` hook, or before
        the daemon starts)."""
        if not self._hooked:
            self._hooked = True
            self.daemon.on_handled.append(self._forget_document)
            self.daemon.on_shown.append(self._forget_shown)
            self.daemon.on_frame.append(self._forget_frame)
        module = self.daemon.module
        if self._document is None or self._document.get("timer") != timer_document(module):
            # a batch, a shown event or a frame since; or the countdown counted on: a new one
            self._document = self._state()
        return self._document

    def _state(self) -> dict[str, Any]:
        """:func:`state_document` as the players see the game, with the :attr:`document_extras`
        (game thread)."""
        daemon = self.daemon
        return self._extras(state_document(daemon.module, daemon.shown(), daemon.board.outputs.states()))

    def _extras(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with the :attr:`document_extras` of this moment (game thread): ``status``
        takes them again, so its stuck indicator is the minutes now."""
        for extra in self.document_extras:
            try:
                document.update(extra())
            except Exception:
                log.exception("state document extra %r failed", extra)
        return document

    def _noted(self, command: Command, run: Callable[[], T]) -> T:
        """Run ``command`` (game thread), then tell the :attr:`on_command` hooks it ran."""
        result = run()
        for hook in self.on_command:
            try:
                hook(command, self.daemon.module)
            except Exception:
                log.exception("command hook %r failed", hook)
        return result

    def _forget_document(self, events: list[ev.Event], module: BaccaratModule) -> None:
        self._document = None  # a batch was handled: the module may have changed

    def _forget_shown(self, event: ev.Event) -> None:
        self._document = None  # a deal's event is shown: a strike, a solve, a card counts now

    def _forget_frame(self, role: str, image: Any) -> None:
        self._document = None  # a card landed: the cards left changed

    def submit(self, command: Command) -> Future[Any]:
        """Run ``command`` on the game thread; the future holds a JSON-ready result."""
        daemon = self.daemon
        if command.name == "hint":
            return daemon.call(lambda: self._noted(command, lambda: hint(daemon.module)), during_round=True)
        if command.name == "status":
            return daemon.call(lambda: self._extras(dict(self.document())), during_round=True)
        if command.name == "identify":
            return daemon.identify()
        if command.name == "bet":
            bets = command.bets
            assert bets is not None  # parse_command gives bet its bets
            return _then(
                daemon.play(lambda m: self._noted(command, lambda: _bet(m, bets))),
                lambda events: bet_result(bets, events),
            )
        if command.name == "self_test":
            return self.self_test.start(button_seconds=command.button_seconds, switch=command.outputs)
        if command.name == "self_test_skip":
            return self.self_test.skip()
        if command.name == "self_test_cancel":
            return self.self_test.cancel()
        if command.name == "output":
            assert command.output is not None and command.state is not None  # parse_command gives both
            self.check_output(command.output)
            running = daemon.switch_output(command.output, command.state)
            return _then(running, lambda events: {"events": [e.to_dict() for e in events]})
        if command.name == "set_solved":
            assert command.solved is not None  # parse_command gives set_solved its count
            running = daemon.set_solved(command.solved)
        else:
            running = daemon.apply(self._producer(command))
        return _then(running, lambda events: {"events": [e.to_dict() for e in events]})

    def check_output(self, name: str) -> None:
        """Refuse an output this prop does not have, naming the ones it has (nothing runs)."""
        names = self.daemon.board.outputs.names
        if name not in names:
            known = f"known: {', '.join(names)}" if names else "this prop has none: [[outputs]] in the config"
            raise CommandError(f"output: unknown output {show_value(name)} ({known})")

    def _producer(self, command: Command) -> Callable[[BaccaratModule], list[ev.Event]]:
        if command.name == "reset":
            return lambda m: m.reset(command.limits or self.default_limits)
        if command.name == "force_solve":
            return lambda m: m.force_solve()
        if command.name in ("enable", "disable"):
            return lambda m: m.set_enabled(command.name == "enable")
        if command.name == "set_limits":
            limits = command.limits
            assert limits is not None  # parse_command gives set_limits its limits
            return lambda m: m.set_limits(limits)
        if command.name == "set_edgework":
            edgework = command.edgework
            assert edgework is not None  # and set_edgework its edgework
            return lambda m: set_edgework(m, edgework, keep_solved=command.keep_solved)
        if command.name == "start":
            return lambda m: m.start_timer()
        if command.name == "add_time":
            seconds = command.seconds
            assert seconds is not None  # parse_command gives add_time its seconds
            return lambda m: m.add_time(seconds)
        raise CommandError(f"unknown command {command.name!r}")

    def handle(self, payload: Any, *, words: bool = False) -> Reply:
        """Parse and run one request; the future always holds a reply document.

        The reply is ``{"id", "ok": true, "command", "result"}`` or
        ``{"id", "ok": false, "command", "error"}``; a bad request changes nothing
        and is one warning line in the log. Text and bytes go through the strict
        reader (:mod:`baccarat_core.strict`): size, UTF-8, depth, strict JSON.
        """
        done = Reply()
        request_id = None
        name = None
        try:
            if words:
                command = parse_words(payload)
            else:
                data = strict.loads(payload, "command") if isinstance(payload, str | bytes | bytearray) else payload
                if isinstance(data, dict):
                    request_id = strict.check_request_id(data.get("id"))
                    name = data.get("command") if isinstance(data.get("command"), str) else None
                command = parse_command(data)
            name = command.name
            if name == "self_test":  # a person presses each button: it takes a while
                done.timeout = self.self_test.longest(command.button_seconds) + COMMAND_TIMEOUT
            running = self.submit(command)
        except (PropError, BaccaratError) as error:
            message = strict.one_line(str(error), MAX_ERROR)
            log.warning("command rejected: %s", message)
            done.set_result(_reply(request_id, name, error=message))
            return done

        def finish(future: Future[Any]) -> None:
            try:
                done.set_result(_reply(request_id, name, result=future.result()))
            except Exception as error:  # noqa: BLE001 - reported to the sender, logged once
                message = strict.one_line(str(error), MAX_ERROR)
                log.warning("command %s failed: %s", name, message)
                done.set_result(_reply(request_id, name, error=message))

        running.add_done_callback(finish)
        return done


def _bet(module: BaccaratModule, bets: dict[str, int]) -> list[ev.Event]:
    """The ``bet`` command on the game thread: logged as remote play, then the presses and the deal."""
    log.info("remote play: bet %s", describe_bets(bets))
    return module.bet(bets, finish=False)  # the daemon finishes the round after its pause, as for a press


def bet_result(bets: dict[str, int], events: list[ev.Event]) -> dict[str, Any]:
    """The ``bet`` command's result: the bets as read, what they came to in words, and the events."""
    return {
        "bets": dict(bets),
        "summary": f"bet {describe_bets(bets)}: {bet_outcome(events)}",
        "events": [e.to_dict() for e in events],
    }


def _reply(request_id: Any, name: Any, *, result: Any = None, error: str | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {"id": request_id, "ok": error is None, "command": known_command(name)}
    if error is None:
        reply["result"] = result
    else:
        reply["error"] = error
    return reply


def _then(future: Future[Any], fn: Callable[[Any], T]) -> Future[T]:
    out: Future[T] = Future()

    def done(f: Future[Any]) -> None:
        try:
            out.set_result(fn(f.result()))
        except Exception as error:  # noqa: BLE001 - passed on to the waiter
            out.set_exception(error)

    future.add_done_callback(done)
    return out


# -- what the game master reads ----------------------------------------------------


def state_document(
    module: BaccaratModule, shown: Shown | None = None, outputs: list[dict[str, object]] | None = None
) -> dict[str, Any]:
    """The module's state as the retained MQTT document and ``baccarat status`` show it: its
    strikes, solve, cards left and stacks as ``shown`` (what the players see during a deal:
    :meth:`~firmware.daemon.Daemon.shown`), or the module's own; and the prop's ``outputs``
    (``{"name", "on"}`` each: :meth:`~firmware.devices.outputs.Outputs.states`)."""
    deck = module.deck
    seen = shown if shown is not None else Shown.of(module)
    return {
        "status": "solved" if seen.solved else "exploded" if seen.exploded else "armed",
        "solved": seen.solved,
        "enabled": module.enabled,
        "strikes": seen.strikes,
        "limits": {**module.limits.to_dict(), "placard": module.limits.placard()},
        "deck": deck.color if deck else None,
        "cards_left": seen.cards_left,
        "denomination": module.denomination,
        "bets": {area: sum(seen.stacks[area]) for area in AREAS},
        "stacks": {area: list(seen.stacks[area]) for area in AREAS},
        "edgework": module.edgework.to_dict(),
        "edgework_drawn": module.edgework_drawn,
        "game": module.game,
        "deck_solved": deck.solved if deck else None,
        "outputs": outputs or [],
        "version": version(),  # the software running (firmware/version.py)
        "exploded": seen.exploded,
        "strike_limit": module.rules.strike_limit,
        "timer": timer_document(module),
    }


def timer_document(module: BaccaratModule) -> dict[str, Any] | None:
    """The countdown in the state document, as of its last reading (None: the bomb has no timer):
    ``seconds`` (the full time), ``seconds_left``, ``state`` (waiting, running, paused, stopped),
    ``running`` and ``rate`` (1.0; faster after strikes with ``speed_up``)."""
    timer = module.timer
    if timer is None:
        return None
    return {
        "seconds": timer.seconds,
        "seconds_left": round(timer.left, 1),
        "state": timer.state,
        "running": timer.running,
        "rate": timer.rate,
    }


def hint(module: BaccaratModule) -> dict[str, Any]:
    """Which bet wins the next round from the current deck."""
    game = module.next_round()
    winner = game.winner
    advice = {
        "player": "bet on Player",
        "banker": "bet on Banker",
        "tie": "Player and Banker push: add a Tie side bet",
    }[winner]
    return {
        "winner": winner,
        "player": [str(c) for c in game.player],
        "banker": [str(c) for c in game.banker],
        "player_score": game.player_score,
        "banker_score": game.banker_score,
        "player_pair": game.player_pair(),
        "banker_pair": game.banker_pair(),
        "cards": len(game.order),
        "advice": advice,
    }
