"""Measured speed of the prop: input to frame, frames per input, idle cost, start-up.

Runs the real daemon code (``firmware``) on gpiozero's mock pins and luma dummy
displays, and prints a markdown table with medians, 99th percentiles, targets
and pass/fail, and the machine it ran on::

    python benchmarks/bench.py [--samples 500] [--idle-seconds 30] [--starts 7]

Input to frame is timed from just before the pin edge that makes the input
(the release of a betting area, the press of an arrow or the deal) to the
moment the new frame is handed to the display driver (``device.display``).
Idle cost and start-up run the daemon in a child process (``--serve``), as
``baccarat run`` does, with mock pins and dummy displays.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A 128x64 SSD1306 frame on I2C at 400 kHz: 1024 bytes of 9 bit times (8 data + ACK).
I2C_FRAME_MS = 128 * 64 / 8 * 9 / 400_000 * 1000


# -- the daemon in this process ----------------------------------------------------


def bench_config(card_seconds: float = 0.0):
    """The reference config with fixed limits $25 - $1000, a red first deck and no pacing."""
    import tomllib

    from firmware.config import DEFAULT_CONFIG, parse_config

    data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    data["limits"] = {"mode": "fixed", "min": 25, "max": 1000}
    data["deck"] = {"first_color": "red"}
    data["timing"] = {**data["timing"], "card_seconds": card_seconds, "result_seconds": 0.0}
    return parse_config(data, source="<benchmark>")


def bus_bytes(cfg: Any) -> int:
    """Bytes of one full frame on the display's bus (1, 4 or 16 bits per pixel)."""
    from firmware.devices.displays import COLOR_DRIVERS, GREYSCALE_DRIVERS

    bits = 16 if cfg.driver in COLOR_DRIVERS else 4 if cfg.driver in GREYSCALE_DRIVERS else 1
    return cfg.width * cfg.height * bits // 8


def bus_ms(cfg: Any) -> float:
    """The time one frame takes on the display's bus (I2C at 400 kHz, SPI at its clock)."""
    if cfg.interface == "i2c":
        return bus_bytes(cfg) * 9 / 400_000 * 1000
    return bus_bytes(cfg) * 8 / cfg.bus_speed_hz * 1000


class FrameLog:
    """Every frame handed to a display driver: (perf_counter, role)."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, str]] = []
        self.changed = threading.Condition()

    def factory(self):
        from luma.core.device import dummy

        log = self

        class TimedDummy(dummy):
            def display(self, image) -> None:
                stamp = time.perf_counter()
                super().display(image)
                with log.changed:
                    log.frames.append((stamp, self.role))
                    log.changed.notify_all()

        def make(cfg):
            device = TimedDummy(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=cfg.mode)
            device.role = cfg.role
            return device

        return make

    def mark(self) -> int:
        with self.changed:
            return len(self.frames)

    def wait_frame(self, since: int, role: str, timeout: float = 5.0) -> float:
        """The time of the first ``role`` frame after index ``since``."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for stamp, who in self.frames[since:]:
                    if who == role:
                        return stamp
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no {role} frame within {timeout} s")
                self.changed.wait(left)

    def roles_since(self, since: int) -> list[str]:
        with self.changed:
            return [who for _, who in self.frames[since:]]


@dataclass
class Kind:
    """Samples of one input kind."""

    latencies_ms: list[float] = field(default_factory=list)
    frames: list[dict[str, int]] = field(default_factory=list)


def measure_inputs(samples: int, hold_samples: int) -> tuple[dict[str, Kind], Any]:
    import random

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from baccarat_core import TableLimits
    from firmware.app import build_daemon, close_daemon
    from firmware.simulator.pins import PinDriver

    config = bench_config()
    frames = FrameLog()
    factory = MockFactory(pin_class=MockPWMPin)
    daemon = build_daemon(config, pin_factory=factory, device_factory=frames.factory(), rng=random.Random(1))
    daemon.start()
    if not daemon.ready.wait(10):
        raise RuntimeError("the daemon did not get ready")
    board = daemon.board
    pins = PinDriver(board)
    settle = config.timing.debounce_seconds + 0.005
    limits = TableLimits(25, 1000)
    kinds = {name: Kind() for name in ("chip press", "arrow", "deal", "hold")}

    def count(since: int) -> dict[str, int]:
        daemon.wait_idle()
        roles = frames.roles_since(since)
        return {role: roles.count(role) for role in daemon.screens}

    def tap(name: str) -> None:
        pins.tap(name, settle, settle=settle)
        daemon.wait_idle()

    def fresh() -> None:
        daemon.apply(lambda m: m.reset(limits)).result(5)
        daemon.wait_idle()

    try:
        areas = list(board.areas)
        # Chip presses: the press is held past the debounce; the release is the edge.
        for i in range(samples):
            if i % 8 == 0:
                fresh()
            area = areas[i % len(areas)]
            pins.press(area)
            time.sleep(settle)
            since = frames.mark()
            start = time.perf_counter()
            pins.release(area)
            kinds["chip press"].latencies_ms.append((frames.wait_frame(since, "bets") - start) * 1000)
            kinds["chip press"].frames.append(count(since))
        # Arrows: the leading edge steps the denomination.
        fresh()
        tap("arrow_right")
        for i in range(samples):
            arrow = "arrow_right" if i % 2 else "arrow_left"
            since = frames.mark()
            start = time.perf_counter()
            pins.press(arrow)
            kinds["arrow"].latencies_ms.append((frames.wait_frame(since, "bets") - start) * 1000)
            kinds["arrow"].frames.append(count(since))
            time.sleep(settle)
            pins.release(arrow)
            time.sleep(settle)
        # Deals: $25 on Player, then the deck sensor; the first card is the frame.
        for _ in range(samples):
            if daemon.module.solved or daemon.module.denomination != 25:
                fresh()
                while daemon.module.denomination < 25:
                    tap("arrow_right")
            tap("player")
            since = frames.mark()
            start = time.perf_counter()
            pins.press("deal")
            kinds["deal"].latencies_ms.append((frames.wait_frame(since, "table") - start) * 1000)
            kinds["deal"].frames.append(count(since))
            time.sleep(settle)
            pins.release("deal")
            time.sleep(settle)
        # Holds (real time: hold_seconds each): frames only.
        fresh()
        for _ in range(hold_samples):
            tap("tie")
            since = frames.mark()
            pins.press("tie")
            frames.wait_frame(since, "bets", timeout=config.timing.hold_seconds + 2)
            kinds["hold"].frames.append(count(since))
            pins.release("tie")
            time.sleep(settle)
    finally:
        daemon.stop()
        close_daemon(daemon)
        factory.reset()
    return kinds, config


# -- the daemon in a child process ---------------------------------------------------


def serve() -> int:
    """The daemon as ``baccarat run`` starts it, on mock pins and dummy displays."""
    import random

    from firmware.app import attach_services, build_daemon, mock_pin_factory, restore_module, run_forever, setup_logging
    from firmware.config import load_config
    from firmware.devices.displays import open_dummy_device

    config = load_config(os.environ["BACCARAT_BENCH_CONFIG"])
    setup_logging("INFO")
    rng = random.Random()
    daemon = build_daemon(
        config,
        pin_factory=mock_pin_factory(),
        device_factory=open_dummy_device,
        rng=rng,
        module=restore_module(config, rng),
    )
    return run_forever(daemon, attach_services(daemon, config))


def child_config(directory: Path) -> Path:
    """The reference config, with the saved state and the control socket in ``directory``."""
    from firmware.config import DEFAULT_CONFIG

    path = directory / "config.toml"
    state = (directory / "state.json").as_posix()
    sock = (directory / "control.sock").as_posix()
    path.write_text(
        DEFAULT_CONFIG.read_text(encoding="utf-8") + f'\n[state]\nfile = "{state}"\n\n[control]\nsocket = "{sock}"\n',
        encoding="utf-8",
    )
    return path


class Child:
    def __init__(self, config: Path) -> None:
        env = {**os.environ, "BACCARAT_BENCH_CONFIG": str(config)}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []

    def wait_ready(self, timeout: float = 30) -> float:
        """Seconds from the process start to the "ready" log line."""
        assert self.proc.stderr is not None
        timer = threading.Timer(timeout, self.proc.kill)
        timer.start()
        try:
            for line in self.proc.stderr:
                self.log.append(line)
                if "ready: inputs armed, displays drawn" in line:
                    return time.perf_counter() - self.started
        finally:
            timer.cancel()
        raise RuntimeError("the daemon never got ready:\n" + "".join(self.log))

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            _, rest = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("the daemon did not stop on SIGTERM") from None
        self.log.append(rest)
        return self.proc.returncode

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        return ticks / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")


def measure_idle(seconds: float, directory: Path) -> tuple[float, float, int]:
    """(CPU % of one core over ``seconds`` with no input, RSS MB after start, exit code)."""
    child = Child(child_config(directory))
    child.wait_ready()
    time.sleep(1.0)  # let start-up work (first frames, the state file) finish
    rss = child.rss_mb()
    before = child.cpu_seconds()
    time.sleep(seconds)
    used = child.cpu_seconds() - before
    code = child.stop()
    return used / seconds * 100, rss, code


def measure_startup(runs: int, directory: Path) -> tuple[list[float], list[float]]:
    """Seconds to "ready", and to the import floor, over ``runs`` starts each."""
    ready, floor = [], []
    config = child_config(directory)
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import gpiozero, luma.oled, PIL"], check=True, cwd=ROOT)
        floor.append(time.perf_counter() - start)
        child = Child(config)
        ready.append(child.wait_ready())
        child.stop()
    return ready, floor


# -- the report ------------------------------------------------------------------------


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def machine() -> str:
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    # x86: "model name"; a Raspberry Pi: "Model" (the board) and "model name" (ARMv7/v8 core).
    model = " / ".join(v for v in (info.get("model name"), info.get("hardware")) if v) or info.get(
        "model", platform.processor() or "unknown CPU"
    )
    board = Path("/proc/device-tree/model")
    if board.exists():
        model = board.read_text(errors="replace").strip("\x00\n ") + f" ({model})"
    from importlib.metadata import version

    libraries = ", ".join(f"{name} {version(name)}" for name in ("gpiozero", "luma.core", "luma.oled", "pillow"))
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; {libraries}"
    )


def verdict(ok: bool) -> str:
    return "pass" if ok else "**FAIL**"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=500, help="samples per input kind (default 500)")
    parser.add_argument("--holds", type=int, default=5, help="holds to count frames of (0.5 s each)")
    parser.add_argument("--idle-seconds", type=float, default=30.0, help="idle measurement (default 30)")
    parser.add_argument("--starts", type=int, default=7, help="start-up runs (median taken; default 7)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve()

    sys.path.insert(0, str(ROOT))
    failed = False
    kinds, config = measure_inputs(args.samples, args.holds)
    displays = {d.role: d for d in config.displays}
    with tempfile.TemporaryDirectory() as tmp:
        cpu, rss, code = measure_idle(args.idle_seconds, Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        ready, floor = measure_startup(args.starts, Path(tmp))

    rows = []
    for name, role in (("chip press", "bets"), ("arrow", "bets"), ("deal", "table")):
        values = kinds[name].latencies_ms
        ok = p99(values) < 2.0
        failed |= not ok
        what = "release" if name == "chip press" else "press"
        first = "first card on the table display" if name == "deal" else "new bets frame"
        rows.append(
            (
                f"{name}: pin {what} to {first}",
                f"{statistics.median(values):.2f} ms",
                f"{p99(values):.2f} ms",
                "p99 < 2 ms",
                verdict(ok),
                f"p99 = {p99(values) / I2C_FRAME_MS:.3f} of a {I2C_FRAME_MS:.1f} ms I2C frame; "
                f"{role} bus frame {bus_ms(displays[role]):.1f} ms",
            )
        )
    ok = cpu < 1.0
    failed |= not ok
    rows.append(
        (
            f"idle CPU over {args.idle_seconds:g} s",
            f"{cpu:.3f} % of a core",
            "",
            "< 1 %",
            verdict(ok),
            "mock pins, dummy displays",
        )
    )
    ok = rss < 60
    failed |= not ok
    rows.append(("resident memory after start", f"{rss:.1f} MB", "", "< 60 MB", verdict(ok), "VmRSS"))
    ratio = statistics.median(ready) / statistics.median(floor)
    ok = ratio < 1.5
    failed |= not ok
    rows.append(
        (
            'start-up: process start to "ready"',
            f"{statistics.median(ready) * 1000:.0f} ms",
            f"max {max(ready) * 1000:.0f} ms",
            "< 1.5x floor",
            verdict(ok),
            f"{ratio:.2f}x the floor",
        )
    )
    rows.append(
        (
            "floor: `import gpiozero, luma.oled, PIL`",
            f"{statistics.median(floor) * 1000:.0f} ms",
            f"max {max(floor) * 1000:.0f} ms",
            "",
            "",
            f"{args.starts} runs, median",
        )
    )
    ok = code == 0
    failed |= not ok
    rows.append(("SIGTERM after the idle run", f"exit {code}", "", "exit 0", verdict(ok), ""))

    print(f"Machine: {machine()}")
    print(
        f"Command: `python benchmarks/bench.py --samples {args.samples} --idle-seconds {args.idle_seconds:g} "
        f"--starts {args.starts}`"
    )
    print()
    print("| measure | median | p99 | target | result | notes |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("Frames sent per input (mean per display; bytes = full frames on the bus):")
    print()
    roles = [d.role for d in config.displays]
    print("| input | " + " | ".join(roles) + " | bytes per input |")
    print("|---|" + "---|" * len(roles) + "---|")
    for name in ("chip press", "arrow", "hold", "deal"):
        counts = kinds[name].frames
        if not counts:
            continue
        means = {role: statistics.mean(c[role] for c in counts) for role in roles}
        total = sum(means[role] * bus_bytes(displays[role]) for role in roles)
        print(f"| {name} | " + " | ".join(f"{means[r]:.2f}" for r in roles) + f" | {total:,.0f} |")
    print()
    print(
        "Displays: "
        + "; ".join(
            f"{d.role} {d.driver} {d.width}x{d.height} {d.interface} ({bus_bytes(d)} B, {bus_ms(d):.1f} ms a frame)"
            for d in config.displays
        )
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
