"""Starting the model's nodes (:mod:`.node`) as processes and reading what they say."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

NODE = Path(__file__).resolve().parent / "node.py"
#: How long a test waits for a node's step (generous: the machine may be busy).
PATIENCE = 30.0


def new_group() -> tuple[str, int]:
    """A multicast group and UDP port of the test's own (a simulator or another test uses others)."""
    rng = random.Random()
    return f"239.{rng.randrange(80, 250)}.{rng.randrange(256)}.{rng.randrange(1, 255)}", rng.randrange(40000, 60000)


class Proc:
    """One model node's process: ``lines`` is everything it said, ``wait`` waits for a line."""

    def __init__(self, kind: str, number: int, group: str, port: int, **options: Any) -> None:
        self.kind, self.number = kind, number
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
        self.process = subprocess.Popen(
            [sys.executable, str(NODE), kind, str(number), group, str(port), json.dumps(options)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.wait(lambda line: "ready" in line)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            with self.changed:
                self.lines.append(json.loads(text))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def tell(self, **command: Any) -> None:
        """One command (``tell(strike=1)``)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def wait(
        self, match: Callable[[dict[str, Any]], bool], patience: float = PATIENCE, since: int = 0
    ) -> dict[str, Any]:
        """The first line from line ``since`` on (said so far or from now) that ``match`` takes."""

        def first() -> dict[str, Any] | None:
            return next((line for line in self.lines[since:] if match(line)), None)

        with self.changed:
            found = self.changed.wait_for(lambda: first() or self.process.poll() is not None, patience)
            line = first()
        if line is None:
            err = self.process.stderr.read() if self.process.poll() is not None and self.process.stderr else ""
            raise AssertionError(f"{self.kind} {self.number}: nothing matched in {patience} s ({found!r}) {err}")
        return line

    def heard(self, name: str, can_id: int | None = None) -> list[dict[str, Any]]:
        """The frames heard so far called ``name`` (from ``can_id``)."""
        with self.changed:
            return [
                line
                for line in self.lines
                if "rx" in line and line["name"] == name and (can_id is None or line["rx"][0] == can_id)
            ]

    def problems(self) -> list[dict[str, Any]]:
        """The frames heard that break the spec's tables."""
        with self.changed:
            return [line for line in self.lines if line.get("problems")]

    def stop(self) -> None:
        """Quit and wait."""
        if self.process.poll() is None:
            try:
                self.tell(quit=1)
                self.process.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
