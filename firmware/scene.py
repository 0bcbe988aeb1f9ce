"""What each display shows: a pure function of the module and the round on the table.

The daemon keeps one small piece of presentation state, :class:`RoundOnTable`
(the cards of the round being dealt, how many are face up, and whether the
result is shown); everything else comes from the module itself. The module
keeps a round's chips on the table until the daemon finishes the round, so
the bets display needs nothing but the module.
"""

from __future__ import annotations

from PIL import Image

from baccarat_core import BaccaratModule, TableLimits
from baccarat_core import events as ev
from baccarat_core.chips import DENOMINATIONS
from baccarat_core.numbers import format_cents
from baccarat_core.records import record, replace
from baccarat_core.rounds import AREAS

from .devices.wiring import ROLES
from .render import (
    BetsView,
    CasingView,
    ExplodedView,
    TableView,
    render_bets,
    render_casing,
    render_exploded,
    render_placard,
    render_table,
)

#: What a display role shows: its own view, or the explosion.
View = TableLimits | TableView | BetsView | CasingView | ExplodedView

_WINNERS = {"player": "PLAYER WINS", "banker": "BANKER WINS", "tie": "TIE"}


@record
class RoundOnTable:
    """The round the table display shows: its cards in dealing order, how many are
    face up, and its result once shown. It stays until the next player input."""

    cards: tuple[ev.CardDealt, ...]
    shown: int = 0
    result: ev.RoundPlayed | None = None

    def turn_card(self) -> RoundOnTable:
        """One more card face up."""
        return replace(self, shown=min(self.shown + 1, len(self.cards)))

    def show_result(self, result: ev.RoundPlayed) -> RoundOnTable:
        """Every card face up and the result shown."""
        return replace(self, shown=len(self.cards), result=result)


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
    idle = "SOLVED" if module.solved else "PLACE YOUR BETS" if module.enabled else "TABLE CLOSED"
    if on_table is None:
        return TableView(color, module.cards_left, status=idle)
    face_up = on_table.cards[: on_table.shown]
    hands: dict[str, list[str]] = {"player": [], "banker": []}
    scores: dict[str, int | None] = {"player": None, "banker": None}
    for card in face_up:
        hands[card.hand].append(card.card)
        scores[card.hand] = card.score
    # The module has moved past the round already; the cards still face down are not dealt yet.
    cards_left = module.cards_left + len(on_table.cards) - on_table.shown
    result = result_text(on_table.result) if on_table.result is not None else None
    return TableView(
        color,
        cards_left,
        tuple(hands["player"]),
        tuple(hands["banker"]),
        scores["player"],
        scores["banker"],
        result,
        "DEALING" if result is None else result,
    )


def bets_view(module: BaccaratModule) -> BetsView:
    """The bets display: the five stacks bottom to top and the active chip."""
    index = module.denomination_index
    return BetsView(
        {area: tuple(module.stacks[area]) for area in AREAS},
        module.denomination,
        index > 0,
        index < len(DENOMINATIONS) - 1,
    )


def casing_view(module: BaccaratModule) -> CasingView:
    """The casing display: the serial, the countdown's whole seconds shown (as of its last reading),
    the strikes and how the game stands."""
    timer = module.timer
    state = "exploded" if module.exploded else "solved" if module.solved else "armed"
    return CasingView(
        module.edgework.serial,
        timer.shown() if timer is not None else None,
        module.strikes,
        module.rules.strike_limit,
        state,
    )


def compose(module: BaccaratModule, on_table: RoundOnTable | None = None, *, inverted: bool = False) -> Scene:
    """What every display shows now (``inverted`` while the game master identifies the prop)."""
    exploded = ExplodedView(module.exploded, module.strikes) if module.exploded else None
    return Scene(
        module.limits, table_view(module, on_table), bets_view(module), inverted, casing_view(module), exploded
    )


def render_view(role: str, view: View, size: tuple[int, int], mode: str, *, inverted: bool = False) -> Image.Image:
    """Draw one role's view at a display's size and mode (pure: nothing is sent)."""
    if isinstance(view, ExplodedView):
        image = render_exploded(view, size, mode)
    elif role == "placard" and isinstance(view, TableLimits):
        image = render_placard(view, size, mode)
    elif role == "table" and isinstance(view, TableView):
        image = render_table(view, size, mode)
    elif role == "bets" and isinstance(view, BetsView):
        image = render_bets(view, size, mode)
    elif role == "casing" and isinstance(view, CasingView):
        image = render_casing(view, size, mode)
    else:
        raise KeyError(f"no renderer for role {role!r} with a {type(view).__name__}")
    return invert(image) if inverted else image


def invert(image: Image.Image) -> Image.Image:
    """Lit pixels dark and dark pixels lit, in the image's own mode."""
    if image.mode == "1":
        return image.point(lambda value: 0 if value else 255)
    return image.point(list(range(255, -1, -1)) * len(image.getbands()))  # ImageOps.invert's table
