"""``baccarat run`` over the recorded bus, as the service starts it, with a table display that can hang.

Started as ``python tests/watchdog_process.py CONFIG``: like ``benchmarks/child.py`` it puts
``tests/fakeos.py`` under smbus2, spidev and RPi.GPIO, fits a far end for each display the
config wires, sets gpiozero's mock pins and hands over to the real command line. SIGUSR2
arms :meth:`fakeos.I2cTarget.hang` on the table's address (the next write never returns);
stdout says ``armed``, then ``hung`` once the game thread is stuck inside that write.
"""

from __future__ import annotations

import signal
import sys
import threading
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from firmware.console import main as baccarat
    from tests import fakeos

    kernel = fakeos.install_for_process()
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    with open(argv[0], "rb") as file:
        displays = tomllib.load(file).get("displays", [])
    ends = {}
    for display in displays:
        if display["interface"] == "i2c":
            ends[display["role"]] = kernel.i2c_display(display.get("port", 1), display.get("address", 0x3C))
        else:
            kernel.spi_device(display.get("port", 0), display.get("device", 0), dc=display.get("dc", 24))
    table = ends["table"]

    def say_hung() -> None:
        table.hung.wait()
        print("hung", flush=True)

    def arm(signum: int, frame: object) -> None:
        table.hang()
        print("armed", flush=True)
        threading.Thread(target=say_hung, daemon=True).start()

    signal.signal(signal.SIGUSR2, arm)
    return baccarat(["run", "--config", argv[0]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
