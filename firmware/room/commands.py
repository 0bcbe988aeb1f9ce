"""Game-master commands: one table and one executor for every surface.

MQTT, Room 2.0, the control socket, the web console and each room service hand a request to
:meth:`GameMaster.handle`: a JSON object (``{"command": "set_solved", "solved": 3}``) or words
(``set-solved 3``). The command table (:mod:`.command_table`) checks it against the command's
declared arguments, the command's runner (:data:`BUILT_IN`, or a service's own) runs it on the
daemon's game thread, and every front end gets the same reply document.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from baccarat_core import BaccaratError, BaccaratModule, strict
from baccarat_core import events as ev
from baccarat_core.numbers import show_value
from baccarat_core.patterns import Pattern
from firmware.game.daemon import Daemon
from firmware.system.noise import carried

from ..errors import PropError
from . import COMMAND_TIMEOUT
from .documents import bet_result, hint, state_document, timer_document

if TYPE_CHECKING:
    from baccarat_core import TableLimits

    from ..selftest import SelfTester
    from .command_table import Command, CommandSpec, CommandTable

__all__ = [
    "COMMAND_TIMEOUT",
    "Command",
    "GameMaster",
    "Reply",
    "bet_result",
    "command_name",
    "hint",
    "known_command",
    "parse_command",
    "parse_words",
    "recover_id",
    "state_document",
    "timer_document",
]

log = logging.getLogger("baccarat.commands")

T = TypeVar("T")


class Reply(Future[dict[str, Any]]):
    """A reply document to come (:meth:`GameMaster.handle`), and how long a front end that waits for it
    waits: :data:`COMMAND_TIMEOUT`, or for a self-test as long as the test may last."""

    timeout: float = COMMAND_TIMEOUT


# The command table (:mod:`.command_table`) and the built-in commands (:mod:`.builtins`) load at
# the first command, not at start: a start runs none (3 M instructions of it, benchmarks/instructions.md).
_FROM_THE_TABLE = {
    "BUILT_IN": "builtins",
    "set_edgework": "builtins",
    "MAX_ERROR": "command_table",
    "Command": "command_table",
    "CommandError": "command_table",
}


def __getattr__(name: str) -> Any:
    """This module's names from the command table and the built-in commands, loaded when first asked
    for (``from firmware.room.commands import BUILT_IN`` works as it did); ``COMMANDS``: every
    built-in command, with the argument keys it accepts."""
    if name == "COMMANDS":
        return {spec.name: frozenset(a.name for a in spec.arguments) for spec in _built_in()}
    if name in _FROM_THE_TABLE:
        return getattr(importlib.import_module(f".{_FROM_THE_TABLE[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _built_in() -> tuple[CommandSpec, ...]:
    from .builtins import BUILT_IN

    return BUILT_IN


@cache
def _default() -> CommandTable:
    """The built-in commands' table, for parsing without a game master (tests, tools)."""
    from .command_table import CommandTable

    return CommandTable(_built_in())


def known_command(text: object) -> str | None:
    """``force-solve``, ``Force_Solve`` -> ``force_solve``; None when ``text`` names no built-in command."""
    return _default().known(text)


def command_name(text: object) -> str:
    """The built-in command ``text`` names; unknown names are errors."""
    return _default().spec(text).name


def parse_command(data: Any) -> Command:
    """A built-in command from its JSON form (:meth:`CommandTable.parse`)."""
    return _default().parse(data)


def parse_words(text: str) -> Command:
    """A built-in command from words (:meth:`CommandTable.parse_words`)."""
    return _default().parse_words(text)


class GameMaster:
    """The one command path: every surface runs its commands here.

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
        self,
        daemon: Daemon,
        *,
        default_limits: TableLimits | None = None,
        self_test: SelfTester | None = None,
        commands: Iterable[CommandSpec] = (),
    ) -> None:
        self.daemon = daemon
        self.default_limits = default_limits
        self._table: CommandTable | None = None
        self._added = tuple(commands)
        self._table_lock = threading.Lock()
        if self._added:  # a service's commands: checked now (a name taken twice is refused here)
            _ = self.table
        self._self_test = self_test
        #: ``(play, cues)`` for the self-test's sounds (the sound service sets it): None, no sound.
        self._sound: tuple[Callable[[str], None], Sequence[str]] | None = None
        self._document: dict[str, Any] | None = None
        self._hooked = False  # _forget_document is one of the daemon's on_handled hooks
        #: ``hook(command, module)``, on the game thread once a command whose events do not say it
        #: was the game master's has run, before its events are handled: ``hint`` (it makes none)
        #: and ``bet`` (its presses look like the players'). The history records them.
        self.on_command: list[Callable[[Command, BaccaratModule], None]] = []
        #: ``extra() -> dict``: more keys for the state document, called on the game thread as it
        #: is built (the history's stuck indicator, :mod:`firmware.history`).
        self.document_extras: list[Callable[[], dict[str, Any]]] = []

    @property
    def table(self) -> CommandTable:
        """The commands this prop takes: the built-in ones and those its services add (:meth:`add`),
        made at the first command (any thread)."""
        table = self._table
        if table is None:
            with self._table_lock:
                if self._table is None:
                    from .command_table import CommandTable

                    self._table = CommandTable((*_built_in(), *self._added))
                table = self._table
        return table

    def add(self, spec: CommandSpec) -> None:
        """Take one more command (a room service's own): every surface can send it from now on."""
        self.table.add(spec)  # made now: a name taken twice is refused here, as before

    @property
    def self_test(self) -> SelfTester:
        """The pre-game self-test (firmware/selftest/__init__.py), made at its first use: the prop's outputs,
        and the sound cues when a sound service gave them (:meth:`use_sound`)."""
        if self._self_test is None:
            from ..selftest import SelfTester

            outputs = self.daemon.board.outputs
            play, cues = self._sound or (None, ())
            self._self_test = SelfTester(self.daemon, sound=play, cues=cues, outputs=outputs if outputs.names else None)
        return self._self_test

    def use_sound(self, play: Callable[[str], None], cues: Sequence[str]) -> None:
        """The self-test plays ``cues`` with ``play`` (the sound service's)."""
        self._sound = (play, tuple(cues))
        if self._self_test is not None:
            self._self_test.sound, self._self_test.cues = play, tuple(cues)

    def document(self) -> dict[str, Any]:
        """The state document now, as the players see the game (:func:`state_document` of the
        daemon's :meth:`~firmware.game.daemon.Daemon.shown`), built at most once a batch: MQTT, Room
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
            daemon = self.daemon
            self._document = self.extras(state_document(module, daemon.shown(), daemon.board.outputs.states()))
        return self._document

    def extras(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with the :attr:`document_extras` of this moment (game thread): ``status``
        takes them again, so its stuck indicator is the minutes now."""
        for extra in self.document_extras:
            try:
                document.update(extra())
            except Exception:
                log.exception("state document extra %r failed", extra)
        return document

    def noted(self, command: Command, run: Callable[[], T]) -> T:
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
        return command.spec.run(self, command)

    def check_output(self, name: str) -> None:
        """Refuse an output this prop does not have, naming the ones it has (nothing runs)."""
        from .command_table import CommandError

        names = self.daemon.board.outputs.names
        if name not in names:
            known = f"known: {', '.join(names)}" if names else "this prop has none: [[outputs]] in the config"
            raise CommandError(f"output: unknown output {show_value(name)} ({known})")

    def handle(self, payload: Any, *, words: bool = False) -> Reply:
        """Parse and run one request; the future always holds a reply document.

        A JSON request is ``{"command": ..., <arguments>, "id": ...}``, or ``{"words": ..., "id": ...}``
        for a command in words. The reply is ``{"id", "ok": true, "command", "result"}`` or
        ``{"id", "ok": false, "command", "error"}``; a bad request changes nothing
        and is one warning line in the log. Text and bytes go through the strict
        reader (:mod:`baccarat_core.strict`): size, UTF-8, depth, strict JSON.
        """
        from .command_table import MAX_ERROR

        done = Reply()
        request_id = None
        name = None
        try:
            if words:
                command = self.table.parse_words(payload)
            else:
                data = strict.loads(payload, "command") if isinstance(payload, str | bytes | bytearray) else payload
                if isinstance(data, dict):
                    request_id = strict.check_request_id(data.get("id"))
                    name = data.get("command") if isinstance(data.get("command"), str) else None
                command = self._words_object(data) or self.table.parse(data)
            name = command.name
            if command.spec.timeout is not None:  # a self-test: a person presses each button
                done.timeout = command.spec.timeout(self, command)
            running = self.submit(command)
        except (PropError, BaccaratError) as error:
            message = strict.one_line(str(error), MAX_ERROR)
            log.warning("command rejected: %s", message)
            if request_id is None and not words:
                request_id = recover_id(payload)  # the reader refused it whole: the id, if it can be read
            done.set_result(self._reply(request_id, name, error=message))
            return done

        in_place = carried()  # a flood's failures are counted as its refusals are (room/noise.py)

        def finish(future: Future[Any]) -> None:
            try:
                done.set_result(self._reply(request_id, name, result=future.result()))
            except Exception as error:  # noqa: BLE001 - reported to the sender, logged once
                message = strict.one_line(str(error), MAX_ERROR)
                in_place(lambda: log.warning("command %s failed: %s", name, message))
                done.set_result(self._reply(request_id, name, error=message))

        running.add_done_callback(finish)
        return done

    def _words_object(self, data: Any) -> Command | None:
        """``{"words": "log-note round 3", "id": 7}``: a command in words, inside JSON (``baccarat send``)."""
        if not isinstance(data, dict) or "words" not in data or "command" in data:
            return None
        from .command_table import CommandError

        extra = [key for key in data if key not in ("words", "id")]
        if extra:
            raise CommandError(f'a "words" request takes only "words" and "id", not {show_value(extra[0])}')
        if not isinstance(data["words"], str):
            raise CommandError(f'"words" must be a string, not {show_value(data["words"])}')
        return self.table.parse_words(data["words"])

    def _reply(self, request_id: Any, name: Any, *, result: Any = None, error: str | None = None) -> dict[str, Any]:
        reply: dict[str, Any] = {"id": request_id, "ok": error is None, "command": self.table.known(name)}
        if error is None:
            reply["result"] = result
        else:
            reply["error"] = error
        return reply


#: A request's top-level ``"id"`` as the strict reader's limits allow it: a short string or a whole number.
_ID = Pattern(rb'"id"\s*:\s*(-?[0-9]{1,16}|"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]){0,%d}")' % strict.MAX_ID_LENGTH)


def recover_id(payload: Any) -> str | int | None:
    """The ``id`` of a request the strict reader refused whole (too large, too deep, not JSON at
    the end), when it can still be read, so that a controller can match the error to its request:
    the one ``"id": ...`` in its first :data:`~baccarat_core.strict.MAX_BYTES` bytes. None when
    there is none, more than one, or it is not a valid id."""
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "replace")
    if not isinstance(payload, bytes | bytearray):
        return None
    found = _ID.findall(bytes(payload[: strict.MAX_BYTES]))
    if len(found) != 1:
        return None
    try:
        value = json.loads(found[0])
        return strict.check_request_id(value)
    except (ValueError, BaccaratError):
        return None
