"""What each display shows: a pure function of the module and what the daemon has shown of a round.

The daemon keeps two small pieces of presentation state: :class:`RoundOnTable`
(the cards of the round being dealt, how many have landed face down, how many
are face up, and whether the result is shown) and :class:`BetsOnTable` (the
stacks the bets display shows while they differ from the module's: a stack
being re-stacked, the losing bets taken at the payout). Everything else comes
from the module itself. The module keeps a round's chips until the daemon
finishes the round.

A deal is decided at its gesture, but shown over seconds: :class:`Shown` is the
game as the players can see it so far (the strikes, the solve, the cards left
and the stacks), which every view and every published state reads, so that
nothing gives the result away before the table shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from gettext import NullTranslations

from PIL import Image

from baccarat_core import BaccaratModule, TableLimits
from baccarat_core import events as ev
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.events import ENGLISH
from baccarat_core.numbers import format_cents
from baccarat_core.records import field, record, replace
from baccarat_core.rounds import AREAS
from firmware.devices.wiring import ROLES
from firmware.render import (
    BetsView,
    CasingView,
    ExplodedView,
    TableView,
    render_bets,
    render_placard,
    render_table,
)
from firmware.render.views import FOOTERS, WINNERS

#: What a display role shows: its own view, or the explosion.
View = TableLimits | TableView | BetsView | CasingView | ExplodedView

_WINNERS = WINNERS  # render_table says them in [display] language


@record
class RoundOnTable:
    """The round the table display shows: its cards in dealing order, how many have landed (face
    down or up), how many of those are face up, and its result once shown. It stays until the
    next player input. Cards land and turn in dealing order."""

    cards: tuple[ev.CardDealt, ...]
    shown: int = 0
    result: ev.RoundPlayed | None = None
    landed: int = 0

    @property
    def placed(self) -> int:
        """How many cards are on the table, face down or up."""
        return max(self.landed, self.shown)

    def land_card(self) -> RoundOnTable:
        """One more card on the table, face down."""
        return replace(self, landed=min(self.placed + 1, len(self.cards)))

    def turn_card(self) -> RoundOnTable:
        """One more card face up (landing it first if it was not on the table yet)."""
        shown = min(self.shown + 1, len(self.cards))
        return replace(self, shown=shown, landed=max(self.placed, shown))

    def show_result(self, result: ev.RoundPlayed) -> RoundOnTable:
        """Every card face up and the result shown."""
        return replace(self, shown=len(self.cards), landed=len(self.cards), result=result)


@record
class BetsOnTable:
    """The stacks the bets display shows instead of the module's, and the areas whose stacks the
    dealer is re-stacking (marked on the display)."""

    stacks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    restacking: tuple[str, ...] = ()


@record
class Shown:
    """The game as the players can see it now: a deal's strike, solve and cards count only once
    the table shows them (:meth:`firmware.game.daemon.Daemon.shown`)."""

    strikes: int
    solved: bool
    cards_left: int
    stacks: dict[str, tuple[int, ...]]
    #: The bomb exploded (its cause, ``timer`` or ``strikes``): a strike limit reached by a
    #: deal's loss shows with the loss.
    exploded: str | None = None

    @classmethod
    def of(cls, module: BaccaratModule) -> Shown:
        """The module's own state, for a module with nothing still to show."""
        return cls(
            module.strikes,
            module.solved,
            module.cards_left,
            {a: tuple(module.stacks[a]) for a in AREAS},
            module.exploded,
        )


@record
class Scene:
    """The views, one per display role; once the bomb exploded every role but the casing shows
    the explosion."""

    placard: TableLimits
    table: TableView
    bets: BetsView
    #: Every display inverted: the game master's "identify" (which prop is this?).
    inverted: bool = False
    casing: CasingView | None = None
    #: The bomb exploded: what every display but the casing shows.
    exploded: ExplodedView | None = None

    def view(self, role: str) -> View:
        """The view of ``role`` (one of :data:`~firmware.devices.wiring.ROLES`)."""
        if role not in ROLES:
            raise KeyError(f"no display role {role!r}")
        if self.exploded is not None and role != "casing":
            return self.exploded
        view: View | None = getattr(self, role)
        if view is None:
            raise KeyError(f"no view for display role {role!r}")
        return view


def result_text(result: ev.RoundPlayed) -> str:
    """``PLAYER WINS +$25.00``, ``TIE $0.00``: the table's footer after a round."""
    return f"{_WINNERS[result.winner]} {format_cents(result.profit_cents, signed=True)}"


def table_view(module: BaccaratModule, on_table: RoundOnTable | None) -> TableView:
    """The table display: the deck, and the round on the table as far as it is shown."""
    color = module.deck.color if module.deck is not None else "red"
    idle = FOOTERS[2] if module.solved else FOOTERS[0] if module.enabled else FOOTERS[1]
    return deck_view(color, module.cards_left, on_table, idle)


def deck_view(color: str, left: int, on_table: RoundOnTable | None, idle: str = "PLACE YOUR BETS") -> TableView:
    """The table display from plain values (:func:`table_view`'s, and a recorded game's replay):
    ``left`` is what the deck holds with every card of ``on_table`` dealt, ``idle`` the footer
    while no round is on the table."""
    if on_table is None:
        return TableView(color, left, status=idle)
    hands: dict[str, list[str]] = {"player": [], "banker": []}
    down = {"player": 0, "banker": 0}
    scores: dict[str, int | None] = {"player": None, "banker": None}
    for number, card in enumerate(on_table.cards[: on_table.placed]):
        if number < on_table.shown:
            hands[card.hand].append(card.card)
            scores[card.hand] = card.score
        else:
            down[card.hand] += 1
    result = result_text(on_table.result) if on_table.result is not None else None
    return TableView(
        color,
        deck_count(left, on_table),
        tuple(hands["player"]),
        tuple(hands["banker"]),
        scores["player"],
        scores["banker"],
        result,
        FOOTERS[3] if result is None else result,
        down["player"],
        down["banker"],
    )


def cards_left(module: BaccaratModule, on_table: RoundOnTable | None) -> int:
    """The cards left in the deck as the table shows it: the module has moved past the round
    already, and the round's cards not yet on the table are still in the deck."""
    return deck_count(module.cards_left, on_table)


def deck_count(left: int, on_table: RoundOnTable | None) -> int:
    """:func:`cards_left` from plain values: ``left`` once every card of ``on_table`` is dealt."""
    if on_table is None:
        return left
    return left + len(on_table.cards) - on_table.placed


def bets_view(module: BaccaratModule, on_table: BetsOnTable | None = None) -> BetsView:
    """The bets display: the five stacks bottom to top (``on_table``'s while the daemon shows
    stacks of its own) and the active chip."""
    stacks = on_table.stacks if on_table is not None else {area: tuple(module.stacks[area]) for area in AREAS}
    return stacks_view(stacks, module.denomination, on_table.restacking if on_table is not None else ())


def stacks_view(stacks: Mapping[str, Sequence[int]], denomination: int, restacking: tuple[str, ...] = ()) -> BetsView:
    """The bets display from plain values (:func:`bets_view`'s, and a recorded game's replay):
    each area's stack bottom to top (a missing area is empty), the active chip's value and the
    areas being re-stacked."""
    index = DENOMINATIONS.index(denomination)
    return BetsView(
        {area: tuple(stacks.get(area, ())) for area in AREAS},
        denomination,
        index > 0,
        index < len(DENOMINATIONS) - 1,
        restacking,
    )


def casing_view(module: BaccaratModule, shown: Shown | None = None) -> CasingView:
    """The casing display: the serial, the countdown's whole seconds shown (as of its last reading),
    the strikes and how the game stands (as the players see it, ``shown``: a deal's strike,
    solve or explosion once its result is on the table)."""
    seen = shown if shown is not None else Shown.of(module)
    timer = module.timer
    state = "exploded" if seen.exploded else "solved" if seen.solved else "armed"
    return CasingView(
        module.edgework.serial,
        timer.shown() if timer is not None else None,
        seen.strikes,
        module.rules.strike_limit,
        state,
    )


def compose(
    module: BaccaratModule,
    on_table: RoundOnTable | None = None,
    *,
    bets: BetsOnTable | None = None,
    inverted: bool = False,
    shown: Shown | None = None,
) -> Scene:
    """What every display shows now (``inverted`` while the game master identifies the prop;
    ``shown``: the game as the players may see it, during a deal whose result is not yet on
    the table; the module's own state without it)."""
    seen = shown if shown is not None else Shown.of(module)
    exploded = ExplodedView(seen.exploded, seen.strikes) if seen.exploded else None
    return Scene(
        module.limits,
        table_view(module, on_table),
        bets_view(module, bets),
        inverted,
        casing_view(module, seen),
        exploded,
    )


def render_view(
    role: str,
    view: View,
    size: tuple[int, int],
    mode: str,
    *,
    inverted: bool = False,
    colour: bool = False,
    t: NullTranslations = ENGLISH,
) -> Image.Image:
    """Draw one role's view at a display's size and mode (pure: nothing is sent); ``colour`` for a
    display that shows colours, not only grey levels (the placard takes its minimum's colour);
    ``t``: the catalog of ``[display] language`` (the original's English without one)."""
    if isinstance(view, ExplodedView):
        from firmware.render.exploded import render_exploded  # a bomb's end only: not loaded at start

        image = render_exploded(view, size, mode, t)
    elif role == "placard" and isinstance(view, TableLimits):
        image = render_placard(view, size, mode, colour=colour, t=t)
    elif role == "table" and isinstance(view, TableView):
        image = render_table(view, size, mode, t)
    elif role == "bets" and isinstance(view, BetsView):
        image = render_bets(view, size, mode, t)
    elif role == "casing" and isinstance(view, CasingView):
        from firmware.render.casing import render_casing  # a casing display only

        image = render_casing(view, size, mode, t)
    else:
        raise KeyError(f"no renderer for role {role!r} with a {type(view).__name__}")
    return invert(image) if inverted else image


def invert(image: Image.Image) -> Image.Image:
    """Lit pixels dark and dark pixels lit, in the image's own mode."""
    if image.mode == "1":
        return image.point(lambda value: 0 if value else 255)
    return image.point(list(range(255, -1, -1)) * len(image.getbands()))  # ImageOps.invert's table
