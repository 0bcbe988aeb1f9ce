"""The ``baccarat`` command: one parser, and one place that turns errors into messages.

Subcommands live beside this file: ``deck`` and ``play`` (:mod:`.deck_play`),
``run`` and ``check-config`` (:mod:`.run`), ``doctor`` (:mod:`.doctor`), ``history``
(:mod:`.history`), and the game master's commands to a running daemon (:mod:`.gm`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from baccarat_core import BaccaratError, strict
from baccarat_core.numbers import parse_count

from ..errors import PropError


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors, no usage dump, and help text made only when shown:
    ``make_epilog`` returns the epilog, and ``before_help`` is called once before the help
    is first formatted (most runs, the service's above all, never show it)."""

    before_help: Callable[[], None] | None = None
    make_epilog: Callable[[], str] | None = None

    def format_help(self) -> str:
        """The help, its lazy parts made first."""
        hook, self.before_help = self.before_help, None
        if hook is not None:
            hook()
        make_epilog, self.make_epilog = self.make_epilog, None
        if make_epilog is not None:
            self.epilog = make_epilog()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        """Exit 2 with one line (an argument thousands of characters long is cut short)."""
        self.exit(2, f"{self.prog}: error: {strict.one_line(message, 240)}\n")


def arg_type(parse: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse ``type=`` from a parser that raises :class:`BaccaratError` with its message."""

    def convert(text: str) -> object:
        try:
            return parse(text)
        except BaccaratError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def whole_number(what: str, *, minimum: int = 0, maximum: int | None = None) -> Callable[[str], object]:
    """An argparse ``type=`` for a whole number from ``minimum`` to ``maximum``, its errors naming ``what``.

    >>> port = whole_number("port", minimum=1, maximum=65535)
    >>> port("8080")
    8080
    >>> port("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: port 0 is below the least allowed (1)
    """
    return arg_type(lambda text: parse_count(text, what, minimum=minimum, maximum=maximum))


class _Version(argparse.Action):
    """``--version``: the installed version, read from the package metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from . import helptext

        print(f"{parser.prog} {helptext.version()}")
        parser.exit(0)


#: Each command's module (its ``add_commands`` registers it with its siblings).
COMMAND_MODULES = {
    "deck": "deck_play",
    "play": "deck_play",
    "casing": "casing",
    "run": "run",
    "party": "party",
    "check-config": "run",
    "doctor": "doctor",
    "update": "update",
    "support": "support",
    "solved": "gm",
    "reset": "gm",
    "force-solve": "gm",
    "hint": "gm",
    "status": "gm",
    "bet": "gm",
    "self-test": "gm",
    "start-timer": "gm",
    "add-time": "gm",
    "output": "gm",
    "send": "gm",
    "history": "history",
    "unit-dropin": "unit",
    "docs": "docs",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``baccarat`` command line: every command, or with ``command`` (the first argument)
    only the commands of its module, so that ``baccarat run`` builds one parser, not nine
    (argparse looks up translations for each: 3 ms of the service's start-up)."""
    import importlib

    parser = Parser(
        prog="baccarat",
        description="The Baccarat module prop (Keep Talking and Nobody Explodes): its daemon, simulator and tools.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    names = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else dict.fromkeys(COMMAND_MODULES.values())
    for name in names:
        importlib.import_module(f"{__name__}.{name}").add_commands(sub)

    def explain() -> None:
        from . import helptext

        helptext.apply(parser, sub)

    for each in (parser, *sub.choices.values()):
        each.before_help = explain
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``baccarat`` command; bad input is one line on stderr and a non-zero exit."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # a reader that left shows here, not in the interpreter's flush at exit
        return code
    except (BaccaratError, PropError) as error:
        print(f"baccarat {args.command}: error: {strict.one_line(str(error), 260)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `baccarat play ... | head -1`: the reader left; end quietly, as a shell tool does. Python
        # flushes stdout once more at exit: point it at /dev/null so that flush cannot fail too
        # (the pattern of Python's documentation on SIGPIPE).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a file descriptor (a test's capture)
            pass
        return 0
    except KeyboardInterrupt:
        return 130
