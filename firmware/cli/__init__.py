"""The ``baccarat`` command: one parser, and one place that turns errors into messages.

Subcommands live beside this file: ``deck`` and ``play`` (:mod:`.deck_play`),
``run`` and ``check-config`` (:mod:`.run`), and the game master's commands
to a running daemon (:mod:`.gm`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from baccarat_core import BaccaratError, strict

from ..errors import PropError


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and no usage dump."""

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


def build_parser() -> argparse.ArgumentParser:
    """The whole ``baccarat`` command line."""
    from . import deck_play, gm, helptext, run

    parser = Parser(
        prog="baccarat",
        description="The Baccarat module prop (Keep Talking and Nobody Explodes): its daemon, simulator and tools.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {helptext.version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    deck_play.add_commands(sub)
    run.add_commands(sub)
    gm.add_commands(sub)
    helptext.apply(parser, sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``baccarat`` command; bad input is one line on stderr and a non-zero exit."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.handler(args)
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
