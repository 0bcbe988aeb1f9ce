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

from baccarat_core import BaccaratError

from ..errors import PropError


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and no usage dump."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with one line."""
        self.exit(2, f"{self.prog}: error: {message}\n")


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
        return args.handler(args)
    except (BaccaratError, PropError) as error:
        print(f"baccarat {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `baccarat play ... | head -1`: the reader left; end quietly, as a shell tool does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
