"""A burst of game-master commands over MQTT: how many replies come back, and which broker setting that needs.

Starts a real Mosquitto on a free loopback port (the tests' helper), the real
daemon on mock pins with its MQTT service, and a console that publishes N
``status`` commands (QoS 1) as fast as paho lets it, then counts the distinct
replies until none has arrived for a few seconds::

    python benchmarks/burst.py [--commands 10000] [--max-queued 1000] [--max-queued 20000] [--queue-limit 1000]

Each ``--max-queued`` value is one run with Mosquitto's ``max_queued_messages``
set to it (1000 is Mosquitto's default; 0 means no limit). It prints a markdown
table: replies received, seconds, replies per second, and the prop's drops.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class DropCounter(logging.Handler):
    """Counts the prop's log lines about dropped messages."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "dropping" in record.getMessage() or "were dropped" in record.getMessage():
            self.lines.append(record.getMessage())


def burst(commands: int, max_queued: int, queue_limit: int, quiet_seconds: float = 5.0) -> dict:
    """One run: the replies that came back for ``commands`` commands."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from baccarat_core.records import replace
    from benchmarks.bench import load
    from firmware.app import attach_services, build_daemon, close_daemon
    from firmware.broker.settings import MqttConfig
    from firmware.devices.displays import open_dummy_device
    from firmware.services.mqtt.room import MqttService
    from tests.mosquitto import Broker
    from tests.test_mqtt import Watcher

    with tempfile.TemporaryDirectory(prefix="burst-") as tmp:
        broker = Broker(Path(tmp), extra=f"max_queued_messages {max_queued}\n")
        broker.start()
        try:
            base = load(Path(tmp), card_seconds=0.0, broker_port=None)
            mqtt = MqttConfig(host=broker.host, port=broker.port, client_id="burst-prop", queue_limit=queue_limit)
            config = replace(base, state_file="").with_settings("mqtt", mqtt).with_settings("control", "")
            daemon = build_daemon(
                config, pin_factory=MockFactory(pin_class=MockPWMPin), device_factory=open_dummy_device,
                rng=random.Random(1),
            )  # fmt: skip
            closers = attach_services(daemon, config)
            drops = DropCounter()
            logging.getLogger("baccarat").addHandler(drops)
            daemon.start()
            daemon.ready.wait(10)
            # The service by its stop function (attach_services returns them), not by the daemon's hooks.
            service = next(
                close.__self__.value
                for close in closers
                if isinstance(getattr(getattr(close, "__self__", None), "value", None), MqttService)
            )
            service.link.listening.wait(10)
            watcher = Watcher(broker, topics=("bomb/baccarat/reply",))
            started = time.monotonic()
            for i in range(commands):
                watcher.client.publish("bomb/baccarat/command", json.dumps({"id": i, "command": "status"}), qos=1)
            published = time.monotonic() - started
            last_count, last_change = -1, time.monotonic()
            while time.monotonic() - last_change < quiet_seconds:
                count = len(watcher.on("bomb/baccarat/reply"))
                if count != last_count:
                    last_count, last_change = count, time.monotonic()
                if count >= commands:
                    break
                time.sleep(0.05)
            finished = last_change - started
            ids = {json.loads(p)["id"] for p in watcher.on("bomb/baccarat/reply")}
            most_waiting = service.link.most_waiting["reply"]
            watcher.close()
            daemon.stop()
            for close in closers:
                close()
            close_daemon(daemon)
            logging.getLogger("baccarat").removeHandler(drops)
        finally:
            broker.stop()
    return {
        "commands": commands,
        "max_queued": max_queued,
        "queue_limit": queue_limit,
        "replies": len(ids),
        "seconds": finished,
        "published_in": published,
        "drops": drops.lines,
        "most_waiting": most_waiting,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--max-queued", type=int, action="append", help="Mosquitto max_queued_messages (repeat)")
    parser.add_argument("--queue-limit", type=int, default=1000, help="the prop's [mqtt] queue_limit")
    args = parser.parse_args(argv)
    print(f"Command: `python benchmarks/burst.py {' '.join(sys.argv[1:])}`".rstrip())
    print()
    print(
        "| Mosquitto max_queued_messages | prop queue_limit | commands | replies | seconds | replies/s "
        "| most replies waiting in the prop | prop drops |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for max_queued in args.max_queued or [1000, 20000]:
        r = burst(args.commands, max_queued, args.queue_limit)
        rate = r["replies"] / r["seconds"] if r["seconds"] > 0 else 0
        drops = "; ".join(r["drops"]) or "none"
        print(
            f"| {max_queued} | {r['queue_limit']} | {r['commands']:,} | {r['replies']:,} | {r['seconds']:.1f} "
            f"| {rate:,.0f} | {r['most_waiting']:,} | {drops} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
