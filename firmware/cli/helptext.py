"""What ``baccarat --help`` and each command's ``--help`` tell a user beyond the options:
allowed values, input formats, examples. Kept in one place and applied to the parsers by
:func:`apply`, so that the commands' own modules hold only their options."""

from __future__ import annotations

import argparse

from baccarat_core.deck import COLORS
from baccarat_core.edgework import VANILLA_PORTS
from baccarat_core.limits import MINIMUMS, RATIO_BOUNDS
from baccarat_core.numbers import format_dollars
from baccarat_core.rounds import AREAS

from ..version import version as version
from . import Parser

EXAMPLE_EDGEWORK = "--serial AB3DE4 --ports Parallel,Serial,RJ-45 --lit FRK --unlit CAR"

#: The players' manual, at its public address (the project cannot ship its text).
MANUAL_URL = "https://ktane.timwi.de/HTML/Baccarat.html"


def _minimums() -> str:
    return ", ".join(format_dollars(m) for m in MINIMUMS[:-1]) + f" or {format_dollars(MINIMUMS[-1])}"


MAIN_EPILOG = f"""\
commands for players and game masters:
  deck          the deck that appears now, and the rounds it deals (the cheat sheet)
  play          a headless session: JSON inputs on stdin, JSON events on stdout
  casing        the bomb casing (serial number, widgets, QR code) as SVG, PNG or PDF
  party         a party in one step: the simulator, a random bomb, a timer, the tablet's page
commands for the prop:
  run           the prop on a Pi, or the simulator on a PC (run --simulate)
  check-config  validate a config file and print its wiring
  unit-dropin   the systemd settings the config's room services need (install-service.sh)
  docs          where the running prop serves these docs (its console's /docs/), offline
  doctor        check this Pi for the prop (sudo baccarat doctor)
  update        install a new version, back to the old one if it fails (sudo baccarat update SOURCE)
  history       how each game went (from the history file; no running prop needed)
commands to a running prop (over its control socket):
  solved, reset, force-solve, hint, status, bet, start-timer, add-time, output
  self-test     the pre-game check: every display, light, sound and button
  send          any command the prop takes, in words (a room service's too)

`baccarat COMMAND --help` tells more about each. The players' manual:
{MANUAL_URL}
"""

LIMITS_TEXT = f"""\
limits (the placard):
  --min         {_minimums()} (the manual's minimums)
  --max         any whole number of dollars above the minimum; max / min picks the
                manual's ratio row (up to {", ".join(str(b) for b in RATIO_BOUNDS)}, or more). Side bets use a
                tenth of both limits.
  Amounts may be written 25, $25, 1000, 1,000 or $1,000.
"""

EDGEWORK_TEXT = f"""\
edgework:
  --serial      the serial number: 1 to 6 letters or digits
  --ports       comma-separated, one name per port (a name twice for two of a kind):
                {", ".join(VANILLA_PORTS)}
                (case and punctuation do not matter: rj45, ps2 and stereo work too)
  --lit/--unlit indicator labels, comma-separated: FRK,CAR
  --batteries   battery holders, comma-separated: AA (two cells) or D (one); the deck ignores them
  --solved      modules solved on the bomb (default 0)
"""

RANDOM_BOMB_TEXT = """\
a random bomb (what a prop with [edgework] mode = "random" and seed = N plays):
  --seed N      the bombs seed N draws, instead of --serial and the rest
  --game K      game K's bomb: 1 (the default) at the first start, one more at each reset
                (the prop's status shows its game number)
  --config FILE a config: its fixed edgework or its seed, and its fixed limits, where the
                options give none
"""

DECK_EPILOG = f"""\
{LIMITS_TEXT}
{EDGEWORK_TEXT}
{RANDOM_BOMB_TEXT}
deck colours (--color): {", ".join(COLORS)}

examples:
  baccarat deck {EXAMPLE_EDGEWORK} --min 25 --max 1000 --color red
  baccarat deck --seed 7 --game 2 --min 25 --max 1000 --color red
"""

PLAY_EPILOG = f"""\
input, one JSON object per line on stdin:
  {{"press": "player"}}     a short press: a chip of the active denomination on that area
  {{"hold": "banker"}}      a 0.5 s hold: clears that area
  {{"arrow": "right"}}      a denomination arrow: "left" (smaller) or "right" (larger)
  {{"deal": true}}          the gesture at the deck: deal
  {{"solved": 3}}           the bomb's solved count changed (the next deck uses it)
  areas: {", ".join(AREAS)}

output, one JSON event per line on stdout, for example:
  {{"event": "chip", "area": "banker", "chip": 25, "stack": [25], "total": 25}}
  {{"event": "card", "hand": "player", "card": "10D", "score": 0}}
  {{"event": "strike", "reason": "loss", "detail": "the round lost $25.00", "strikes": 1}}
A line that is not a valid input gets one error line on stderr, quoting it; the session goes on.
Without --min and --max the limits are drawn at random (--seed repeats a draw). Without --serial,
--seed N also draws the bomb, as deck --seed N does, and the first event shows it.

{LIMITS_TEXT}
{EDGEWORK_TEXT}
example (bet $25 on Banker, deal):
  printf '%s\\n' '{{"arrow": "right"}}' '{{"arrow": "right"}}' '{{"press": "banker"}}' '{{"deal": true}}' |
    baccarat play {EXAMPLE_EDGEWORK} --min 25 --max 1000 --color red
"""

CASING_EPILOG = f"""\
The bomb: --serial and the rest, or --seed N (and --game K) for the bomb a random prop
draws, else the config's edgework (--config FILE, else the prop's config, as `run` finds it).
Ports given as a list go on the game's plates (Parallel and Serial; DVI-D, PS/2, RJ-45 and
Stereo RCA; any other port on a plate of its own).
The sheet is 256 x 180 mm: it prints 1:1 on A4 or Letter (the PDF is laid on --paper; print
at 100 %), so every widget is its real size, to cut out and stick on a box.

{EDGEWORK_TEXT}
{RANDOM_BOMB_TEXT}
examples:
  baccarat casing --out casing.pdf
  baccarat casing --seed 7 --game 2 --out game2.pdf --paper letter
  baccarat casing {EXAMPLE_EDGEWORK} --batteries AA,D --out casing.png
"""

SOCKET_TEXT = """\
These commands talk to a running `baccarat run` over its control socket: --socket PATH,
else $BACCARAT_SOCKET, else the path the daemon itself uses: --config FILE's [control] socket,
else /run/baccarat/control.sock while the service runs, else $XDG_RUNTIME_DIR/baccarat.sock,
else ~/.local/state/baccarat/control.sock (never a path in /tmp).
"""

GM_EPILOGS: dict[str, str] = {
    "solved": f"example:\n  baccarat solved 3\n\n{SOCKET_TEXT}",
    "reset": (
        f"--min is {_minimums()}; --max any whole number of dollars above it.\n"
        f"Without them: the config's limits, else random ones.\n\nexample:\n  baccarat reset --min 25 --max 1000\n\n"
        f"{SOCKET_TEXT}"
    ),
    "force-solve": SOCKET_TEXT,
    "start-timer": (
        "The bomb's countdown ([bomb] timer_seconds) starts by itself at the players' first input after a\n"
        "reset; this starts it now (paused while the table is closed).\n\n"
        f"{SOCKET_TEXT}"
    ),
    "add-time": (
        "Seconds more on the countdown, or fewer with a minus sign (at 0 the bomb explodes).\n\n"
        "examples:\n  baccarat add-time 120\n  baccarat add-time -30\n\n"
        f"{SOCKET_TEXT}"
    ),
    "hint": f"example output:\n  next round: banker wins (bet on Banker)\n\n{SOCKET_TEXT}",
    "status": SOCKET_TEXT,
    "bet": (
        "The players' bets, as the original's Twitch Plays takes them: <amount> on <area>, more than\n"
        "one separated by commas. Areas: player, banker, tie, player pair (playerpair), banker pair\n"
        "(bankerpair). Amounts in whole dollars, $1 to $1,000,000: 25, 1000, 1,000 or '$25' (in single\n"
        "quotes: the shell reads $2 as a variable).\n"
        "The table is cleared, each amount is stacked from its largest chip down, and the cards are\n"
        "dealt, exactly as pressing the buttons would (strikes included; the active chip is left on\n"
        "the last one placed). While a round is being dealt the bet is refused; on a closed or solved\n"
        "table its presses are ignored, as the buttons' are.\n\n"
        "example:\n  baccarat bet 25 on banker, 5 on tie\n"
        "  bet $25 on Banker, $5 on Tie: Banker wins (Player 6, Banker 9), profit +$18.75: SOLVED\n\n"
        f"{SOCKET_TEXT}"
    ),
    "self-test": (
        "The prop shows a test pattern on each display, lights each LED colour and plays each\n"
        "sound, then asks on its displays for each button in turn. The game is paused meanwhile\n"
        "and comes back as it was. Exit 0 when every part is OK, 1 when one is not.\n\n"
        f"example:\n  baccarat self-test --button-seconds 15\n\n{SOCKET_TEXT}"
    ),
}


HISTORY_EPILOG = """\
The history file is history.jsonl beside the prop's state file (/var/lib/baccarat for the
service): one game from each reset to its solve, its explosion or the next reset. Time is
counted from the players' first input. A damaged line is skipped with one line on stderr.

examples:
  baccarat history
  baccarat history --last 10 --json
  sudo baccarat history --config /etc/baccarat/config.toml
"""

DESCRIPTIONS: dict[str, str] = {
    "deck": "The game master's cheat sheet: the deck that appears with this edgework, these limits "
    "and this colour, card by card, and the rounds it deals.",
    "casing": "The sides of the bomb for the players: the serial-number sticker, the port plates, "
    "the indicators, the battery holders, the strikes and a QR code to the manual.",
    "play": "A whole session without hardware: the module's rules, fed JSON inputs, answering with "
    "JSON events (the same objects the prop publishes over MQTT).",
}


def apply(parser: argparse.ArgumentParser, sub: argparse._SubParsersAction[Parser]) -> None:
    """Give the top-level parser and each command's parser their epilogs (kept as written)."""
    parser.epilog = MAIN_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    epilogs = {
        "deck": DECK_EPILOG,
        "play": PLAY_EPILOG,
        "casing": CASING_EPILOG,
        "history": HISTORY_EPILOG,
        **GM_EPILOGS,
    }
    for name, epilog in epilogs.items():
        command = sub.choices.get(name)
        if command is not None and not command.epilog:
            command.epilog = epilog
            command.formatter_class = argparse.RawDescriptionHelpFormatter
            command.description = command.description or DESCRIPTIONS.get(name)
