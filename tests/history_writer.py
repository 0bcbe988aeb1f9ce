"""A history writer in a process of its own, for the kill -9 tests (``python tests/history_writer.py FILE MODE``).

It appends games to FILE through the prop's own :class:`~firmware.history.store.FileStore` (the
writer thread, one ``write()`` per batch, ``fdatasync``). Each line carries its number (``n``), so
a reader can tell which lines made it. Stdout gets ``{"written": N}`` after each batch is on disk.

``MODE`` is ``loop`` (eight batches of a thousand lines, about 300 KB each, as fast as the disk
takes them, then a wait: a kill lands at any moment) or ``half`` (the kernel's short write, made
to happen: ``write()`` takes at most half a batch at a time, and after the first half of the
third batch the writer says ``{"half": N}`` and waits there to be killed, as a kill in the middle
of a large ``write()`` leaves the file).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.history import store as store_module  # noqa: E402
from firmware.history.store import FileStore  # noqa: E402

EDGEWORK = {"serial": "AB3DE4", "ports": ["Parallel"], "lit": ["FRK"], "unlit": [], "solved": 0}


def start_line(game: str, n: int) -> dict:
    return {
        "v": 1,
        "t": "start",
        "id": game,
        "at": 1_750_000_000 + n,
        "game": 1,
        "edgework": EDGEWORK,
        "drawn": False,
        "limits": {"min": 25, "max": 1000, "random": False},
        "deck": "red",
        "enabled": True,
    }


def command_line(game: str, n: int) -> dict:
    return {
        "t": "command",
        "id": game,
        "at": 1_750_000_000 + n,
        "command": "set_solved",
        "detail": f"{n:08d} " + "x" * 200,
    }


def main(path: str, mode: str) -> None:
    store = FileStore(Path(path))
    say = threading.Lock()
    batches = 0
    if mode == "half":
        real_write = os.write
        stalled = threading.Event()

        def short_write(fd: int, data: bytes | memoryview) -> int:
            limit = max(1, len(data) // 2)
            written = real_write(fd, bytes(data[:limit]))
            if batches == 2 and not stalled.is_set():
                stalled.set()
                with say:
                    print(json.dumps({"half": written}), flush=True)
                threading.Event().wait()  # killed here, half a batch in the file
            return written

        store_module.os.write = short_write  # type: ignore[assignment]
    n = 0
    game = "kill-test-1"
    store.hand([], [json.dumps(start_line(game, n))], new_game=True)
    while batches < 8:
        texts = []
        for _ in range(1000 if mode == "loop" else 5):  # half of 5 lines: a line torn in two
            n += 1
            texts.append(json.dumps(command_line(game, n)))
        store.hand([], texts)
        store.flush(60)
        batches += 1
        with say:
            print(json.dumps({"written": n}), flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main(*sys.argv[1:])
