"""The built-in commands: each with its arguments and what it runs, in one table (:data:`BUILT_IN`).

A runner takes the game master (:class:`~firmware.room.commands.GameMaster`) and the checked
:class:`~firmware.room.command_table.Command`, and returns a future of a JSON-ready result; it runs
the game's part on the daemon's game thread (``daemon.apply``, ``daemon.call``). A room service
adds its own commands the same way (:meth:`firmware.plugin.Service.commands`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from baccarat_core import BaccaratModule, Edgework
from baccarat_core import events as ev
from baccarat_core.edgework import check_solved

from . import COMMAND_TIMEOUT
from .command_table import (
    Argument,
    Command,
    CommandSpec,
    Master,
    bets,
    button_seconds,
    count_word,
    edgework_check,
    float_word,
    limit_arguments,
    limits_check,
    list_word,
    output_names,
    output_state,
    output_text,
    seconds_word,
)
from .documents import bet_result, hint

log = logging.getLogger("baccarat.commands")

T = TypeVar("T")


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


# -- what each command runs (any thread; the daemon runs the game's part on its own) -------------


def _events(running: Future[list[ev.Event]]) -> Future[dict[str, Any]]:
    return then(running, lambda events: {"events": [e.to_dict() for e in events]})


def _on_module(produce: Callable[[BaccaratModule, Command], list[ev.Event]]) -> Callable[..., Future[Any]]:
    """A runner that applies ``produce(module, command)`` on the game thread and answers its events."""

    def run(master: Master, command: Command) -> Future[Any]:
        return _events(master.daemon.apply(lambda module: produce(module, command)))

    return run


def _reset(master: Master, command: Command) -> Future[Any]:
    limits = command.limits or master.default_limits
    return _events(master.daemon.apply(lambda m: m.reset(limits)))


def _set_solved(master: Master, command: Command) -> Future[Any]:
    return _events(master.daemon.set_solved(command.solved))


def _hint(master: Master, command: Command) -> Future[Any]:
    daemon = master.daemon

    def give() -> Any:
        daemon.tally.hint()  # the solved event says how many
        return hint(daemon.module)

    return daemon.call(lambda: master.noted(command, give), during_round=True)


def _status(master: Master, command: Command) -> Future[Any]:
    return master.daemon.call(lambda: master.extras(dict(master.document())), during_round=True)


def _identify(master: Master, command: Command) -> Future[Any]:
    return master.daemon.identify()


def _bet(master: Master, command: Command) -> Future[Any]:
    placed: dict[str, int] = command.bets

    def play(module: BaccaratModule) -> list[ev.Event]:
        from baccarat_core.bets import describe_bets

        log.info("remote play: bet %s", describe_bets(placed))
        # The daemon finishes the round after its pause, as for a press.
        return master.noted(command, lambda: module.bet(placed, finish=False))

    return then(master.daemon.play(play), lambda events: bet_result(placed, events))


def _self_test(master: Master, command: Command) -> Future[Any]:
    return master.self_test.start(button_seconds=command.button_seconds, switch=command.outputs or ())


def _self_test_skip(master: Master, command: Command) -> Future[Any]:
    return master.self_test.skip()


def _self_test_cancel(master: Master, command: Command) -> Future[Any]:
    return master.self_test.cancel()


def _output(master: Master, command: Command) -> Future[Any]:
    output = command.args["name"]  # the output's name (command.name is the command's)
    master.check_output(output)
    return _events(master.daemon.switch_output(output, command.state))


def _self_test_timeout(master: Master, command: Command) -> float:
    return master.self_test.longest(command.button_seconds) + COMMAND_TIMEOUT


def _seconds(value: Any) -> float:
    from baccarat_core.timer import check_seconds

    return check_seconds(value, "seconds")


_OUTPUT_HINT = " (output <name> on|off|pulse)"

#: The built-in commands, in the order ``unknown command`` lists them: each with its arguments and
#: what it runs.
BUILT_IN: tuple[CommandSpec, ...] = (
    CommandSpec(
        "reset",
        _reset,
        limit_arguments(),
        check=limits_check("reset", optional=True),
        help="a new game: chips, strikes and the deck anew (min= and max=: new limits)",
    ),
    CommandSpec("force_solve", _on_module(lambda m, c: m.force_solve()), help="solve the module now"),
    CommandSpec(
        "set_limits",
        _on_module(lambda m, c: m.set_limits(c.limits)),
        limit_arguments(),
        check=limits_check("set_limits", optional=False),
        help="new table limits: min= and max=",
    ),
    CommandSpec(
        "set_edgework",
        _on_module(lambda m, c: set_edgework(m, c.edgework, keep_solved=c.keep_solved)),
        (
            Argument("serial"),
            *(Argument(key, word=list_word) for key in ("ports", "lit", "unlit", "batteries")),
            Argument("solved", word=count_word),
            Argument("plates"),
        ),
        check=edgework_check,
        help="new edgework: serial=, ports=, lit=, unlit=, batteries=, solved=",
    ),
    CommandSpec(
        "set_solved",
        _set_solved,
        (Argument("solved", check_solved, count_word, required=True),),
        positional=("solved",),
        help="the bomb's solved count (read by the next deck)",
    ),
    CommandSpec("hint", _hint, help="which bet wins the next round"),
    CommandSpec("status", _status, help="the state document"),
    CommandSpec("enable", _on_module(lambda m, c: m.set_enabled(True)), help="take the players' inputs again"),
    CommandSpec("disable", _on_module(lambda m, c: m.set_enabled(False)), help="ignore the players' inputs"),
    CommandSpec("identify", _identify, help="flash the lights to find this prop"),
    CommandSpec(
        "bet",
        _bet,
        (
            Argument(
                "bets",
                bets,
                required=True,
                missing_hint=' (e.g. {"banker": 25, "tie": 5} or "25 on banker, 5 on tie")',
            ),
        ),
        rest="bets",
        help="play a round from afar: the bets, then the deal",
    ),
    CommandSpec(
        "self_test",
        _self_test,
        (Argument("button_seconds", button_seconds, float_word), Argument("outputs", output_names, list_word)),
        timeout=_self_test_timeout,
        help="the pre-game self-test (outputs=: the outputs it may switch)",
    ),
    CommandSpec("self_test_skip", _self_test_skip, help="skip the button the self-test asks for"),
    CommandSpec("self_test_cancel", _self_test_cancel, help="end the self-test"),
    CommandSpec("start", _on_module(lambda m, c: m.start_timer()), help="start the bomb's countdown"),
    CommandSpec(
        "add_time",
        _on_module(lambda m, c: m.add_time(c.seconds)),
        (Argument("seconds", _seconds, seconds_word, required=True, missing_hint=" (negative takes time away)"),),
        positional=("seconds",),
        help="add seconds to the countdown (negative: take them away)",
    ),
    CommandSpec(
        "output",
        _output,
        (
            Argument("name", output_text("name"), required=True, missing_hint=_OUTPUT_HINT),
            Argument("state", output_state, required=True, missing_hint=_OUTPUT_HINT),
        ),
        positional=("name", "state"),
        help="switch an output: on, off or pulse",
    ),
)


def then(future: Future[Any], fn: Callable[[Any], T]) -> Future[T]:
    """A future of ``fn(result)`` once ``future`` is done (its exception passed on)."""
    out: Future[T] = Future()

    def done(f: Future[Any]) -> None:
        try:
            out.set_result(fn(f.result()))
        except Exception as error:  # noqa: BLE001 - passed on to the waiter
            out.set_exception(error)

    future.add_done_callback(done)
    return out
