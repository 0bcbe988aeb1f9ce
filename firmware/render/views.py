"""What each display shows, as plain data built from the game state."""

from __future__ import annotations

from baccarat_core.events import N_
from baccarat_core.records import field, record

#: The table's footer after a round, before its money: a display with ``[display] language``
#: says them in that language (``render_table``).
WINNERS: dict[str, str] = {
    # TRANSLATORS: a display's words (capitals, about 21 characters a line): at most 12 here,
    # the round's money follows ("PLAYER WINS +$25.00").
    "player": N_("PLAYER WINS"),
    "banker": N_("BANKER WINS"),
    "tie": N_("TIE"),
}
#: The table's footer while no round is on it.
# TRANSLATORS: a display's words, at most 21 capitals.
FOOTERS: tuple[str, ...] = (N_("PLACE YOUR BETS"), N_("TABLE CLOSED"), N_("SOLVED"), N_("DEALING"))


@record
class TableView:
    """Both hands as far as they are dealt, the result, the deck.

    ``player`` and ``banker`` are the face-up cards; ``player_down`` and ``banker_down`` more
    cards after them, still face down (drawn as the deck's card back). A hand's third card is
    the one the dealer lays sideways.
    """

    deck_color: str
    cards_left: int
    player: tuple[str, ...] = ()
    banker: tuple[str, ...] = ()
    player_score: int | None = None
    banker_score: int | None = None
    result: str | None = None  # "PLAYER WINS +$1.00", "DEALING", ...
    status: str = "PLACE YOUR BETS"
    player_down: int = 0
    banker_down: int = 0


@record
class BetsView:
    """The five chip stacks (bottom to top), the active denomination, and the areas whose stacks
    the dealer is re-stacking (marked)."""

    stacks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    denomination: int = 1
    can_go_left: bool = False
    can_go_right: bool = True
    restacking: tuple[str, ...] = ()


@record
class CasingView:
    """The casing display: the serial number, the countdown's whole seconds shown (None: the bomb
    has no timer), the strikes (and the limit, if any), and how the game stands: ``armed``,
    ``solved`` (the countdown shows the time it stopped at) or ``exploded``."""

    serial: str
    seconds: int | None = None
    strikes: int = 0
    strike_limit: int | None = None
    state: str = "armed"


@record
class ExplodedView:
    """Every display once the bomb exploded: why (``timer`` or ``strikes``) and the strikes it had."""

    cause: str
    strikes: int = 0
