"""OSC on loopback: command to effect, and event to message (issue 31, part 4).

The real daemon on mock pins and dummy displays, with the reference config's outputs and its
``[osc]`` service attached as ``baccarat run`` attaches it; python-osc's own server on a free
loopback port stands in for QLab, and python-osc's client for the room's controller. Each
sample sends ``/baccarat/output/lock 1`` (then ``0``, alternately) and waits for the cue the
output change sends back::

    python benchmarks/controller_osc.py [--samples 500] [--json]

Three figures per sample, in ms, on ``time.monotonic()``:

- **command to effect**: from just before the controller's ``sendto`` to the lock's pin edge
  (gpiozero's mock pin stamps it): the listener's thread, the command path, the game thread;
- **event to message**: from the game thread handling the output's event (a daemon
  ``on_handled`` hook, the first one, stamps it) to python-osc's server reading the cue: the
  frame, the hand-over to the sender's thread, the build, the datagram and its parsing;
- **command to cue**: the two together, the controller's send to the cue at the target.

It prints a markdown table, or with ``--json`` one JSON object. Nothing is asserted: speed
targets live here, never in the tests.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(ROOT))


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 3),
        "p99": round(p99, 3),
        "max": round(ordered[-1], 3),
        "samples": len(ordered),
    }


def measure(samples: int) -> dict[str, Any]:
    """The three figures over ``samples`` output commands."""
    import tomllib

    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from pythonosc.dispatcher import Dispatcher
    from pythonosc.osc_server import BlockingOSCUDPServer
    from pythonosc.udp_client import SimpleUDPClient

    from firmware.app import attach_services, build_daemon, close_daemon
    from firmware.config import DEFAULT_CONFIG, parse_config
    from firmware.devices.displays import open_dummy_device

    cue_times: list[float] = []
    arrived = threading.Condition()

    def cue(address: str, *args: Any) -> None:
        with arrived:
            cue_times.append(time.monotonic())
            arrived.notify_all()

    dispatcher = Dispatcher()
    dispatcher.set_default_handler(cue)
    qlab = BlockingOSCUDPServer(("127.0.0.1", 0), dispatcher)
    threading.Thread(target=qlab.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    listen = free_udp_port()
    data = tomllib.loads(DEFAULT_CONFIG.read_text())
    data["state"] = {"file": ""}
    data["control"] = {"socket": ""}
    data["osc"] = {
        "targets": [f"127.0.0.1:{qlab.server_address[1]}"],
        "output": "/cue/{name}-{state}/start",
        "listen": f"127.0.0.1:{listen}",
    }
    config = parse_config(data)
    factory = MockFactory(pin_class=MockPWMPin)
    daemon = build_daemon(config, pin_factory=factory, device_factory=open_dummy_device, rng=random.Random(1))
    handled: list[float] = []

    def stamp(events: list[Any], module: Any) -> None:
        if any(e.kind == "output" for e in events):
            handled.append(time.monotonic())

    daemon.on_handled.append(stamp)  # before the services' hooks: the event's own moment
    closers = attach_services(daemon, config)
    daemon.start()
    daemon.ready.wait(10)
    lock = factory.pin(next(o.pin for o in config.outputs if o.name == "lock"))
    controller = SimpleUDPClient("127.0.0.1", listen)
    to_effect: list[float] = []
    to_message: list[float] = []
    to_cue: list[float] = []
    try:
        for i in range(samples):
            on = i % 2 == 0
            before = len(cue_times)
            edge = lock._last_change
            sent = time.monotonic()
            controller.send_message("/baccarat/output/lock", 1 if on else 0)
            with arrived:
                if not arrived.wait_for(lambda n=before: len(cue_times) > n, 5):
                    raise RuntimeError(f"sample {i}: no cue within 5 s")
            if lock._last_change == edge or lock.state != on:
                raise RuntimeError(f"sample {i}: the lock did not switch {'on' if on else 'off'}")
            to_effect.append((lock._last_change - sent) * 1000)
            to_message.append((cue_times[-1] - handled[-1]) * 1000)
            to_cue.append((cue_times[-1] - sent) * 1000)
            time.sleep(0.002)  # the game thread settles (its frame, the state document)
    finally:
        controller.close()
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)
        qlab.shutdown()
        qlab.server_close()
    return {
        "command_to_effect_ms": figures(to_effect),
        "event_to_message_ms": figures(to_message),
        "command_to_cue_ms": figures(to_cue),
    }


def table(report: dict[str, Any]) -> str:
    rows = [
        ("command to effect (`/baccarat/output/lock` to the pin edge)", report["command_to_effect_ms"]),
        ("event to message (the output's event to the cue read at the target)", report["event_to_message_ms"]),
        ("command to cue (the controller's send to the cue at the target)", report["command_to_cue_ms"]),
    ]
    lines = ["| OSC on loopback | p50 ms | p99 ms | max ms | samples |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {f['p50']} | {f['p99']} | {f['max']} | {f['samples']} |" for name, f in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    report = measure(args.samples)
    print(json.dumps(report) if args.json else table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
