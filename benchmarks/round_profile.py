"""Where a round's instructions go on the game thread: each service's hooks, the frames, the game (callgrind).

``instructions.py`` gives one figure for a deal (the gesture to the clearing, on the game thread);
this splits it. The benchmark's child runs under ``valgrind --tool=callgrind --separate-threads=yes
--dump-before=os_getsid``; once it is ready, every hook in the daemon's lists (``on_handled``,
``on_shown``, ``on_frame``, ``on_settled``), the stage's draw, lights and outputs and each
screen's ``show`` are wrapped so that the game thread calls ``os.getsid(0)`` as each begins and
ends: callgrind writes the game thread's counts at each, and each stretch is counted to the hook
(or the draw, or the game's own work between them) it ran in. Deals are played as
``instructions.py``'s are (a fresh table, a chip on the player, the deal on the original's
timeline)::

    python benchmarks/round_profile.py [--root CHECKOUT] [--deals 3] [--no-mqtt] [--with web,...]

Prints the mean per deal of each part, in millions of instructions (the markers cost a few
thousand each: the total is a little above ``instructions.py``'s ``deal``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _child(argv: list[str]) -> int:
    """``child ROOT CONFIG DEALS OUT``: the benchmark's child, its hooks wrapped at "ready"."""
    root, config, deals, out = argv
    import logging
    import threading

    sys.path.insert(0, str(HERE))
    import instructions

    sys.path.insert(0, os.path.join(root, "benchmarks"))
    import child

    class AtReady(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.msg == instructions.READY:
                daemon = instructions.game_daemon(threading.current_thread())
                threading.Thread(target=_drive, args=(daemon, int(deals), out), daemon=True).start()

    logging.getLogger("baccarat").addHandler(AtReady(logging.INFO))
    return int(child.main([config]))


def _drive(d: Any, deals: int, out: str) -> None:
    import threading
    import time

    from baccarat_core import TableLimits
    from baccarat_core.inputs import Arrow
    from firmware.simulator.pins import PinDriver

    labels: list[str] = []
    stack = ["the game (rules, scheduling, the loop)"]
    active = [False]

    def enter(label: str) -> None:
        if active[0]:
            labels.append(stack[-1])
            os.getsid(0)
        stack.append(label)

    def leave() -> None:
        label = stack.pop()
        if active[0]:
            labels.append(label)
            os.getsid(0)

    def wrap(fn: Any, label: str) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            enter(label)
            try:
                return fn(*args, **kwargs)
            finally:
                leave()

        return wrapped

    def name_of(fn: Any) -> str:
        owner = getattr(fn, "__self__", None)
        where = type(owner).__module__ if owner is not None else getattr(fn, "__module__", "?")
        return f"{where}: {getattr(fn, '__qualname__', type(fn).__qualname__)}"

    def install() -> None:
        for hooks in ("on_handled", "on_shown", "on_frame", "on_settled"):
            listed = getattr(d, hooks)
            listed[:] = [wrap(fn, f"{hooks} {name_of(fn)}") for fn in listed]
        stage = getattr(d, "_stage", None)
        if stage is not None:  # the parts of a draw, and the lights and outputs
            parts = {
                "draw": "frames: the views and their pictures (render)",
                "reveal": "lights: at each event",
                "show_lights": "lights: the deck's and the status",
                "switch": "outputs",
            }
            for method, label in parts.items():
                if hasattr(stage, method):
                    setattr(stage, method, wrap(getattr(stage, method), label))
        for screen in getattr(d, "screens", {}).values():
            screen.show = wrap(screen.show, "frames: compare with the last, send the changed pages")

    settled = threading.Event()
    d.call(install).result(120)
    d.on_settled.append(lambda events, module: settled.set())  # the harness's: not wrapped
    pins = PinDriver(d.board)
    limits = TableLimits(25, 1000)
    report: dict[str, Any] = {"labels": labels}

    def on_game(fn: Any) -> Any:
        return d.call(fn, during_round=True).result(120)

    def start() -> None:
        os.getpgrp()  # callgrind: zero the game thread's counts
        active[0] = True

    def end() -> None:
        labels.append(stack[-1])
        os.getsid(0)
        active[0] = False

    try:
        dealt = 0
        for _ in range(deals):
            d.apply(lambda m: m.reset(limits)).result(120)
            d.apply(lambda m: m.handle(Arrow("right")) + m.handle(Arrow("right"))).result(120)
            settled.clear()
            pins.press("player")
            time.sleep(0.04)
            pins.release("player")
            settled.wait(120)
            on_game(lambda: None)
            on_game(start)
            settled.clear()
            pins.press("deal")
            time.sleep(0.04)
            pins.release("deal")
            while True:
                if not settled.wait(120):
                    raise RuntimeError("the deal never settled")
                settled.clear()
                if not d.dealing:
                    break
            on_game(end)
            dealt += 1
        report["deals"] = dealt
        report["ok"] = True
    except Exception as error:  # noqa: BLE001 - reported to the parent
        report["error"] = repr(error)
    Path(out).write_text(json.dumps(report), encoding="utf-8")
    os._exit(0)


def profile(root: Path, deals: int, broker_port: int | None, extras: tuple[str, ...]) -> tuple[Counter[str], int]:
    """One child under callgrind: instructions per part (summed over the deals), and the deals."""
    import instructions

    with tempfile.TemporaryDirectory(prefix="round-profile-") as tmp:
        directory = Path(tmp)
        config, listener, env = instructions.child_setup(directory, root, broker_port, extras)
        out = directory / "report.json"
        command = [
            *instructions.callgrind(directory),
            str(Path(__file__).resolve()),
            "child",
            str(root),
            str(config),
            str(deals),
            str(out),
        ]
        proc = subprocess.run(command, cwd=str(root), env=env, capture_output=True, text=True, timeout=3600)
        listener.close()
        report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        if not report.get("ok"):
            raise RuntimeError(f"the child failed: {report.get('error')}\n{proc.stderr[-3000:]}")
        parts = {}
        for f in directory.glob("cg.*"):
            match = re.fullmatch(r"cg\.\d+\.(\d+)-\d+", f.name)
            if match:
                parts[int(match.group(1))] = instructions._totals(f)
        labels = report["labels"]
        if sorted(parts) != list(range(1, len(labels) + 1)):
            raise RuntimeError(f"{len(parts)} dumps for {len(labels)} stretches")
        spent: Counter[str] = Counter()
        for i, label in enumerate(labels):
            spent[label] += parts[i + 1]
        return spent, int(report["deals"])


def main(argv: list[str] | None = None) -> int:
    """Profile the deals and print each part's mean per deal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout to measure (default: this one)")
    parser.add_argument("--deals", type=int, default=3, help="deals (default 3)")
    parser.add_argument("--no-mqtt", action="store_true", help="leave MQTT off even if mosquitto is installed")
    parser.add_argument("--with", dest="extras", default="", help="services added to the config (as instructions.py)")
    args = parser.parse_args(argv)
    extras = tuple(e.strip() for e in args.extras.split(",") if e.strip())
    if shutil.which("valgrind") is None:
        print("round_profile.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    with ExitStack() as stack:
        port = None
        if not args.no_mqtt and shutil.which("mosquitto"):
            from benchmarks.bench import broker

            port = stack.enter_context(broker(Path(stack.enter_context(tempfile.TemporaryDirectory())), True))
        spent, deals = profile(args.root.resolve(), args.deals, port, extras)
    total = sum(spent.values())
    mqtt = "on" if port is not None else "off"
    print(f"a deal on the game thread: {total / deals / 1e6:.2f} M instructions (markers included), MQTT {mqtt}")
    for label, count in spent.most_common():
        print(f"{count / deals / 1e6:8.2f}  {label}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        sys.exit(_child(sys.argv[2:]))
    sys.exit(main())
