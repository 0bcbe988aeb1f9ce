"""Random edgework: a bomb drawn the way the game draws one.

The game's own source is not published. What the community works from is the
Keep Talking mod kit's test harness (keeptalkinggame/ktanemodkit,
``Assets/TestHarness/TestHarness.cs`` ``SetupEdgework``: five widgets, each
``Random.Range(0, 3)``; ``Widgets/SerialNumber.cs``, whose 35-entry
``SerialNumberPossibleCharArray`` is the game's table; ``PortWidget.cs``,
``IndicatorWidget.cs``, ``BatteryWidget.cs``), and Timwi's ``KtaneStuff/Src/Edgework.cs``,
which draws the same bombs for his module generators. They agree on every point
below; this module follows them:

- **Serial number**: six characters in the pattern "letter or digit, letter or digit,
  digit, letter, letter, digit", each drawn uniformly from the game's character table
  :data:`SERIAL_CHARACTERS`. The table has no O and no Y (the usual explanation: O reads
  as a zero, and Y is a vowel in some languages and not in others); its fifteenth entry,
  where O would be, is a second E, so E is drawn twice as often as any other letter.
  Vowels are not left out (A, E, I and U all occur; rules of other modules ask for them),
  nor is any other letter.
- **Five widgets**, each uniformly one of:

  - a **battery holder**: a pair of AA cells or one D cell, even odds;
  - a **port plate** of one of the game's two kinds, even odds: Parallel and Serial, or
    DVI-D, PS/2, RJ-45 and Stereo RCA; each port of the kind is on the plate with odds of
    one half, so an empty plate is possible and the two kinds never share a plate;
  - an **indicator**: a label none of the bomb's other indicators carries, uniformly from
    the eleven of :data:`INDICATOR_LABELS`, lit with odds of 0.6 (the harness's
    ``Random.value > 0.4``).

The original module (KtaneModules/ktaneBaccarat-lingomaniac88, ``BaccaratScript.cs``)
reads the serial number's letters and digits, each vanilla port's count, the total port
count and a lit BOB, and the solved count; never the batteries. They are drawn because a
real bomb has them and players must tell what matters.
"""

from __future__ import annotations

import random

from .edgework import BATTERY_HOLDERS, Edgework, check_solved
from .errors import BaccaratError
from .numbers import check_count
from .records import record
from .strict import MAX_GAMES, MAX_SEED

#: The game's serial-number characters: the letters (O's place taken by a second E, no Y), then the digits.
SERIAL_CHARACTERS = "ABCDEFGHIJKLMNEPQRSTUVWXZ0123456789"
#: The letters alone (the fourth and fifth characters come from these).
SERIAL_LETTERS = SERIAL_CHARACTERS[:-10]
#: The serial number's pattern: ``?`` letter or digit, ``D`` digit, ``L`` letter.
SERIAL_PATTERN = "??DLLD"

#: The game's two kinds of port plate, each with the ports it can hold, in the plate's order.
PLATE_KINDS: tuple[tuple[str, ...], ...] = (("Parallel", "Serial"), ("DVI-D", "PS/2", "RJ-45", "Stereo RCA"))

#: The eleven vanilla indicator labels.
INDICATOR_LABELS: tuple[str, ...] = ("SND", "CLR", "CAR", "IND", "FRQ", "SIG", "NSA", "MSA", "TRN", "BOB", "FRK")

#: Widgets on a drawn bomb (the game's default).
WIDGETS = 5

#: Odds that a drawn indicator is lit.
LIT_ODDS = 0.6


def draw_serial(rng: random.Random) -> str:
    """A serial number in the game's pattern, from the game's character table."""
    pools = {"?": SERIAL_CHARACTERS, "D": "0123456789", "L": SERIAL_LETTERS}
    return "".join(rng.choice(pools[slot]) for slot in SERIAL_PATTERN)


def draw_bomb(rng: random.Random, solved: int = 0) -> Edgework:
    """A bomb as the game draws one: a serial number and five widgets (see the module's text),
    with ``solved`` modules solved."""
    serial = draw_serial(rng)
    plates: list[tuple[str, ...]] = []
    lit: list[str] = []
    unlit: list[str] = []
    batteries: list[str] = []
    labels = list(INDICATOR_LABELS)
    holders = tuple(BATTERY_HOLDERS)
    for _ in range(WIDGETS):
        widget = rng.randrange(3)
        if widget == 0:
            kind = rng.choice(PLATE_KINDS)
            plates.append(tuple(port for port in kind if rng.random() < 0.5))
        elif widget == 1:
            label = labels.pop(rng.randrange(len(labels)))
            (lit if rng.random() < LIT_ODDS else unlit).append(label)
        else:
            batteries.append(rng.choice(holders))
    return Edgework(
        serial, lit=tuple(lit), unlit=tuple(unlit), solved=solved, batteries=tuple(batteries), plates=tuple(plates)
    )


def check_seed(value: object) -> int:
    """A seed for random edgework: a whole number from 0 to :data:`~.strict.MAX_SEED`."""
    return check_count(value, "seed", maximum=MAX_SEED)


def check_game(value: object) -> int:
    """A game's number: a whole number from 1 (the first game) to :data:`~.strict.MAX_GAMES`."""
    game = check_count(value, "game number", maximum=MAX_GAMES)
    if game < 1:
        raise BaccaratError("game number 0 is not a game (the first game is 1)")
    return game


@record
class RandomBombs:
    """Where a prop in random mode gets its bombs: one per game, drawn with :func:`draw_bomb`.

    With a ``seed``, game ``k`` (1 the first game after a fresh start, one more at each
    reset) always gets the same bomb, on every machine: it is drawn from a generator seeded
    with the seed and ``k`` alone, so neither the limits, the decks nor the other games
    change it. Without one, every game gets a new bomb. ``solved`` is the count the first
    bomb starts with (a reset keeps the module's count, as it does with fixed edgework).
    """

    seed: int | None = None
    solved: int = 0

    def __post_init__(self) -> None:
        if self.seed is not None:
            object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "solved", check_solved(self.solved))

    def bomb(self, game: int, rng: random.Random | None = None) -> Edgework:
        """The bomb of game ``game`` (from 1); without a seed, drawn from ``rng`` (else a fresh generator)."""
        game = check_game(game)
        if self.seed is None:
            return draw_bomb(rng if rng is not None else random.Random(), self.solved)
        return draw_bomb(random.Random(f"baccarat bomb {self.seed} game {game}"), self.solved)
