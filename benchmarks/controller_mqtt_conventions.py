"""Command to effect and event to message for the M3/BAC and node-redscape conventions, on loopback.

Starts a real Mosquitto on a free loopback port (the tests' helper), the real daemon on mock pins
with its services as ``baccarat run`` attaches them (``[mqtt]``, ``[m3]`` and ``[redscape]``, two
outputs), and a controller (paho) on the same broker. Each round the controller publishes one
command as the controller would, and waits for its effect and its message, one at a time:

- **command to effect**: from just before the controller's ``publish()`` to the moment the game
  thread hands the command's event to the daemon's ``on_handled`` hooks (the output switched, the
  module solved or reset);
- **event to message**: from that moment to the controller's receipt of the topic that says so
  (``<name>/output1`` ``Yes``, ``<name>/solve``; the ``FromDevice/<id>`` report).

Both are stamped with ``time.perf_counter()`` in this one process. The prop's own MQTT command
topic is measured the same way, for comparison. The prop's links set ``TCP_NODELAY``
(firmware/broker/client.py: with Nagle's algorithm a small packet behind an unacknowledged one
waits for the peer's delayed ACK, about 40 ms on Linux); ``--nodelay`` also runs Mosquitto with
``set_tcp_nodelay true`` and sets it on the controller's socket, as a room should::

    python benchmarks/controller_mqtt_conventions.py [--rounds 200] [--nodelay] [--json]

It prints a markdown table (milliseconds: p50, p95, p99, max) per convention and command.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUTPUTS = [
    {"name": "lock", "pin": 15, "on": "solved", "off_on": "reset"},
    {"name": "horn", "pin": 14, "on": "none"},
]


class Controller:
    """A controller on the broker: publishes, and stamps every message it receives."""

    def __init__(self, host: str, port: int, topics: tuple[str, ...], *, nodelay: bool = False) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.seen: list[tuple[float, str, str]] = []
        self.cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{random.randrange(10**9)}")
        subscribed = threading.Event()
        self.client.on_connect = lambda c, *a: [c.subscribe(t, qos=1) for t in topics]
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = self._on_message
        if nodelay:
            from firmware.broker.client import no_delay

            self.client.on_socket_open = no_delay
        self.client.connect(host, port)
        self.client.loop_start()
        assert subscribed.wait(10), "the controller did not subscribe"

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        at = time.perf_counter()
        with self.cond:
            self.seen.append((at, message.topic, message.payload.decode(errors="replace")))
            self.cond.notify_all()

    def wait(self, start: int, test: Callable[[str, str], bool], timeout: float = 10.0) -> float:
        """The time of the first message from index ``start`` on that passes ``test(topic, payload)``."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for at, topic, payload in self.seen[start:]:
                    if test(topic, payload):
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no matching message within {timeout} s")
                self.cond.wait(left)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Handled:
    """The daemon's ``on_handled`` hook: each batch's events, stamped."""

    def __init__(self) -> None:
        self.batches: list[tuple[float, list[Any]]] = []
        self.cond = threading.Condition()

    def __call__(self, events: list[Any], module: Any) -> None:
        at = time.perf_counter()
        with self.cond:
            self.batches.append((at, list(events)))
            self.cond.notify_all()

    def wait(self, start: int, test: Callable[[Any], bool], timeout: float = 10.0) -> float:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for at, events in self.batches[start:]:
                    if any(test(event) for event in events):
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no matching event within {timeout} s")
                self.cond.wait(left)


def _m3(on: bool) -> tuple[str, str, Callable[[Any], bool], Callable[[str, str], bool]]:
    return (
        "baccarat/set/output1",
        "on" if on else "off",
        lambda e: e.kind == "output" and e.name == "horn" and e.on is on,
        lambda t, p: t == "baccarat/output1" and p == ("Yes" if on else "No"),
    )


def _m3_solve(solve: bool) -> tuple[str, str, Callable[[Any], bool], Callable[[str, str], bool]]:
    return (
        "baccarat/set/solve" if solve else "baccarat/set/reset",
        "1",
        lambda e: e.kind == ("solved" if solve else "reset"),
        lambda t, p: t == "baccarat/solve" and p == ("Yes" if solve else "No"),
    )


def _report(test: Callable[[dict[str, Any]], bool]) -> Callable[[str, str], bool]:
    return lambda t, p: t == "FromDevice/baccarat" and test(json.loads(p))


def _redscape(on: bool) -> tuple[str, str, Callable[[Any], bool], Callable[[str, str], bool]]:
    return (
        "ToDevice/baccarat",
        json.dumps({"command": "OUTPUT", "output": 1, "state": "on" if on else "off"}),
        lambda e: e.kind == "output" and e.name == "horn" and e.on is on,
        _report(lambda r: r["outputs"]["horn"] is on),
    )


def _redscape_solve(solve: bool) -> tuple[str, str, Callable[[Any], bool], Callable[[str, str], bool]]:
    return (
        "ToDevice/baccarat",
        json.dumps({"command": "SOLVE" if solve else "RESET"}),
        lambda e: e.kind == ("solved" if solve else "reset"),
        _report(lambda r: r["state"] == ("SOLVED" if solve else "UNSOLVED")),
    )


def _own(on: bool) -> tuple[str, str, Callable[[Any], bool], Callable[[str, str], bool]]:
    """The prop's own MQTT topics, for comparison: the ``output`` command and the retained state."""
    return (
        "bomb/baccarat/command",
        json.dumps({"command": "output", "name": "horn", "state": "on" if on else "off"}),
        lambda e: e.kind == "output" and e.name == "horn" and e.on is on,
        lambda t, p: t == "bomb/baccarat/state" and {"name": "horn", "on": on} in json.loads(p)["outputs"],
    )


CASES = {
    ("the prop's own MQTT (for comparison)", "output horn on/off"): _own,
    ("M3/BAC", "output1 on/off"): _m3,
    ("M3/BAC", "solve/reset"): _m3_solve,
    ("node-redscape", "OUTPUT 1 on/off"): _redscape,
    ("node-redscape", "SOLVE/RESET"): _redscape_solve,
}


def measure(rounds: int, nodelay: bool = False) -> dict[str, dict[str, Any]]:
    """Every case, ``rounds`` commands each (alternating on and off, solve and reset); ``nodelay``:
    Mosquitto with ``set_tcp_nodelay true``."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from firmware.app import attach_services, build_daemon, close_daemon
    from firmware.devices.displays import open_dummy_device
    from tests.conftest import make_config
    from tests.mosquitto import Broker

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="conventions-") as tmp:
        broker = Broker(Path(tmp), extra="set_tcp_nodelay true\n" if nodelay else "")
        broker.start()
        try:
            config = make_config(
                mqtt={"host": broker.host, "port": broker.port, "client_id": "bench-prop"},
                m3={"name": "baccarat"},
                redscape={"id": "baccarat"},
                outputs=OUTPUTS,
                state={"file": ""},
                control={"socket": ""},
            )
            daemon = build_daemon(
                config, pin_factory=MockFactory(pin_class=MockPWMPin), device_factory=open_dummy_device,
                rng=random.Random(1),
            )  # fmt: skip
            handled = Handled()
            daemon.on_handled.append(handled)
            closers = attach_services(daemon, config)
            daemon.start()
            daemon.ready.wait(10)
            topics = ("baccarat/#", "FromDevice/#", "bomb/baccarat/state")
            controller = Controller(broker.host, broker.port, topics, nodelay=nodelay)
            controller.wait(0, lambda t, p: t == "FromDevice/baccarat")  # the prop listens
            for (convention, what), case in CASES.items():
                effect, message = [], []
                for i in range(rounds):
                    topic, payload, event_test, message_test = case(i % 2 == 0)
                    events, messages = len(handled.batches), len(controller.seen)
                    sent = time.perf_counter()
                    controller.client.publish(topic, payload, qos=1)
                    done = handled.wait(events, event_test)
                    heard = controller.wait(messages, message_test)
                    effect.append((done - sent) * 1000)
                    message.append((heard - done) * 1000)
                out[f"{convention}: {what}"] = {
                    "command_to_effect_ms": stats(effect),
                    "event_to_message_ms": stats(message),
                }
            controller.close()
            daemon.stop()
            for close in closers:
                close()
            close_daemon(daemon)
        finally:
            broker.stop()
    return out


def stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(at(0.95), 2),
        "p99": round(at(0.99), 2),
        "max": round(ordered[-1], 2),
        "samples": len(ordered),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="commands per case")
    parser.add_argument("--nodelay", action="store_true", help="Mosquitto with set_tcp_nodelay true")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = parser.parse_args(argv)
    results = measure(args.rounds, args.nodelay)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"Command: `python benchmarks/controller_mqtt_conventions.py {' '.join(sys.argv[1:])}`".rstrip())
    print()
    print(
        "| convention: command | command to effect p50 / p95 / p99 / max (ms) "
        "| event to message p50 / p95 / p99 / max (ms) |"
    )
    print("|---|---|---|")
    for name, r in results.items():
        e, m = r["command_to_effect_ms"], r["event_to_message_ms"]
        print(
            f"| {name} | {e['p50']} / {e['p95']} / {e['p99']} / {e['max']} "
            f"| {m['p50']} / {m['p95']} / {m['p99']} / {m['max']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
