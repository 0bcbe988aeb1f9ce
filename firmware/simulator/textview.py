"""The simulator's text view: the prop in words, from the same views the displays draw.

It fits an 80x24 terminal: the placard, the table (deck, both hands, scores,
result), the five stacks bottom to top with their totals, the active chip with
the arrows that can still move it, both lights, the outputs, the strikes, the key map and
the last log lines. Plain ASCII works (suits as letters); in a UTF-8 terminal
the suits are symbols.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from typing import TextIO

from baccarat_core import BaccaratModule
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.events import AREA_NAMES
from baccarat_core.numbers import format_dollars
from baccarat_core.records import record
from baccarat_core.rounds import AREAS
from baccarat_core.timer import clock_text
from firmware.game.daemon import Daemon
from firmware.game.scene import Scene

from ..render.bets import runs
from ..render.exploded import cause_text
from .compose import LightStates, light_states
from .keys import AREA_KEYS, HOLD_KEYS, KEY_MAP_LINES

SUIT_SYMBOLS: dict[str, str] = {"H": "\u2665", "D": "\u2666", "C": "\u2663", "S": "\u2660"}

#: The size that shows everything, and the smallest that shows the game (fewer log lines).
FULL_SIZE = (80, 24)
MIN_SIZE = (60, 18)


@record
class Snapshot:
    """What the text view shows: the scene, the strikes, the lights (and the game master's hint)."""

    scene: Scene
    strikes: int
    lights: LightStates
    hint: str | None = None


def hint_line(module: BaccaratModule) -> str:
    """The game master's line: the round the current deck deals next."""
    game = module.next_round()
    player = " ".join(str(c) for c in game.player)
    banker = " ".join(str(c) for c in game.banker)
    return (
        f"GM: next round {game.winner} wins "
        f"(player {player} = {game.player_score}, banker {banker} = {game.banker_score})"
    )


def take_snapshot(daemon: Daemon, *, gm: bool = False, timeout: float = 2.0) -> Snapshot:
    """Read the scene and the strikes as shown on the game thread (also during a deal), and the lights."""

    def read() -> tuple[Scene, int, str | None]:
        return daemon.scene(), daemon.shown().strikes, hint_line(daemon.module) if gm else None

    scene, strikes, hint = daemon.call(read, during_round=True).result(timeout)
    return Snapshot(scene, strikes, light_states(daemon), hint)


def terminal_is_utf8(stream: TextIO) -> bool:
    """True when ``stream`` writes UTF-8 and the locale says the terminal shows it."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if encoding != "utf8":
        return False
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(name)
        if value:
            return "utf8" in value.lower().replace("-", "").replace("_", "")
    return False


def card_text(card: str, unicode: bool) -> str:
    """``10D`` as ``10♦`` (or ``10D`` in plain ASCII)."""
    rank, suit = card[:-1], card[-1]
    return rank + (SUIT_SYMBOLS.get(suit, suit) if unicode else suit)


def _hand(name: str, cards: tuple[str, ...], down: int, score: int | None, unicode: bool) -> str:
    """A hand: face-up cards, then card backs (``##``, or ``▒▒``); the third card in brackets,
    as the dealer lays it sideways."""
    back = "\u2592\u2592" if unicode else "##"
    slots = [card_text(c, unicode) for c in cards] + [back] * down
    shown = " ".join(f"[{slot}]" if number == 2 else slot for number, slot in enumerate(slots)) or "-"
    return f"  {name:<7}{shown:<16}" + ("" if score is None else f"= {score}")


def _stack(stack: tuple[int, ...], room: int, unicode: bool) -> str:
    """Chips bottom to top (``$100 $25x2 $1``); when too long, the top of the stack only."""
    parts = [format_dollars(v) + (f"x{n}" if n > 1 else "") for v, n in runs(stack)]
    more = "\u2026 " if unicode else "... "
    text = " ".join(parts)
    while len(text) > room and len(parts) > 1:
        parts = parts[1:]
        text = more + " ".join(parts)
    return text


def _area(area: str, stack: tuple[int, ...], width: int, unicode: bool, restacking: bool = False) -> str:
    number = AREAS.index(area)
    total = format_dollars(sum(stack)) if stack else "-"
    head = f"  {AREA_KEYS[number]}/{HOLD_KEYS[number]}  {AREA_NAMES[area]:<12}{total:>8}   "
    if restacking:
        head += "re-stacking: "
    return head + _stack(stack, width - len(head), unicode)


def text_lines(
    snap: Snapshot,
    recent: Sequence[str],
    columns: int = 80,
    rows: int = 24,
    *,
    unicode: bool = False,
    pinned: Sequence[str] = (),
) -> list[str]:
    """The text view for a terminal of ``columns`` x ``rows``: at most ``rows`` lines, each shorter
    than ``columns`` (the last column stays empty, so that no terminal wraps or scrolls).

    ``pinned`` lines (the console's address) take the place of the blank line under the lights."""
    width = columns - 1
    scene = snap.scene
    table, bets = scene.table, scene.bets
    placard = f"BACCARAT   TABLE LIMITS   {scene.placard.placard()}"
    strikes = f"Strikes: {snap.strikes}"
    if scene.casing is not None and scene.casing.seconds is not None:
        strikes += f"  Timer: {clock_text(scene.casing.seconds)}"
    left = "<" if bets.can_go_left else " "
    right = ">" if bets.can_go_right else " "
    lights = f"Status light: {snap.lights['status']:<16} Deck light: {snap.lights['deck']}"
    outputs = f"Outputs: {snap.lights['outputs']}" if "outputs" in snap.lights else None
    if outputs is not None and len(lights) + 3 + len(outputs) <= width:  # beside the lights when it fits
        lights, outputs = f"{lights}   {outputs}", None
    pins: list[str | None] = [row for line in pinned for row in textwrap.wrap(line, width, subsequent_indent="  ")]
    lines: list[str | None] = [  # None: a blank line, dropped first when rows are short
        placard + strikes.rjust(max(1, width - len(placard))),
        lights,
        *([outputs] if outputs else []),
        *(pins or [None]),
        f"TABLE  {table.deck_color} deck, {table.cards_left} cards left",
        _hand("Player", table.player, table.player_down, table.player_score, unicode),
        _hand("Banker", table.banker, table.banker_down, table.banker_score, unicode),
        f"  EXPLODED: {cause_text(scene.exploded)}" if scene.exploded else f"  {table.result or table.status}",
        None,
        f"{'BETS':<7}{'area':<12}{'total':>8}   chips, bottom to top",
        *(_area(area, bets.stacks.get(area, ()), width, unicode, area in bets.restacking) for area in AREAS),
        f"  active chip  {left} {format_dollars(bets.denomination)} {right}"
        f"   ({DENOMINATIONS.index(bets.denomination) + 1} of {len(DENOMINATIONS)})",
        None,
        *KEY_MAP_LINES,
    ]
    if snap.hint:
        lines.append(snap.hint)
    if len(lines) + 3 > rows:  # fewer than three log lines: drop the blank lines
        lines = [line for line in lines if line is not None]
    out = ["" if line is None else line for line in lines]
    out += _log_rows(recent, width, max(0, rows - len(out)))
    return [line[:width] for line in out[:rows]]


def _log_rows(recent: Sequence[str], width: int, rows: int) -> list[str]:
    """The newest log lines that fit in ``rows``, long ones wrapped."""
    wrapped: list[str] = []
    for line in recent:
        wrapped += textwrap.wrap(line, width, initial_indent="Log: ", subsequent_indent="     ") or ["Log:"]
    return wrapped[-rows:] if rows else []


def too_small_lines(columns: int, rows: int, braille: tuple[int, int]) -> list[str]:
    """What a terminal too small for any view shows instead (in as few columns as possible)."""
    text = (
        f"This terminal is {columns}x{rows}. The simulator's text view needs {FULL_SIZE[0]}x{FULL_SIZE[1]} "
        f"(at least {MIN_SIZE[0]}x{MIN_SIZE[1]}), the braille view {braille[0]}x{braille[1]}. "
        "Make the terminal larger, or press x to quit."
    )
    return [line for line in textwrap.wrap(text, max(10, columns - 1))][:rows]
