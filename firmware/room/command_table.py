"""The game master's commands as a table: each command with its arguments' checks and what it runs.

A command arrives as a JSON object (``{"command": "set_solved", "solved": 3}``) or as words
(``set-solved 3``, ``reset min=25 max=1000``, ``output lock on``); both become a
:class:`Command`, every argument checked by the :class:`Argument` that declares it, before
anything runs. A room service adds its own commands with :meth:`CommandTable.add`
(:meth:`firmware.plugin.Service.commands`); the built-in ones are
:data:`firmware.room.commands.BUILT_IN`, next to what each runs.

>>> from firmware.room.commands import BUILT_IN
>>> table = CommandTable(BUILT_IN)
>>> table.parse({"command": "Set-Solved", "solved": 3}).args
{'solved': 3}
>>> table.parse_words("output Lock on").args
{'name': 'lock', 'state': 'on'}
>>> table.parse({"command": "set_solved"})
Traceback (most recent call last):
...
firmware.room.command_table.CommandError: set_solved: missing "solved"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from baccarat_core import BaccaratError, Edgework, strict
from baccarat_core.edgework import check_solved
from baccarat_core.numbers import parse_count, parse_dollars, show_value
from baccarat_core.records import field, record

from ..devices.wiring import OUTPUT_STATES
from ..errors import PropError

if TYPE_CHECKING:
    from baccarat_core import TableLimits

    from ..game.daemon import Daemon
    from ..selftest import SelfTester

_T = TypeVar("_T")


class Master(Protocol):
    """What a command's runner is given: the game master
    (:class:`~firmware.room.commands.GameMaster`, named by its shape, as that module imports this one)."""

    daemon: Daemon
    default_limits: TableLimits | None

    @property
    def self_test(self) -> SelfTester:
        """The pre-game self-test."""

    def document(self) -> dict[str, Any]:
        """The state document now (game thread)."""

    def extras(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with the extras of this moment (game thread)."""

    def noted(self, command: Command, run: Callable[[], _T]) -> _T:
        """Run ``command`` (game thread), then tell the command hooks it ran."""

    def check_output(self, name: str) -> None:
        """Refuse an output this prop does not have."""


#: Longest error text in a reply or a log line (the offending values in it are cut shorter still).
MAX_ERROR = 240


class CommandError(PropError):
    """A command that does not parse or carries a value that fails validation."""


def as_is(value: Any) -> Any:
    """An argument's value as it came (the check of an argument its runner checks)."""
    return value


@record
class Argument:
    """One argument of a command: ``check`` turns its JSON value into what the command runs with
    (raising :class:`CommandError` or a :class:`~baccarat_core.BaccaratError` naming the value),
    ``word`` turns a word's text into a JSON value first (``min=25`` -> 25)."""

    name: str
    check: Callable[[Any], Any] = as_is
    word: Callable[[str], Any] = as_is
    required: bool = False
    #: Said after ``missing "name"`` when a required argument is not given: `` (output <name> on|off|pulse)``.
    missing_hint: str = ""


#: What a command runs: ``run(master, command)`` on any thread; the future holds a JSON-ready result.
Runner = Callable[[Master, "Command"], "Future[Any]"]


@record
class CommandSpec:
    """A command: its name (``snake_case``), its arguments, what it runs and a line of help.

    ``positional``: the arguments its words may give without ``key=``, in order (``output lock on``).
    ``rest``: the argument that takes the rest of the line as it was written (``bet 25 on banker``).
    ``check``: a check across the arguments, once each is checked. ``timeout``: how long a front end
    waits for its reply, when not :data:`~firmware.room.COMMAND_TIMEOUT`.
    """

    name: str
    run: Runner
    arguments: tuple[Argument, ...] = ()
    positional: tuple[str, ...] = ()
    rest: str | None = None
    check: Callable[[dict[str, Any]], None] | None = None
    timeout: Callable[[Master, Command], float] | None = None
    help: str = ""

    def argument(self, name: str) -> Argument | None:
        """The argument called ``name``, or None."""
        return next((a for a in self.arguments if a.name == name), None)


@record
class Command:
    """A validated command, ready to run: its spec and its checked arguments (``command.solved``
    reads ``args["solved"]``; an argument not given reads None)."""

    spec: CommandSpec
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The command's name: ``set_solved``."""
        return self.spec.name

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("spec", "args"):
            raise AttributeError(name)
        return self.args.get(name)


class CommandTable:
    """Commands by name; parses JSON objects and words into :class:`Command`."""

    def __init__(self, specs: Iterable[CommandSpec] = ()) -> None:
        self.specs: dict[str, CommandSpec] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: CommandSpec) -> None:
        """Register ``spec``; a name already taken is refused."""
        if spec.name in self.specs:
            raise ValueError(f"command {spec.name!r} is registered twice")
        self.specs[spec.name] = spec

    def known(self, text: object) -> str | None:
        """``force-solve``, ``Force_Solve`` -> ``force_solve``; None when ``text`` names no command."""
        name = text.strip().lower().replace("-", "_") if isinstance(text, str) else None
        return name if name in self.specs else None

    def spec(self, text: object) -> CommandSpec:
        """The command ``text`` names; unknown names are errors."""
        name = self.known(text)
        if name is None:
            raise CommandError(f"unknown command {show_value(text)} (known: {', '.join(self.specs)})")
        return self.specs[name]

    def parse(self, data: Any) -> Command:
        """A command from its JSON form; ``id`` is allowed and ignored here."""
        if not isinstance(data, dict):
            raise CommandError(f"a command must be a JSON object, not {show_value(data)}")
        if "command" not in data:
            raise CommandError('the object has no "command" key')
        spec = self.spec(data["command"])
        given = {k: v for k, v in data.items() if k not in ("command", "id")}
        for key in given:
            if spec.argument(key) is None:
                raise CommandError(f"{spec.name}: unknown argument {show_value(key)}")
        try:
            args: dict[str, Any] = {}
            for argument in spec.arguments:
                if argument.name in given:
                    args[argument.name] = argument.check(given[argument.name])
                elif argument.required:
                    raise CommandError(f'{spec.name}: missing "{argument.name}"{argument.missing_hint}')
            if spec.check is not None:
                spec.check(args)
        except BaccaratError as error:
            raise CommandError(f"{spec.name}: {error}") from None
        return Command(spec, args)

    def parse_words(self, text: str) -> Command:
        """A command from words: ``set-solved 3``, ``set-solved:3``, ``reset min=25 max=1000``,
        ``bet 25 on banker, 5 on tie``, ``add-time 60``, ``output lock on``.

        Each argument once: ``set-solved 3 4`` and ``reset min=25 min=50`` are errors.
        """
        line = strict.decode_text(text, "command").replace(":", " ", 1).strip()
        words = line.split()
        if not words:
            raise CommandError("empty command")
        spec = self.spec(words[0])
        if spec.rest is not None:  # the rest is one argument as the players wrote it (bet)
            return self.parse({"command": spec.name, spec.rest: line[len(words[0]) :]})
        data: dict[str, Any] = {"command": words[0]}
        positional = spec.positional or ("solved",)  # a lone value elsewhere: reported as an unknown argument
        for word in words[1:]:
            key, sep, value = word.partition("=")
            if not sep:
                key = next((name for name in positional if name not in data), positional[-1])
                value = word
            if key in data:
                what = "more than one value" if not sep else f"{show_value(key)} more than once"
                raise CommandError(f"{spec.name}: {what} given")
            argument = spec.argument(key)
            data[key] = argument.word(value) if argument is not None else value
        return self.parse(data)


# -- the arguments' words and checks ---------------------------------------------------------


def dollars_word(key: str) -> Callable[[str], Any]:
    """A word that is an amount (``25``, ``$1,500``) -> the number; text that is not stays text for
    the check to report."""

    def word(value: str) -> Any:
        try:
            return parse_dollars(value, key)
        except BaccaratError:
            return value  # reported by the check, with the command's name

    return word


def count_word(value: str) -> Any:
    """A word that is a count (``3``) -> the number, else the text."""
    try:
        return parse_count(value, "solved count")
    except BaccaratError:
        return value


def float_word(value: str) -> Any:
    """A word that is a number -> the number, else the text."""
    try:
        return float(value)
    except ValueError:
        return value  # reported by the check


def seconds_word(value: str) -> Any:
    """``60``, ``-90``, ``1.5`` -> seconds, else the text."""
    return float(value) if re.fullmatch(r"[-+]?[0-9]{1,6}(\.[0-9]{1,3})?", value) else value


def list_word(value: str) -> list[str]:
    """``fog,maglock`` -> ``["fog", "maglock"]``."""
    return [v for v in value.split(",") if v]


def limits_check(name: str, *, optional: bool) -> Callable[[dict[str, Any]], None]:
    """Both ``min`` and ``max`` (or, when ``optional``, neither): checked together into ``limits``."""

    def check(args: dict[str, Any]) -> None:
        given = [key for key in ("min", "max") if key in args]
        if not given and optional:
            args["limits"] = None
            return
        if len(given) < 2:
            raise CommandError(f'{name}: give both "min" and "max"' + (" or neither" if optional else ""))
        args["limits"] = strict.check_limits(args.pop("min"), args.pop("max"))

    return check


def limit_arguments() -> tuple[Argument, ...]:
    """``min`` and ``max``, as amounts in words."""
    return tuple(Argument(key, word=dollars_word(key)) for key in ("min", "max"))


def edgework_check(args: dict[str, Any]) -> None:
    """The edgework's keys -> ``edgework`` (the rules' own checks) and ``keep_solved`` (no count given)."""
    keep = "solved" not in args
    given = {key: args.pop(key) for key in list(args)}
    args["edgework"] = Edgework.from_dict({**given, "solved": check_solved(given.get("solved", 0))})
    args["keep_solved"] = keep


def button_seconds(value: Any) -> float:
    """The self-test's wait for each button: 1 s to the self-test's own limit."""
    from ..selftest import MAX_BUTTON_SECONDS  # the self-test's rule; loaded when a command names it

    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= MAX_BUTTON_SECONDS:
        raise CommandError(
            f"self_test: button_seconds {show_value(value)} is not a number of seconds from 1 to {MAX_BUTTON_SECONDS:g}"
        )
    return float(value)


def output_names(value: Any) -> tuple[str, ...]:
    """A list of output names (checked against the prop's outputs when the command runs)."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CommandError(f"self_test: outputs {show_value(value)} is not a list of output names")
    return tuple(value)


def output_text(key: str) -> Callable[[Any], str]:
    """``output``'s ``key``: a string, trimmed and lowercase."""

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise CommandError(f'output: "{key}" must be a string, not {show_value(value)}')
        return value.strip().lower()

    return check


def output_state(value: Any) -> str:
    """``on``, ``off`` or ``pulse``."""
    state = output_text("state")(value)
    if state not in OUTPUT_STATES:
        raise CommandError(f"output: state {show_value(value)} must be on, off or pulse")
    return state


def bets(value: Any) -> dict[str, int]:
    """Bets as JSON (``{"banker": 25}``) or words (``25 on banker``): the rules' own reader."""
    from baccarat_core.bets import parse_bets  # only a bet needs it: not loaded at start

    return parse_bets(value)
