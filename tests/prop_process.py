"""A whole prop in a process of its own, for the kill -9 tests (``python tests/prop_process.py CONFIG.json SEED``).

It builds the daemon as ``baccarat run`` does (restore_game, build_daemon,
attach_services) on mock pins and dummy displays. Commands arrive on stdin as
JSON lines: ``{"tap": "player"}``, ``{"deal": true}`` (no wait: the deal runs
on), ``{"hint": true}``, ``{"snapshot": true}``, ``{"pins": true}`` (the outputs'
pins), ``{"command": {...}}`` (a game-master command, as MQTT sends it). Stdout
gets JSON lines: a ``ready`` line (with the outputs' pins and held outputs once
ready), each batch of events as the daemon hands it to its on_handled hooks, and
one answer per command.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.app import attach_services, build_daemon, mock_pin_factory, restore_game  # noqa: E402
from firmware.config import parse_config  # noqa: E402
from firmware.devices.displays import open_dummy_device  # noqa: E402
from firmware.room.commands import GameMaster, hint  # noqa: E402
from firmware.simulator.pins import PinDriver  # noqa: E402

_out = threading.Lock()


def emit(data: dict) -> None:
    with _out:
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()


def main(config_file: str, seed: str) -> None:
    config = parse_config(json.loads(Path(config_file).read_text()))
    rng = random.Random(int(seed))
    game = restore_game(config, rng)
    daemon = build_daemon(
        config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=rng, restore=lambda: game
    )
    attach_services(daemon, config)  # the state keeper listens first ...
    daemon.on_handled.append(lambda events, m: emit({"events": [e.kind for e in events]}))  # ... then we
    daemon.start()
    daemon.ready.wait(5)
    ready = {
        "restored": game is not None,
        "snapshot": daemon.call(daemon.module.snapshot).result(5),
        "pins": daemon.board.outputs.pins(),
        "held": daemon.call(daemon.held_outputs).result(5),
    }
    emit({"ready": ready})
    master = GameMaster(daemon, default_limits=config.limits)
    driver = PinDriver(daemon.board)
    for line in sys.stdin:
        command = json.loads(line)
        if "tap" in command:
            name = command["tap"]
            driver.tap(name)
            daemon.wait_idle()
            emit({"tapped": name})
        elif "deal" in command:
            driver.press("deal")
            time.sleep(0.04)
            driver.release("deal")
        elif "hint" in command:
            emit({"hint": daemon.call(lambda: hint(daemon.module)).result(30)})
        elif "snapshot" in command:
            emit({"snapshot": daemon.call(daemon.module.snapshot).result(30)})
        elif "pins" in command:
            emit({"pins": daemon.board.outputs.pins()})
        elif "command" in command:
            emit({"reply": master.handle(command["command"]).result(30)})


if __name__ == "__main__":
    main(*sys.argv[1:])
