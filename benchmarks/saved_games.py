"""Making the saved game and the history a start finds, for ``instructions.py`` (a plain process, no valgrind)::

python benchmarks/saved_games.py ROOT CONFIG ROUNDS END
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def generate(argv: list[str]) -> int:
    """``generate ROOT CONFIG ROUNDS END``: play ROUNDS rounds on the config's files, each lost,
    then (END ``solved``) a won one, or (END ``stopped``) stop mid-game as SIGTERM does, or (END
    ``cut``) end the process there as a power cut does; as ``baccarat run`` would."""
    root, config_path, rounds_text, end = argv
    sys.path.insert(0, root)
    import random
    import time

    from tests import fakeos

    kernel = fakeos.install_for_process()
    from baccarat_core import TableLimits
    from baccarat_core.inputs import Arrow, Deal, Press
    from firmware.app import attach_services, build_daemon, close_daemon, mock_pin_factory
    from firmware.config import load_config

    try:
        from baccarat_core.records import replace
    except ImportError:  # older checkouts: dataclasses
        from dataclasses import replace

    config = load_config(Path(config_path))
    quick = {"card_seconds": 0.0, "result_seconds": 0.0}
    if hasattr(config.timing, "pacing"):
        quick["pacing"] = "quick"
    config = replace(config, timing=replace(config.timing, **quick))
    for spec in config.displays:
        if spec.interface == "i2c":
            kernel.i2c_display(spec.port, spec.address)
        else:
            kernel.spi_device(spec.port, spec.device, dc=spec.dc)
    factory = mock_pin_factory()
    daemon = build_daemon(config, pin_factory=factory, rng=random.Random(2))
    closers = attach_services(daemon, config)
    daemon.start()
    if not daemon.ready.wait(30):
        raise RuntimeError("the daemon did not get ready")
    daemon.apply(lambda m: m.reset(TableLimits(25, 1000))).result(30)
    daemon.apply(lambda m: m.handle(Arrow("right")) + m.handle(Arrow("right"))).result(30)
    rounds = int(rounds_text)
    for number in range(rounds + (end == "solved")):
        winner = daemon.call(lambda: daemon.module.next_round().winner).result(30)
        if number < rounds:
            area = "banker" if winner == "player" else "player"  # lost (a push on a tie)
        else:
            area = winner  # won: solved
        daemon.apply(lambda m, area=area: m.handle(Press(area)) + m.handle(Deal())).result(30)
        daemon.wait_idle(30)
    if end == "solved" and not daemon.module.solved:
        raise RuntimeError("the last round did not solve the module")
    if end == "cut":  # a power cut: the files as they are, no stop line
        daemon.wait_idle(30)
        time.sleep(1.0)  # the state file's and the history's writers have written what they had
        os._exit(0)
    daemon.stop()
    for close in closers:
        close()
    close_daemon(daemon)
    factory.reset()
    return 0


if __name__ == "__main__":
    sys.exit(generate(sys.argv[1:]))
