"""``baccarat run`` over the recorded bus: the benchmark's idle and start-up child.

Started as ``python benchmarks/child.py CONFIG [THREADS_JSON]``: it puts
``tests/fakeos.py`` under smbus2, spidev and RPi.GPIO, gives each display the
config wires a far end, sets gpiozero's mock pins (with PWM) as the pin factory,
and hands over to the real command line, ``baccarat run --config CONFIG``, as
the service starts it. The pin factory is built directly, as the daemon builds
the service's ``GPIOZERO_PIN_FACTORY=lgpio`` (``devices.board.named_pin_factory``),
not found by gpiozero's scan of every distribution's entry points. Kept small on
purpose: everything it imports is counted in the start-up time.
"""

from __future__ import annotations

import gc
import json
import logging
import sys
import threading
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _dump_threads(path: str) -> None:
    names = {str(t.native_id): t.name for t in threading.enumerate()}
    Path(path).write_text(json.dumps(names), encoding="utf-8")


class _NamesAtReady(logging.Handler):
    """Half a second after the daemon logs "ready", the threads' names to ``path`` (once): every
    thread of the start runs by then, however long the start took on a busy machine, and the file
    is written before the benchmark's windows begin."""

    def __init__(self, path: str) -> None:
        super().__init__(logging.INFO)
        self.path = path

    def emit(self, record: logging.LogRecord) -> None:
        from firmware.game.daemon import READY  # loaded by now: it is the daemon saying so

        if record.msg == READY and self.path:
            timer = threading.Timer(0.5, _dump_threads, args=(self.path,))
            timer.daemon = True
            timer.start()
            self.path = ""


def main(argv: list[str]) -> int:
    """Install the recorded bus, then run the daemon as the service does."""
    # The `baccarat` console script turns Python's cyclic collector off for `run` before its
    # first import, until "ready" (firmware/console.py); so does this stand-in, before its fakes.
    gc.disable()
    import firmware  # noqa: F401 - loaded first, as by the console script (it defers Pillow's tag tables)
    from tests import fakeos

    kernel = fakeos.install_for_process()
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    from firmware.console import main as baccarat

    # Where the displays are, read from the TOML with the config's defaults; the daemon checks
    # the file itself (load_config here would count the config's validation twice).
    with open(argv[0], "rb") as file:
        displays = tomllib.load(file).get("displays", [])
    for display in displays:
        if display["interface"] == "i2c":
            kernel.i2c_display(display.get("port", 1), display.get("address", 0x3C))
        else:
            kernel.spi_device(display.get("port", 0), display.get("device", 0), dc=display.get("dc", 24))
    if len(argv) > 1:  # the names of the threads, once all of them run
        logging.getLogger("baccarat").addHandler(_NamesAtReady(argv[1]))
    return baccarat(["run", "--config", argv[0]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
