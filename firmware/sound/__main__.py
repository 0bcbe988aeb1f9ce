"""Bring-up check: play the cues on an output and say whether it worked.

    python -m firmware.sound --output alsa --device plughw:CARD=Device,DEV=0
    python -m firmware.sound --output buzzer --pin 18 strike solve
    python -m firmware.sound --output alsa --simulate        # the PC's speakers

Exit 0 when every cue was handed to the output without a complaint, 1 when the
output failed (the reason in one line), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

from ..errors import ConfigError
from ..services.sound import parse_sound_section
from ..system.said import Said
from . import CUES, make_player
from .cues import BUZZER_SEQUENCES, sequence_seconds
from .players import AlsaPlayer, BuzzerPlayer, load_clips
from .synth import read_wav


def main(argv: list[str] | None = None) -> int:
    """Play the cues named (all by default) on the output the arguments describe."""
    parser = argparse.ArgumentParser(prog="python -m firmware.sound", description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="alsa", help='"alsa" (default), "buzzer" or "none"')
    parser.add_argument("--device", default="default", help='ALSA device, e.g. "plughw:CARD=Device,DEV=0"')
    parser.add_argument("--pin", type=int, default=18, help="the buzzer's BCM GPIO (default 18)")
    parser.add_argument("--volume", type=float, default=0.8, help="0.0 to 1.0 (default 0.8)")
    parser.add_argument("--simulate", action="store_true", help="play through the PC's speakers (pygame)")
    parser.add_argument("cues", nargs="*", metavar="CUE", help=f"any of {', '.join(CUES)} (default: all)")
    args = parser.parse_args(argv)
    for cue in args.cues:
        if cue not in CUES:
            print(f"error: no cue {cue!r}; the cues are {', '.join(CUES)}", file=sys.stderr)
            return 2
    try:
        settings = parse_sound_section(
            {"output": args.output, "device": args.device, "pin": args.pin, "volume": args.volume}
        )
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    complaints = Said(logging.WARNING)
    logger = logging.getLogger("baccarat.sound")
    logger.addHandler(complaints)
    player = make_player(settings, simulate=args.simulate)
    lengths = {cue: len(pcm) / rate for cue, (pcm, rate) in ((c, read_wav(d)) for c, d in load_clips().items())}
    try:
        for cue in args.cues or CUES:
            print(f"{cue} ...", flush=True)
            player.play(cue)
            seconds = sequence_seconds(BUZZER_SEQUENCES[cue]) if settings.output == "buzzer" else lengths[cue]
            time.sleep(seconds + 0.3)
            if isinstance(player, AlsaPlayer | BuzzerPlayer):
                while not player.idle():
                    time.sleep(0.02)
            if complaints.messages:
                break
    finally:
        player.close()
        logger.removeHandler(complaints)
    if complaints.messages:
        print(f"error: {complaints.messages[0]}", file=sys.stderr)
        return 1
    print(f"{settings.output}: every cue played" if settings.output != "none" else "output none: nothing to play")
    return 0


if __name__ == "__main__":
    sys.exit(main())
