"""The Baccarat module as a state machine.

Every method takes one input and returns the events it caused, in order.
Randomness (table limits, the colour of a replacement deck) comes from the
``random.Random`` passed in, so a seed replays a whole game.

Each input returns the events it caused. A losing round, then the one the manual
finds (the hint the game master's cheat sheet gives):

>>> import random
>>> from baccarat_core import BaccaratModule, Edgework, TableLimits
>>> from baccarat_core.inputs import Arrow, Deal, Press
>>> bomb = Edgework("AB3DE4", ports=("Parallel",), lit=("FRK",), unlit=())
>>> module = BaccaratModule(bomb, TableLimits(5, 200), rng=random.Random(1), first_color="red")
>>> [event.kind for event in module.start()]
['limits', 'deck']
>>> module.handle(Arrow("right"))  # the $5 chip, the table's minimum
[DenominationChanged(value=5)]
>>> module.handle(Press("player"))[0].describe()
'chip $5 on player: stack bottom to top $5 = $5'
>>> events = module.handle(Deal())  # the gesture: the round, up to its result
>>> [event.describe() for event in events[-2:]]
['round: player KD QS 10C = 0, banker 10S QD 4C = 4, banker wins; ...', 'STRIKE 1 (loss): the round lost $5.00']
>>> module.stacks["player"], [event.kind for event in module.finish_round()]  # the chips go when it ends
([5], ['chips_cleared'])
>>> module.next_round().winner
'banker'
>>> module.handle(Press("banker"))[0].total
5
>>> module.handle(Deal())[-1].describe()
'SOLVED: the round made money'
"""

from __future__ import annotations

import random
from typing import Any

from . import events as ev
from .bets import bet_inputs
from .bomb import RandomBombs
from .cards import Card, hand_score
from .chips import DENOMINATIONS, is_ordered, reorder
from .deck import COLORS, Deck, build_deck, check_color
from .edgework import Edgework
from .errors import BaccaratError
from .inputs import Arrow, Deal, Hold, Input, Press, SetSolved, check_area
from .limits import TableLimits, random_limits
from .numbers import format_cents, format_dollars, show_value
from .rounds import AREAS, MAIN_AREAS, SIDE_AREAS, Round, bet_results, play_round
from .status import ModuleStatus
from .strict import MAX_GAMES
from .timer import BombRules

#: A deck with fewer cards than this left after a round is replaced.
REPLACE_BELOW = 26

_AREA_NAMES = ev.AREA_NAMES


class BaccaratModule(ModuleStatus):
    """One Baccarat module: limits, deck, chips and rounds, on top of its status (strikes, the
    solve, the explosion, the countdown and the open table: :class:`~baccarat_core.status.ModuleStatus`).

    With ``bombs`` (random edgework) each reset draws the next game's bomb from it, and an
    ``edgework`` of None draws the first game's; without, the edgework stays until the game
    master sets another. ``rules`` are the bomb's countdown and strike limit
    (:class:`~baccarat_core.timer.BombRules`): the module explodes at the strike limit by itself;
    its countdown (:attr:`timer`) counts only as far as its owner advances it, and the owner calls
    :meth:`expire` when it reaches 0.

    Each input returns the events it caused (the module's docstring plays a whole game):

    >>> import random
    >>> from baccarat_core import BaccaratModule, Edgework, TableLimits
    >>> module = BaccaratModule(Edgework("AB3DE4"), TableLimits(5, 200), rng=random.Random(1))
    >>> [event.kind for event in module.start()], module.cards_left
    (['limits', 'deck'], 52)
    """

    def __init__(
        self,
        edgework: Edgework | None,
        limits: TableLimits | None = None,
        *,
        rng: random.Random | None = None,
        first_color: str | None = None,
        bombs: RandomBombs | None = None,
        rules: BombRules | None = None,
    ) -> None:
        super().__init__(rules)
        self.rng = rng if rng is not None else random.Random()
        #: Where each reset's bomb comes from (random edgework), or None (the edgework stays).
        self.bombs = bombs
        #: The game since the first start: 1, and one more at each reset (saved with the game).
        self.game = 1
        #: True while the edgework in play was drawn at random (not given by the config or a command).
        self.edgework_drawn = edgework is None
        if edgework is None:
            if bombs is None:
                raise BaccaratError("a module needs edgework, or random bombs to draw it from")
            edgework = bombs.bomb(self.game, self.rng)
        self.edgework: Edgework = edgework
        self.limits_random = limits is None
        self.limits = limits if limits is not None else random_limits(self.rng)
        self._first_color = check_color(first_color) if first_color else None
        self.deck: Deck | None = None
        self.position = 0
        self.denomination_index = 0
        self.stacks: dict[str, list[int]] = {area: [] for area in AREAS}
        #: A round was played and its chips are still on the table: :meth:`finish_round` is due.
        self.round_pending = False

    def start(self) -> list[ev.Event]:
        """The limits and the first deck, as the module shows them at power-on (after the bomb, when
        it was drawn at random)."""
        color = self._first_color or self.rng.choice(COLORS)
        drawn: list[ev.Event] = [self._edgework_event()] if self.edgework_drawn else []
        return drawn + [
            ev.LimitsSet(self.limits.minimum, self.limits.maximum, self.limits_random),
            self._new_deck(color),
        ]

    def resume(self) -> list[ev.Event]:
        """After a restore: finish a round that was cut short between its result and its clearing."""
        return self.finish_round() if self.round_pending else []

    @property
    def denomination(self) -> int:
        """The active chip's value in dollars."""
        return DENOMINATIONS[self.denomination_index]

    @property
    def cards_left(self) -> int:
        """Cards left in the current deck."""
        return 52 - self.position

    def bets(self) -> dict[str, int]:
        """Each area's bet in dollars (0 for an empty area)."""
        return {area: sum(stack) for area, stack in self.stacks.items()}

    def next_round(self) -> Round:
        """The round that the current deck would deal next (a game master's hint)."""
        return play_round(self._require_deck().cards[self.position :])

    # -- inputs -------------------------------------------------------------
    def handle(self, action: Input) -> list[ev.Event]:
        """Take one input object and return the events it caused.

        :class:`~baccarat_core.inputs.Deal` is the gesture alone, whoever sends it: the
        round up to its result, its chips left on the table until :meth:`finish_round`
        (the daemon calls it after the result's pause, ``baccarat play`` at once). A
        player's input while a round's chips are still on the table finishes it first.
        """
        if self.round_pending and not isinstance(action, SetSolved):
            return self.finish_round() + self.handle(action)
        if isinstance(action, Press):
            return self.press(action.area)
        if isinstance(action, Hold):
            return self.hold(action.area)
        if isinstance(action, Arrow):
            return self.arrow(action.direction)
        if isinstance(action, Deal):
            return self.deal(finish=False)
        if isinstance(action, SetSolved):
            return self.set_solved(action.solved)
        raise BaccaratError(f"unknown input {show_value(action)}")

    def press(self, area: str) -> list[ev.Event]:
        """A short press: one chip of the active denomination on top of ``area``."""
        check_area(area)
        if refused := self._refuse(f"press {area}"):
            return refused
        stack = self.stacks[area]
        stack.append(self.denomination)
        return self._first_input() + [ev.ChipAdded(area, self.denomination, tuple(stack), sum(stack))]

    def hold(self, area: str) -> list[ev.Event]:
        """A hold: ``area`` is cleared."""
        check_area(area)
        if refused := self._refuse(f"hold {area}"):
            return refused
        total = sum(self.stacks[area])
        self.stacks[area].clear()
        return self._first_input() + [ev.AreaCleared(area, total)]

    def arrow(self, direction: str) -> list[ev.Event]:
        """An arrow: one denomination smaller (``left``) or larger (``right``), stopping at the ends."""
        if direction not in ("left", "right"):
            raise BaccaratError(f"arrow {show_value(direction)} is not 'left' or 'right'")
        if refused := self._refuse(f"arrow {direction}"):
            return refused
        started = self._first_input()
        step = 1 if direction == "right" else -1
        index = min(max(self.denomination_index + step, 0), len(DENOMINATIONS) - 1)
        if index == self.denomination_index:
            return started
        self.denomination_index = index
        return started + [ev.DenominationChanged(self.denomination)]

    def deal(self, *, finish: bool = True) -> list[ev.Event]:
        """The gesture at the deck: the three checks in order, then the round and its payouts.

        With ``finish=False`` (the :class:`~baccarat_core.inputs.Deal` input) the round
        stops at its result (and the solve or the loss strike): the chips stay on the
        table and the deck is not replaced until :meth:`finish_round`, as on the
        original, where that happens 1.5 s later and the new deck reads the solved
        count of that moment. The default plays the whole round at once.
        """
        if self.round_pending:
            return self.finish_round() + self.deal(finish=finish)
        if refused := self._refuse("deal"):
            return refused
        bets = self.bets()
        out: list[ev.Event] = [*self._first_input(), ev.DealStarted({a: b for a, b in bets.items() if b})]
        problem = exclusive_problem(bets)
        if problem:
            return out + self._strike("exclusive", problem)
        problem = limits_problem(bets, self.limits)
        if problem:
            return out + self._strike("limits", problem)
        disordered = [area for area in AREAS if not is_ordered(self.stacks[area])]
        if disordered:
            for area in disordered:
                self.stacks[area] = list(reorder(self.stacks[area]))
            out.append(ev.ChipsReordered({a: tuple(self.stacks[a]) for a in disordered}))
            names = ", ".join(_AREA_NAMES[a] for a in disordered)
            out += self._strike("stack_order", f"a larger chip sat on a smaller one in {names}")
            if self.exploded:  # the strike limit: the bomb is gone before a card is dealt
                return out
        out += self._play(bets)
        if finish and self.round_pending:
            out += self.finish_round()
        return out

    def bet(self, bets: dict[str, int], *, finish: bool = True) -> list[ev.Event]:
        """Remote play: the table cleared, each bet stacked from its largest chip down, and the
        deal, as the presses :func:`~baccarat_core.bets.bet_inputs` plans (the events are the
        presses' events, ignored ones included). ``finish`` is :meth:`deal`'s."""
        out = self.finish_round()  # the first press would finish a pending round, before the plan
        for action in bet_inputs(bets, self.denomination, self.stacks):
            out += self.deal(finish=finish) if isinstance(action, Deal) else self.handle(action)
        return out

    def finish_round(self) -> list[ev.Event]:
        """After a round that did not solve the module: the chips leave the table and a deck
        with fewer than 26 cards is replaced, using the solved count of this moment."""
        if not self.round_pending:
            return []
        self.round_pending = False
        deck = self._require_deck()
        self.stacks = {area: [] for area in AREAS}
        out: list[ev.Event] = [ev.ChipsCleared()]
        if self.cards_left < REPLACE_BELOW:
            color = self.rng.choice([c for c in COLORS if c != deck.color])
            out.append(self._new_deck(color, replaces=deck.color))
        return out

    def set_solved(self, solved: int) -> list[ev.Event]:
        """The bomb's solved count changed; the next deck uses it."""
        self.edgework = self.edgework.with_solved(solved)
        return [ev.SolvedCountChanged(self.edgework.solved)]

    # -- game-master commands -------------------------------------------------
    def set_edgework(self, edgework: Edgework) -> list[ev.Event]:
        """New edgework; the current deck is re-dealt from it (same colour, and the solved count it
        appeared with: a new solved count is the next deck's, as with :meth:`set_solved`). Edgework
        that differs only in its solved count re-deals nothing."""
        deck = self._require_deck()
        only_solved = edgework.with_solved(self.edgework.solved) == self.edgework
        self.edgework = edgework
        self.edgework_drawn = False
        changed = self._edgework_event()
        if only_solved:
            return [changed]
        return [changed, self._new_deck(deck.color, solved=deck.solved)]

    def set_limits(self, limits: TableLimits) -> list[ev.Event]:
        """New placard; the current deck is re-dealt from it (same colour, and the solved count it
        appeared with)."""
        deck = self._require_deck()
        self.limits = limits
        self.limits_random = False
        return [ev.LimitsSet(limits.minimum, limits.maximum, False), self._new_deck(deck.color, solved=deck.solved)]

    def reset(self, limits: TableLimits | None = None) -> list[ev.Event]:
        """A fresh game: new limits (random unless given), new deck, no chips, no strikes; with
        random edgework, the next game's bomb (keeping the bomb's solved count)."""
        self.game = min(self.game + 1, MAX_GAMES)
        drawn: list[ev.Event] = []
        if self.bombs is not None:
            self.edgework = self.bombs.bomb(self.game, self.rng).with_solved(self.edgework.solved)
            self.edgework_drawn = True
            drawn.append(self._edgework_event())
        self.limits_random = limits is None
        self.limits = limits if limits is not None else random_limits(self.rng)
        self.stacks = {area: [] for area in AREAS}
        self.denomination_index = 0
        self.reset_status()
        self.round_pending = False
        old = self.deck.color if self.deck else None
        color = self.rng.choice([c for c in COLORS if c != old])
        return [
            ev.ModuleReset(),
            *drawn,
            ev.LimitsSet(self.limits.minimum, self.limits.maximum, self.limits_random),
            self._new_deck(color),
        ]

    # -- state that survives a restart ----------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """What survives a restart, as JSON-ready data (:func:`baccarat_core.snapshot.snapshot`)."""
        from .snapshot import snapshot

        return snapshot(self)

    @classmethod
    def restore(
        cls,
        state: dict[str, Any],
        *,
        rng: random.Random | None = None,
        bombs: RandomBombs | None = None,
        rules: BombRules | None = None,
    ) -> BaccaratModule:
        """Rebuild a module from :meth:`snapshot`, strictly (:func:`baccarat_core.snapshot.restore`)."""
        from .snapshot import restore

        return restore(cls, state, rng=rng, bombs=bombs, rules=rules)

    # -- internals --------------------------------------------------------------
    def _edgework_event(self) -> ev.EdgeworkChanged:
        e = self.edgework
        return ev.EdgeworkChanged(
            e.serial, e.ports, e.lit, e.unlit, e.solved, e.batteries, e.plates, drawn=self.edgework_drawn
        )

    def _require_deck(self) -> Deck:
        if self.deck is None:
            raise BaccaratError("the module has not started: call start() first")
        return self.deck

    def _new_deck(self, color: str, replaces: str | None = None, *, solved: int | None = None) -> ev.DeckAppeared:
        """Deal a deck of ``color``: with the bomb's solved count of this moment, or ``solved`` (the
        count a deck that is re-dealt appeared with)."""
        deck = build_deck(self.edgework, self.limits, color, self.edgework.solved if solved is None else solved)
        self.deck = deck
        self.position = 0
        return deck_event(deck, replaces)

    def _play(self, bets: dict[str, int]) -> list[ev.Event]:
        game = play_round(self._require_deck().cards[self.position :])
        self.position += len(game.order)
        out, profit = round_events(game, bets)
        if profit > 0:
            return out + self._win()
        if profit < 0:
            out += self._strike("loss", f"the round lost {format_cents(-profit)}")
        self.round_pending = True
        return out


def exclusive_problem(bets: dict[str, int]) -> str | None:
    """Why the bets are not exactly one of Player and Banker, or None (the deal's first check)."""
    placed = [a for a in MAIN_AREAS if bets[a]]
    if len(placed) == 1:
        return None
    if placed:
        return f"bets on both Player ({format_dollars(bets['player'])}) and Banker ({format_dollars(bets['banker'])})"
    return "no bet on Player or Banker"


def limits_problem(bets: dict[str, int], limits: TableLimits) -> str | None:
    """The first bet outside the table's limits (or the side-bet limits), or None (the second check)."""
    for area in MAIN_AREAS:
        if bets[area] and not limits.allows(bets[area]):
            return f"{_AREA_NAMES[area]} bet {format_dollars(bets[area])} is outside the limits {limits.placard()}"
    for area in SIDE_AREAS:
        if bets[area] and not limits.allows_side(bets[area]):
            return (
                f"{_AREA_NAMES[area]} bet {format_dollars(bets[area])} is outside the side-bet "
                f"limits {limits.side_placard()}"
            )
    return None


def round_events(game: Round, bets: dict[str, int]) -> tuple[list[ev.Event], int]:
    """A round's events as the players see them (each card with its hand's score, then the result
    and each bet's payout) and the profit of ``bets`` in cents."""
    out: list[ev.Event] = []
    hands: dict[str, list[Card]] = {"player": [], "banker": []}
    for hand, card in game.order:
        hands[hand].append(card)
        out.append(ev.CardDealt(hand, str(card), hand_score(hands[hand])))
    results = bet_results(game, bets)
    profit = sum(results.values())
    player, banker = tuple(map(str, game.player)), tuple(map(str, game.banker))
    out.append(ev.RoundPlayed(player, banker, game.player_score, game.banker_score, game.winner, profit, results))
    return out, profit


def deck_event(deck: Deck, replaces: str | None = None) -> ev.DeckAppeared:
    """The event of ``deck`` appearing (in place of a deck of the colour ``replaces``)."""
    return ev.DeckAppeared(
        deck.color,
        deck.solved,
        deck.unshuffled,
        deck.first_index,
        deck.multiplier,
        deck.letter,
        deck.digit,
        deck.port_name,
        str(deck.cards[0]),
        replaces,
    )
