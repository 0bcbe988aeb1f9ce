"""What the console says in words, in the page's language: the state's facts and the log's lines.

Each function takes the page's catalog (:func:`firmware.i18n.translations`; English without one)
and its language code for numbers. The betting areas, the deck colours and a strike's detail are
said in the page's language (:mod:`baccarat_core.names`); the cards and the money stay as the
manual writes them ("$1,500").

>>> timer_words({"state": "running", "seconds_left": 299.2, "rate": 1.25})
'05:00 left, running at x1.25'
>>> from firmware.i18n import translations
>>> timer_words({"state": "paused", "seconds_left": 61, "rate": 1.5}, translations("de"), "de")
'01:01 übrig, angehalten (Tisch geschlossen) mit x1,5'
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Any

from baccarat_core import TableLimits
from baccarat_core import events as ev
from baccarat_core.events import AREA_NAMES, ENGLISH
from baccarat_core.names import STRIKE_WORDS, named, strike_detail
from baccarat_core.numbers import format_dollars
from baccarat_core.timer import clock_text

from ..i18n import N_, SOURCE

#: A countdown's state in words, for the console.
TIMER_STATES: dict[str, str] = {
    "waiting": N_("waits for the first input"),
    "running": N_("running"),
    "paused": N_("paused (table closed)"),
    "stopped": N_("stopped"),
}


def decimal(value: float, language: str = SOURCE) -> str:
    """``1.25`` as ``language`` writes it (``1,25`` in French), a number the manual does not fix."""
    if language == SOURCE:
        return f"{value:g}"
    from babel.numbers import format_decimal

    return str(format_decimal(value, locale=language))


def log_text(event: ev.Event, t: NullTranslations = ENGLISH) -> str:
    """One log line for the console: the event's description, a strike's reason in words."""
    if isinstance(event, ev.Strike):
        why = t.gettext(STRIKE_WORDS[event.reason]) if event.reason in STRIKE_WORDS else event.reason
        detail = strike_detail(event.detail, t)
        return t.gettext("STRIKE {count}: {why} ({detail})").format(count=event.strikes, why=why, detail=detail)
    return event.describe(t)


def timer_words(timer: Any, t: NullTranslations = ENGLISH, language: str = SOURCE) -> str | None:
    """The countdown in words: ``04:59 left, running at x1.25``; None without a timer."""
    if not isinstance(timer, dict):
        return None
    state = str(timer.get("state"))
    state = t.gettext(TIMER_STATES[state]) if state in TIMER_STATES else state
    left = clock_text(timer.get("seconds_left"))
    rate = timer.get("rate", 1.0)
    if isinstance(rate, int | float) and rate != 1:
        return t.gettext("{left} left, {state} at x{rate}").format(left=left, state=state, rate=decimal(rate, language))
    return t.gettext("{left} left, {state}").format(left=left, state=state)


def words(doc: dict[str, Any], t: NullTranslations = ENGLISH, language: str = SOURCE) -> dict[str, Any]:
    """The state document in words for the console."""
    limits = TableLimits(doc["limits"]["min"], doc["limits"]["max"])
    edgework = doc.get("edgework") or {}

    def names(key: str) -> str:
        return ", ".join(edgework.get(key) or []) or t.gettext("none")

    bets = {area: amount for area, amount in (doc.get("bets") or {}).items() if amount}
    solved = edgework.get("solved", 0)
    deck = named(doc["deck"], t) if doc.get("deck") else None
    status = t.gettext("SOLVED") if doc.get("solved") else t.gettext("EXPLODED") if doc.get("exploded") else None
    described = t.ngettext(
        "serial {serial}; ports {ports}; lit {lit}; unlit {unlit}; {n} module solved on the bomb",
        "serial {serial}; ports {ports}; lit {lit}; unlit {unlit}; {n} modules solved on the bomb",
        solved,
    ).format(serial=edgework.get("serial", "?"), ports=names("ports"), lit=names("lit"), unlit=names("unlit"), n=solved)
    if doc.get("edgework_drawn"):
        described = t.gettext("{edgework} (drawn at random for game {game})").format(
            edgework=described, game=doc.get("game")
        )
    return {
        "status": status or t.gettext("ARMED"),
        "strikes": doc.get("strikes", 0),
        "strike_limit": doc.get("strike_limit"),
        "timer": timer_words(doc.get("timer"), t, language),
        "enabled": doc.get("enabled", True),
        "limits": t.gettext("{limits} on Player and Banker; side bets (Tie and the pairs) {side}").format(
            limits=limits.placard(), side=limits.side_placard()
        ),
        "edgework": described,
        "deck": (
            t.ngettext(
                "{deck} deck, {left} cards left (dealt for {solved} solved)",
                "{deck} deck, {left} cards left (dealt for {solved} solved)",
                doc.get("deck_solved") or 0,
            ).format(deck=deck, left=doc.get("cards_left"), solved=doc.get("deck_solved"))
            if deck
            else t.gettext("no deck yet")
        ),
        "chip": t.gettext("active chip {chip}").format(chip=format_dollars(doc.get("denomination", 1))),
        "bets": ", ".join(
            t.gettext("{area} {amount}").format(area=t.gettext(AREA_NAMES.get(a, a)), amount=format_dollars(v))
            for a, v in bets.items()
        )
        or t.gettext("no bets"),
        "version": "baccarat-prop " + (doc.get("version") or t.gettext("unknown")),
    }
