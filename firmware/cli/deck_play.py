"""``baccarat deck`` (the cheat sheet) and ``baccarat play`` (a headless session)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO, TextIO

from baccarat_core import BaccaratError, BaccaratModule, Edgework, TableLimits, build_deck, strict
from baccarat_core.bomb import RandomBombs, check_game, check_seed
from baccarat_core.deck import COLORS, check_color
from baccarat_core.edgework import split_list
from baccarat_core.events import Event
from baccarat_core.inputs import Input, parse_input
from baccarat_core.numbers import parse_count, parse_dollars
from baccarat_core.strict import MAX_SOLVED, MAX_TABLE_MAXIMUM

from . import Parser, arg_type, whole_number

if TYPE_CHECKING:
    from ..config import Config

#: The options that describe a fixed bomb (``--seed`` draws one instead).
_FIXED_OPTIONS = ("serial", "ports", "lit", "unlit", "batteries")


def add_edgework_arguments(parser: argparse.ArgumentParser, *, limits: bool = True) -> None:
    """``--serial``, ``--ports``, ``--lit``, ``--unlit``, ``--batteries``, ``--solved``, and with
    ``limits`` ``--min`` and ``--max``."""
    group = parser.add_argument_group("edgework and limits" if limits else "edgework")
    group.add_argument("--serial", help="serial number, 1-6 letters or digits")
    group.add_argument("--ports", help="comma-separated, one name per port")
    group.add_argument("--lit", help="lit indicator labels, comma-separated")
    group.add_argument("--unlit", help="unlit indicator labels, comma-separated")
    group.add_argument("--batteries", help="battery holders, comma-separated: AA (two cells) or D (one)")
    group.add_argument(
        "--solved",
        type=whole_number("solved count", maximum=MAX_SOLVED),
        default=None,
        help="solved modules (default 0)",
    )
    if not limits:
        return
    dollars = arg_type(lambda t: parse_dollars(t, "amount", maximum=MAX_TABLE_MAXIMUM))
    group.add_argument("--min", type=dollars, help="table minimum")
    group.add_argument("--max", type=dollars, help="table maximum")


def _given(args: argparse.Namespace) -> list[str]:
    return [f"--{name}" for name in _FIXED_OPTIONS if getattr(args, name) is not None]


def edgework_from(args: argparse.Namespace, bombs: RandomBombs | None = None) -> Edgework:
    """The edgework the arguments describe: ``--serial`` and its siblings, or the bomb of game
    ``--game`` that ``bombs`` draw (``--seed``'s, or a random-mode config's)."""
    if bombs is not None:
        if _given(args):
            raise BaccaratError(f"{_given(args)[0]} describes a bomb and the seed draws one: give one or the other")
        solved = bombs.solved if args.solved is None else args.solved
        return RandomBombs(bombs.seed, solved).bomb(getattr(args, "game", 1))
    if getattr(args, "game", 1) != 1:
        raise BaccaratError("--game is only read with --seed (or a config whose edgework is random)")
    if args.serial is None:
        raise BaccaratError("give the bomb's --serial (and --ports, --lit, --unlit), or --seed N for a random bomb")
    return Edgework(
        args.serial,
        split_list(args.ports),
        split_list(args.lit),
        split_list(args.unlit),
        args.solved or 0,
        split_list(args.batteries),
    )


def limits_from(args: argparse.Namespace) -> TableLimits | None:
    """The limits the arguments fix, or None for random limits."""
    if args.min is None and args.max is None:
        return None
    if args.min is None or args.max is None:
        raise BaccaratError("give both --min and --max, or neither")
    return TableLimits(args.min, args.max)


def _deck_inputs(args: argparse.Namespace) -> tuple[Edgework, TableLimits]:
    """``baccarat deck``'s edgework and limits: the options', else ``--config``'s (its fixed edgework,
    or the bomb its seed draws; its fixed limits)."""
    bombs = RandomBombs(args.seed) if args.seed is not None else None
    limits = limits_from(args)
    if args.config is None:
        if limits is None:
            raise BaccaratError("give the table's --min and --max (the placard)")
        return edgework_from(args, bombs), limits
    from ..config import load_config

    config = load_config(args.config)
    if limits is None:
        if config.limits is None:
            raise BaccaratError(f"give the table's --min and --max ({args.config} draws the limits at random)")
        limits = config.limits
    return config_edgework(args, config, bombs), limits


def config_edgework(args: argparse.Namespace, config: Config, bombs: RandomBombs | None) -> Edgework:
    """The bomb of the options (``--serial`` and the rest, or ``--seed``'s ``bombs``) where given,
    else ``config``'s: its fixed edgework, or the bomb of game ``--game`` its seed draws."""
    if bombs is not None or _given(args):
        return edgework_from(args, bombs)
    if config.edgework is not None:
        if args.game != 1:
            raise BaccaratError(f"--game is only read with --seed ({config.source} has fixed edgework)")
        solved = config.edgework.solved if args.solved is None else args.solved
        return config.edgework.with_solved(solved)
    if config.bombs is None or config.bombs.seed is None:
        raise BaccaratError(
            f"{config.source} draws a new bomb for each game without a seed: give --seed N, or read the bomb "
            "off the prop (baccarat status) and give --serial, --ports, --lit and --unlit"
        )
    return edgework_from(args, config.bombs)


def cmd_deck(args: argparse.Namespace) -> int:
    """Print the deck that appears now, and the rounds it deals."""
    from baccarat_core.cheatsheet import cheat_sheet

    edgework, limits = _deck_inputs(args)
    deck = build_deck(edgework, limits, args.color)
    if args.json:
        print(json.dumps(deck.to_dict()))
    else:
        print(cheat_sheet(edgework, limits, deck))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """JSON inputs on stdin, one JSON event per line on stdout."""
    lines = bounded_lines(sys.stdin.buffer) if hasattr(sys.stdin, "buffer") else sys.stdin
    if args.serial is None and args.seed is not None and not _given(args):
        bombs = RandomBombs(args.seed, args.solved or 0)  # the bomb --seed draws, as `baccarat deck --seed`
        return run_session(None, limits_from(args), args.color, args.seed, lines, sys.stdout, sys.stderr, bombs)
    edgework = edgework_from(args)
    return run_session(edgework, limits_from(args), args.color, args.seed, lines, sys.stdout, sys.stderr)


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


def parse_line(line: str | bytes) -> Input:
    """One ``baccarat play`` line: strict JSON (size, UTF-8, depth, no NaN), then :func:`parse_input`."""
    text = line.rstrip(b"\r\n") if isinstance(line, bytes) else line.rstrip("\r\n")
    return parse_input(strict.loads(text, "line"))


def run_session(
    edgework: Edgework | None,
    limits: TableLimits | None,
    color: str,
    seed: int | None,
    lines: Iterable[str | bytes],
    out: TextIO,
    err: TextIO,
    bombs: RandomBombs | None = None,
) -> int:
    """Feed each input line to a module; write each event as one JSON line (``edgework`` None:
    the first bomb of ``bombs``, announced by the first event)."""
    module = BaccaratModule(edgework, limits, rng=random.Random(seed), first_color=color, bombs=bombs)

    def emit(events: list[Event]) -> None:
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
        emit(module.handle(action))
        emit(module.finish_round())  # a deal's chips leave the table at once: no pause to show its result
    return 0


seed_number = arg_type(lambda t: check_seed(parse_count(t, "seed")))
game_number = arg_type(lambda t: check_game(parse_count(t, "game number")))


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``deck`` and ``play``."""
    color = arg_type(check_color)
    deck = sub.add_parser("deck", help="print the deck that would appear now")
    add_edgework_arguments(deck)
    bomb = deck.add_argument_group("a random bomb (instead of --serial and the rest)")
    bomb.add_argument("--seed", type=seed_number, default=None, help="the bomb [edgework] seed = N draws")
    bomb.add_argument("--game", type=game_number, default=1, help="which game's bomb: 1 (default) is the first")
    deck.add_argument("--config", metavar="FILE", help="a config: its edgework, seed and fixed limits where not given")
    deck.add_argument("--color", type=color, required=True, help=", ".join(COLORS))
    deck.add_argument("--json", action="store_true", help="one JSON object instead of a listing")
    deck.set_defaults(handler=cmd_deck)

    play = sub.add_parser("play", help="a headless session: JSON inputs on stdin, events on stdout")
    add_edgework_arguments(play)
    play.add_argument("--color", type=color, required=True, help="colour of the first deck")
    play.add_argument(
        "--seed",
        type=seed_number,
        default=None,
        help="seed for limits and later decks; without --serial, also the bomb (as deck --seed)",
    )
    play.set_defaults(handler=cmd_play)
