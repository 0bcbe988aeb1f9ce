"""The ``baccarat`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from baccarat_core import BaccaratError, Edgework, TableLimits, build_deck
from baccarat_core.deck import COLORS
from baccarat_core.edgework import split_list


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def _dollars(text: str) -> int:
    try:
        return int(text.lstrip("$").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of dollars") from None


def _add_edgework(parser: argparse.ArgumentParser, *, limits_required: bool) -> None:
    group = parser.add_argument_group("edgework and limits")
    group.add_argument("--serial", required=True, help="serial number, 1-6 letters or digits")
    group.add_argument("--ports", default="", help="comma-separated, one name per port")
    group.add_argument("--lit", default="", help="lit indicator labels, comma-separated")
    group.add_argument("--unlit", default="", help="unlit indicator labels, comma-separated")
    group.add_argument("--solved", type=_count, default=0, help="solved modules (default 0)")
    group.add_argument("--min", type=_dollars, required=limits_required, help="table minimum")
    group.add_argument("--max", type=_dollars, required=limits_required, help="table maximum")


def _color(text: str) -> str:
    if text.lower() not in COLORS:
        raise argparse.ArgumentTypeError(f"colour {text!r} is not one of {', '.join(COLORS)}")
    return text.lower()


def _edgework(args: argparse.Namespace) -> Edgework:
    return Edgework(args.serial, split_list(args.ports), split_list(args.lit),
                    split_list(args.unlit), args.solved)


def _limits(args: argparse.Namespace) -> TableLimits | None:
    if args.min is None and args.max is None:
        return None
    if args.min is None or args.max is None:
        raise BaccaratError("give both --min and --max, or neither")
    return TableLimits(args.min, args.max)


def cmd_deck(args: argparse.Namespace) -> int:
    from baccarat_core.cheatsheet import cheat_sheet

    edgework = _edgework(args)
    limits = TableLimits(args.min, args.max)
    deck = build_deck(edgework, limits, args.color)
    if args.json:
        print(json.dumps(deck.to_dict()))
    else:
        print(cheat_sheet(edgework, limits, deck))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from .session import run_session

    if hasattr(sys.stdin, "reconfigure"):  # a stray non-UTF-8 byte is a malformed line, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    return run_session(_edgework(args), _limits(args), args.color, args.seed,
                       sys.stdin, sys.stdout, sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="baccarat", description="The Baccarat module prop.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    deck = sub.add_parser("deck", help="print the deck that would appear now")
    _add_edgework(deck, limits_required=True)
    deck.add_argument("--color", type=_color, required=True, help="red, blue, green or silver")
    deck.add_argument("--json", action="store_true", help="one JSON object instead of a listing")
    deck.set_defaults(handler=cmd_deck)

    play = sub.add_parser("play", help="a headless session: JSON inputs on stdin, events on stdout")
    _add_edgework(play, limits_required=False)
    play.add_argument("--color", type=_color, required=True, help="colour of the first deck")
    play.add_argument("--seed", type=int, default=None, help="seed for limits and later decks")
    play.set_defaults(handler=cmd_play)

    from .commands import add_daemon_commands

    add_daemon_commands(sub)
    from .control import add_control_commands
    add_control_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except BaccaratError as error:
        print(f"baccarat {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
