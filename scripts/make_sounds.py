#!/usr/bin/env python3
"""Write the prop's sounds, synthesised by firmware/sound/synth.py, as WAV files.

python scripts/make_sounds.py           # writes firmware/sound/wav/<cue>.wav
python scripts/make_sounds.py --check   # exit 1 if a committed file differs or is missing
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.sound import synth  # noqa: E402
from firmware.sound.cues import CUES  # noqa: E402

WAV_DIR = ROOT / "firmware" / "sound" / "wav"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    parser.add_argument("--out", type=Path, default=WAV_DIR, help=f"folder (default {WAV_DIR.relative_to(ROOT)})")
    args = parser.parse_args(argv)

    differ: list[str] = []
    total = 0
    for cue in CUES:
        data = synth.wav_bytes(synth.render(cue))
        total += len(data)
        path = args.out / f"{cue}.wav"
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                differ.append(path.name)
            continue
        args.out.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(data):,} bytes")
    extra = sorted(p.name for p in args.out.glob("*.wav") if p.stem not in CUES) if args.out.is_dir() else []
    if args.check:
        if differ or extra:
            for name in differ:
                print(f"{name}: differs from what synth.py makes; run python scripts/make_sounds.py", file=sys.stderr)
            for name in extra:
                print(f"{name}: no cue of that name; delete it", file=sys.stderr)
            return 1
        print(f"{len(CUES)} sounds up to date ({total:,} bytes)")
        return 0
    print(f"{len(CUES)} sounds, {total:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
