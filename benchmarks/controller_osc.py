"""OSC on loopback: a command to its effect, an event to its cue (issue 31, part 4).

The real daemon on mock pins and dummy displays, with the reference config and its ``[osc]``
service attached as ``baccarat run`` attaches it; python-osc's own server on a free loopback
port stands in for QLab (it stamps each cue as it reads it), and python-osc's client for the
room's controller::

    python benchmarks/controller_osc.py [--samples 200] [--json]

- *command to effect*: from just before the client sends ``/baccarat/output/lock 1`` (or ``0``)
  to the moment the daemon's ``on_handled`` hook sees the lock's ``OutputSwitched`` (the pin has
  changed just before it); the same for ``/baccarat/solve`` and ``/baccarat/reset`` to the
  ``solved`` or ``reset`` event. On the way: the listener's thread, python-osc's parser, the one
  command path, the game thread.
- *event to cue*: from that event in the ``on_handled`` hook (the command sent through the one
  command path, not over OSC) to the moment the stand-in for QLab has read the cue; on the way:
  the frame, the ``on_settled`` hook, the sender's thread, python-osc's builder, one datagram.
- *command to cue*: the two together, from the client's send to the cue read at the target.

Figures are milliseconds on this machine (p50, p99, max), in the shape of
``benchmarks/controllers.py``'s parts (whose helpers it uses); a Pi Zero 2 W is slower (see
benchmarks/README.md for the factor the main benchmark uses). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.controllers import PATIENCE, Stamps, figures, table  # noqa: E402 - after the path


def osc(samples: int) -> dict[str, Any]:
    """The OSC part: command to effect, event to cue and command to cue, on the running daemon."""
    import tomllib

    from pythonosc.dispatcher import Dispatcher
    from pythonosc.osc_server import BlockingOSCUDPServer
    from pythonosc.udp_client import SimpleUDPClient

    from firmware.app import attach_services, build_daemon, close_daemon, mock_pin_factory
    from firmware.config import DEFAULT_CONFIG, parse_config
    from firmware.devices.displays import open_dummy_device

    stamps = Stamps()
    heard = Dispatcher()
    heard.set_default_handler(lambda address, *args: stamps.mark(("cue", address)))
    qlab = BlockingOSCUDPServer(("127.0.0.1", 0), heard)
    threading.Thread(target=qlab.serve_forever, kwargs={"poll_interval": 0.05}, name="qlab", daemon=True).start()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    data["osc"] = {
        "targets": [f"127.0.0.1:{qlab.server_address[1]}"],
        "solved": "/cue/solved/start",
        "reset": "/cue/reset/start",
        "output": "/cue/{name}-{state}/start",
        "listen": f"127.0.0.1:{port}",
    }
    data.setdefault("state", {})["file"] = ""
    data["control"] = {"socket": ""}  # no control socket: one beside a running prop
    config = parse_config(data)
    daemon = build_daemon(
        config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=random.Random(7)
    )

    daemon.on_handled.append(stamps.handled)  # before the services' hooks: the event's own moment
    attached = attach_services(daemon, config)
    commands = attached.prop.commands
    controller = SimpleUDPClient("127.0.0.1", port)
    effect: dict[str, list[float]] = {"output": [], "solve/reset": []}
    cue: dict[str, list[float]] = {"output": [], "solved": []}
    round_trip: dict[str, list[float]] = {"output": [], "solve/reset": []}
    daemon.start()
    try:
        if not daemon.ready.wait(PATIENCE):
            raise RuntimeError("the prop did not start")
        for i in range(samples):  # over OSC: the lock on and off
            on = i % 2 == 0
            stamps.clear()
            start = time.perf_counter()
            controller.send_message("/baccarat/output/lock", 1 if on else 0)
            effect["output"].append(stamps.wait(("switched", on)) - start)
            round_trip["output"].append(stamps.wait(("cue", f"/cue/lock-{'on' if on else 'off'}/start")) - start)
        for i in range(samples):  # over OSC: solve (the lock opens), reset (it shuts)
            kind = "solved" if i % 2 == 0 else "reset"
            stamps.clear()
            start = time.perf_counter()
            controller.send_message("/baccarat/solve" if kind == "solved" else "/baccarat/reset", [])
            effect["solve/reset"].append(stamps.wait((kind,)) - start)
            round_trip["solve/reset"].append(stamps.wait(("cue", f"/cue/{kind}/start")) - start)
            stamps.wait(("cue", f"/cue/lock-{'on' if kind == 'solved' else 'off'}/start"))  # settled
        for i in range(samples):  # the one command path: the event to its cue
            on = i % 2 == 0
            stamps.clear()
            commands.handle({"command": "output", "name": "lock", "state": "on" if on else "off"})
            event = stamps.wait(("switched", on))
            cue["output"].append(stamps.wait(("cue", f"/cue/lock-{'on' if on else 'off'}/start")) - event)
        for i in range(samples):
            solve = i % 2 == 0
            stamps.clear()
            commands.handle({"command": "force_solve" if solve else "reset"})
            if solve:
                cue["solved"].append(stamps.wait(("cue", "/cue/solved/start")) - stamps.wait(("solved",)))
            else:
                stamps.wait(("cue", "/cue/reset/start"))
            stamps.wait(("cue", f"/cue/lock-{'on' if solve else 'off'}/start"))
    finally:
        controller.close()
        daemon.stop()
        for close in attached:
            close()
        close_daemon(daemon)
        qlab.shutdown()
        qlab.server_close()
    return {
        "command_to_effect_ms": {
            "output (/baccarat/output/lock 1, 0)": figures(effect["output"]),
            "solve/reset (/baccarat/solve, /baccarat/reset)": figures(effect["solve/reset"]),
        },
        "event_to_cue_ms": {"output": figures(cue["output"]), "solved": figures(cue["solved"])},
        "command_to_cue_ms": {
            "output (/baccarat/output/lock 1, 0)": figures(round_trip["output"]),
            "solve/reset (/baccarat/solve, /baccarat/reset)": figures(round_trip["solve/reset"]),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="commands and events of each kind (default 200)")
    parser.add_argument("--json", action="store_true", help="every figure as one JSON object")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    report = {"osc": osc(args.samples)}
    print(json.dumps(report, indent=2) if args.json else table("osc", report["osc"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
