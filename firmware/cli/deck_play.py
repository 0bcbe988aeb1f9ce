"""``baccarat deck`` (the cheat sheet) and ``baccarat play`` (a headless session)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TextIO

from baccarat_core import BaccaratError, BaccaratModule, Edgework, TableLimits, build_deck, strict
from baccarat_core.deck import COLORS, check_color
from baccarat_core.edgework import split_list
from baccarat_core.inputs import parse_input
from baccarat_core.numbers import parse_count, parse_dollars
from baccarat_core.strict import MAX_SOLVED, MAX_TABLE_MAXIMUM

from . import arg_type


def add_edgework_arguments(parser: argparse.ArgumentParser, *, limits_required: bool) -> None:
    """``--serial``, ``--ports``, ``--lit``, ``--unlit``, ``--solved``, ``--min``, ``--max``."""
    group = parser.add_argument_group("edgework and limits")
    group.add_argument("--serial", required=True, help="serial number, 1-6 letters or digits")
    group.add_argument("--ports", default="", help="comma-separated, one name per port")
    group.add_argument("--lit", default="", help="lit indicator labels, comma-separated")
    group.add_argument("--unlit", default="", help="unlit indicator labels, comma-separated")
    group.add_argument(
        "--solved",
        type=arg_type(lambda t: parse_count(t, "solved count", maximum=MAX_SOLVED)),
        default=0,
        help="solved modules (default 0)",
    )
    dollars = arg_type(lambda t: parse_dollars(t, "amount", maximum=MAX_TABLE_MAXIMUM))
    group.add_argument("--min", type=dollars, required=limits_required, help="table minimum")
    group.add_argument("--max", type=dollars, required=limits_required, help="table maximum")


def edgework_from(args: argparse.Namespace) -> Edgework:
    """The edgework the arguments describe."""
    return Edgework(args.serial, split_list(args.ports), split_list(args.lit), split_list(args.unlit), args.solved)


def limits_from(args: argparse.Namespace) -> TableLimits | None:
    """The limits the arguments fix, or None for random limits."""
    if args.min is None and args.max is None:
        return None
    if args.min is None or args.max is None:
        raise BaccaratError("give both --min and --max, or neither")
    return TableLimits(args.min, args.max)


def cmd_deck(args: argparse.Namespace) -> int:
    """Print the deck that appears now, and the rounds it deals."""
    from baccarat_core.cheatsheet import cheat_sheet

    edgework = edgework_from(args)
    limits = TableLimits(args.min, args.max)
    deck = build_deck(edgework, limits, args.color)
    if args.json:
        print(json.dumps(deck.to_dict()))
    else:
        print(cheat_sheet(edgework, limits, deck))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """JSON inputs on stdin, one JSON event per line on stdout."""
    lines = bounded_lines(sys.stdin.buffer) if hasattr(sys.stdin, "buffer") else sys.stdin
    return run_session(edgework_from(args), limits_from(args), args.color, args.seed, lines, sys.stdout, sys.stderr)


def bounded_lines(stream: BinaryIO, limit: int = strict.MAX_BYTES) -> Iterator[bytes]:
    """Lines of a byte stream, never holding more than ``limit`` bytes of one: an over-long line
    comes out as its first ``limit + 1`` bytes (which the reader then refuses), the rest skipped."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
        yield line


def parse_line(line: str | bytes) -> object:
    """One ``baccarat play`` line: strict JSON (size, UTF-8, depth, no NaN), then :func:`parse_input`."""
    return parse_input(strict.loads(line.rstrip(b"\r\n" if isinstance(line, bytes) else "\r\n"), "line"))


def run_session(
    edgework: Edgework,
    limits: TableLimits | None,
    color: str,
    seed: int | None,
    lines: Iterable[str | bytes],
    out: TextIO,
    err: TextIO,
) -> int:
    """Feed each input line to a module; write each event as one JSON line."""
    module = BaccaratModule(edgework, limits, rng=random.Random(seed), first_color=color)

    def emit(events: list) -> None:
        for event in events:
            out.write(json.dumps(event.to_dict()) + "\n")
        out.flush()

    emit(module.start())
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            action = parse_line(line)
        except BaccaratError as error:
            err.write(f"baccarat play: line {number}: {strict.one_line(str(error), 200)}\n")
            err.flush()
            continue
        emit(module.handle(action))  # type: ignore[arg-type]
        emit(module.finish_round())  # a deal's chips leave the table at once: no pause to show its result
    return 0


seed_number = arg_type(lambda t: parse_count(t, "seed"))


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``deck`` and ``play``."""
    color = arg_type(check_color)
    deck = sub.add_parser("deck", help="print the deck that would appear now")
    add_edgework_arguments(deck, limits_required=True)
    deck.add_argument("--color", type=color, required=True, help=", ".join(COLORS))
    deck.add_argument("--json", action="store_true", help="one JSON object instead of a listing")
    deck.set_defaults(handler=cmd_deck)

    play = sub.add_parser("play", help="a headless session: JSON inputs on stdin, events on stdout")
    add_edgework_arguments(play, limits_required=False)
    play.add_argument("--color", type=color, required=True, help="colour of the first deck")
    play.add_argument("--seed", type=seed_number, default=None, help="seed for limits and later decks")
    play.set_defaults(handler=cmd_play)
