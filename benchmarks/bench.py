"""The prop's speed on the deployed path: input to frame, result to output, bytes and time on the buses,
idle, start-up.

The daemon runs as the service runs it: the reference config, the services
attached (the state and history files written on their background threads, the control socket,
MQTT against a real Mosquitto when one is installed), logging on at INFO, and
luma.oled's real drivers (with the project's changed-pages subclasses) over
luma.core's real ``i2c`` and ``spi`` interfaces, smbus2 and spidev. Only the
lowest layer is faked: gpiozero's mock pins, and ``tests/fakeos.py`` under
smbus2, spidev and RPi.GPIO, which records every byte that leaves for a display::

    python benchmarks/bench.py [--samples 300] [--deals 100] [--solves 100] [--idle-seconds 20] [--starts 7] [--json]

Software time is from just before the pin edge that makes the input (a betting
area's release after a press held past the debounce, an arrow's press, the
deal's press; for a hold, the moment the hold fires) to the moment the frame
has been handed to the kernel (the daemon's ``on_frame`` hook runs after
``Screen.show`` returns). Bus time is the recorded bytes at each clock: I2C
charges 9 clocks a byte (8 bits and the ACK), and each transfer its address and
control byte; SPI 8 clocks a byte of payload. A display wired to the other bus
would move the same payload, so both columns are given for every display.

Result to output: the reference build's lock opens on a solve. A winning round is
dealt on the original's timeline, its schedule on the clock the benchmark moves;
the time runs from the moment the payout is due (the clock moved to
``Daemon.result_due`` and the game thread woken, as a due step wakes it) to the
lock's pin edge (gpiozero's mock pin stamps it).

The Pi Zero 2 W column multiplies this machine's software time by
``--zero2w-factor`` (default 12; the basis is in benchmarks/README.md). It is an
estimate, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

INPUTS = ("chip press", "arrow", "hold", "deal")
CLOCKS = {"i2c_400k": ("i2c", 400_000), "i2c_1m": ("i2c", 1_000_000), "spi_8m": ("spi", 8_000_000)}
FLOOR_IMPORTS = "import gpiozero, luma.oled.device, PIL.Image"
# The floor plus what the daemon must load before "ready" whatever its own code does: logging
# on, the command line, the TOML config, the JSON state file, smbus2 under luma's i2c, the
# benchmark's mock pins (lgpio's on a Pi) and Pillow's drawing with the displays' bitmap font
# (Pillow's courB08, read from its files as firmware/render/canvas.py reads it).
# Not a target: it shows how much of the 1.3x budget is the project's own (benchmarks/README.md).
REQUIRED_IMPORTS = (
    f"{FLOOR_IMPORTS}, logging, argparse, tomllib, json, smbus2, gpiozero.pins.mock, PIL.ImageDraw, "
    f"PIL.ImageFont; PIL.ImageFont.load({str(ROOT / 'firmware' / 'render' / 'fonts' / 'courB08.pil')!r})"
)
ZERO2W_FACTOR = 12.0


# -- the lowest layer ---------------------------------------------------------------------


def fake_linux() -> Any:
    """``tests/fakeos.py`` under smbus2, spidev and RPi.GPIO, for the rest of this process."""
    from tests import fakeos

    return fakeos.install_for_process()


def attach_displays(kernel: Any, config: Any) -> dict[str, Any]:
    """A recording far end for every display the config wires: {role: recorder}."""
    ends = {}
    for spec in config.displays:
        if spec.interface == "i2c":
            ends[spec.role] = kernel.i2c_display(spec.port, spec.address)
        else:
            ends[spec.role] = kernel.spi_device(spec.port, spec.device, dc=spec.dc)
    return ends


def config_text(directory: Path, *, card_seconds: float, broker_port: int | None, countdown: bool = False) -> str:
    """The reference config with fixed limits, a red first deck, this run's files and pacing (and with
    ``countdown`` a bomb with an hour's timer)."""
    from firmware.config import DEFAULT_CONFIG

    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    text += f"""
[state]
file = "{(directory / "state.json").as_posix()}"

[control]
socket = "{(directory / "control.sock").as_posix()}"
"""
    if broker_port is not None:
        text += f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker_port}\n'
    if countdown:
        text += "\n[bomb]\ntimer_seconds = 3600\n"
    return text


def load(directory: Path, *, broker_port: int | None, card_seconds: float | None = None) -> Any:
    """The benchmark's config, through the same reader as ``baccarat run``: the reference config's
    timing (the original's pacing), or with ``card_seconds`` the quick pacing at that pace."""
    import tomllib

    from firmware.config import parse_config

    data = tomllib.loads(config_text(directory, card_seconds=card_seconds or 0.6, broker_port=broker_port))
    data["limits"] = {"mode": "fixed", "min": 25, "max": 1000}
    data["deck"] = {"first_color": "red"}
    if card_seconds is not None:
        data["timing"] = {
            **data["timing"],
            "pacing": "quick",
            "card_seconds": card_seconds,
            "result_seconds": card_seconds,
        }
    return parse_config(data, source="<benchmark>")


@contextmanager
def broker(directory: Path, wanted: bool) -> Iterator[int | None]:
    """A Mosquitto on a free loopback port, if one is installed and ``wanted``."""
    if not wanted:
        yield None
        return
    from tests.mosquitto import Broker, mosquitto_binary

    if mosquitto_binary() is None:
        yield None
        return
    (directory / "mosquitto").mkdir()
    server = Broker(directory / "mosquitto")
    server.start()
    try:
        yield server.port
    finally:
        server.stop()


# -- in this process: inputs ----------------------------------------------------------------


class Frames:
    """Every frame the daemon sent: (perf_counter after the bus write, role)."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, str]] = []
        self.changed = threading.Condition()

    def __call__(self, role: str, image: Any) -> None:
        stamp = time.perf_counter()
        with self.changed:
            self.frames.append((stamp, role))
            self.changed.notify_all()

    def mark(self) -> int:
        with self.changed:
            return len(self.frames)

    def wait(self, since: int, role: str, timeout: float = 5.0) -> float:
        """The time of the first ``role`` frame after ``since``."""
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


@dataclass
class Samples:
    """What one input kind cost, sample by sample."""

    software_ms: list[float] = field(default_factory=list)
    #: per sample: {role: [writes]} of what went on the wire
    writes: list[dict[str, list[Any]]] = field(default_factory=list)
    #: per sample: what the daemon wrote (:class:`DiskMeter`)
    disk: list[dict[str, int]] = field(default_factory=list)


def proc_io(pid: int | str = "self") -> dict[str, int]:
    """``/proc/<pid>/io``: ``write_bytes`` (what the process caused to be written to a disk: the
    pages it dirtied, counted when dirtied), ``wchar`` (bytes passed to ``write()`` and friends),
    ``syscw`` (those calls) and the rest; empty where the kernel does not keep them."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return {}
    return {key.strip(): int(value) for key, value in (line.split(":") for line in text.splitlines() if ":" in line)}


class LogMeter(logging.Handler):
    """Counts the lines the daemon logs, as the journal receives them (the service's format)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        from firmware.app import JOURNAL_FORMAT

        self.setFormatter(logging.Formatter(JOURNAL_FORMAT))
        self.lines = 0
        self.bytes = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lines += 1
        self.bytes += len(self.format(record).encode()) + 1  # and its newline


class DiskMeter:
    """What the daemon (this process) writes between :meth:`mark` and :meth:`since`: to disk
    (``/proc/self/io``'s ``write_bytes``; it writes the state file and the history file, nothing
    else) and to the journal (its log lines)."""

    def __init__(self) -> None:
        self.log = LogMeter()
        logging.getLogger().addHandler(self.log)

    def mark(self) -> tuple[dict[str, int], int, int]:
        return proc_io(), self.log.bytes, self.log.lines

    def since(self, mark: tuple[dict[str, int], int, int]) -> dict[str, int]:
        io, log_bytes, log_lines = mark
        now = proc_io()
        return {
            "write_bytes": now.get("write_bytes", 0) - io.get("write_bytes", 0),
            "wchar": now.get("wchar", 0) - io.get("wchar", 0),
            "log_bytes": self.log.bytes - log_bytes,
            "log_lines": self.log.lines - log_lines,
        }

    def close(self) -> None:
        logging.getLogger().removeHandler(self.log)


def wire_bytes(writes: list[Any], bus: str) -> int:
    """Bytes these writes take on ``bus``: I2C adds an address and a control byte to each transfer."""
    return sum(len(w.payload) + (2 if bus == "i2c" else 0) for w in writes)


def deal_started(daemon: Any, timeout: float = 30.0) -> None:
    """Return once a deal gesture has reached the game thread (through gpiozero's thread and the
    daemon's queue): on a loaded machine that takes longer than any settle time."""
    began = time.monotonic()
    while not daemon.dealing:
        if time.monotonic() - began > timeout:
            raise RuntimeError(f"the deal did not start within {timeout:g} s")
        time.sleep(0.001)


def measure_inputs(
    directory: Path, samples: int, deals: int, holds: int, broker_port: int | None, solves: int = 0
) -> dict[str, Any]:
    """Drive the daemon through its pins and record time and bytes for each input kind."""
    import random

    from baccarat_core import TableLimits
    from firmware.app import attach_services, build_daemon, close_daemon, mock_pin_factory
    from firmware.simulator.pins import ManualClock, PinDriver

    # The deal as shipped (the original's pacing: each card a back, then a flip; the result; the
    # clearing), its schedule on a clock this loop moves a sixteenth of a second at a time once the
    # first card is on the table: every frame of the deal is sent, and 100 deals take seconds, not 10 minutes.
    config = load(directory, broker_port=broker_port)
    frames = Frames()
    result: dict[str, Samples] = {name: Samples() for name in INPUTS}
    kernel = fake_linux()
    ends = attach_displays(kernel, config)
    factory = mock_pin_factory()
    schedule = ManualClock(0.0)
    daemon = build_daemon(config, pin_factory=factory, rng=random.Random(1), schedule_clock=schedule)
    daemon.on_frame.append(frames)
    closers = attach_services(daemon, config)
    daemon.start()
    if not daemon.ready.wait(10):
        raise RuntimeError("the daemon did not get ready")
    pins = PinDriver(daemon.board)
    settle = config.timing.debounce_seconds + 0.005
    limits = TableLimits(25, 1000)
    disk = DiskMeter()
    played: list[dict[str, Any]] = []
    rounds = max(10, deals // 3)

    def marks() -> dict[str, int]:
        return {role: end.mark() for role, end in ends.items()}

    def sent(since: dict[str, int]) -> dict[str, list[Any]]:
        daemon.wait_idle()
        return {role: end.since(since[role]) for role, end in ends.items()}

    def tap(name: str) -> None:
        pins.tap(name, settle, settle=settle)
        daemon.wait_idle()

    def fresh() -> None:
        daemon.apply(lambda m: m.reset(limits)).result(5)
        daemon.wait_idle()

    try:
        areas = list(daemon.board.areas)
        for i in range(samples):  # chip presses: the release is the edge
            if i % 8 == 0:
                fresh()
            area = areas[i % len(areas)]
            written = disk.mark()
            pins.press(area)
            time.sleep(settle)
            since, at = marks(), frames.mark()
            start = time.perf_counter()
            pins.release(area)
            result["chip press"].software_ms.append((frames.wait(at, "bets") - start) * 1000)
            result["chip press"].writes.append(sent(since))
            result["chip press"].disk.append(disk.since(written))
        fresh()
        tap("arrow_right")
        for i in range(samples):  # arrows: the press steps the denomination
            arrow = "arrow_right" if i % 2 else "arrow_left"
            since, at, written = marks(), frames.mark(), disk.mark()
            start = time.perf_counter()
            pins.press(arrow)
            result["arrow"].software_ms.append((frames.wait(at, "bets") - start) * 1000)
            result["arrow"].writes.append(sent(since))
            time.sleep(settle)
            pins.release(arrow)
            time.sleep(settle)
            daemon.wait_idle()
            result["arrow"].disk.append(disk.since(written))
        fresh()
        for _ in range(holds):  # holds (0.5 s each): timed from the moment the hold fires
            tap("tie")
            tap("tie")
            since, at, written = marks(), frames.mark(), disk.mark()
            stamp: list[float] = []
            area = daemon.board.areas["tie"]
            previous = area.on_hold

            def held(previous: Any = previous, stamp: list[float] = stamp) -> None:
                stamp.append(time.perf_counter())
                previous()

            area.on_hold = held
            pins.press("tie")
            end = frames.wait(at, "bets", timeout=config.timing.hold_seconds + 2)
            area.on_hold = previous
            pins.release("tie")
            time.sleep(settle)
            result["hold"].software_ms.append((end - stamp[0]) * 1000)
            result["hold"].writes.append(sent(since))
            result["hold"].disk.append(disk.since(written))
        for _ in range(deals):  # deals: $25 on Player, then the deck sensor
            if daemon.module.solved or daemon.module.denomination != 25:
                fresh()
                while daemon.module.denomination < 25:
                    tap("arrow_right")
            tap("player")
            since, at = marks(), frames.mark()
            start = time.perf_counter()
            pins.press("deal")
            result["deal"].software_ms.append((frames.wait(at, "table") - start) * 1000)
            time.sleep(settle)
            pins.release("deal")
            while daemon.dealing:  # the whole round: each card's back and flip, the result, the clearing
                schedule.advance(1 / 16)
                daemon.catch_up()
            result["deal"].writes.append(sent(since))
        # Disk writes of rounds as players play them: each lost (the bet on the hand that
        # loses), so the deck runs down and is replaced every five or six rounds, as in a game.
        fresh()
        for _ in range(rounds):
            if daemon.module.solved:  # a tie can pay; the rounds measured are lost ones
                fresh()
            game = daemon.call(daemon.module.next_round).result(5)
            left = daemon.call(lambda: daemon.module.cards_left).result(5)
            written = disk.mark()  # the bet (the arrows to $25 after the reset), the deal, to the clearing
            while daemon.module.denomination < 25:
                tap("arrow_right")
            tap("banker" if game.winner == "player" else "player")
            pins.press("deal")
            time.sleep(settle)
            pins.release("deal")
            deal_started(daemon)
            while daemon.dealing:  # the deal's schedule, on the clock this loop moves
                schedule.advance(1 / 16)
                daemon.catch_up()
            daemon.wait_idle()
            played.append({**disk.since(written), "new_deck": daemon.module.cards_left > left})
        steps = {"schedule": schedule, "pins": pins, "settle": settle, "fresh": fresh, "tap": tap}
        outputs = result_to_output(daemon, factory, config, solves, steps)
    finally:
        disk.close()
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)
        factory.reset()
    buses = {spec.role: spec.interface for spec in config.displays}
    from firmware.system import storage

    mount = storage.mount_of(directory, storage.read_mounts())
    return {
        "samples": result,
        "rounds": played,
        "buses": buses,
        "displays": config.displays,
        "disk_fs": mount.describe() if mount else "unknown",
        "disk_in_ram": bool(storage.volatile_reason(directory / "state.json", storage.read_mounts())),
        "result_to_output_ms": outputs,
    }


def result_to_output(daemon: Any, factory: Any, config: Any, solves: int, step: dict[str, Any]) -> list[float]:
    """Winning rounds: from the moment each result is due to the lock's pin edge, in ms.

    The deal's schedule reads the clock this loop moves (``step["schedule"]``): it is moved a
    sixteenth of a second at a time up to just before the payout, then, at a real moment stamped
    here, to the payout, and the game thread is woken as any due step wakes it. The time is what
    the game thread takes from there to switch the lock (gpiozero's mock pin stamps its edge).
    """
    lock = next((o for o in config.outputs if o.on == "solved"), None)
    if lock is None or solves <= 0:
        return []
    pin = factory.pin(lock.pin)
    schedule, pins, settle, fresh, tap = step["schedule"], step["pins"], step["settle"], step["fresh"], step["tap"]
    tick = 1 / 16
    times: list[float] = []
    while len(times) < solves:
        fresh()  # the reset shuts the lock
        game = daemon.call(daemon.module.next_round).result(5)
        if game.winner == "tie":
            continue
        while daemon.module.denomination < 25:
            tap("arrow_right")
        tap(game.winner)
        pin.clear_states()
        pins.press("deal")
        time.sleep(settle)
        pins.release("deal")
        deal_started(daemon)
        due = daemon.call(lambda: daemon.result_due, during_round=True).result(5)
        if due is None:
            raise RuntimeError("the winning deal has no payout on its schedule")
        while schedule() + tick < due:  # the cards land and turn
            schedule.advance(tick)
            daemon.catch_up()
        if len(pin.states) != 1:
            raise RuntimeError(f"the lock switched before the payout: {pin.states}")
        start = time.monotonic()
        schedule.advance(due - schedule())  # the payout is due now
        daemon.catch_up()
        if not daemon.module.solved or len(pin.states) != 2:
            raise RuntimeError(f"the winning round did not open the lock once: {pin.states}")
        times.append((pin._last_change - start) * 1000)  # the mock pin's monotonic stamp of its edge
        while daemon.dealing:  # the pause, the clearing
            schedule.advance(tick)
            daemon.catch_up()
    return times


# -- in a child process: idle and start-up ---------------------------------------------------


def unit_watchdog_seconds(unit: Path = ROOT / "firmware" / "baccarat.service") -> float:
    """The service's ``WatchdogSec=``, in seconds (a plain number in the unit)."""
    for line in unit.read_text(encoding="utf-8").splitlines():
        if line.startswith("WatchdogSec="):
            return float(line.partition("=")[2])
    raise RuntimeError(f"{unit} sets no WatchdogSec=")


class ServiceManager:
    """systemd's notify socket as the service sees it: the datagrams the child sends, read on a thread."""

    def __init__(self, directory: Path) -> None:
        from tests.notify_listener import NotifyListener

        self.listener = NotifyListener(str(directory / "notify"))
        self.watchdog_seconds = unit_watchdog_seconds()
        self._arrived = threading.Condition()
        self._thread = threading.Thread(target=self._read, name="bench-notify", daemon=True)
        self._thread.start()

    def env(self) -> dict[str, str]:
        """What systemd sets for a ``Type=notify`` unit with ``WatchdogSec=``."""
        return {"NOTIFY_SOCKET": self.listener.address, "WATCHDOG_USEC": str(int(self.watchdog_seconds * 1e6))}

    def _read(self) -> None:
        while True:  # asleep in recvmsg until a datagram comes: the benchmark's own wakeups stay few
            try:
                message = self.listener.receive(3600)
            except OSError:
                return
            if message is not None and "BENCH_STOP" in message.fields:
                return
            with self._arrived:
                self._arrived.notify_all()

    def next_ping(self, after: float, timeout: float) -> float:
        """When the first WATCHDOG=1 read after ``after`` (a ``time.monotonic()`` stamp) came."""

        def found() -> float | None:
            return next((m.at for m in self.listener.messages if "WATCHDOG" in m.fields and m.at > after), None)

        with self._arrived:
            if not self._arrived.wait_for(lambda: found() is not None, timeout):
                raise RuntimeError(f"no watchdog ping within {timeout:g} s")
        stamp = found()
        assert stamp is not None
        return stamp

    def pings(self, start: float, end: float) -> int:
        """WATCHDOG=1 datagrams read after ``start`` and up to ``end`` (``time.monotonic()`` stamps)."""
        return sum(1 for m in list(self.listener.messages) if "WATCHDOG" in m.fields and start < m.at <= end)

    def close(self) -> None:
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as poke:
            poke.sendto(b"BENCH_STOP=1\n", self.listener.address)
        self._thread.join(5)
        self.listener.close()


class Child:
    """``baccarat run`` in a process of its own over the recorded bus (``benchmarks/child.py``),
    under a stand-in for systemd's notify socket as the service runs (READY, the watchdog's pings)."""

    def __init__(self, directory: Path, *, threads: Path | None = None, manager: ServiceManager | None = None) -> None:
        env = dict(os.environ)
        for name in ("JOURNAL_STREAM", "GPIOZERO_PIN_FACTORY", "GPIOZERO_MOCK_PIN_CLASS", "NOTIFY_SOCKET"):
            env.pop(name, None)  # the child sets gpiozero's mock pins itself
        if manager is not None:
            env |= manager.env()
        command = [sys.executable, str(ROOT / "benchmarks" / "child.py"), str(directory / "config.toml")]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            command + ([str(threads)] if threads else []),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        #: (time.monotonic(), bytes) of each log line after "ready" (:meth:`follow`)
        self.later: list[tuple[float, int]] = []
        self._follower: threading.Thread | None = None

    def follow(self) -> None:
        """Read the log after "ready" on a thread, noting when each line came (idle: nothing)."""

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line)
                self.later.append((time.monotonic(), len(line.encode())))

        self._follower = threading.Thread(target=read, name="bench-log", daemon=True)
        self._follower.start()

    def wait_ready(self, timeout: float = 30) -> float:
        """Seconds from the process start to the "ready" log line."""
        from firmware.game.daemon import READY

        assert self.proc.stderr is not None
        timer = threading.Timer(timeout, self.proc.kill)
        timer.start()
        try:
            for line in self.proc.stderr:
                self.log.append(line)
                if READY in line:
                    return time.perf_counter() - self.started
        finally:
            timer.cancel()
        raise RuntimeError("the daemon never got ready:\n" + "".join(self.log))

    def stop(self) -> int:
        self.proc.terminate()
        try:
            if self._follower is not None:
                self.proc.wait(timeout=10)
                self._follower.join(5)
            else:
                _, rest = self.proc.communicate(timeout=10)
                self.log.append(rest)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("the daemon did not stop on SIGTERM") from None
        return self.proc.returncode

    def threads(self) -> dict[str, tuple[int, float]]:
        """{thread id: (context switches, CPU seconds)} from /proc."""
        found: dict[str, tuple[int, float]] = {}
        tick = os.sysconf("SC_CLK_TCK")
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                switches = 0
                for line in (task / "status").read_text().splitlines():
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                cpu = (int(fields[11]) + int(fields[12])) / tick
            except (FileNotFoundError, ProcessLookupError):
                continue
            found[task.name] = (switches, cpu)
        return found

    def voluntary_switches(self, tid: str) -> int:
        """How often a thread went to sleep (its voluntary context switches)."""
        for line in Path(f"/proc/{self.proc.pid}/task/{tid}/status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches"):
                return int(line.split()[1])
        raise RuntimeError(f"no voluntary_ctxt_switches for thread {tid}")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")


def child_directory(directory: Path, broker_port: int | None, *, countdown: bool = False) -> Path:
    """The reference config (pacing as shipped) and its files in ``directory`` (``countdown``: with an
    hour's bomb timer, ``[bomb] timer_seconds = 3600``)."""
    (directory / "config.toml").write_text(
        config_text(directory, card_seconds=0.6, broker_port=broker_port, countdown=countdown), encoding="utf-8"
    )
    return directory


def _thread_names(path: Path, patience: float = 120.0) -> dict[str, str]:
    """The child's threads by native id, once its game thread is among them (benchmarks/child.py)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            names = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # not written yet, or being written
            names = {}
        if "baccarat-game" in names.values():
            return names
        if time.monotonic() > deadline:
            raise RuntimeError(f"the child never named its game thread in {path}")
        time.sleep(0.1)


def measure_idle(directory: Path, seconds: float, *, start_countdown: bool = False) -> dict[str, Any]:
    """CPU, wakeups per thread, memory, disk writes and the watchdog's pings of an idle daemon
    (``start_countdown``: with its bomb's countdown running, started over the control socket, and
    nothing showing it: no casing display, no page open)."""
    names_file = directory / "threads.json"
    manager = ServiceManager(directory)
    child = Child(directory, threads=names_file, manager=manager)
    try:
        child.wait_ready()
        if start_countdown:
            from firmware.cli.gm import request

            reply = request(directory / "control.sock", {"command": "start"})
            if not reply.get("ok") or not reply["result"]["events"]:
                raise RuntimeError(f"the countdown did not start: {reply}")
        child.follow()
        time.sleep(1.5)  # start-up's last work (first frames, the state file, the thread names) done
        names = _thread_names(names_file)
        names[str(child.proc.pid)] = "main"
        game = next(tid for tid, name in names.items() if name == "baccarat-game")
        rss = child.rss_mb()
        # The watchdog's cost is counted between two pings, so the window holds whole periods:
        # the game thread's sleeps (voluntary switches) per ping, at two pings per WatchdogSec.
        period = manager.watchdog_seconds / 2
        aligned = seconds >= period
        first = manager.next_ping(time.monotonic(), 2 * period) if aligned else time.monotonic()
        game_before = child.voluntary_switches(game)
        before, io_before, started = child.threads(), proc_io(child.proc.pid), time.monotonic()
        time.sleep(seconds)
        after, io_after, ended = child.threads(), proc_io(child.proc.pid), time.monotonic()
        last = manager.next_ping(ended, 2 * period) if aligned else ended
        game_sleeps = child.voluntary_switches(game) - game_before
        code = child.stop()
        pings = manager.pings(first, last)
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
        manager.close()
    log_bytes = sum(size for at, size in child.later if started <= at <= ended)
    written = io_after.get("write_bytes", 0) - io_before.get("write_bytes", 0)
    per_thread: dict[str, float] = {}
    for tid, (switches, _) in after.items():
        name = names.get(tid, "other")
        per_thread[name] = per_thread.get(name, 0.0) + (switches - before.get(tid, (0, 0.0))[0]) / seconds
    cpu = sum(c for _, c in after.values()) - sum(c for _, c in before.values())
    watchdog = manager.watchdog_seconds
    return {
        "seconds": seconds,
        "cpu_percent": cpu / seconds * 100,
        "wakeups_per_s": sum(per_thread.values()),
        "wakeups_per_s_by_thread": {k: round(v, 2) for k, v in sorted(per_thread.items(), key=lambda kv: -kv[1])},
        "rss_mb": rss,
        "exit_code": code,
        "watchdog_sec": watchdog,
        "watchdog_pings": pings,
        # The game thread sleeps until a ping is due when nothing else wakes it: its wakeups
        # at rest are the watchdog's cost (None: the idle run was shorter than a ping period).
        "game_wakeups_per_watchdog_sec": game_sleeps / pings * 2 if aligned and pings else None,
        "disk_write_bytes_per_hour": written / seconds * 3600,
        "log_bytes_per_hour": log_bytes / seconds * 3600,
    }


def time_floor(imports: str = FLOOR_IMPORTS) -> float:
    """Seconds from process start to the end of ``imports`` (matched with the daemon's ready line)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", f"{imports}; import sys; sys.stderr.write('imported\\n'); sys.stderr.flush()"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    took = time.perf_counter() - started
    proc.wait()
    if line.strip() != "imported":
        raise RuntimeError(f"the floor's imports failed: {line}{proc.stderr.read()}")
    return took


def compile_bytecode() -> None:
    """Compile the project's bytecode, as ``scripts/install-service.sh`` leaves it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "baccarat_core", "firmware", "tests", "benchmarks"],
        cwd=ROOT,
        check=True,
    )


def measure_startup(directory: Path, runs: int) -> dict[str, Any]:
    """Median seconds to "ready" and to the floor's imports; bytecode compiled as the install leaves it."""
    compile_bytecode()
    ready, floor, required = [], [], []
    manager = ServiceManager(directory)  # as under systemd: the notifier is set up before "ready"
    try:
        for run in range(runs + 1):  # the first of each is a warm-up (page cache)
            took = time_floor()
            needed = time_floor(REQUIRED_IMPORTS)
            child = Child(directory, manager=manager)
            went = child.wait_ready()
            child.stop()
            if run:
                floor.append(took)
                required.append(needed)
                ready.append(went)
    finally:
        manager.close()
    return {
        "runs": runs,
        "ready_ms": statistics.median(ready) * 1000,
        "ready_max_ms": max(ready) * 1000,
        "floor_ms": statistics.median(floor) * 1000,
        "floor_max_ms": max(floor) * 1000,
        "ratio": statistics.median(ready) / statistics.median(floor),
        "required_floor_ms": statistics.median(required) * 1000,
        "required_ratio": statistics.median(required) / statistics.median(floor),
    }


# -- the figures -------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile by the nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def figures(measured: dict[str, Any], factor: float) -> dict[str, Any]:
    """software_ms, bus_bytes and bus_ms per input (and per role), and result_to_output_ms, from the samples."""
    software: dict[str, Any] = {}
    bus_bytes: dict[str, Any] = {}
    bus_ms: dict[str, Any] = {}
    buses = measured["buses"]
    for name, kind in measured["samples"].items():
        if not kind.software_ms:
            continue
        p50, p99 = statistics.median(kind.software_ms), percentile(kind.software_ms, 0.99)
        software[name] = {
            "p50": p50,
            "p99": p99,
            "max": max(kind.software_ms),
            "samples": len(kind.software_ms),
            "zero2w_p50": p50 * factor,
            "zero2w_p99": p99 * factor,
        }
        bus_bytes[name], bus_ms[name] = {}, {}
        for role, bus in buses.items():
            per_sample = [wire_bytes(sample[role], bus) for sample in kind.writes]
            bus_bytes[name][role] = {
                "mean": statistics.mean(per_sample),
                "p99": percentile(per_sample, 0.99),
                "max": max(per_sample),
                "bus": bus,
            }
            bus_ms[name][role] = {}
            for clock, (other, hz) in CLOCKS.items():
                clocks = 9 if other == "i2c" else 8
                costs = [wire_bytes(sample[role], other) * clocks / hz * 1000 for sample in kind.writes]
                bus_ms[name][role][clock] = {"mean": statistics.mean(costs), "p99": percentile(costs, 0.99)}
    disk: dict[str, Any] = {"file_system": measured["disk_fs"], "in_ram": measured["disk_in_ram"]}
    per_kind = {name: kind.disk for name, kind in measured["samples"].items() if kind.disk}
    if measured["rounds"]:
        per_kind["round"] = measured["rounds"]
    for name, samples in per_kind.items():
        disk[name] = {
            key: {"mean": statistics.mean(s[key] for s in samples), "max": max(s[key] for s in samples)}
            for key in ("write_bytes", "wchar", "log_bytes", "log_lines")
        }
    if measured["rounds"]:
        disk["round"]["rounds"] = len(measured["rounds"])
        disk["round"]["new_decks"] = sum(r["new_deck"] for r in measured["rounds"])
    out: dict[str, Any] = {"software_ms": software, "bus_bytes": bus_bytes, "bus_ms": bus_ms, "disk": disk}
    outputs = measured.get("result_to_output_ms") or []
    if outputs:
        out["result_to_output_ms"] = {
            "p50": statistics.median(outputs),
            "p99": percentile(outputs, 0.99),
            "max": max(outputs),
            "samples": len(outputs),
        }
    return out


def machine() -> str:
    """This machine's CPU, kernel, Python and the libraries' versions."""
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    model = info.get("model name") or info.get("model") or platform.processor() or "unknown CPU"
    board = Path("/proc/device-tree/model")
    if board.exists():
        model = board.read_text(errors="replace").strip("\x00\n ") + f" ({model})"
    from importlib.metadata import version

    libraries = ", ".join(
        f"{name} {version(name)}" for name in ("gpiozero", "luma.core", "luma.oled", "pillow", "smbus2", "paho-mqtt")
    )
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; {libraries}"
    )


def targets(report: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(measure, figure, target, met) for the issue's targets."""
    chip = report["software_ms"]["chip press"]
    bus = report["bus_ms"]["chip press"]["bets"]["i2c_400k"]
    rows = [
        ("chip press to frame, p99", f"{chip['p99']:.2f} ms", "< 2 ms", chip["p99"] < 2.0),
        (
            "bus time per chip press at I2C 400 kHz (mean; p99)",
            f"{bus['mean']:.2f} ms; {bus['p99']:.2f} ms",
            "<= 3 ms",
            bus["mean"] <= 3.0,
        ),
    ]
    if "result_to_output_ms" in report:
        lock = report["result_to_output_ms"]
        rows.append(("result to output (the lock), p99", f"{lock['p99']:.2f} ms", "< 5 ms", lock["p99"] < 5.0))
    if "startup" in report:
        s = report["startup"]
        rows.append(("start-up against the floor", f"{s['ratio']:.2f}x", "<= 1.3x", s["ratio"] <= 1.3))
    disk = report["disk"]
    if "round" in disk and not disk["in_ram"]:
        round_bytes = disk["round"]["write_bytes"]
        rows.append(
            (
                "disk writes per round (state and history files; mean, max)",
                f"{round_bytes['mean'] / 1024:.1f} KiB, {round_bytes['max'] / 1024:.1f} KiB",
                "<= 8 KiB (mean)",
                round_bytes["mean"] <= 8192,
            )
        )
    if "idle" in report:
        idle = report["idle"]
        rows.append(("idle CPU", f"{idle['cpu_percent']:.2f} % of a core", "< 1 %", idle["cpu_percent"] < 1.0))
        if not disk["in_ram"]:
            per_hour = idle["disk_write_bytes_per_hour"]
            rows.append(("disk writes while idle", f"{per_hour:,.0f} bytes an hour", "0", per_hour == 0))
        wakeups = idle["game_wakeups_per_watchdog_sec"]
        if wakeups is not None:
            rows.append(
                (
                    f"watchdog: idle wakeups per WatchdogSec ({idle['watchdog_sec']:g} s)",
                    f"{wakeups:.1f} (the game thread, over {idle['watchdog_pings']} pings)",
                    "<= 2",
                    wakeups <= 2.0,
                )
            )
        rows.append(("SIGTERM after the idle run", f"exit {idle['exit_code']}", "exit 0", idle["exit_code"] == 0))
    if "idle_countdown" in report:
        counting = report["idle_countdown"]
        wakeups = counting["game_wakeups_per_watchdog_sec"]
        if wakeups is not None:
            rows.append(
                (
                    "a running countdown nobody shows: idle wakeups per WatchdogSec",
                    f"{wakeups:.1f} (the game thread, over {counting['watchdog_pings']} pings)",
                    "<= 2 (none of its own)",
                    wakeups <= 2.0,
                )
            )
        if not disk["in_ram"]:
            per_hour = counting["disk_write_bytes_per_hour"]
            rows.append(("disk writes while the countdown runs", f"{per_hour:,.0f} bytes an hour", "0", per_hour == 0))
    return rows


def print_markdown(report: dict[str, Any]) -> None:
    """The report as the README shows it."""
    print(f"Machine: {report['machine']}")
    print(f"Command: `{report['command']}`; MQTT {'on' if report['mqtt'] else 'off (no mosquitto)'}")
    print()
    print("| measure | figure | target | result |")
    print("|---|---|---|---|")
    for measure, figure, target, met in targets(report):
        print(f"| {measure} | {figure} | {target} | {'pass' if met else '**FAIL**'} |")
    print()
    factor = report["zero2w_factor"]
    print(f"| input | software p50 | p99 | Pi Zero 2 W p99 (x{factor:g}, est.) | samples |")
    print("|---|---|---|---|---|")
    for name, s in report["software_ms"].items():
        print(f"| {name} | {s['p50']:.2f} ms | {s['p99']:.2f} ms | {s['zero2w_p99']:.1f} ms | {s['samples']} |")
    print()
    print("| input | display (bus) | bytes mean | bytes p99 | I2C 400 kHz | I2C 1 MHz | SPI 8 MHz |")
    print("|---|---|---|---|---|---|---|")
    for name, roles in report["bus_bytes"].items():
        for role, b in roles.items():
            if b["max"] == 0:
                continue
            t = report["bus_ms"][name][role]
            times = " | ".join(f"{t[c]['mean']:.2f} ms" for c in CLOCKS)
            print(f"| {name} | {role} ({b['bus']}) | {b['mean']:,.0f} | {b['p99']:,.0f} | {times} |")
    print()
    if "result_to_output_ms" in report:
        lock = report["result_to_output_ms"]
        print(
            f"Result to output: the lock's pin {lock['p50']:.3f} ms (p50), {lock['p99']:.3f} ms (p99), "
            f"{lock['max']:.3f} ms (max) after the winning round's payout was due; {lock['samples']} solves."
        )
    disk = report["disk"]
    where = f"the state and history files on {disk['file_system']}"
    if disk["in_ram"]:
        where += " (in RAM here: write_bytes stays 0; the files' text handed to write() still counts)"
    print(f"What the daemon writes ({where}), and its log as the journal receives it, in bytes:")
    print()
    print("| input | to disk (write_bytes) mean | max | text written mean | log lines | log bytes |")
    print("|---|---|---|---|---|---|")
    for name in (*INPUTS, "round"):
        if name in disk:
            d = disk[name]
            label = name
            if name == "round":
                label = f"round: bet, deal, cards, result, clearing ({d['rounds']} lost, {d['new_decks']} new decks)"
            text = d["wchar"]["mean"] - d["log_bytes"]["mean"]  # write() calls: the state and history files, the log
            print(
                f"| {label} | {d['write_bytes']['mean']:,.0f} | {d['write_bytes']['max']:,.0f} | "
                f"{text:,.0f} | {d['log_lines']['mean']:.1f} | {d['log_bytes']['mean']:,.0f} |"
            )
    if "idle" in report:
        idle = report["idle"]
        print(f"| idle, an hour | {idle['disk_write_bytes_per_hour']:,.0f} | | | | {idle['log_bytes_per_hour']:,.0f} |")
    print()
    if "idle" in report:
        idle = report["idle"]
        threads = ", ".join(f"{k} {v:g}/s" for k, v in idle["wakeups_per_s_by_thread"].items() if v >= 0.05)
        print(
            f"Idle over {idle['seconds']:g} s: {idle['cpu_percent']:.2f} % of a core, "
            f"{idle['wakeups_per_s']:.1f} context switches/s ({threads}), {idle['rss_mb']:.1f} MB resident; "
            f"the watchdog (WatchdogSec={idle['watchdog_sec']:g}): "
            + (
                f"the game thread woke {idle['game_wakeups_per_watchdog_sec']:.1f} times per WatchdogSec "
                f"over {idle['watchdog_pings']} pings."
                if idle["game_wakeups_per_watchdog_sec"] is not None
                else "not measured (an idle run shorter than a ping period)."
            )
        )
    if "idle_countdown" in report:
        counting = report["idle_countdown"]
        game = counting["wakeups_per_s_by_thread"].get("baccarat-game", 0.0)
        print(
            f"Idle with the bomb's countdown running and nothing showing it, over {counting['seconds']:g} s: "
            f"{counting['cpu_percent']:.2f} % of a core, the game thread {game:g} context switches/s"
            + (
                f", {counting['game_wakeups_per_watchdog_sec']:.1f} wakeups per WatchdogSec (the watchdog's alone)."
                if counting["game_wakeups_per_watchdog_sec"] is not None
                else "."
            )
        )
    if "startup" in report:
        s = report["startup"]
        print(
            f'Start-up: "ready" after {s["ready_ms"]:.0f} ms (max {s["ready_max_ms"]:.0f}), the floor '
            f"`{FLOOR_IMPORTS}` {s['floor_ms']:.0f} ms (max {s['floor_max_ms']:.0f}): {s['ratio']:.2f}x; "
            f"median of {s['runs']}, bytecode compiled. The libraries the daemon must load "
            f"(`REQUIRED_IMPORTS`) alone take {s['required_floor_ms']:.0f} ms, {s['required_ratio']:.2f}x the floor."
        )


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table (or ``--json``), exit 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300, help="chip presses and arrows (default 300)")
    parser.add_argument("--deals", type=int, default=100, help="whole deals (default 100)")
    parser.add_argument("--holds", type=int, default=5, help="holds to clear a bet (0.5 s each; default 5)")
    parser.add_argument("--solves", type=int, default=100, help="winning rounds, result to output (default 100)")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="idle measurement (default 20; 0: skip)")
    parser.add_argument("--starts", type=int, default=7, help="start-up runs, median taken (default 7; 0: skip)")
    parser.add_argument("--zero2w-factor", type=float, default=ZERO2W_FACTOR, help="Pi Zero 2 W / this PC")
    parser.add_argument("--no-mqtt", action="store_true", help="leave MQTT off even if mosquitto is installed")
    parser.add_argument("--json", action="store_true", help="print every figure as one JSON object")
    args = parser.parse_args(argv)
    for name in ("samples", "deals", "holds", "solves", "starts"):
        if getattr(args, name) < (1 if name == "samples" else 0):
            parser.error(f"--{name} {getattr(args, name)} is too small")

    from firmware.app import JOURNAL_FORMAT

    # The log lines are formatted as the journal receives them, then dropped.
    logging.basicConfig(level=logging.INFO, filename=os.devnull, format=JOURNAL_FORMAT)
    compile_bytecode()  # as the service install leaves it: no .pyc written while measuring
    with tempfile.TemporaryDirectory() as tmp, broker(Path(tmp), not args.no_mqtt) as port:
        inputs = Path(tmp) / "inputs"
        inputs.mkdir()
        measured = measure_inputs(inputs, args.samples, args.deals, args.holds, port, args.solves)
        report: dict[str, Any] = {
            "machine": machine(),
            "command": "python benchmarks/bench.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "mqtt": port is not None,
            "zero2w_factor": args.zero2w_factor,
            **figures(measured, args.zero2w_factor),
        }
        if args.idle_seconds > 0:
            idle = Path(tmp) / "idle"
            idle.mkdir()
            report["idle"] = measure_idle(child_directory(idle, port), args.idle_seconds)
            counting = Path(tmp) / "countdown"
            counting.mkdir()
            report["idle_countdown"] = measure_idle(
                child_directory(counting, port, countdown=True), args.idle_seconds, start_countdown=True
            )
        if args.starts > 0:
            start = Path(tmp) / "start"
            start.mkdir()
            report["startup"] = measure_startup(child_directory(start, port), args.starts)
    rows = targets(report)
    report["targets"] = [{"measure": m, "figure": f, "target": t, "met": ok} for m, f, t, ok in rows]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_markdown(report)
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
