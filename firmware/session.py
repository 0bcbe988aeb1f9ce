"""``baccarat play``: a headless session, JSON lines in and JSON lines out."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import TextIO

from baccarat_core import BaccaratError, BaccaratModule, Edgework, TableLimits
from baccarat_core.inputs import parse_input


def run_session(
    edgework: Edgework,
    limits: TableLimits | None,
    color: str,
    seed: int | None,
    lines: Iterable[str],
    out: TextIO,
    err: TextIO,
) -> int:
    """Feed each input line to a module; write each event as one JSON line."""
    module = BaccaratModule(edgework, limits, rng=random.Random(seed), first_color=color)

    def emit(events: list) -> None:
        for event in events:
            out.write(json.dumps(event.to_dict()) + "\n")
        out.flush()

    emit(module.start())
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            action = parse_input(json.loads(line))
        except json.JSONDecodeError as error:
            err.write(f"baccarat play: line {number}: not JSON ({error.msg}): {line.strip()[:80]}\n")
            continue
        except RecursionError:  # e.g. thousands of "[": malformed too, not a crash
            err.write(f"baccarat play: line {number}: not JSON (nested too deeply): {line.strip()[:80]}\n")
            continue
        except BaccaratError as error:
            err.write(f"baccarat play: line {number}: {error}\n")
            continue
        emit(module.handle(action))
    return 0
