"""The module's own names in words: the betting areas (and the hands), the deck colours.

The log in English says them as the code does (``player``, ``red``); a page in another language
says them as its catalog does (:func:`named`).
"""

from __future__ import annotations

from gettext import NullTranslations

#: No catalog: the messages as written, in English.
ENGLISH = NullTranslations()


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark, translate later"
    """Mark ``message`` for the catalog (``pybabel extract``) without translating it here."""
    return message


#: Betting areas as the log and the messages name them (the manual's names; a page in another
#: language says them as its catalog does).
AREA_NAMES: dict[str, str] = {
    # TRANSLATORS: the betting areas as the manual names them (the panel and the displays say
    # them in English): the manual in your language's names, or these.
    "player": N_("Player"),
    "banker": N_("Banker"),
    "tie": N_("Tie"),
    "player_pair": N_("Player Pair"),
    "banker_pair": N_("Banker Pair"),
}

#: The deck colours, for a page in another language (the log in English keeps the code's names).
COLOR_NAMES: dict[str, str] = {
    # TRANSLATORS: a deck's colour, as the manual names it ("the red deck").
    "red": N_("red"),
    "blue": N_("blue"),
    "green": N_("green"),
    "silver": N_("silver"),
}

#: The game's events an output switches at (the config's names for them), and an output's other
#: causes (firmware/devices/switching.py), for a page in another language.
EVENT_NAMES: dict[str, str] = {
    # TRANSLATORS: what switched an output ("on at solved", "off (cut-off)"): the game's events and
    # the output's own causes, as short words.
    "solved": N_("solved"),
    "strike": N_("strike"),
    "exploded": N_("exploded"),
    "reset": N_("reset"),
    "deal": N_("deal"),
    "command": N_("command"),
    "ended": N_("ended"),
    "cut-off": N_("cut-off"),
    "restart": N_("restart"),
}


def named(key: str, t: NullTranslations, table: dict[str, str] | None = None) -> str:
    """An area's, a hand's or a colour's name in ``t``'s language; ``key`` itself (``player``,
    ``red``) where the catalog has no other word for it (English: the log's own words)."""
    message = (table or AREA_NAMES | COLOR_NAMES | EVENT_NAMES).get(key)
    if message is None:
        return key
    said = t.gettext(message)
    return key if said == message else said
