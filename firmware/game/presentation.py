"""A deal's presentation: what the players see of a round, step by step, and of the game so far.

A deal is decided at its gesture but presented in steps on a schedule rather
than with sleeps (:mod:`firmware.game.pacing`): with the original's pacing, the
cards land face down 0.25 s apart and turn face up 1 s after they land, the
third cards come sideways after a pause, the bets are paid 0.25 s after the
last card and the round is finished 1.5 s later (chips cleared, the deck
replaced when it runs low); with the quick pacing, each card face up
``card_seconds`` apart and the clearing ``result_seconds`` after the result.
The schedule reads the daemon's clock.

:class:`Presentation` keeps what the daemon has shown so far: the round on the
table (:class:`~firmware.game.scene.RoundOnTable`), the stacks the bets display shows
while they differ from the module's (:class:`~firmware.game.scene.BetsOnTable`), the
events handled and not yet shown, and the round's schedule (:class:`RoundShow`).
From them :meth:`Presentation.shown` is the game as the players can see it: the
strikes, the solve, the cards left and the stacks of a deal count only once the
table shows them. It runs on the game thread and shows through the daemon's
:class:`~firmware.game.stage.Stage` (the hooks, the log and the lights hear of each
event as it is shown; the outputs it names switch first) and the daemon itself,
its :class:`Host` (:class:`firmware.game.daemon.Daemon`: what the outputs did is
handled, the displays draw, the services hear, and what waited for the round's
end runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.rounds import AREAS
from firmware.game.loop import RoundShow, Step
from firmware.game.pacing import Beat, deal_timeline, is_third_card
from firmware.game.scene import (
    BetsOnTable,
    RoundOnTable,
    Scene,
    Shown,
    View,
    bets_view,
    cards_left,
    compose,
    table_view,
)
from firmware.render import ExplodedView

if TYPE_CHECKING:  # the daemon's side: a type only (a Protocol class costs a start 0.5 M instructions)
    from firmware.game.stage import Stage

    class Host(Protocol):
        """What a presentation shows its steps with: the daemon (:class:`firmware.game.daemon.Daemon`), whose
        game-thread internals these are."""

        module: BaccaratModule
        #: ``original`` or ``quick`` (:data:`~firmware.game.pacing.PACINGS`), and the quick pacing's pauses.
        pacing: str
        card_seconds: float
        result_seconds: float

        def clock(self) -> float:
            """What the schedule reads (``time.monotonic`` on the prop)."""

        def _switched(self, switched: list[ev.Event]) -> None:
            """Handle what the outputs did, as a batch of its own."""

        def _draw(self) -> None:
            """Put what is shown now on the displays."""

        def _settled(self) -> None:
            """Hand the events shown so far to the ``on_settled`` hooks."""

        def _round_over(self, waiting: RoundShow) -> None:
            """The round ``waiting`` is finished: what waited for its end runs."""


class Presentation:
    """What the players see of the game: a deal shown step by step (see the module)."""

    def __init__(self, host: Host, stage: Stage) -> None:
        self._host = host
        self.module = host.module
        self.clock = host.clock
        self._reveal = stage.reveal  # the hooks, the log and the lights hear of an event as it is shown
        self._switch = stage.switch  # the outputs an event names switch (pins only: no hook yet)
        self._switched = host._switched
        self._draw = host._draw
        self._settled = host._settled
        self._round_over = host._round_over
        self._on_table: RoundOnTable | None = None
        self._bets: BetsOnTable | None = None  # stacks the bets display shows instead of the module's
        self._hidden: list[ev.Event] = []  # a deal's events handled and not yet shown
        self._stacks: dict[str, tuple[int, ...]] = {}  # the module's stacks after the last batch
        self._round: RoundShow | None = None
        self._shown: tuple[object, object, Shown] | None = None  # what shown() made, and from what
        self._views: dict[str, tuple[tuple[object, ...], View]] = {}  # what view() made, and from what

    @property
    def pacing(self) -> str:
        """The daemon's pacing, as it is now."""
        return self._host.pacing

    @property
    def round(self) -> RoundShow | None:
        """The round being shown, from its gesture until it is finished; None between rounds."""
        return self._round

    # -- what is shown --------------------------------------------------------------------------
    def shown(self) -> Shown:
        """The game as the players can see it now: during a deal, the strikes and the solve of its
        result only once the result is shown, the cards left as they land, the stacks as the bets
        display shows them. The same object until one of these changes (treat it as read-only): the
        displays, the status line and the state document ask for it each time the game thread settles."""
        module = self.module
        key = (module.strikes, module.solved, module.exploded, module.cards_left, self._stacks_now(), self._on_table)
        if self._shown is not None and self._shown[0] == key and self._shown[1] == (self._bets, self._hidden):
            return self._shown[2]
        shown = self._shown_now()
        self._shown = (key, (self._bets, self._hidden), shown)
        return shown

    def _shown_now(self) -> Shown:
        hidden = self._hidden
        stacks = self._bets.stacks if self._bets is not None else self.module.stacks
        return Shown(
            self.module.strikes - sum(isinstance(event, ev.Strike) for event in hidden),
            self.module.solved and not any(isinstance(event, ev.Solved) for event in hidden),
            cards_left(self.module, self._on_table),
            {area: tuple(stacks.get(area, ())) for area in AREAS},
            None if any(isinstance(event, ev.Exploded) for event in hidden) else self.module.exploded,
        )

    def scene(self, *, inverted: bool = False) -> Scene:
        """Every display's view now."""
        return compose(self.module, self._on_table, bets=self._bets, inverted=inverted, shown=self.shown())

    def view(self, role: str) -> View:
        """What ``role``'s display shows now: :meth:`scene`'s view of it, made alone (a draw asks for
        the displays the prop has, no others), and the same object as before while what it is made
        of is the same (then the draw's comparison with the view on the display costs nothing)."""
        module, hidden = self.module, self._hidden
        exploded = None if hidden and any(isinstance(e, ev.Exploded) for e in hidden) else module.exploded
        if exploded and role != "casing":
            strikes = module.strikes - sum(isinstance(event, ev.Strike) for event in hidden)
            return self._cached("exploded", (exploded, strikes), lambda: ExplodedView(exploded, strikes))
        if role == "placard":
            return module.limits
        if role == "table":
            deck, on_table = module.deck, self._on_table
            key: tuple[object, ...] = (
                deck.color if deck else None,
                module.cards_left,
                module.solved,
                module.enabled,
                on_table,
            )
            return self._cached("table", key, lambda: table_view(module, on_table))
        if role == "bets":
            bets = self._bets
            key = (module.denomination, bets, self._stacks_now() if bets is None else None)
            return self._cached("bets", key, lambda: bets_view(module, bets))
        return self.scene().view(role)  # the casing's (and a KeyError for a role there is none of)

    def _cached(self, name: str, key: tuple[object, ...], make: Callable[[], View]) -> View:
        made = self._views.get(name)
        if made is not None and made[0] == key:
            return made[1]
        view = make()
        self._views[name] = (key, view)
        return view

    def _stacks_now(self) -> tuple[tuple[int, ...], ...]:
        """The module's stacks, bottom to top, as plain values (they change in place)."""
        return tuple(map(tuple, self.module.stacks.values()))

    def resume(self) -> None:
        """Before the first batch: the stacks the module starts with."""
        self._stacks = {area: tuple(stack) for area, stack in self.module.stacks.items()}

    def clear_table(self) -> None:
        """The next input takes the last hands off the table."""
        self._on_table = None

    def present(self, event: ev.Event) -> None:
        """Show one event: the daemon tells of it, and what the table shows follows it."""
        if self._hidden:
            self._hidden = [hidden for hidden in self._hidden if hidden is not event]
        self._reveal(event)
        if isinstance(event, ev.ModuleReset):
            self._on_table = None
            self._bets = None
        elif isinstance(event, ev.ChipsCleared):
            self._bets = None

    # -- a batch -------------------------------------------------------------------------------------
    def handle(self, events: list[ev.Event]) -> None:
        """Show a batch the hooks have: at once, or, for a deal, step by step on the schedule of
        :mod:`firmware.game.pacing` (call after the module made it, before anything else is shown)."""
        before, self._stacks = self._stacks, {area: tuple(stack) for area, stack in self.module.stacks.items()}
        cards = [event for event in events if isinstance(event, ev.CardDealt)]
        if not cards:
            self._show(events)
            return
        first = events.index(cards[0])
        start = max((i for i, event in enumerate(events[:first]) if isinstance(event, ev.DealStarted)), default=-1)
        last = events.index(cards[-1])
        head, checks, tail = events[: start + 1], events[start + 1 : first], events[last + 1 :]
        self._hidden = events[start + 1 :]
        switched = self._switch(head + checks)  # the deal's output, a strike at the gesture: first
        for event in head:  # what came before the gesture, and the gesture
            self.present(event)
        self._on_table = RoundOnTable(tuple(cards))
        original = self.pacing == "original"
        reorder = next((e for e in checks if isinstance(e, ev.ChipsReordered)), None)
        for event in checks:  # the stack-order strike at the gesture, as the original
            if event is not reorder or not original:
                self.present(event)
        if reorder is not None and original:  # the stacks as they were placed, marked
            placed = _replay(before, head)
            self._bets = BetsOnTable({**self._stacks, **placed}, tuple(reorder.stacks))
        hands = [card.hand for card in cards]
        beats = deal_timeline(
            hands,
            solved=any(isinstance(event, ev.Solved) for event in tail),
            restack=reorder is not None and original,
            pacing=self.pacing,
            card_seconds=self._host.card_seconds,
            result_seconds=self._host.result_seconds,
        )
        now = self.clock()
        pay = next((beat.at for beat in beats if beat.what == "pay"), None)
        self._round = RoundShow(
            [Step(now + beat.at, self._step(beat, cards, reorder, tail)) for beat in beats],
            result_at=float("inf") if pay is None else now + pay,
        )
        self._switched(switched)
        self._run_due_steps()

    def _show(self, events: list[ev.Event]) -> None:
        """Show events of one moment: the outputs they name switch first, then each is presented."""
        switched = self._switch(events)
        for event in events:
            self.present(event)
        self._switched(switched)

    # -- the schedule -------------------------------------------------------------------------------
    def next_due(self) -> float:
        """When the next step of the round being shown is due (on the clock); ``inf`` for none."""
        return self._round.steps[0].due if self._round is not None and self._round.steps else float("inf")

    def _step(
        self, beat: Beat, cards: list[ev.CardDealt], reorder: ev.ChipsReordered | None, tail: list[ev.Event]
    ) -> Callable[[], None]:
        """What the daemon does at ``beat``."""
        if beat.what == "rebuild":
            assert reorder is not None  # deal_timeline rebuilds only when asked to re-stack
            restacking = tuple(reorder.stacks)
            return lambda: self._rebuild(reorder, restacking)
        if beat.what == "restacked":
            return self._restacked
        if beat.what == "land":
            hands = [card.hand for card in cards]
            landed = ev.CardLanded(cards[beat.card].hand, is_third_card(hands, beat.card))
            return lambda: self._land(landed)
        if beat.what == "turn":
            card = cards[beat.card]
            return lambda: self._turn(card)
        if beat.what == "pay":
            return lambda: self._show_result(tail)
        if beat.what == "clear":
            return self._finish_round
        raise ValueError(f"no step for {beat.what!r}")

    def run_due_steps(self) -> None:
        """Run the steps due by the clock, each on the displays before the next."""
        self._run_due_steps()

    def _run_due_steps(self) -> None:
        while self._round is not None and self._round.steps and self._round.steps[0].due <= self.clock():
            step = self._round.steps.pop(0)
            step.run()
            if self._round is not None and self._round.steps:
                self._draw()  # each step is on the displays before the next is due

    def _rebuild(self, reorder: ev.ChipsReordered, restacking: tuple[str, ...]) -> None:
        self._bets = BetsOnTable(dict(self._stacks), restacking)  # the module's stacks: re-ordered
        self.present(reorder)

    def _restacked(self) -> None:
        self._bets = None

    def _land(self, landed: ev.CardLanded) -> None:
        if self._on_table is not None:
            self._on_table = self._on_table.land_card()
        self.present(landed)

    def _turn(self, card: ev.CardDealt) -> None:
        if self._on_table is not None:
            self._on_table = self._on_table.turn_card()
        self.present(card)

    def _show_result(self, tail: list[ev.Event]) -> None:
        """The result and the payout: with the original's pacing the losing bets leave the bets
        display now, the winning ones and the pushes stay until the clearing."""
        switched = self._switch(tail)  # the lock opens as the result shows, before anything else
        for event in tail:
            if isinstance(event, ev.RoundPlayed):
                if self._on_table is not None:
                    self._on_table = self._on_table.show_result(event)
                if self.pacing == "original":
                    self._bets = BetsOnTable(
                        {area: () if event.results.get(area, 0) < 0 else stack for area, stack in self._stacks.items()}
                    )
            self.present(event)
        self._switched(switched)
        if self._round is not None:
            self._round.paid = True
            self._answer(self._round)

    def _answer(self, waiting: RoundShow) -> None:
        """Answer the calls that started ``waiting`` now that its result is shown."""
        replies, waiting.replies = waiting.replies, []
        if not replies:
            return
        self._draw()
        self._settled()  # the events reach the services before the replies
        for future, result in replies:
            future.set_result(result)

    def _finish_round(self) -> None:
        """The end of a round's pause: solved counts that came during it, then the clearing
        (and a new deck), then the calls that waited."""
        waiting = self._round
        self._round = None
        if waiting is None:
            return
        self._hidden = []
        self._answer(waiting)
        self._round_over(waiting)

    def abandon(self) -> RoundShow | None:
        """The prop stops: the round being shown (if any) is shown no further; it is returned, so
        that what waits for it can be answered or failed."""
        waiting, self._round = self._round, None
        return waiting


def _replay(stacks: dict[str, tuple[int, ...]], events: list[ev.Event]) -> dict[str, tuple[int, ...]]:
    """``stacks`` after the chip events among ``events`` (the stacks as placed at a deal's gesture)."""
    out = dict(stacks)
    for event in events:
        if isinstance(event, ev.ChipAdded):
            out[event.area] = event.stack
        elif isinstance(event, ev.AreaCleared):
            out[event.area] = ()
        elif isinstance(event, ev.ChipsCleared | ev.ModuleReset):
            out = {area: () for area in out}
    return out
