"""The table: both hands, their scores, the result and the deck's colour."""

from __future__ import annotations

from gettext import NullTranslations

from PIL import Image

from baccarat_core.events import ENGLISH, N_

from .canvas import CHAR_W, DECK_RGB, LINE_H, Painter, back_width, card_width
from .views import FOOTERS, WINNERS, TableView

#: The deck's line, by its colour (a display with ``[display] language`` says it in that language).
DECK_LINES: dict[str, str] = {
    # TRANSLATORS: a display's words, at most 21 capitals with the cards left ({count}).
    "red": N_("RED DECK {count}"),
    "blue": N_("BLUE DECK {count}"),
    "green": N_("GREEN DECK {count}"),
    "silver": N_("SILVER DECK {count}"),
}
#: The deck's colour alone (the small table display).
COLOR_NAMES: dict[str, str] = {"red": N_("RED"), "blue": N_("BLUE"), "green": N_("GREEN"), "silver": N_("SILVER")}


def render_table(view: TableView, size: tuple[int, int], mode: str, t: NullTranslations = ENGLISH) -> Image.Image:
    """The table: the deck's colour (by name, for colour-blind players) and cards left, both
    hands with their scores, and the result or the status in the footer.

    Sizes: 128x64 (the deck in a reverse-video header, hands side by side), 128x32 (a hand per
    line, deck and footer below), 96 pixels and taller (stacked hands with double-size cards).
    A card still face down is the deck's card back; a hand's third card is framed face up and
    lies sideways face down (the dealer lays it across). Its words in ``t``'s language
    (``[display] language``; the original's English without one).
    """
    p = Painter(size, mode)
    if p.height < 48:
        _compact(p, view, t)
    elif p.height >= 96:
        _tall(p, view, t)
    else:
        _standard(p, view, t)
    return p.image


def _deck_line(view: TableView, t: NullTranslations) -> str:
    line = DECK_LINES.get(view.deck_color)
    if line is None:
        return f"{view.deck_color.upper()} DECK {view.cards_left}"
    return t.gettext(line).format(count=view.cards_left)


def _footer(view: TableView, t: NullTranslations, room: int = 99) -> str:
    """The result (its winner's words, then the money) or the status, in ``t``'s language, in at
    most ``room`` characters: a result too long for them keeps the money and names the hand
    (``BANKER WINS +$0.95`` -> ``BANKER +$0.95``)."""
    text = view.result or view.status
    if text in FOOTERS:
        return t.gettext(text)[:room]
    for winner, words in WINNERS.items():
        if text == words or text.startswith(words + " "):
            money = text[len(words) :]
            said = t.gettext(words) + money
            if len(said) > room:
                player, banker = _hands(t)
                said = {"player": player, "banker": banker}.get(winner, t.gettext(words)) + money
            return said[:room]
    return text[:room]


def _hands(t: NullTranslations) -> tuple[str, str]:
    # TRANSLATORS: a display's words, at most 9 capitals each.
    return t.gettext("PLAYER"), t.gettext("BANKER")


def _cards(
    p: Painter, x: int, y: int, cards: tuple[str, ...], down: int, deck: str, right: int, scale: int = 1
) -> None:
    """A hand left to right: its face-up ``cards``, then ``down`` card backs; the third card drawn
    (framed, or sideways face down). Smaller, then closer together, when it would not fit."""
    slots: list[str | None] = [*cards, *([None] * down)]

    def width(scale: int, gap: int) -> int:
        return sum(
            (card_width(c, scale, drawn=n == 2) if c else back_width(scale, sideways=n == 2)) + gap
            for n, c in enumerate(slots)
        )

    gap = 3 * scale
    while scale > 1 and width(scale, gap) - gap > right - x:
        scale -= 1
        gap = 3
    if slots and width(scale, gap) - gap > right - x:
        gap = 1
    for number, card in enumerate(slots):
        third = number == 2
        if card is None:
            x += p.card_back((x, y), deck, sideways=third, scale=scale) + gap
        else:
            x += p.card((x, y), card, scale=scale, drawn=third) + gap


def _score(score: int | None) -> str:
    return "" if score is None else f"= {score}"


def _standard(p: Painter, view: TableView, t: NullTranslations = ENGLISH) -> None:
    half = p.width // 2
    rgb = DECK_RGB.get(view.deck_color)
    # Deck header in reverse video: the colour's name, for colour-blind players.
    p.draw.rectangle((0, 0, p.width - 1, LINE_H), fill=p.ink(rgb))
    header = _deck_line(view, t)
    p.text(((p.width - len(header) * CHAR_W) // 2, 1), header, fill=p.dark())
    spare = p.height - 64
    y = 13 + spare // 4
    player, banker = _hands(t)
    p.text((1, y), player)
    p.text((half + 2, y), banker)
    p.draw.line((half - 1, y, half - 1, y + 3 * LINE_H), fill=p.ink())
    y += LINE_H + 2 + spare // 4
    _cards(p, 1, y, view.player, view.player_down, view.deck_color, half - 2)
    _cards(p, half + 2, y, view.banker, view.banker_down, view.deck_color, p.width - 1)
    y += LINE_H + 1
    p.text((1, y), _score(view.player_score))
    p.text((half + 2, y), _score(view.banker_score))
    p.centred(p.height - LINE_H + 1, _footer(view, t, p.width // CHAR_W))


def _compact(p: Painter, view: TableView, t: NullTranslations = ENGLISH) -> None:
    for row, (label, cards, down, score) in enumerate(
        (
            ("P", view.player, view.player_down, view.player_score),
            ("B", view.banker, view.banker_down, view.banker_score),
        )
    ):
        y = 1 + row * (LINE_H + 1)
        p.text((0, y), label)
        _cards(p, 9, y, cards, down, view.deck_color, p.width - 24)
        if score is not None:
            p.text((p.width - 3 * CHAR_W, y), f"={score}")
    y = 2 * (LINE_H + 1) + 1
    name = COLOR_NAMES.get(view.deck_color)
    color = t.gettext(name) if name else view.deck_color.upper()
    p.text((0, y), color, DECK_RGB.get(view.deck_color))
    room = (p.width - (len(color) + 1) * CHAR_W - 1) // CHAR_W
    footer = _footer(view, t, room)  # "BANKER WINS +$0.95" -> "BANKER +$0.95": keep the money in sight
    p.text((p.width - len(footer) * CHAR_W - 1, y), footer)


def _tall(p: Painter, view: TableView, t: NullTranslations = ENGLISH) -> None:
    rgb = DECK_RGB.get(view.deck_color)
    p.centred(1, _deck_line(view, t), rgb)
    block = (p.height - 2 * LINE_H - 6) // 2
    player, banker = _hands(t)
    for number, (name, cards, down, score) in enumerate(
        (
            (player, view.player, view.player_down, view.player_score),
            (banker, view.banker, view.banker_down, view.banker_score),
        )
    ):
        y = LINE_H + 4 + number * block
        p.text((2, y), name)
        text = _score(score)
        p.text((p.width - len(text) * CHAR_W - 2, y), text)
        _cards(p, 2, y + LINE_H + 3, cards, down, view.deck_color, p.width - 2, scale=2)
    p.centred(p.height - LINE_H, _footer(view, t, p.width // CHAR_W))
