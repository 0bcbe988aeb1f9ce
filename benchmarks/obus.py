"""OBUS on python-can's udp_multicast (issue 43): a frame's round trip, and what a STATE frame costs.

The real daemon on mock pins and dummy displays, with the reference config and an ``[obus]``
section on a multicast group of its own; the other nodes are another process (``--node``), so that
their work is not counted in the prop's::

    python benchmarks/obus.py [--samples 300] [--states 1000] [--json]

- *bus round trip*: python-can alone: a frame sent from this process, sent back by the other
  process, read here (two multicast hops, msgpack both ways). The floor under the prop's figures.
- *through the prop*: the prop as the controller, in its registration round: a REGISTER from the
  other process to the prop's ACK read there (the link's thread, the decoder, the role, the
  encoder; the prop answers a module that registers again, as one that missed its ACK). The
  other process stamps both ends, so no clock is shared.
- *cost per STATE*: the prop as a module in a game; the other process sends STATE frames at
  ``--rate`` a second (a real controller sends 2); the prop process's CPU time over them, less
  what it spends idle over the same time (the link's thread wakes every 50 ms), divided by the
  frames. *steady*: STATEs that say what the prop's own countdown shows anyway: the link's read
  and decode and the role (nothing for the game thread); *changing*: each one changes the strikes,
  so each also sends ``obus_sync`` through the command path to the game thread.

Figures are for this machine (a Pi Zero 2 W is several times slower: see benchmarks/README.md).
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PATIENCE = 30.0


def _bus(group: str, port: int) -> Any:
    import can

    return can.Bus(interface="udp_multicast", channel=group, port=port)


def _frame(can_id: int, data: bytes) -> Any:
    import can

    return can.Message(arbitration_id=can_id, data=data, is_extended_id=False)


def node(group: str, port: int) -> None:
    """The other process: commands on stdin (one JSON line each), answers on stdout."""
    bus = _bus(group, port)
    for line in sys.stdin:
        order = json.loads(line)
        if order["do"] == "echo":  # send each frame heard back (not its own echoes), ``count`` of them
            answered = 0
            while answered < order["count"]:
                frame = bus.recv(PATIENCE)
                if frame is None:
                    break
                if frame.arbitration_id == 0x123:
                    bus.send(_frame(0x124, bytes(frame.data)))
                    answered += 1
        elif order["do"] == "register":  # REGISTER -> ACK through the prop, stamped here
            took = []
            for _ in range(order["count"]):
                start = time.perf_counter()
                bus.send(_frame(0x502, b"\x00"))
                while True:
                    frame = bus.recv(PATIENCE)
                    if frame is None or (frame.arbitration_id == 0x400 and bytes(frame.data) == b"\x00\x01\x02"):
                        break
                took.append(time.perf_counter() - start)
            print(json.dumps(took), flush=True)
        elif order["do"] == "send":
            for can_id, text in order["frames"]:
                bus.send(_frame(can_id, bytes.fromhex(text)))
            print("[]", flush=True)
        elif order["do"] == "states":
            gap = 1 / order["rate"]
            due = start = time.perf_counter()
            for n in range(order["count"]):
                # steady: the time left as a real clock runs it (what the prop's own countdown shows
                # anyway); changing: a strike byte that changes at each one (the game is told each time)
                left = round(order["left_ms"] - (time.perf_counter() - start) * 1000)
                strikes = n % 2 if order["changing"] else 0
                bus.send(_frame(0x400, bytes([3]) + left.to_bytes(4, "big") + bytes([strikes, 3, 2])))
                due += gap
                time.sleep(max(0.0, due - time.perf_counter()))
            print("[]", flush=True)
    bus.shutdown()


class Other:
    """The other process."""

    def __init__(self, group: str, port: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--node", group, str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(0.5)  # its bus is open

    def ask(self, **order: Any) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(order) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def tell(self, **order: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(order) + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(PATIENCE)


def figures(seconds: list[float]) -> dict[str, float]:
    """p50, p99 and max in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {
        "p50": round(ms[len(ms) // 2], 3),
        "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 3),
        "max": round(ms[-1], 3),
        "samples": len(ms),
    }


def bus_round_trip(group: str, port: int, samples: int) -> dict[str, float]:
    other = Other(group, port)
    bus = _bus(group, port)
    try:
        other.tell(do="echo", count=samples)
        took = []
        for n in range(samples):
            start = time.perf_counter()
            bus.send(_frame(0x123, n.to_bytes(4, "big")))
            while True:
                frame = bus.recv(PATIENCE)
                if frame is None or frame.arbitration_id == 0x124:
                    break
            took.append(time.perf_counter() - start)
        return figures(took)
    finally:
        bus.shutdown()
        other.close()


def _prop(section: dict[str, Any], bomb: dict[str, Any]) -> tuple[Any, Any]:
    import tomllib

    from firmware.app import attach_services, build_daemon, mock_pin_factory
    from firmware.config import DEFAULT_CONFIG, parse_config
    from firmware.devices.displays import open_dummy_device

    data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    data["obus"] = section
    data["bomb"] = bomb
    data.setdefault("state", {})["file"] = ""
    data.setdefault("control", {})["socket"] = ""
    config = parse_config(data)
    daemon = build_daemon(
        config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=random.Random(7)
    )
    attached = attach_services(daemon, config)
    daemon.start()
    daemon.ready.wait(PATIENCE)
    return daemon, attached


def _close(daemon: Any, attached: Any) -> None:
    from firmware.app import close_daemon

    daemon.stop()
    for close in attached:
        close()
    close_daemon(daemon)


def _until(check: Any) -> None:
    end = time.monotonic() + PATIENCE
    while not check():
        if time.monotonic() > end:
            raise SystemExit("the prop did not get there")
        time.sleep(0.02)


def through_the_prop(group: str, port: int, samples: int) -> dict[str, float]:
    section = {"role": "controller", "interface": "udp_multicast", "channel": group, "port": port}
    other = Other(group, port)
    daemon, attached = _prop(section, {"timer_seconds": 600, "strike_limit": 3})
    try:
        service = attached.prop.service("obus")
        _until(lambda: service.document()["obus"]["phase"] == "registering")
        return figures(other.ask(do="register", count=samples))
    finally:
        _close(daemon, attached)
        other.close()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cost_per_state(group: str, port: int, states: int, rate: float) -> dict[str, Any]:
    section = {"role": "module", "interface": "udp_multicast", "channel": group, "port": port}
    other = Other(group, port)
    daemon, attached = _prop(section, {"timer_seconds": 600})
    try:
        service = attached.prop.service("obus")
        _until(lambda: service.link.up)
        other.ask(do="send", frames=[[0x400, "01"]])  # HELLO
        _until(lambda: service.document()["obus"]["phase"] == "waiting")
        time.sleep(0.5)  # its REGISTER went out (250 ms)
        start = "02" + (600_000).to_bytes(4, "big").hex() + "000303"
        other.ask(do="send", frames=[[0x400, "000101"], [0x400, start]])
        _until(lambda: service.document()["obus"]["phase"] == "playing")
        out: dict[str, Any] = {"rate_per_s": rate}
        for changing in (False, True):
            before, wall = _cpu(), time.perf_counter()
            received = service.link.received
            other.ask(do="states", count=states, rate=rate, changing=changing, left_ms=590_000)
            time.sleep(0.2)  # the last ones are read
            busy, span = _cpu() - before, time.perf_counter() - wall
            heard = service.link.received - received
            before = _cpu()
            time.sleep(span)
            idle = _cpu() - before
            out["changing" if changing else "steady"] = {
                "states_read": heard,
                "cpu_ms_busy": round(busy * 1000, 1),
                "cpu_ms_idle_same_time": round(idle * 1000, 1),
                "us_per_state": round((busy - idle) / max(heard, 1) * 1e6, 1),
            }
            out["idle_cpu_percent"] = round(idle / span * 100, 2)
        return out
    finally:
        _close(daemon, attached)
        other.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--states", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--node", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.node:
        node(args.node[0], int(args.node[1]))
        return 0
    import logging

    logging.disable(logging.WARNING)
    rng = random.Random()

    def group() -> tuple[str, int]:
        return f"239.{rng.randrange(80, 250)}.{rng.randrange(256)}.{rng.randrange(1, 255)}", rng.randrange(40000, 60000)

    out = {
        "bus_round_trip_ms": bus_round_trip(*group(), args.samples),
        "register_to_ack_through_the_prop_ms": through_the_prop(*group(), args.samples),
        "cost_per_state": cost_per_state(*group(), args.states, args.rate),
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for name, values in out.items():
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
