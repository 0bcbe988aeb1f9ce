"""A recorded game, round by round, as the players saw the displays.

Each round's line holds what the displays showed: the placard's limits, the deck and the cards
left before the deal, the stacks bottom to top and the active chip, then each card as it turned
and the result. The views are composed from those values by the same functions the daemon uses
(:func:`firmware.scene.deck_view`, :func:`~firmware.scene.stacks_view`, :class:`RoundOnTable`)
and drawn by the same render functions, at each display's size and mode, so a replayed frame is
pixel for pixel the one the prop sent (a test compares them).

A replay is cut into chapters: the game's start, one per round (its bets, each card, the
result), and its end when it ended.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from baccarat_core import TableLimits
from baccarat_core import events as ev
from baccarat_core.records import record

from ..scene import RoundOnTable, Scene, deck_view, render_view, stacks_view
from .games import Game, hand, round_words

#: ``{role: ((width, height), mode)}``: the displays a replay is drawn for.
Displays = dict[str, tuple[tuple[int, int], str]]

_OUTCOME_WORDS = {
    "solved": "SOLVED",
    "exploded": "EXPLODED",
    "reset": "the game master reset the module: the game ends unfinished",
    "interrupted": "the saved game was lost at a restart: the game ends unfinished",
}


@record
class Step:
    """One moment of a replay: what the displays showed, and a line saying what happened."""

    label: str
    scene: Scene


def chapters(game: Game) -> int:
    """How many chapters the game's replay has: its start, its rounds, its end."""
    return 1 + len(game.rounds) + (1 if game.end is not None else 0)


def _limits(pair: list[int]) -> TableLimits:
    return TableLimits(pair[0], pair[1])


def _start_scene(game: Game) -> Scene:
    start = game.start
    rounds = game.rounds
    limits = start["limits"]
    cards_left = 52 if not start.get("resumed") or not rounds else rounds[0]["cards_left"]
    return Scene(
        TableLimits(limits["min"], limits["max"]), deck_view(start["deck"], cards_left, None), stacks_view({}, 1)
    )


def _round_steps(entry: dict[str, Any]) -> list[Step]:
    limits = _limits(entry["limits"])
    n = entry["n"]
    before = stacks_view(entry["stacks"], entry["chip"])
    steps = [
        Step(
            f"Round {n}: {round_words(entry)}",
            Scene(limits, deck_view(entry["deck"], entry["cards_left"], None), before),
        )
    ]
    result = entry["result"]
    if result is None:  # a check refused the deal: the table stays as it was
        return steps
    after = stacks_view({**entry["stacks"], **entry.get("reordered", {})}, entry["chip"])
    cards = tuple(ev.CardDealt(hand, card, score) for hand, card, score in entry["cards"])
    left = max(0, entry["cards_left"] - len(cards))
    on_table = RoundOnTable(cards)
    for card in cards:
        on_table = on_table.turn_card()
        steps.append(
            Step(f"Round {n}: {card.describe()}", Scene(limits, deck_view(entry["deck"], left, on_table), after))
        )
    played = ev.RoundPlayed(
        tuple(hand(entry, "player")),
        tuple(hand(entry, "banker")),
        result["player_score"],
        result["banker_score"],
        result["winner"],
        result["profit_cents"],
        dict(result["results"]),
    )
    on_table = on_table.show_result(played)
    steps.append(
        Step(f"Round {n}: {round_words(entry)}", Scene(limits, deck_view(entry["deck"], left, on_table), after))
    )
    return steps


def steps(game: Game, chapter: int) -> list[Step]:
    """The steps of one chapter (0: the start; 1 to the number of rounds: a round; then the end)."""
    rounds = game.rounds
    if not 0 <= chapter < chapters(game):
        raise IndexError(f"chapter {chapter} is not in 0-{chapters(game) - 1}")
    if chapter == 0:
        return [Step(f"Game {game.start['game']} begins", _start_scene(game))]
    if chapter <= len(rounds):
        return _round_steps(rounds[chapter - 1])
    end = game.end
    assert end is not None  # chapters() counts an end chapter only for a game that ended
    last = _round_steps(rounds[-1])[-1].scene if rounds else _start_scene(game)
    words = _OUTCOME_WORDS[end["outcome"]]
    if end["outcome"] == "solved" and end.get("forced"):
        words = "SOLVED by the game master"
        table = last.table
        last = Scene(last.placard, deck_view(table.deck_color, table.cards_left, None, "SOLVED"), last.bets)
    elif end.get("cause"):
        words += f" ({end['cause']})"
    return [Step(f"{words}, {end['strikes']} strike{'s' if end['strikes'] != 1 else ''}", last)]


def draw(step: Step, displays: Displays) -> dict[str, Image.Image]:
    """Each display's picture of ``step``, drawn by the render functions at its size and mode."""
    return {role: render_view(role, step.scene.view(role), size, mode) for role, (size, mode) in displays.items()}
