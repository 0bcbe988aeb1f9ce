"""The Baccarat module as a state machine.

Every method takes one input and returns the events it caused, in order.
Randomness (table limits, the colour of a replacement deck) comes from the
``random.Random`` passed in, so a seed replays a whole game.
"""

from __future__ import annotations

import json
import random
from typing import Any

from . import events as ev
from .bets import bet_inputs
from .bomb import RandomBombs, check_game
from .cards import Card, hand_score
from .chips import DENOMINATIONS, is_ordered, reorder
from .deck import COLORS, Deck, build_deck, check_color
from .edgework import Edgework, check_solved
from .errors import BaccaratError
from .inputs import Arrow, Deal, Hold, Input, Press, SetSolved, check_area
from .limits import TableLimits, random_limits
from .numbers import check_count, format_cents, format_dollars, show_value
from .rounds import AREAS, MAIN_AREAS, SIDE_AREAS, Round, bet_results, play_round
from .strict import MAX_GAMES, MAX_STRIKES, check_bool, check_keys, check_limits
from .timer import CAUSES, BombRules, Countdown, check_seconds, rate_after

#: A deck with fewer cards than this left after a round is replaced.
REPLACE_BELOW = 26

_AREA_NAMES = ev.AREA_NAMES

_SNAPSHOT_KEYS = frozenset({"edgework", "limits", "deck", "position", "denomination", "strikes", "solved"})
_SNAPSHOT_OPTIONAL = frozenset(
    {"limits_random", "round_pending", "enabled", "game", "edgework_drawn", "exploded", "timer"}
)
_EDGEWORK_KEYS = frozenset({"serial", "ports", "lit", "unlit", "solved"})
_EDGEWORK_OPTIONAL = frozenset({"batteries", "plates"})
_DECK_KEYS = frozenset({"color", "unshuffled", "cards", "solved", "letter", "digit", "port_column"})
_DECK_OPTIONAL = frozenset({"first_index", "multiplier"})


class BaccaratModule:
    """One Baccarat module: limits, deck, chips, strikes and the solved flag.

    With ``bombs`` (random edgework) each reset draws the next game's bomb from it, and an
    ``edgework`` of None draws the first game's; without, the edgework stays until the game
    master sets another. ``rules`` are the bomb's countdown and strike limit
    (:class:`~baccarat_core.timer.BombRules`): the module explodes at the strike limit by itself;
    its countdown (:attr:`timer`) counts only as far as its owner advances it, and the owner calls
    :meth:`expire` when it reaches 0.

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
        self.rng = rng if rng is not None else random.Random()
        #: The bomb's countdown and strike limit (``[bomb]``).
        self.rules = rules if rules is not None else BombRules()
        #: The countdown (None: the bomb has no timer); its owner advances it with a clock.
        self.timer: Countdown | None = (
            Countdown(self.rules.timer_seconds) if self.rules.timer_seconds is not None else None
        )
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
        self.strikes = 0
        self.solved = False
        #: False while the game master has closed the table: player inputs are ignored.
        self.enabled = True
        #: A round was played and its chips are still on the table: :meth:`finish_round` is due.
        self.round_pending = False
        #: Why the bomb exploded (``timer`` or ``strikes``), or None; an exploded module takes no input.
        self.exploded: str | None = None

    # -- starting -----------------------------------------------------------
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

    # -- reading ------------------------------------------------------------
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
        problem = self._exclusive_problem(bets)
        if problem:
            return out + self._strike("exclusive", problem)
        problem = self._limits_problem(bets)
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
        self.strikes = 0
        self.solved = False
        self.exploded = None
        if self.timer is not None:
            self.timer.reset()
        self.round_pending = False
        old = self.deck.color if self.deck else None
        color = self.rng.choice([c for c in COLORS if c != old])
        return [
            ev.ModuleReset(),
            *drawn,
            ev.LimitsSet(self.limits.minimum, self.limits.maximum, self.limits_random),
            self._new_deck(color),
        ]

    def set_enabled(self, enabled: bool) -> list[ev.Event]:
        """The game master opens (True) or closes (False) the table; a closed table ignores
        every player input. A reset does not reopen it."""
        if enabled == self.enabled:
            return []
        self.enabled = enabled
        if self.timer is not None:
            self.timer.resume() if enabled else self.timer.pause()
        return [ev.EnabledChanged(enabled)]

    def force_solve(self) -> list[ev.Event]:
        """The game master solves the module."""
        if self.solved or self.exploded:
            return [ev.InputIgnored("force solve", "solved" if self.solved else "exploded")]
        self.solved = True
        self._stop_timer()
        return [ev.Solved(forced=True)]

    def start_timer(self) -> list[ev.Event]:
        """The game master starts the countdown now, as the players' first input would (paused
        while the table is closed); nothing if it runs already or the game is over."""
        if self.timer is None:
            raise BaccaratError("this bomb has no timer (set [bomb] timer_seconds)")
        if self.solved or self.exploded or not self.timer.start(paused=not self.enabled):
            return []
        return [ev.TimerStarted(round(self.timer.left, 1), forced=True)]

    def add_time(self, seconds: float) -> list[ev.Event]:
        """The game master adds ``seconds`` to the countdown (takes them away when negative; at 0
        the bomb explodes). Refused (an ``ignored`` event) once the game is over."""
        if self.timer is None:
            raise BaccaratError("this bomb has no timer (set [bomb] timer_seconds)")
        seconds = check_seconds(seconds, "time to add")
        if refused := self._over("add time"):
            return refused
        self.timer.add(seconds)
        out: list[ev.Event] = [ev.TimeAdded(seconds, round(self.timer.left, 1))]
        return out + (self.explode("timer") if self.timer.done else [])

    def expire(self) -> list[ev.Event]:
        """The countdown reached 0 (its owner says so): the bomb explodes."""
        if self.timer is None or not self.timer.done:
            return []
        return self.explode("timer")

    def explode(self, cause: str) -> list[ev.Event]:
        """The bomb explodes (``cause``: ``timer`` or ``strikes``): the countdown stops, and every
        player input is ignored until a reset. Nothing once the game is over."""
        if cause not in CAUSES:
            raise BaccaratError(f"cause {show_value(cause)} is not one of {', '.join(CAUSES)}")
        if self.solved or self.exploded:
            return []
        self.exploded = cause
        self._stop_timer()
        if cause == "timer" and self.timer is not None:
            self.timer.left = 0.0
        return [ev.Exploded(cause, self.strikes)]

    # -- state that survives a restart ----------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """What survives a restart, as JSON-ready data (bets on the table are not kept)."""
        deck = self._require_deck()
        bomb: dict[str, Any] = {}  # only with a bomb around the module: older saved games read the same
        if self.exploded is not None:
            bomb["exploded"] = self.exploded
        if self.timer is not None:
            bomb["timer"] = self.timer.to_dict()
        return {
            "edgework": self.edgework.to_dict(),
            "limits": self.limits.to_dict(),
            "limits_random": self.limits_random,
            "deck": {
                **deck.to_dict(),
                "solved": deck.solved,
                "letter": deck.letter,
                "digit": deck.digit,
                "port_column": deck.port_column,
            },
            "position": self.position,
            "denomination": self.denomination,
            "strikes": self.strikes,
            "solved": self.solved,
            "enabled": self.enabled,
            "round_pending": self.round_pending,
            "game": self.game,
            "edgework_drawn": self.edgework_drawn,
            **bomb,
        }

    @classmethod
    def restore(
        cls,
        state: dict[str, Any],
        *,
        rng: random.Random | None = None,
        bombs: RandomBombs | None = None,
        rules: BombRules | None = None,
    ) -> BaccaratModule:
        """Rebuild a module from :meth:`snapshot` (bets on the table are not kept); ``bombs`` draws
        the bombs of the resets to come (random edgework); ``rules`` are the bomb's (a saved
        countdown must be one of ``rules.timer_seconds``, and there must be one when they have it).

        The schema is strict: every key known and of its exact type (``"false"`` is not
        false, ``1.9`` or ``"2"`` is not a number of strikes), every number within its
        bounds, and the deck exactly the one its colour, edgework, limits and solved
        count deal. Anything else is a :class:`BaccaratError` naming the first problem.
        """
        s = check_keys(state, "saved state", required=_SNAPSHOT_KEYS, optional=_SNAPSHOT_OPTIONAL)
        limits_data = check_keys(s["limits"], "saved limits", required=frozenset({"min", "max"}))
        limits = check_limits(limits_data["min"], limits_data["max"])
        edgework = Edgework.from_dict(
            check_keys(s["edgework"], "saved edgework", required=_EDGEWORK_KEYS, optional=_EDGEWORK_OPTIONAL)
        )
        d = check_keys(s["deck"], "saved deck", required=_DECK_KEYS, optional=_DECK_OPTIONAL)
        color = d["color"]
        if not isinstance(color, str) or color not in COLORS:
            raise BaccaratError(f"saved deck colour {show_value(color)} is not one of {', '.join(COLORS)}")
        deck = build_deck(edgework, limits, color, check_solved(d["solved"]))
        expected = {
            **deck.to_dict(),
            "solved": deck.solved,
            "letter": deck.letter,
            "digit": deck.digit,
            "port_column": deck.port_column,
        }
        # Compared as JSON, so that true is not 1 and 3.0 is not 3.
        if json.dumps(d, sort_keys=True) != json.dumps(expected, sort_keys=True):
            raise BaccaratError("saved deck is not the deck its colour, edgework, limits and solved count deal")
        module = cls(edgework, limits, rng=rng, bombs=bombs, rules=rules)
        module.deck = deck
        module.position = check_count(s["position"], "saved deck position", maximum=52 - 6)
        denomination = s["denomination"]
        if isinstance(denomination, bool) or not isinstance(denomination, int) or denomination not in DENOMINATIONS:
            raise BaccaratError(f"saved active chip {show_value(denomination)} is not a chip value")
        module.denomination_index = DENOMINATIONS.index(denomination)
        module.strikes = check_count(s["strikes"], "saved strikes", maximum=MAX_STRIKES)
        module.solved = check_bool(s["solved"], "saved solved flag")
        module.limits_random = check_bool(s.get("limits_random", False), "saved limits_random")
        module.round_pending = check_bool(s.get("round_pending", False), "saved round_pending")
        module.enabled = check_bool(s.get("enabled", True), "saved enabled flag")
        module.game = check_game(s.get("game", 1))
        module.edgework_drawn = check_bool(s.get("edgework_drawn", False), "saved edgework_drawn flag")
        exploded = s.get("exploded")
        if exploded is not None and exploded not in CAUSES:
            raise BaccaratError(f"saved explosion cause {show_value(exploded)} is not one of {', '.join(CAUSES)}")
        if exploded is not None and module.solved:
            raise BaccaratError("saved game is both solved and exploded")
        module.exploded = exploded
        saved_timer = s.get("timer")
        seconds = module.rules.timer_seconds
        if seconds is None:
            if saved_timer is not None:
                raise BaccaratError("saved game has a timer, and the bomb has none")
        else:
            if saved_timer is None:
                raise BaccaratError("saved game has no timer, and the bomb has one")
            module.timer = Countdown.from_dict(saved_timer, seconds)
            module.timer.rate = module._rate()
        return module

    # -- internals --------------------------------------------------------------
    def _refuse(self, what: str) -> list[ev.Event]:
        """``[InputIgnored]`` when a player input cannot be taken now, else ``[]``."""
        if refused := self._over(what):
            return refused
        if not self.enabled:
            return [ev.InputIgnored(what, "disabled")]
        return []

    def _over(self, what: str) -> list[ev.Event]:
        """``[InputIgnored]`` once the game is over (solved or exploded), else ``[]``."""
        if self.exploded:
            return [ev.InputIgnored(what, "exploded")]
        if self.solved:
            return [ev.InputIgnored(what, "solved")]
        return []

    def _first_input(self) -> list[ev.Event]:
        """A player input was taken: the countdown starts if it waits for one."""
        if self.timer is None or not self.timer.start():
            return []
        return [ev.TimerStarted(round(self.timer.left, 1))]

    def _rate(self) -> float:
        """The countdown's rate for the strikes so far."""
        return rate_after(self.strikes) if self.rules.speed_up else 1.0

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.stop()

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

    def _strike(self, reason: str, detail: str) -> list[ev.Event]:
        """A strike: the countdown runs faster, and at the strike limit the bomb explodes."""
        self.strikes += 1
        out: list[ev.Event] = [ev.Strike(reason, detail, self.strikes)]
        if self.timer is not None:
            self.timer.rate = self._rate()
        limit = self.rules.strike_limit
        if limit is not None and self.strikes >= limit:
            out += self.explode("strikes")
        return out

    def _exclusive_problem(self, bets: dict[str, int]) -> str | None:
        placed = [a for a in MAIN_AREAS if bets[a]]
        if len(placed) == 1:
            return None
        if placed:
            return (
                f"bets on both Player ({format_dollars(bets['player'])}) and Banker ({format_dollars(bets['banker'])})"
            )
        return "no bet on Player or Banker"

    def _limits_problem(self, bets: dict[str, int]) -> str | None:
        for area in MAIN_AREAS:
            if bets[area] and not self.limits.allows(bets[area]):
                return (
                    f"{_AREA_NAMES[area]} bet {format_dollars(bets[area])} is outside the limits "
                    f"{self.limits.placard()}"
                )
        for area in SIDE_AREAS:
            if bets[area] and not self.limits.allows_side(bets[area]):
                return (
                    f"{_AREA_NAMES[area]} bet {format_dollars(bets[area])} is outside the side-bet "
                    f"limits {self.limits.side_placard()}"
                )
        return None

    def _play(self, bets: dict[str, int]) -> list[ev.Event]:
        deck = self._require_deck()
        game = play_round(deck.cards[self.position :])
        self.position += len(game.order)
        out: list[ev.Event] = []
        hands: dict[str, list[Card]] = {"player": [], "banker": []}
        for hand, card in game.order:
            hands[hand].append(card)
            out.append(ev.CardDealt(hand, str(card), hand_score(hands[hand])))
        results = bet_results(game, bets)
        profit = sum(results.values())
        out.append(
            ev.RoundPlayed(
                tuple(map(str, game.player)),
                tuple(map(str, game.banker)),
                game.player_score,
                game.banker_score,
                game.winner,
                profit,
                results,
            )
        )
        if profit > 0:
            self.solved = True
            self._stop_timer()
            out.append(ev.Solved())
            return out
        if profit < 0:
            out += self._strike("loss", f"the round lost {format_cents(-profit)}")
        self.round_pending = True
        return out
