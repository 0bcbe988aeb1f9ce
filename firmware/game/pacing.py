"""When each moment of a deal is shown: the original module's timeline, or an even quick one.

A pure function of the round's cards (:func:`deal_timeline`); the daemon turns
each :class:`Beat` into a step on its schedule. The original's times come from
its code (``BaccaratScript.cs``, see the spec's "Timing and details"): the first
four cards land face down 0.25 s apart and each turns face up 1 s after it
lands; 1.5 s after the fourth card's gap a third card comes, sideways, and each
third card is followed by 2 s; the bets are paid 0.25 s after the last step and
the table is cleared 1.5 s after that (not after a solve: the module stops
there). Stacks that were out of order are re-stacked first, in about a second
(the original slides the chips for 20 frames a pass), with the strike at the
gesture. The quick pacing is the prop's earlier one: each card face up at once,
``card_seconds`` apart, the result ``card_seconds`` after the last card, the
clearing ``result_seconds`` later.

The original's timeline from the gesture, for each number of cards:

>>> for hands in (["player", "banker"] * 2, ["player", "banker"] * 2 + ["player"], ["player", "banker"] * 3):
...     beats = deal_timeline(hands, solved=False)
...     print([b.at for b in beats if b.what == "land"], [b.at for b in beats if b.what in ("pay", "clear")])
[0.0, 0.25, 0.5, 0.75] [2.75, 4.25]
[0.0, 0.25, 0.5, 0.75, 2.5] [4.75, 6.25]
[0.0, 0.25, 0.5, 0.75, 2.5, 4.5] [6.75, 8.25]
"""

from __future__ import annotations

from collections.abc import Sequence

from baccarat_core.records import record

#: The pacings ``[timing] pacing`` accepts: the original module's (the default), or the even quick one.
PACINGS: tuple[str, ...] = ("original", "quick")

#: The original's times, in seconds (module-facts.md, "Timing and details the original's code adds").
DEAL_GAP = 0.25  # between the first four cards
FLIP_AFTER = 1.0  # from a card landing face down to its turning face up
DRAW_PAUSE = 1.5  # after the fourth card's gap, before a third card (or the payout's wait)
THIRD_GAP = 2.0  # after each third card
PAY_AFTER = 0.25  # from the last step to the payout
CLEAR_AFTER = 1.5  # from the payout to the clearing
#: Out-of-order stacks: the stack as placed until half of this, rebuilt for the rest; the cards
#: come after it (the original's slides take about a second).
RESTACK_SECONDS = 1.0


@record
class Beat:
    """One moment of a deal, ``at`` seconds after the gesture.

    ``what``: ``rebuild`` (the re-ordered stacks are rebuilt), ``restacked`` (the dealer is done
    with them), ``land`` (card ``card`` lands face down), ``turn`` (it turns face up; in the
    quick pacing it lands face up), ``pay`` (the result and the payout), ``clear`` (the cards
    and the chips leave the table: the round is over).
    """

    at: float
    what: str
    card: int = -1


def deal_timeline(
    hands: Sequence[str],
    *,
    solved: bool,
    restack: bool = False,
    pacing: str = "original",
    card_seconds: float = 0.6,
    result_seconds: float = 1.5,
) -> list[Beat]:
    """The beats of a deal whose cards go to ``hands`` in dealing order (4 to 6 of ``player`` and
    ``banker``), sorted by time (beats at the same moment in the order they happen).

    ``solved``: the round solves the module (the original stops at the payout: no clearing,
    but the round still ends there); ``restack``: stacks out of order are re-stacked first.
    """
    if pacing == "quick":
        beats = [Beat(i * card_seconds, "turn", i) for i in range(len(hands))]
        paid = len(hands) * card_seconds
        return [*beats, Beat(paid, "pay"), Beat(paid + result_seconds, "clear")]
    if pacing != "original":
        raise ValueError(f"unknown pacing {pacing!r} (known: {', '.join(PACINGS)})")
    beats = []
    t = 0.0
    if restack:
        beats += [Beat(RESTACK_SECONDS / 2, "rebuild"), Beat(RESTACK_SECONDS, "restacked")]
        t = RESTACK_SECONDS
    for i, _ in enumerate(hands):
        if i == 4:  # the pause before the third cards
            t += DRAW_PAUSE
        beats += [Beat(t, "land", i), Beat(t + FLIP_AFTER, "turn", i)]
        t += DEAL_GAP if i < 4 else THIRD_GAP
        if i == 3 and len(hands) == 4:
            t += DRAW_PAUSE
    if len(hands) < 4:  # not a baccarat round; shown all the same
        t += DRAW_PAUSE
    paid = t + PAY_AFTER
    beats += [Beat(paid, "pay"), Beat(paid if solved else paid + CLEAR_AFTER, "clear")]
    return sorted(beats, key=lambda beat: beat.at)  # stable: beats at one moment keep their order


def is_third_card(hands: Sequence[str], index: int) -> bool:
    """True when card ``index`` is the third card of its hand (dealt sideways)."""
    return hands[: index + 1].count(hands[index]) == 3
