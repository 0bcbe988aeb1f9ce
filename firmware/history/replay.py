"""A recorded game, round by round, as the players saw the displays.

Each round's line holds what the displays showed: the placard's limits, the deck and the cards
left before the deal, the stacks as the players stacked them (and as the dealer re-ordered
them), the active chip, the cards in dealing order and the result. A deal is shown again moment
by moment on the same timeline the daemon followed (:func:`firmware.game.pacing.deal_timeline`, with
the pacing the game was played with): the stacks re-stacked, each card landing face down and
turning, the payout (the losing bets leave), the clearing. Each moment's views are composed by
the functions the daemon's own views come from (:func:`firmware.game.scene.deck_view`,
:func:`~firmware.game.scene.stacks_view`, :class:`~firmware.game.scene.RoundOnTable`) and drawn by the same
render functions at each display's size and mode, so a replayed frame is the frame the prop sent,
pixel for pixel (a test compares them). A ``casing`` display shows the countdown as it stood at
the round's gesture (the line keeps no second-by-second count).

A replay is cut into chapters: the game's start, one per round, and its end when it ended.
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Any

from PIL import Image

from baccarat_core import TableLimits
from baccarat_core import events as ev
from baccarat_core.module import REPLACE_BELOW
from baccarat_core.names import ENGLISH, N_, named
from baccarat_core.records import record
from firmware.game.pacing import PACINGS, deal_timeline
from firmware.game.scene import RoundOnTable, Scene, deck_view, render_view, stacks_view

from ..render import CasingView, ExplodedView
from .games import Game, hand, round_words

#: ``{role: ((width, height), mode, colour)}``: the displays a replay is drawn for.
Displays = dict[str, tuple[tuple[int, int], str, bool]]

_OUTCOME_WORDS = {
    "solved": N_("SOLVED"),
    "exploded": N_("EXPLODED"),
    "reset": N_("the game master reset the module: the game ends unfinished"),
    "interrupted": N_("the saved game was lost at a restart: the game ends unfinished"),
}
#: Why a bomb exploded, in the end's line.
_CAUSE_WORDS = {"timer": N_("timer"), "strikes": N_("strikes")}

Stacks = dict[str, tuple[int, ...]]


@record
class Step:
    """One moment of a replay: what the displays showed, and a line saying what happened."""

    label: str
    scene: Scene


def chapters(game: Game) -> int:
    """How many chapters the game's replay has: its start, its rounds, its end."""
    return 1 + len(game.rounds) + (1 if game.end is not None else 0)


def _casing(game: Game, seconds: int | None, strikes: int, state: str) -> CasingView:
    bomb = game.start.get("bomb") or {}
    limit = bomb.get("strike_limit")
    return CasingView(
        str(game.start["edgework"]["serial"]),
        seconds,
        strikes,
        limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
        state,
    )


def _start_scene(game: Game) -> Scene:
    start = game.start
    rounds = game.rounds
    limits = start["limits"]
    cards_left = 52 if not start.get("resumed") or not rounds else rounds[0]["cards_left"]
    bomb = start.get("bomb") or {}
    timer = bomb.get("timer_seconds")
    seconds = int(timer) if isinstance(timer, int | float) and not isinstance(timer, bool) else None
    return Scene(
        TableLimits(limits["min"], limits["max"]),
        deck_view(start["deck"], cards_left, None),
        stacks_view({}, 1),
        casing=_casing(game, seconds, 0, "armed"),
    )


def _strikes_before(game: Game, index: int) -> int:
    """The strikes the players saw before round ``index``'s gesture."""
    count = 0
    for entry in (*game.rounds[:index], *game.of_kind("strike")):
        if entry["t"] == "strike" and entry["at"] < game.rounds[index]["at"]:
            count = max(count, entry["strikes"])
        elif entry["t"] == "round":
            count = max([count, *(strike["strikes"] for strike in entry["strikes"])])
    return count


def _round_steps(game: Game, index: int, t: NullTranslations = ENGLISH) -> list[Step]:
    """Round ``index``'s moments, as the daemon showed them (see the module); their lines in ``t``'s language."""
    entry = game.rounds[index]
    pacing = game.start.get("pacing", "original")
    original = pacing == "original"
    limits = TableLimits(*entry["limits"])
    n = entry["n"]
    chip = entry["chip"]
    placed: Stacks = {area: tuple(stack) for area, stack in entry["stacks"].items()}
    reordered: Stacks = {area: tuple(stack) for area, stack in entry.get("reordered", {}).items()}
    after = {**placed, **reordered}
    timer = entry.get("timer")
    strikes = _strikes_before(game, index)
    at_gesture = strikes + sum(1 for s in entry["strikes"] if s["reason"] == "stack_order")
    lost = strikes + len(entry["strikes"])
    result = entry["result"]
    exploded = entry.get("exploded")
    words = t.gettext("Round {n}: {words}").format(n=n, words=round_words(entry, t))

    def scene(table: Any, bets: Any, shown_strikes: int, state: str = "armed", boom: str | None = None) -> Scene:
        return Scene(
            limits,
            table,
            bets,
            casing=_casing(game, timer, shown_strikes, state),
            exploded=ExplodedView(boom, shown_strikes) if boom else None,
        )

    deck, left = entry["deck"], entry["cards_left"]
    steps = [Step(words, scene(deck_view(deck, left, None), stacks_view(placed, chip), strikes))]
    if result is None:  # a check refused the deal: the strike, the table as it was
        boom = exploded if isinstance(exploded, str) else None
        state = "exploded" if boom else "armed"
        steps.append(Step(words, scene(deck_view(deck, left, None), stacks_view(placed, chip), lost, state, boom)))
        return _distinct(steps)
    cards = tuple(ev.CardDealt(who, card, score) for who, card, score in entry["cards"])
    left_after = max(0, left - len(cards))
    hands = [card.hand for card in cards]
    solved = result["profit_cents"] > 0
    restack = bool(reordered) and original
    on_table = RoundOnTable(cards)
    bets = stacks_view(placed, chip, tuple(reordered)) if restack else stacks_view(after, chip)
    shown = at_gesture
    played = ev.RoundPlayed(
        tuple(hand(entry, "player")),
        tuple(hand(entry, "banker")),
        result["player_score"],
        result["banker_score"],
        result["winner"],
        result["profit_cents"],
        dict(result["results"]),
    )
    beats = deal_timeline(hands, solved=solved, restack=restack, pacing=pacing if pacing in PACINGS else "original")
    gesture = scene(deck_view(deck, left_after, on_table), bets, shown)
    the_deal = t.gettext("Round {n}: the deal").format(n=n)
    if beats and beats[0].at > 0:  # the table waits for the dealer: the gesture's moment shows
        steps.append(Step(the_deal, gesture))
    state, boom, color, label = "armed", None, deck, the_deal
    for beat in beats:
        if beat.what == "rebuild":
            bets = stacks_view(after, chip, tuple(reordered))
            areas = ", ".join(named(area, t) for area in reordered)
            label = t.gettext("Round {n}: the dealer re-stacks {areas}").format(n=n, areas=areas)
        elif beat.what == "restacked":
            bets = stacks_view(after, chip)
        elif beat.what == "land":
            on_table = on_table.land_card()
            hand_name = named(cards[beat.card].hand, t)
            label = t.gettext("Round {n}: a card lands face down to {hand}").format(n=n, hand=hand_name)
        elif beat.what == "turn":
            on_table = on_table.turn_card()
            label = t.gettext("Round {n}: {words}").format(n=n, words=cards[beat.card].describe(t))
        elif beat.what == "pay":
            on_table = on_table.show_result(played)
            if original:
                bets = stacks_view(
                    {area: () if result["results"].get(area, 0) < 0 else stack for area, stack in after.items()}, chip
                )
            shown = lost
            boom = exploded if isinstance(exploded, str) else None
            state = "exploded" if boom else "solved" if solved else "armed"
            label = words
        elif beat.what == "clear" and not solved and not boom:
            bets = stacks_view({}, chip)
            color, left_after = _next_deck(game, index, color, left_after)
            label = t.gettext("Round {n}: chips cleared from the table").format(n=n)
        steps.append(Step(label, scene(deck_view(color, left_after, on_table), bets, shown, state, boom)))
    return _distinct(steps)


def _next_deck(game: Game, index: int, color: str, left: int) -> tuple[str, int]:
    """The deck after a round's clearing: a new one when fewer than 26 cards were left (its colour
    as the next round's line has it, if that round was dealt from a fresh deck)."""
    if left >= REPLACE_BELOW or index + 1 >= len(game.rounds):
        return color, left
    following = game.rounds[index + 1]
    if following["cards_left"] == 52 and following["deck"] != color:
        return str(following["deck"]), 52
    return color, left


def _distinct(steps: list[Step]) -> list[Step]:
    """The steps whose displays changed (a display is sent a frame only when its view changed)."""
    out: list[Step] = []
    for step in steps:
        if out and out[-1].scene == step.scene:
            continue
        out.append(step)
    return out


def steps(game: Game, chapter: int, t: NullTranslations = ENGLISH) -> list[Step]:
    """The steps of one chapter (0: the start; 1 to the number of rounds: a round; then the end),
    their lines in ``t``'s language."""
    rounds = game.rounds
    if not 0 <= chapter < chapters(game):
        raise IndexError(f"chapter {chapter} is not in 0-{chapters(game) - 1}")
    if chapter == 0:
        return [Step(t.gettext("Game {game} begins").format(game=game.start["game"]), _start_scene(game))]
    if chapter <= len(rounds):
        return _round_steps(game, chapter - 1, t)
    end = game.end
    assert end is not None  # chapters() counts an end chapter only for a game that ended
    last = _round_steps(game, len(rounds) - 1)[-1].scene if rounds else _start_scene(game)
    words = t.gettext(_OUTCOME_WORDS[end["outcome"]])
    if end["outcome"] == "solved" and end.get("forced"):
        words = t.gettext("SOLVED by the game master")
        table = last.table
        casing = last.casing
        last = Scene(
            last.placard,
            deck_view(table.deck_color, table.cards_left, None, "SOLVED"),
            last.bets,
            casing=CasingView(casing.serial, casing.seconds, casing.strikes, casing.strike_limit, "solved")
            if casing is not None
            else None,
        )
    elif end["outcome"] == "exploded" and last.exploded is None and last.casing is not None:
        casing = last.casing  # the timer ran out between rounds: every display shows it
        cause = str(end.get("cause", "timer"))
        last = Scene(
            last.placard,
            last.table,
            last.bets,
            casing=CasingView(
                casing.serial,
                0 if cause == "timer" else casing.seconds,
                end["strikes"],
                casing.strike_limit,
                "exploded",
            ),
            exploded=ExplodedView(cause, end["strikes"]),
        )
    if end.get("cause"):
        cause = str(end["cause"])
        said = t.gettext(_CAUSE_WORDS[cause]) if cause in _CAUSE_WORDS else cause
        words += f" ({said})"
    count = end["strikes"]
    return [Step(t.ngettext("{words}, {n} strike", "{words}, {n} strikes", count).format(words=words, n=count), last)]


def draw(step: Step, displays: Displays) -> dict[str, Image.Image]:
    """Each display's picture of ``step``, drawn by the render functions at its size and mode."""
    return {
        role: render_view(role, step.scene.view(role), size, mode, colour=colour)
        for role, (size, mode, colour) in displays.items()
    }
