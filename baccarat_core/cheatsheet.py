"""A game master's cheat sheet: a deck and the rounds it deals from the top."""

from __future__ import annotations

from .deck import Deck
from .edgework import Edgework, join_names
from .limits import TableLimits
from .module import REPLACE_BELOW
from .rounds import play_round


def cheat_sheet(edgework: Edgework, limits: TableLimits, deck: Deck) -> str:
    """How the deck was derived, its 52 cards top first, and the rounds it deals until it is replaced."""
    lines = [
        f"Baccarat deck: {deck.color}, appearing with {deck.solved} solved",
        f"Edgework: serial {edgework.serial}, ports {join_names(edgework.ports)}, "
        f"lit {join_names(edgework.lit)}, unlit {join_names(edgework.unlit)}",
        f"Limits: {limits.placard()} (ratio row {limits.ratio_row + 1})",
    ]
    casing = casing_line(edgework)
    if casing:
        lines.insert(2, casing)
    others = edgework.other_ports
    if others:
        lines.insert(
            2,
            f"Not a vanilla kind, counted toward the total of {len(edgework.ports)} ports only: "
            f"{join_names(tuple(dict.fromkeys(others)))}",
        )
    if deck.unshuffled:
        lines.append("Lit BOB with 8 or 9 ports: the deck is unshuffled.")
    else:
        lines.append(
            f"Letter {deck.letter} + 26 x digit {deck.digit} + {deck.solved} solved -> first index "
            f"{deck.first_index}; most common port {deck.port_name} -> multiplier {deck.multiplier}"
        )
    lines.append("")
    lines.append("Cards, top first:")
    for row in range(0, 52, 13):
        chunk = deck.cards[row : row + 13]
        lines.append(f"  {row + 1:2d}-{row + len(chunk):2d}: " + " ".join(f"{str(c):>3}" for c in chunk))
    lines.append("")
    lines.append("Rounds if played from the top. The next round is the one whose cards left are the deck's now")
    lines.append("(baccarat status, the console; 52 minus the cards dealt); fewer than 26 left: a new deck.")
    position = 0
    number = 1
    while True:
        game = play_round(deck.cards[position:])
        left = 52 - position
        position += len(game.order)
        pairs = [
            name for name, hit in (("player pair", game.player_pair()), ("banker pair", game.banker_pair())) if hit
        ]
        extra = f", {' and '.join(pairs)}" if pairs else ""
        lines.append(
            f"  {left:2d} left, round {number}: player {' '.join(map(str, game.player)):<11} = {game.player_score}"
            f"  banker {' '.join(map(str, game.banker)):<11} = {game.banker_score}"
            f"  -> {game.winner.upper()}{extra}"
        )
        if 52 - position < REPLACE_BELOW:
            break
        number += 1
    return "\n".join(lines)


def casing_line(edgework: Edgework) -> str | None:
    """``Casing: port plates [Parallel, Serial] [empty]; battery holders AA, D (3 batteries)``,
    or None when neither the plates nor the batteries are known."""
    parts = []
    if edgework.plates is not None:
        plates = " ".join(f"[{', '.join(plate) or 'empty'}]" for plate in edgework.plates)
        parts.append(f"port plates {plates or 'none'}")
    if edgework.batteries:
        count = edgework.battery_count
        parts.append(
            f"battery holders {', '.join(edgework.batteries)} ({count} {'battery' if count == 1 else 'batteries'}, "
            "which the deck does not depend on)"
        )
    return f"Casing: {'; '.join(parts)}" if parts else None
