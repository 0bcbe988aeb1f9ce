"""What the game master reads: the state document, the countdown in it, the hint and a bet's result.

MQTT's retained state, ``baccarat status``, Room 2.0's ``DATA`` and the console all read
:func:`state_document`; the ``hint`` and ``bet`` commands answer with :func:`hint` and
:func:`bet_result`.
"""

from __future__ import annotations

from typing import Any

from baccarat_core import AREAS, BaccaratModule
from baccarat_core import events as ev
from firmware.game.scene import Shown

from ..version import version


def bet_result(bets: dict[str, int], events: list[ev.Event]) -> dict[str, Any]:
    """The ``bet`` command's result: the bets as read, what they came to in words, and the events."""
    from baccarat_core.bets import bet_outcome, describe_bets  # only a bet needs them

    return {
        "bets": dict(bets),
        "summary": f"bet {describe_bets(bets)}: {bet_outcome(events)}",
        "events": [e.to_dict() for e in events],
    }


def state_document(
    module: BaccaratModule, shown: Shown | None = None, outputs: list[dict[str, object]] | None = None
) -> dict[str, Any]:
    """The module's state as the retained MQTT document and ``baccarat status`` show it: its
    strikes, solve, cards left and stacks as ``shown`` (what the players see during a deal:
    :meth:`~firmware.game.daemon.Daemon.shown`), or the module's own; and the prop's ``outputs``
    (``{"name", "on"}`` each: :meth:`~firmware.devices.outputs.Outputs.states`)."""
    deck = module.deck
    seen = shown if shown is not None else Shown.of(module)
    return {
        "status": "solved" if seen.solved else "exploded" if seen.exploded else "armed",
        "solved": seen.solved,
        "enabled": module.enabled,
        "strikes": seen.strikes,
        "limits": {**module.limits.to_dict(), "placard": module.limits.placard()},
        "deck": deck.color if deck else None,
        "cards_left": seen.cards_left,
        "denomination": module.denomination,
        "bets": {area: sum(seen.stacks[area]) for area in AREAS},
        "stacks": {area: list(seen.stacks[area]) for area in AREAS},
        "edgework": module.edgework.to_dict(),
        "edgework_drawn": module.edgework_drawn,
        "edgework_random": module.bombs is not None,  # a reset draws a new bomb
        "game": module.game,
        "deck_solved": deck.solved if deck else None,
        "outputs": outputs or [],
        "version": version(),  # the software running (firmware/version.py)
        "exploded": seen.exploded,
        "strike_limit": module.rules.strike_limit,
        "timer": timer_document(module),
    }


def timer_document(module: BaccaratModule) -> dict[str, Any] | None:
    """The countdown in the state document, as of its last reading (None: the bomb has no timer):
    ``seconds`` (the full time), ``seconds_left``, ``state`` (waiting, running, paused, stopped),
    ``running`` and ``rate`` (1.0; faster after strikes with ``speed_up``)."""
    timer = module.timer
    if timer is None:
        return None
    return {
        "seconds": timer.seconds,
        "seconds_left": round(timer.left, 1),
        "state": timer.state,
        "running": timer.running,
        "rate": timer.rate,
    }


def hint(module: BaccaratModule) -> dict[str, Any]:
    """Which bet wins the next round from the current deck."""
    game = module.next_round()
    winner = game.winner
    advice = {
        "player": "bet on Player",
        "banker": "bet on Banker",
        "tie": "Player and Banker push: add a Tie side bet",
    }[winner]
    return {
        "winner": winner,
        "player": [str(c) for c in game.player],
        "banker": [str(c) for c in game.banker],
        "player_score": game.player_score,
        "banker_score": game.banker_score,
        "player_pair": game.player_pair(),
        "banker_pair": game.banker_pair(),
        "cards": len(game.order),
        "advice": advice,
    }
