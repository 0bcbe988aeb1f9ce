"""One round of baccarat: the deal, the third-card rules and the payouts."""

from __future__ import annotations

from collections.abc import Mapping

from .cards import Card, hand_score
from .records import record

AREAS: tuple[str, ...] = ("player", "banker", "tie", "player_pair", "banker_pair")
MAIN_AREAS: tuple[str, ...] = ("player", "banker")
SIDE_AREAS: tuple[str, ...] = ("tie", "player_pair", "banker_pair")

#: Cents won per dollar bet when the bet wins.
WIN_CENTS: dict[str, int] = {"player": 100, "banker": 95, "tie": 800, "player_pair": 1100, "banker_pair": 1100}


def banker_draws(banker_total: int, player_third: Card | None) -> bool:
    """Whether the Banker draws a third card (the manual's table)."""
    if player_third is None:
        return banker_total <= 5
    third = player_third.points
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return third != 8
    if banker_total == 4:
        return 2 <= third <= 7
    if banker_total == 5:
        return 4 <= third <= 7
    if banker_total == 6:
        return third in (6, 7)
    return False


@record
class Round:
    """The hands of one round, in the order the cards were dealt."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    order: tuple[tuple[str, Card], ...]

    @property
    def player_score(self) -> int:
        """The Player hand's total."""
        return hand_score(self.player)

    @property
    def banker_score(self) -> int:
        """The Banker hand's total."""
        return hand_score(self.banker)

    @property
    def winner(self) -> str:
        """``player``, ``banker`` or ``tie``."""
        if self.player_score > self.banker_score:
            return "player"
        if self.banker_score > self.player_score:
            return "banker"
        return "tie"

    def player_pair(self) -> bool:
        """The Player's first two cards have the same rank."""
        return self.player[0].rank == self.player[1].rank

    def banker_pair(self) -> bool:
        """The Banker's first two cards have the same rank."""
        return self.banker[0].rank == self.banker[1].rank


def play_round(cards: tuple[Card, ...] | list[Card]) -> Round:
    """Deal a round from the top of ``cards`` (at least six cards)."""
    it = iter(cards)
    order: list[tuple[str, Card]] = []

    def deal(hand: list[Card], name: str) -> Card:
        card = next(it)
        hand.append(card)
        order.append((name, card))
        return card

    player: list[Card] = []
    banker: list[Card] = []
    deal(player, "player")
    deal(banker, "banker")
    deal(player, "player")
    deal(banker, "banker")
    if hand_score(player) < 8 and hand_score(banker) < 8:
        player_third = deal(player, "player") if hand_score(player) <= 5 else None
        if banker_draws(hand_score(banker), player_third):
            deal(banker, "banker")
    return Round(tuple(player), tuple(banker), tuple(order))


def bet_results(game: Round, bets: Mapping[str, int]) -> dict[str, int]:
    """Profit in cents of each non-empty bet (dollars) on this round."""
    wins = {
        "player": game.winner == "player",
        "banker": game.winner == "banker",
        "tie": game.winner == "tie",
        "player_pair": game.player_pair(),
        "banker_pair": game.banker_pair(),
    }
    results: dict[str, int] = {}
    for area in AREAS:
        amount = bets.get(area, 0)
        if not amount:
            continue
        if area in MAIN_AREAS and game.winner == "tie":
            results[area] = 0
        elif wins[area]:
            results[area] = amount * WIN_CENTS[area]
        else:
            results[area] = -amount * 100
    return results
