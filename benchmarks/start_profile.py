"""Where a start's instructions go: per module loaded, and per step of the start (callgrind).

``benchmarks/instructions.py`` gives one figure for a start; this splits it. The benchmark's child
starts under ``valgrind --tool=callgrind --dump-before=os_getsid`` with a marker, ``os.getsid(0)``,
called as each module begins and ends loading (around ``importlib._bootstrap._load_unlocked``) and
around the start's main steps (:data:`STEPS`): callgrind writes the counts since the last marker at
each, so every stretch of the start is counted to the module or step it belongs to::

    python benchmarks/start_profile.py [--root CHECKOUT] [--top 40] [--no-mqtt] [--with web,...]
        [--until startup|answer]

Prints the steps (all they ran, and what of it was their own work rather than loading modules) and
the modules by their own cost (their body, less the modules they load). The markers cost a few
million instructions of their own, so the total is a little above ``instructions.py``'s. Needs what
``instructions.py`` needs (valgrind, a CPython with its symbols).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: module -> functions whose run is a step of the start (wrapped with markers once the module loads).
STEPS = {
    "firmware.config": ("load_config", "parse_config"),
    "firmware.services.registry": ("installed",),
    "firmware.app": ("build_board", "build_daemon", "restore_game", "attach_services", "_start"),
}

# Run in the child (python -c), before instructions.py's own child code: the markers.
MARKERS = r"""
import functools, os, runpy, sys
import importlib._bootstrap as bootstrap
log = open(os.environ["START_PROFILE_LOG"], "w", buffering=1)
steps = {STEPS!r}

def mark(kind, name):
    os.getsid(0)
    log.write(kind + " " + name + "\n")

def step(name, fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        of = getattr(args[0], "name", None) if args else None  # a service's start: which service
        label = "@" + name + (f"({of})" if isinstance(of, str) else "")
        mark("S", label)
        try:
            return fn(*args, **kwargs)
        finally:
            mark("E", label)
    return run

load = bootstrap._load_unlocked

def loading(spec):
    mark("S", spec.name)
    try:
        module = load(spec)
        for attribute in steps.get(spec.name, ()):
            if hasattr(module, attribute):
                setattr(module, attribute, step(spec.name + "." + attribute, getattr(module, attribute)))
        return module
    finally:
        mark("E", spec.name)

bootstrap._load_unlocked = loading
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _totals(path: Path) -> int:
    with open(path, encoding="utf-8", errors="replace") as file:
        for line in file:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"{path} holds no counts")


def profile(
    root: Path, directory: Path, broker_port: int | None, extras: tuple[str, ...] = (), until: str = "startup"
) -> tuple[list[tuple[str, str]], list[int], int]:
    """Run the child once under callgrind (to "ready", or with ``until`` ``answer`` to the console's
    first answer); the markers' events, the counts between them, and the rest."""
    sys.path.insert(0, str(HERE))
    import instructions

    here = HERE / "instructions.py"
    config, listener, env = instructions.child_setup(directory, root, broker_port, extras)
    env["START_PROFILE_LOG"] = str(directory / "marks.log")
    command = [
        *instructions.callgrind(directory, windows=False),
        "-c",
        MARKERS.replace("{STEPS!r}", repr(STEPS)),
        str(here),
        "child",
        until,
        str(root),
        str(config),
        "0",
        str(directory / "windows.json"),
    ]
    proc = subprocess.run(command, cwd=str(root), env=env, capture_output=True, text=True, timeout=3600)
    listener.close()
    parts = {int(m.group(1)): f for f in directory.glob("cg.*") if (m := re.fullmatch(r"cg\.\d+\.(\d+)", f.name))}
    finals = [f for f in directory.glob("cg.*") if re.fullmatch(r"cg\.\d+", f.name)]
    if proc.returncode != 0 or not finals:
        raise RuntimeError(f"the child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    events = [(line[0], line[2:]) for line in (directory / "marks.log").read_text().splitlines()]
    # Part k holds the counts from the marker before it to its own: the k-th marker's, for what ran
    # before that marker's event (the first part: the interpreter's start, to the first marker).
    counts = [_totals(parts[i]) for i in sorted(parts)]
    return events, counts, sum(_totals(f) for f in finals)


class _Frame:
    """A module loading or a step running, while the counts come in."""

    def __init__(self, name: str, began: int) -> None:
        self.name = name
        self.began = began


def report(events: list[tuple[str, str]], counts: list[int], rest: int, top: int) -> str:
    """The steps, then the modules by their own cost, in millions of instructions."""
    own: Counter[str] = Counter()
    steps: list[tuple[int, str, int, int]] = []
    stack = [_Frame("(the rest of the start)", 0)]
    running = 0
    for (kind, name), count in zip(events, counts, strict=False):
        own[stack[-1].name] += count
        running += count
        if kind == "S":
            stack.append(_Frame(name, running))
        elif name.startswith("@"):
            frame = stack.pop()
            steps.append((len(stack), name[1:], running - frame.began, own.pop(name, 0)))
        else:
            stack.pop()
    own["(the rest of the start)"] += rest
    lines = [f"start-up: {(running + rest) / 1e6:.1f} M instructions (markers included)", "", "steps (M):"]
    for depth, name, spent, mine in steps:
        lines.append(f"{'  ' * depth}{name}: {spent / 1e6:.2f} in all, {mine / 1e6:.2f} outside loads and inner steps")
    lines += ["", f"modules by their own cost, top {top} (M):"]
    lines += [f"{cost / 1e6:8.2f}  {name}" for name, cost in own.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout to measure (default: this one)")
    parser.add_argument("--top", type=int, default=40, help="modules listed (default 40)")
    parser.add_argument("--no-mqtt", action="store_true", help="leave MQTT off even if mosquitto is installed")
    parser.add_argument("--with", dest="extras", default="", help="services added to the config (as instructions.py)")
    parser.add_argument(
        "--until", choices=("startup", "answer"), default="startup", help="to ready, or to the console's first answer"
    )
    args = parser.parse_args(argv)
    extras = tuple(e.strip() for e in args.extras.split(",") if e.strip())
    if args.until == "answer" and "web" not in extras:
        parser.error("--until answer needs --with web")
    if shutil.which("valgrind") is None:
        print("start_profile.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        port = None
        if not args.no_mqtt and shutil.which("mosquitto"):
            sys.path.insert(0, str(HERE.parent))
            from benchmarks.bench import broker

            port = stack.enter_context(broker(Path(stack.enter_context(tempfile.TemporaryDirectory())), True))
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="start-profile-")))
        events, counts, rest = profile(args.root.resolve(), directory, port, extras, args.until)
    print(report(events, counts, rest, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
