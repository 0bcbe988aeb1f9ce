"""The room controllers' latency on loopback: a controller's command to its effect, an event to its message.

Each part starts the real daemon (mock pins, dummy displays, the reference config) with one
controller's service attached as ``baccarat run`` attaches it, and the other side on loopback::

    python benchmarks/controllers.py [--samples 200] [--json] [clue_control ...]

**clue_control** (issue 31, part 1). Clue Control's computer is pymodbus's own Modbus TCP
server (it records each coil write as it arrives); Clue Control's switch is pymodbus's
synchronous client.

- *command to effect*: from just before the client sends a write of holding register 1 (101 or
  100: the lock on or off) to the moment the daemon's ``on_handled`` hook sees the lock's
  ``OutputSwitched`` (the pin has changed just before it); and the same for 1 (force solve)
  and 2 (reset) to the hook's ``solved`` or ``reset`` event. The switch answers each write at
  once, so the client's round trip is measured too.
- *event to coil*: from that ``OutputSwitched`` or ``solved`` event in the ``on_handled`` hook
  (the command sent through the one command path, not over Modbus) to the moment the fake
  Clue Control's server has the coil write (10*N solved, 100*N+10 the lock); on the way: the
  frame, the ``on_settled`` hook, the link's thread, one Modbus round trip.

Figures are milliseconds on this machine (p50, p99, max); a Pi Zero 2 W is slower (see
benchmarks/README.md for the factor the main benchmark uses).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PATIENCE = 20.0


def figures(samples: list[float]) -> dict[str, float]:
    """p50, p99 and max of ``samples`` (seconds) in milliseconds."""
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {"p50": round(statistics.median(ms), 3), "p99": round(p99, 3), "max": round(ms[-1], 3), "n": len(ms)}


class Stamps:
    """Moments by key, set from any thread; ``wait(key)`` returns the moment once it is there."""

    def __init__(self) -> None:
        self._moments: dict[Any, float] = {}
        self._changed = threading.Condition()

    def mark(self, key: Any) -> None:
        now = time.perf_counter()
        with self._changed:
            self._moments.setdefault(key, now)
            self._changed.notify_all()

    def wait(self, key: Any) -> float:
        with self._changed:
            if not self._changed.wait_for(lambda: key in self._moments, PATIENCE):
                raise TimeoutError(f"{key} did not come within {PATIENCE:g} s")
            return self._moments.pop(key)

    def clear(self) -> None:
        with self._changed:
            self._moments.clear()

    def handled(self, events: list[Any], module: Any) -> None:
        """A daemon ``on_handled`` hook: ``("switched", on)`` for an output switched, ``("solved",)``
        and ``("reset",)`` for those events, at the event's own moment."""
        from firmware.devices.switching import OutputSwitched

        for event in events:
            if isinstance(event, OutputSwitched):
                self.mark(("switched", event.on))
            elif event.kind in ("solved", "reset"):
                self.mark((event.kind,))


class ClueControlComputer:
    """pymodbus's Modbus TCP server on a thread of its own, stamping each coil write as it arrives."""

    def __init__(self, stamps: Stamps) -> None:
        self.stamps = stamps
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="clue-control-pc", daemon=True)
        self.thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(PATIENCE)

    async def _action(self, function, start, address, count, registers, values):
        if function == 5 and values is not None:
            self.stamps.mark(("coil", address, bool(values[0])))
        return None

    async def _start(self) -> int:
        from pymodbus.server import ModbusTcpServer
        from pymodbus.simulator import DataType, SimData, SimDevice

        coils = [SimData(0, values=[False] * 30000, datatype=DataType.BITS)]
        one_bit = [SimData(0, values=False, datatype=DataType.BITS)]
        one_register = [SimData(0, datatype=DataType.REGISTERS)]
        device = SimDevice(id=0, simdata=(coils, one_bit, one_register, list(one_register)), action=self._action)
        self.server = ModbusTcpServer(device, address=("127.0.0.1", 0))
        await self.server.serve_forever(background=True)
        return int(self.server.transport.sockets[0].getsockname()[1])

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.shutdown(), self.loop).result(PATIENCE)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(PATIENCE)


def clue_control(samples: int) -> dict[str, Any]:
    """The Clue Control part: command to effect and event to coil, on the running daemon."""
    from pymodbus.client import ModbusTcpClient

    from firmware.app import attach_services, build_daemon, close_daemon, mock_pin_factory
    from firmware.config import DEFAULT_CONFIG, parse_config
    from firmware.devices.displays import open_dummy_device

    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    stamps = Stamps()
    pc = ClueControlComputer(stamps)

    def start_prop() -> tuple[Any, Any, Any, int]:
        """The prop with its Clue Control switch on a free port: another port if the one found free
        was taken before the switch could listen (the machine's other tests and programs)."""
        import tomllib

        for _ in range(5):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
            data["clue_control"] = {"port": port, "controller": f"127.0.0.1:{pc.port}"}
            data.setdefault("state", {})["file"] = ""
            data["control"] = {"socket": ""}  # no control socket: one beside a running prop
            config = parse_config(data)
            daemon = build_daemon(
                config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=random.Random(7)
            )
            daemon.on_handled.append(stamps.handled)
            attached = attach_services(daemon, config)
            link = attached.prop.service("clue_control")
            daemon.start()
            if not (daemon.ready.wait(PATIENCE) and link.ready.wait(PATIENCE)):
                raise RuntimeError("the prop or its Clue Control link did not start")
            if link.listening:
                return daemon, attached, link, port
            daemon.stop()
            for close in attached:
                close()
            close_daemon(daemon)
        raise RuntimeError("no free port for the Clue Control switch in 5 tries")

    daemon, attached, link, port = start_prop()
    commands = attached.prop.commands
    try:
        stamps.wait(("coil", 110, False))  # the state at the start is written
        client = ModbusTcpClient("127.0.0.1", port=port, timeout=PATIENCE, retries=0)
        client.connect()
        output_times: list[float] = []
        solve_times: list[float] = []
        for i in range(samples):
            on = i % 2 == 0
            stamps.clear()
            start = time.perf_counter()
            client.write_register(1, 101 if on else 100)
            output_times.append(stamps.wait(("switched", on)) - start)
            stamps.wait(("coil", 110, on))  # settled before the next
        for i in range(samples):
            value, kind = (1, "solved") if i % 2 == 0 else (2, "reset")
            stamps.clear()
            start = time.perf_counter()
            client.write_register(1, value)
            solve_times.append(stamps.wait((kind,)) - start)
            stamps.wait(("coil", 10, kind == "solved"))
        client.close()
        coil_output: list[float] = []
        coil_solved: list[float] = []
        for i in range(samples):
            on = i % 2 == 0
            stamps.clear()
            commands.handle({"command": "output", "name": "lock", "state": "on" if on else "off"})
            event = stamps.wait(("switched", on))
            coil_output.append(stamps.wait(("coil", 110, on)) - event)
        for i in range(samples):
            solve = i % 2 == 0
            stamps.clear()
            commands.handle({"command": "force_solve" if solve else "reset"})
            event = stamps.wait(("solved",) if solve else ("reset",))
            coil_solved.append(stamps.wait(("coil", 10, solve)) - event)
    finally:
        daemon.stop()
        for close in attached:
            close()
        close_daemon(daemon)
        pc.stop()
    return {
        "command_to_effect_ms": {"output (100/101)": figures(output_times), "solve/reset (1/2)": figures(solve_times)},
        "event_to_coil_ms": {"output": figures(coil_output), "solved": figures(coil_solved)},
    }


PARTS = {"clue_control": clue_control}


def table(name: str, report: dict[str, Any]) -> str:
    lines = [f"### {name}", "", "| measure | what | p50 ms | p99 ms | max ms | samples |", "|---|---|---|---|---|---|"]
    for measure, rows in report.items():
        for what, f in rows.items():
            lines.append(f"| {measure} | {what} | {f['p50']} | {f['p99']} | {f['max']} | {f['n']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", metavar="PART", help=f"which ({', '.join(PARTS)}; default all)")
    parser.add_argument("--samples", type=int, default=200, help="commands and events of each kind (default 200)")
    parser.add_argument("--json", action="store_true", help="every figure as one JSON object")
    args = parser.parse_args()
    unknown = [part for part in args.parts if part not in PARTS]
    if unknown:
        parser.error(f"unknown part {unknown[0]!r} (known: {', '.join(PARTS)})")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    report = {part: PARTS[part](args.samples) for part in args.parts or PARTS}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n\n".join(table(name, part) for name, part in report.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
