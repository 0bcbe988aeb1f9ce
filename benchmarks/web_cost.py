"""What the web console adds to the daemon: resident memory and idle wakeups, and the alternative.

Each measurement runs in a fresh process: the real daemon (mock pins, luma dummy
displays) with nothing, with the web service (aiohttp; ``console``: started as the ``web``
service starts it on a Pi, at "ready", without aiohttp's client), or with a Starlette app
on uvicorn (the pure-Python alternative considered). It reports:

- resident memory (VmRSS) of the daemon, and after the server started;
- context switches of the threads the server added, over an idle period with
  no page open, and with one page open (a server-sent-events stream);
- CPU time of the whole process over the same periods.

    python benchmarks/web_cost.py --seconds 10
"""

from __future__ import annotations

import argparse
import glob
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def thread_ids() -> set[str]:
    return {path.split("/")[4] for path in glob.glob("/proc/self/task/*/status")}


def switches(tids: set[str]) -> int:
    total = 0
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/status") as status:
                total += sum(int(line.split()[1]) for line in status if "ctxt_switches" in line)
        except FileNotFoundError:
            pass
    return total


def measure(seconds: float, tids: set[str]) -> tuple[int, float]:
    s0, c0 = switches(tids), time.process_time()
    time.sleep(seconds)
    return switches(tids) - s0, 100 * (time.process_time() - c0) / seconds


def child(mode: str, seconds: float) -> dict:
    import tomllib

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from firmware.app import build_daemon
    from firmware.config import DEFAULT_CONFIG, parse_config
    from firmware.devices.displays import open_dummy_device

    data = tomllib.loads(DEFAULT_CONFIG.read_text())  # the reference build, without files or sockets
    data |= {"limits": {"mode": "fixed", "min": 25, "max": 1000}, "state": {"file": ""}, "control": {"socket": ""}}
    daemon = build_daemon(
        parse_config(data),
        pin_factory=MockFactory(pin_class=MockPWMPin),
        device_factory=open_dummy_device,
        rng=random.Random(1),
    )
    late = None
    if mode == "console":  # as the web service starts it on a Pi: the backend now, the server at "ready"
        from firmware.room.commands import GameMaster
        from firmware.web.attach import LateConsole
        from firmware.web.settings import WebSettings

        late = LateConsole(daemon, GameMaster(daemon), WebSettings(enabled=True, port=0))
    daemon.start()
    daemon.ready.wait(5)
    if late is not None:  # the daemon's memory and threads at "ready", before the server loads
        result = {"mode": mode, "rss_daemon": rss_mb()}
        before = thread_ids()
        late.wait(30)
    time.sleep(1.0)
    if late is None:
        result = {"mode": mode, "rss_daemon": rss_mb()}
        before = thread_ids()
    port = 0
    cookie = ""
    if late is not None and late.service is not None:
        port = late.service.port
    if mode == "aiohttp":
        from firmware.room.commands import GameMaster
        from firmware.web.backend import DaemonBackend
        from firmware.web.server import WebService
        from firmware.web.settings import WebSettings

        service = WebService(DaemonBackend(daemon, GameMaster(daemon), name="bench"), WebSettings(enabled=True, port=0))
        service.start()
        port = service.port
    elif mode == "uvicorn":
        import asyncio

        import uvicorn
        from starlette.applications import Starlette
        from starlette.responses import StreamingResponse
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        async def stream():
            yield b"data: {}\n\n"
            await asyncio.Event().wait()

        async def events(request):
            return StreamingResponse(stream(), media_type="text/event-stream")

        app = Starlette(
            routes=[Route("/events", events), Mount("/static", StaticFiles(directory=ROOT / "firmware/web/static"))]
        )
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", loop="asyncio", http="h11", lifespan="off"
        )
        server = uvicorn.Server(config)
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
    time.sleep(1.0)
    result["rss_server"] = rss_mb()
    added = thread_ids() - before
    result["threads_added"] = len(added)
    result["idle_switches"], result["idle_cpu"] = measure(seconds, added)
    if mode != "none":
        if mode in ("aiohttp", "console"):
            connection = http.client.HTTPConnection("127.0.0.1", port)
            connection.request("GET", "/api/session")
            response = connection.getresponse()
            cookie = response.getheader("Set-Cookie").split(";")[0]
            response.read()
        page = http.client.HTTPConnection("127.0.0.1", port)
        page.request("GET", "/events", headers={"Cookie": cookie})
        stream = page.getresponse()
        stream.fp.readline()
        time.sleep(1.0)
        added = thread_ids() - before
        result["page_switches"], result["page_cpu"] = measure(seconds, added)
        result["rss_page"] = rss_mb()
    daemon.stop()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each idle period")
    parser.add_argument("--modes", default="none,aiohttp,console,uvicorn", help="console: as the web service starts it")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.seconds)))
        return 0
    rows = []
    for mode in args.modes.split(","):
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, "--seconds", str(args.seconds)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        if out.returncode != 0:
            print(f"{mode}: failed: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; idle periods of {args.seconds:g} s\n")
    print(
        "| server | RSS daemon | RSS with server | added | threads added | wakeups idle, no page "
        "| CPU idle | wakeups, one page open | CPU, one page open | RSS, page open |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        page = (
            f"{r['page_switches'] / args.seconds:.1f}/s | {r['page_cpu']:.2f} % | {r['rss_page']:.1f} MB"
            if "page_switches" in r
            else "- | - | -"
        )
        print(
            f"| {r['mode']} | {r['rss_daemon']:.1f} MB | {r['rss_server']:.1f} MB | "
            f"{r['rss_server'] - r['rss_daemon']:+.1f} MB | {r['threads_added']} | "
            f"{r['idle_switches'] / args.seconds:.1f}/s | {r['idle_cpu']:.2f} % | {page} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
