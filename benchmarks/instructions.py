"""Instructions per unit of work, counted by valgrind's callgrind on the benchmark's child.

Wall time on a shared 2-core machine cannot show a 5% change; an instruction count can (callgrind's
counts agree run to run within about 0.05%). Each figure is ``benchmarks/child.py`` (``baccarat
run`` over the recorded bus, as the service runs it) under ``valgrind --tool=callgrind``::

    python benchmarks/instructions.py [--root CHECKOUT] [--presses 48] [--resets 8] [--deals 5]
        [--rounds 300] [--only startup,answer,long,unfinished,cut,press,reset,deal] [--no-mqtt]
        [--with web,clue_control,osc] [--json]

- **start-up** (``startup``, ``long``, ``unfinished``, ``cut``): every instruction of the process,
  all threads, from its first to the moment the game thread logs "ready" (a log handler the
  harness adds ends the process there with ``os._exit``: callgrind writes its counts as it exits).
  ``startup``: a restart with a short saved game (the benchmark's own start-up case);
  ``long``: a restart after a long game that ended (``--rounds`` rounds, then solved: the end
  of a long history file); ``unfinished``: in a long game the prop was stopped in (SIGTERM: a
  ``stop`` line, the saved game goes on); ``cut``: in a long game after a power cut (no ``stop``
  line: the game's lines are read). ``answer`` (with ``--with web``): to the console's first
  answer instead, a ``GET /`` sent once the console logs where it listens (:mod:`configs`).
- **on the game thread** (``press``, ``reset``, ``deal``): the instructions the game thread runs
  for one chip press (a betting area's release: the bet, the frame, the hooks), one reset (the
  game master's, with a chip on the table), one deal on the original's timeline (from the deal's
  press to the clearing: every card's frames, the result, the hooks). The harness runs two calls
  on the game thread around each window of work, ``os.getpgrp()`` and ``os.getsid(0)``, which
  callgrind is told to take as "zero the counts" and "dump the counts" (``--zero-before`` and
  ``--dump-before`` on CPython's ``os_getpgrp`` and ``os_getsid``; with ``--separate-threads=yes``
  they act on the calling thread alone). A window with no work in it is measured as well and
  taken off each window, so the figure is the work alone.

``--root`` measures another checkout with this harness (``git worktree add --detach /tmp/old
COMMIT``): the same scenarios, the same counting, so that two commits compare. The child's
``random.Random()`` is seeded, so that a deal's cards are the same in every run, and so is Python's
string hashing (``PYTHONHASHSEED=0``).

Needs ``valgrind`` (Debian: ``apt-get install valgrind``) and a CPython whose ``libpython`` keeps
its symbols (``os_getpgrp``, ``os_getsid``; pyenv's builds and Debian's with ``python3-dbg``).
Under callgrind everything runs about 50 times slower: the default run takes 5 to 10 minutes a checkout.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from configs import EXTRAS, reference_config  # noqa: E402 - this folder's helper, found from any root

# firmware.game.daemon.READY, written out: this harness also measures older checkouts, which lack the name
READY = "ready: inputs armed, displays drawn"
SCENARIOS = ("startup", "answer", "long", "unfinished", "cut", "press", "reset", "deal")
ON_GAME_THREAD = ("press", "reset", "deal")
AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")


# -- in the child, under callgrind ------------------------------------------------------------------


def _child(argv: list[str]) -> int:
    """``child SCENARIO ROOT CONFIG COUNT OUT``: the benchmark's child, ended or driven at "ready"."""
    scenario, root, config, count, out = argv
    import logging
    import random

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # this harness's configs.py
    sys.path.insert(0, os.path.join(root, "benchmarks"))
    import child  # the benchmark's child: it puts ROOT first on sys.path

    class Seeded(random.Random):
        """``random.Random()`` with a fixed seed: the same cards in every run."""

        def __init__(self, x: object = None) -> None:
            super().__init__(1 if x is None else x)

    random.Random = Seeded

    class AtReady(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.msg != READY:
                return
            if scenario == "answer":
                return  # ends at the console's first answer (_first_answer)
            if scenario not in ON_GAME_THREAD:
                os._exit(0)  # start-up ends here: callgrind writes every thread's counts
            daemon = game_daemon(threading.current_thread())
            driver = threading.Thread(target=_drive, args=(daemon, scenario, int(count), out), name="bench-driver")
            driver.daemon = True
            driver.start()

    logging.getLogger("baccarat").addHandler(AtReady(logging.INFO))
    if scenario == "answer":
        from configs import FirstAnswer

        logging.getLogger("baccarat").addHandler(FirstAnswer(logging.INFO))
    return int(child.main([config]))


def game_daemon(thread: Any) -> Any:
    """The daemon whose game thread ``thread`` is (its target ``daemon.run``, or ``_logged(daemon.run)``)."""
    target = thread._target
    return target.__self__ if hasattr(target, "__self__") else thread._args[0].__self__


def _drive(daemon: Any, scenario: str, count: int, out: str) -> None:
    """Run ``scenario``'s windows on the prop (this thread presses the pins), then end the process."""
    import json
    import time

    from baccarat_core import TableLimits
    from baccarat_core.inputs import Arrow
    from firmware.simulator.pins import PinDriver

    d = daemon
    settled = threading.Event()
    seen: list[object] = []

    def on_settled(events: list[object], module: object) -> None:
        seen.extend(events)
        settled.set()

    hooks = getattr(d, "on_settled", None)
    if hooks is None:  # older daemons
        hooks = d.settled_listeners
    hooks.append(on_settled)
    pins = PinDriver(d.board)
    limits = TableLimits(25, 1000)
    call = d.call
    apply = d.apply
    windows: list[str] = []
    report: dict[str, object] = {"windows": windows}

    def on_game(fn: Any) -> Any:
        return call(fn, during_round=True).result(120)

    def window(label: str, work: Any) -> None:
        on_game(os.getpgrp)  # callgrind: zero the game thread's counts
        work()
        on_game(lambda: os.getsid(0))  # callgrind: dump them
        windows.append(label)

    def fresh() -> None:
        apply(lambda m: m.reset(limits)).result(120)
        on_game(lambda: None)

    def touch(name: str) -> None:
        settled.clear()
        pins.press(name)
        time.sleep(0.04)  # past the debounce, well short of a hold
        pins.release(name)

    def stacked() -> int:
        return int(on_game(lambda: sum(len(s) for s in d.module.stacks.values())))

    def bet(area: str) -> None:
        """One chip on ``area``, outside the windows (a press under callgrind on a loaded machine can
        last past the hold time: then the area is cleared, and it is pressed again)."""
        for _ in range(5):
            before = stacked()
            touch(area)
            if not settled.wait(120):
                raise RuntimeError(f"no settled call after {area}")
            if stacked() == before + 1:
                return
        raise RuntimeError(f"a press on {area} never put a chip there")

    try:
        for _ in range(3):
            window("empty", lambda: None)
        if scenario == "press":
            good = 0
            for w in range(count // 8 + 5):  # a window with a press taken as a hold is done again
                if good == count // 8:
                    break
                fresh()
                before = stacked()

                def presses(w: int = w) -> None:
                    for i in range(8):
                        touch(AREAS[(w * 8 + i) % len(AREAS)])
                        if not settled.wait(120):
                            raise RuntimeError("a chip press was never settled")

                window("press", presses)
                if stacked() != before + 8:
                    windows[-1] = "discarded"
                else:
                    good += 1
            if good != count // 8:
                raise RuntimeError("the chip presses kept being taken as holds (a machine far too busy)")
            report["ops"] = good * 8
        elif scenario == "reset":
            for _ in range(count):
                fresh()
                bet("player")
                window("reset", lambda: apply(lambda m: m.reset(limits)).result(120))
            report["ops"] = count
        elif scenario == "deal":
            dealt = 0
            for _ in range(count):
                fresh()
                apply(lambda m: m.handle(Arrow("right")) + m.handle(Arrow("right"))).result(120)
                bet("player")

                def deal() -> None:
                    seen.clear()
                    touch("deal")
                    while True:
                        if not settled.wait(120):
                            raise RuntimeError("the deal never settled")
                        settled.clear()
                        if not d.dealing:
                            break

                window("deal", deal)
                dealt += any(type(e).__name__ == "RoundPlayed" for e in seen)
            if dealt != count:
                raise RuntimeError(f"{count} deals played {dealt} rounds")
            report["ops"] = count
        report["ok"] = True
    except Exception as error:  # noqa: BLE001 - reported to the parent, which fails with it
        report["error"] = repr(error)
    with open(out, "w", encoding="utf-8") as file:
        json.dump(report, file)
    sys.stdout.flush()
    os._exit(0)


# -- the parent ----------------------------------------------------------------------------------------


def _config(directory: Path, root: Path, broker_port: int | None, extras: tuple[str, ...] = ()) -> Path:
    """The reference config of ``root`` with this run's state file and control socket (and MQTT, and
    the sections of ``extras``: :data:`configs.EXTRAS`)."""
    from configs import extra_sections, reference_config

    text = reference_config(root).read_text(encoding="utf-8")
    text += f'\n[state]\nfile = "{(directory / "state.json").as_posix()}"\n'
    text += f'\n[control]\nsocket = "{(directory / "control.sock").as_posix()}"\n'
    if broker_port is not None:
        text += f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker_port}\n'
    text += extra_sections(extras)
    path = directory / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def child_setup(
    directory: Path,
    root: Path,
    broker_port: int | None,
    extras: tuple[str, ...] = (),
    *,
    rounds: str = "0",
    end: str = "stopped",
) -> tuple[Path, Any, dict[str, str]]:
    """What a measured child needs, the same for every harness here: its config, the saved game and
    history a start finds (``rounds`` played, then ``end``: a short game stopped by default), the
    notify socket it reports to, and its environment (as under systemd: the log without time
    stamps; the same string hashing, so the same count each run)."""
    import subprocess

    config = _config(directory, root, broker_port, extras)
    saved_games = str(Path(__file__).resolve().with_name("saved_games.py"))
    subprocess.run(
        [sys.executable, saved_games, str(root), str(config), rounds, end],
        cwd=str(root),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    listener = notify_socket(directory / "notify")
    dropped = ("GPIOZERO_PIN_FACTORY", "GPIOZERO_MOCK_PIN_CLASS", "WATCHDOG_USEC")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(NOTIFY_SOCKET=str(directory / "notify"), JOURNAL_STREAM="0:0", PYTHONHASHSEED="0")
    return config, listener, env


def callgrind(directory: Path, *, windows: bool = True) -> list[str]:
    """valgrind's command up to the program: counts per thread, zeroed and dumped around each window
    (``os.getpgrp`` and ``os.getsid``; ``windows=False``: dumped only)."""
    import shutil

    head = [shutil.which("valgrind") or "valgrind", "--tool=callgrind"]
    if windows:
        head += ["--separate-threads=yes"]
    head += [f"--callgrind-out-file={directory}/cg.%p"]
    if windows:
        head += ["--zero-before=os_getpgrp"]
    return [*head, "--dump-before=os_getsid", sys.executable]


def _totals(path: Path) -> int:
    """The ``totals:`` (else ``summary:``) line of a callgrind output file."""
    summary = None
    with open(path, encoding="utf-8", errors="replace") as file:
        for line in file:
            if line.startswith("totals:"):
                return int(line.split()[1])
            if line.startswith("summary:"):
                summary = int(line.split()[1])
    if summary is None:
        raise RuntimeError(f"{path} holds no counts")
    return summary


def notify_socket(path: Path) -> Any:
    """systemd's notify socket at ``path``, as the service has it (READY and the status line; no
    watchdog), read by a thread until it is closed."""
    import socket

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))

    def drain() -> None:
        while True:
            try:
                if not listener.recv(4096):
                    return
            except OSError:
                return

    threading.Thread(target=drain, daemon=True).start()
    return listener


def measure(
    root: Path, scenario: str, count: int, rounds: int, broker_port: int | None, extras: tuple[str, ...] = ()
) -> dict[str, object]:
    """One scenario under callgrind: its instructions (per op for the game thread's)."""
    import json
    import re
    import subprocess
    import tempfile

    here = Path(__file__).resolve()
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as tmp:
        directory = Path(tmp)
        # The saved game and history a start finds: a short game (the prop started and stopped once)
        # for every scenario but the long ones.
        setup = {"long": (str(rounds), "solved"), "unfinished": (str(rounds), "stopped"), "cut": (str(rounds), "cut")}
        made_rounds, end = setup.get(scenario, ("0", "stopped"))
        config, listener, env = child_setup(directory, root, broker_port, extras, rounds=made_rounds, end=end)
        history = directory / "history.jsonl"
        history_bytes = history.stat().st_size if history.exists() else 0
        out = directory / "windows.json"
        command = [
            *callgrind(directory),
            str(here),
            "child",
            scenario,
            str(root),
            str(config),
            str(count),
            str(out),
        ]
        proc = subprocess.run(command, cwd=str(root), env=env, capture_output=True, text=True, timeout=3600)
        listener.close()
        files = sorted(directory.glob("cg.*"))
        if proc.returncode != 0 or not files:
            raise RuntimeError(f"{scenario}: the child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        result: dict[str, object] = {"scenario": scenario, "history_bytes": history_bytes}
        if scenario not in ON_GAME_THREAD:
            finals = [f for f in files if re.fullmatch(r"cg\.\d+-\d+", f.name)]
            result["instructions"] = sum(_totals(f) for f in finals)
            result["threads"] = len(finals)
            return result
        report = json.loads(out.read_text(encoding="utf-8"))
        if not report.get("ok"):
            raise RuntimeError(f"{scenario}: {report.get('error')}\n{proc.stderr[-3000:]}")
        parts: dict[int, int] = {}
        for f in files:
            match = re.fullmatch(r"cg\.\d+\.(\d+)-\d+", f.name)
            if match:
                if int(match.group(1)) in parts:
                    raise RuntimeError(f"{scenario}: two threads dumped part {match.group(1)}")
                parts[int(match.group(1))] = _totals(f)
        labels = report["windows"]
        if sorted(parts) != list(range(1, len(labels) + 1)):
            raise RuntimeError(f"{scenario}: {len(parts)} dumps for {len(labels)} windows")
        counts = [parts[i + 1] for i in range(len(labels))]
        empty = sorted(c for c, label in zip(counts, labels, strict=True) if label == "empty")[1]  # the median of 3
        work = [c - empty for c, label in zip(counts, labels, strict=True) if label == scenario]
        result["ops"] = report["ops"]
        result["per_op"] = sum(work) / int(report["ops"])
        result["window_overhead"] = empty
        result["windows"] = [round(w) for w in work]
        return result


def wanted_of(only: str) -> list[str]:
    """The scenarios of ``--only``."""
    return [s.strip() for s in only.split(",") if s.strip()]


LABELS = {
    "startup": 'start-up, a short saved game (to "ready", all threads)',
    "answer": "start-up to the console's first answer (a short saved game, all threads)",
    "long": 'start-up after a long game that ended (to "ready", all threads)',
    "unfinished": 'start-up in a long game the prop was stopped in (to "ready")',
    "cut": 'start-up in a long game after a power cut (to "ready")',
    "press": "chip press (game thread, per press)",
    "reset": "reset with a chip on the table (game thread, per reset)",
    "deal": "deal, gesture to clearing, original pacing (game thread, per deal)",
}


def table(runs: list[dict[str, object]]) -> str:
    """The figures as a markdown table, one column per checkout (the first is the reference)."""
    heads = [str(run["name"]) for run in runs]
    lines = ["| measure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(runs)]
    by = [{str(r["scenario"]): r for r in run["results"]} for run in runs]
    for scenario in SCENARIOS:
        if not any(scenario in results for results in by):
            continue
        cells, first = [], None
        for results in by:
            result = results.get(scenario)
            if result is None:
                cells.append("-")
                continue
            value = float(result.get("per_op", result.get("instructions", 0)))
            cell = f"{value:,.0f}"
            if first is None:
                first = value
            elif first:
                cell += f" ({(value - first) / first * 100:+.1f}%)"
            cells.append(cell)
        lines.append(f"| {LABELS[scenario]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure the scenarios asked for on each checkout and print a table (or ``--json``)."""
    import argparse
    import json
    import shutil
    import subprocess
    import tempfile
    from contextlib import ExitStack

    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", action="append", help="a checkout to measure (repeat to compare; default this one)")
    parser.add_argument("--presses", type=int, default=48, help="chip presses, in windows of 8 (default 48)")
    parser.add_argument("--resets", type=int, default=8, help="resets (default 8)")
    parser.add_argument("--deals", type=int, default=5, help="deals on the original's timeline (default 5)")
    parser.add_argument("--rounds", type=int, default=300, help="rounds of the long game (default 300)")
    parser.add_argument("--only", help=f"some of {','.join(SCENARIOS)} (default all; answer with --with web)")
    parser.add_argument("--no-mqtt", action="store_true", help="leave MQTT off even if mosquitto is installed")
    parser.add_argument("--with", dest="extras", default="", help=f"services added to the config: {', '.join(EXTRAS)}")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    extras = tuple(e.strip() for e in args.extras.split(",") if e.strip())
    if any(e not in EXTRAS for e in extras):
        parser.error(f"--with {args.extras}: services known: {', '.join(EXTRAS)}")
    default = [s for s in SCENARIOS if s != "answer" or "web" in extras]
    wanted = wanted_of(args.only) if args.only else default
    if "answer" in wanted and "web" not in extras:
        parser.error("--only answer needs --with web")
    unknown = [s for s in wanted if s not in SCENARIOS]
    if unknown:
        parser.error(f"--only {','.join(unknown)}: not a scenario (scenarios: {', '.join(SCENARIOS)})")
    for name in ("presses", "resets", "deals", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} {getattr(args, name)} is too small")
    if args.presses % 8:
        parser.error(f"--presses {args.presses} is not a multiple of 8")
    roots = [Path(root).resolve() for root in args.root or [str(here)]]
    for root in roots:
        if not reference_config(root).is_file():
            parser.error(f"--root {root}: not a checkout of the prop")
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    counts = {"press": args.presses, "reset": args.resets, "deal": args.deals}
    runs: list[dict[str, object]] = []
    sys.path.insert(0, str(here))
    with ExitStack() as stack:
        port = None
        if not args.no_mqtt:
            from benchmarks.bench import broker

            port = stack.enter_context(broker(Path(stack.enter_context(tempfile.TemporaryDirectory())), True))
        for root in roots:
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", "baccarat_core", "firmware", "tests", "benchmarks"],
                cwd=root,
                check=True,
            )
            commit = subprocess.run(
                ["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True, check=False
            ).stdout.strip()
            results = [measure(root, s, counts.get(s, 1), args.rounds, port, extras) for s in wanted]
            runs.append({"name": commit or root.name, "root": str(root), "results": results})
    if args.json:
        print(json.dumps({"mqtt": port is not None, "with": extras, "runs": runs}, indent=1))
        return 0
    print(
        f"Instructions (callgrind), MQTT {'on' if port is not None else 'off'}"
        + (f", with {', '.join(extras)}" if extras else "")
        + "; "
        + ", ".join(f"{run['name']} = {run['root']}" for run in runs)
    )
    print()
    print(table(runs))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        sys.exit(_child(sys.argv[2:]))
    sys.exit(main())
