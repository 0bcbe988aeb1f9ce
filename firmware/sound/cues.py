"""Which cue each game event gets, when, and what a piezo buzzer plays for it.

The cues follow the original module's moments (module-facts.md): a chip placed,
many chips, chips cleared, a card dealt, a card turned, a new deck shuffled, the
arrows' click on every press, plus the game's strike buzzer, a solve chime
(the project's own: the original has none of its own) and, for a bomb with a
timer or a strike limit, the explosion (the project's own too). The sounds
themselves are the project's synthesis (``synth.py``), not the original's recordings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from baccarat_core import events as ev

#: Every cue, in the order docs/build/sound.md lists them.
CUES: tuple[str, ...] = (
    "chip",
    "many_chips",
    "chip_clear",
    "card_deal",
    "card_flip",
    "shuffle",
    "strike",
    "solve",
    "button",
    "explosion",
)

#: A newer cue interrupts a playing one (on the buzzer) unless the playing one ranks higher.
PRIORITY: dict[str, int] = {cue: 0 for cue in CUES} | {"shuffle": 1, "strike": 2, "solve": 2, "explosion": 3}

#: The buzzer's middle tone and range: gpiozero's ``TonalBuzzer(mid_tone=..., octaves=...)``.
#: A6 +- 2 octaves is 440 Hz to 7040 Hz; small piezo discs are loudest around 2-4 kHz.
BUZZER_MID_TONE = "A6"
BUZZER_OCTAVES = 2

#: Seconds from a card's deal sound to its flip sound when the card is shown face up at once
#: (the quick pacing). With the original's pacing the card lands face down first
#: (:class:`~baccarat_core.events.CardLanded`, the deal sound) and its flip sounds as it turns.
FLIP_AFTER = 0.25

_NOTE = re.compile(r"^([A-G])(#|b)?(-?\d)$")
_SEMITONES = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}


def note_hz(name: str) -> float:
    """The equal-tempered frequency of a note such as ``"A4"`` (440 Hz) or ``"C#6"``."""
    match = _NOTE.match(name)
    if not match:
        raise ValueError(f"not a note: {name!r}")
    letter, accidental, octave = match.groups()
    semitone = _SEMITONES[letter] + {"#": 1, "b": -1, None: 0}[accidental] + 12 * (int(octave) - 4)
    return 440.0 * 2 ** (semitone / 12)


Tone = tuple[float | None, float]  # (Hz, or None for silence; seconds)


def _blips(pairs: Iterable[tuple[float, float]], length: float = 0.012) -> list[Tone]:
    """Short blips at (Hz, gap after) pairs: how a buzzer clicks."""
    out: list[Tone] = []
    for hz, gap in pairs:
        out += [(hz, length), (None, gap)]
    return out[:-1]


#: The explosion on the buzzer: a fast falling sweep, then a low growl that dies away.
_SWEEP: list[Tone] = [(3000.0 - 300.0 * k, 0.03) for k in range(9)]
_GROWL: list[Tone] = [(note_hz("A4"), 0.06), (note_hz("A#4"), 0.06)] * 6
_EXPLOSION = _SWEEP + _GROWL

#: What the buzzer plays for each cue: (frequency in Hz or None for silence, seconds).
BUZZER_SEQUENCES: dict[str, list[Tone]] = {
    "chip": _blips([(3000.0, 0.02), (2500.0, 0.0)]),
    "many_chips": _blips(
        [(3100.0, 0.03), (2700.0, 0.04), (3300.0, 0.035), (2900.0, 0.05), (3100.0, 0.06), (2600.0, 0.0)]
    ),
    "chip_clear": [(3200.0, 0.02), (2800.0, 0.02), (2400.0, 0.02), (2000.0, 0.02), (1700.0, 0.02), (1400.0, 0.03)],
    "card_deal": [(1800.0, 0.03), (1500.0, 0.03), (1200.0, 0.04)],
    "card_flip": _blips([(2400.0, 0.03), (2000.0, 0.0)], 0.015),
    "shuffle": _blips(
        [(2600.0 - 90 * i if i % 2 == 0 else 2300.0 - 90 * i, 0.02 + 0.003 * i) for i in range(16)],
        0.01,
    ),
    # a rough buzz: two close, dissonant low notes alternating fast
    "strike": [(note_hz("B4"), 0.05), (note_hz("C5"), 0.05)] * 5,
    "solve": [(note_hz("C6"), 0.12), (note_hz("E6"), 0.12), (note_hz("G6"), 0.12), (note_hz("C7"), 0.35)],
    "button": [(2000.0, 0.01)],
    "explosion": _EXPLOSION,
}


def sequence_seconds(sequence: Sequence[Tone]) -> float:
    """How long a tone sequence lasts."""
    return sum(seconds for _, seconds in sequence)


_DOLLAR_CHIPS = (100000, 25000, 5000, 1000, 500, 100, 25, 5, 1)


def payout_items(cents: int) -> int:
    """How many chips and coins the dealer puts down to pay ``cents``: as few as the
    denominations allow (whole dollars in chips, the rest in quarters and nickels)."""
    dollars, rest = divmod(cents, 100)
    count = 0
    for value in _DOLLAR_CHIPS:
        count += dollars // value
        dollars %= value
    for coin in (25, 5):
        count += rest // coin
        rest %= coin
    return count


def payout_cue(results: dict[str, int]) -> str | None:
    """The sound of a round's payout, as the original picks it: "many_chips" when some
    winning bet gets more than one chip, "chip" for one, "chip_clear" when only losing
    bets are taken, nothing for pushes."""
    most = max((payout_items(c) for c in results.values() if c > 0), default=0)
    if most > 1:
        return "many_chips"
    if most == 1:
        return "chip"
    if any(c < 0 for c in results.values()):
        return "chip_clear"
    return None


class CuePlanner:
    """Turns events into cues. It remembers whether the last round left chips on the table,
    which decides whether the clearing after it makes a sound, and how many cards lie face
    down (their flip is all that sounds when they turn)."""

    def __init__(self, flip_after: float = FLIP_AFTER) -> None:
        self.flip_after = flip_after
        self.chips_left = True  # unknown (e.g. after a restart): assume there are some
        self.face_down = 0  # cards landed face down and not turned yet

    def for_event(self, event: ev.Event) -> list[tuple[float, str]]:
        """The cues of one event, as (seconds after the event is shown, cue)."""
        if isinstance(event, ev.ChipAdded):
            return [(0.0, "chip")]
        if isinstance(event, ev.AreaCleared):
            return [(0.0, "chip_clear")] if event.total > 0 else []
        if isinstance(event, ev.ArrowClicked):
            return [(0.0, "button")]
        if isinstance(event, ev.CardLanded):
            self.face_down += 1
            return [(0.0, "card_deal")]
        if isinstance(event, ev.CardDealt):
            if self.face_down:  # it landed face down already: it turns now
                self.face_down -= 1
                return [(0.0, "card_flip")]
            return [(0.0, "card_deal"), (self.flip_after, "card_flip")]
        if isinstance(event, ev.RoundPlayed):
            self.chips_left = any(c >= 0 for c in event.results.values())
            cue = payout_cue(event.results)
            return [(0.0, cue)] if cue else []
        if isinstance(event, ev.Strike):
            return [(0.0, "strike")]
        if isinstance(event, ev.Solved):
            return [(0.0, "solve")]
        if isinstance(event, ev.Exploded):
            return [(0.0, "explosion")]
        if isinstance(event, ev.ChipsCleared):
            left, self.chips_left = self.chips_left, False
            return [(0.0, "chip_clear")] if left else []
        if isinstance(event, ev.DeckAppeared) and event.replaces:
            return [(0.0, "shuffle")]
        if isinstance(event, ev.ModuleReset):
            self.chips_left = False
            self.face_down = 0
            return [(0.0, "shuffle")]
        return []

    def for_batch(
        self, events: Sequence[ev.Event], *, card_seconds: float = 0.6, result_seconds: float = 1.5
    ) -> list[tuple[float, str]]:
        """The cues of a whole batch, as (seconds after the batch arrives, cue), sorted.

        Timed as the daemon shows a batch with the quick pacing: the cards ``card_seconds`` apart from
        the first, the result ``card_seconds`` after the last card, and the
        clearing and a new deck that follow a round in the same batch
        ``result_seconds`` after the result (the original's 1.5 s).
        """
        out: list[tuple[float, str]] = []
        cards = 0
        round_seen = False
        for event in events:
            if isinstance(event, ev.CardDealt):
                at = cards * card_seconds
                cards += 1
            else:
                at = cards * card_seconds
                if round_seen and isinstance(event, (ev.ChipsCleared, ev.DeckAppeared)):
                    at += result_seconds
            round_seen = round_seen or isinstance(event, ev.RoundPlayed)
            out += [(at + offset, cue) for offset, cue in self.for_event(event)]
        return sorted(out, key=lambda item: item[0])


def cues_for(
    events: Sequence[ev.Event], *, card_seconds: float = 0.6, result_seconds: float = 1.5
) -> list[tuple[float, str]]:
    """The cues of a batch of events, as (seconds after the batch arrives, cue), sorted.

    A fresh :class:`CuePlanner`: the clearing after a round sounds when that
    round is in the same batch and left chips on the table, or when no round
    was seen.
    """
    return CuePlanner().for_batch(events, card_seconds=card_seconds, result_seconds=result_seconds)
