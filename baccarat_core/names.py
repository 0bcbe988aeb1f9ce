"""The module's own names in words: the betting areas (and the hands), the deck colours, what
switches an output, and a strike's reason and detail.

The log in English says them as the code does (``player``, ``red``); a page in another language
says them as its catalog does (:func:`named`).
"""

from __future__ import annotations

import re
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


#: A strike's reason in plain words, for the log ("why did that strike?").
STRIKE_WORDS: dict[str, str] = {
    "exclusive": N_("the bets must be on exactly one of Player and Banker"),
    "limits": N_("a bet was outside the table limits"),
    "stack_order": N_("a larger chip sat on a smaller one"),
    "loss": N_("the round lost money"),
}

#: A strike's detail as the rules write it (English), and the message that says it in another language.
STRIKE_DETAILS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"(?P<area>[A-Z][a-z]+(?: Pair)?) bet (?P<amount>\S+) is outside the limits (?P<limits>.+)"),
        N_("{area} bet {amount} is outside the limits {limits}"),
    ),
    (
        re.compile(
            r"(?P<area>[A-Z][a-z]+(?: Pair)?) bet (?P<amount>\S+) is outside the side-bet limits (?P<limits>.+)"
        ),
        N_("{area} bet {amount} is outside the side-bet limits {limits}"),
    ),
    (
        re.compile(r"bets on both Player \((?P<player>\S+)\) and Banker \((?P<banker>\S+)\)"),
        N_("bets on both Player ({player}) and Banker ({banker})"),
    ),
    (re.compile(r"no bet on Player or Banker"), N_("no bet on Player or Banker")),
    (re.compile(r"the round lost (?P<amount>\S+)"), N_("the round lost {amount}")),
    (
        re.compile(r"a larger chip sat on a smaller one in (?P<areas>.+)"),
        N_("a larger chip sat on a smaller one in {areas}"),
    ),
)


def strike_detail(detail: str, t: NullTranslations = ENGLISH) -> str:
    """A strike's detail in ``t``'s language (the rules write it in English); as written if no
    message says it."""
    for pattern, message in STRIKE_DETAILS:
        match = pattern.fullmatch(detail)
        if match is None:
            continue
        fields = match.groupdict()
        if "area" in fields:
            fields["area"] = t.gettext(fields["area"])
        if "areas" in fields:
            fields["areas"] = ", ".join(t.gettext(area) for area in fields["areas"].split(", "))
        return t.gettext(message).format(**fields)
    return detail
