"""Shared fixtures: gpiozero's MockFactory, a daemon on mock pins and dummy displays."""

from __future__ import annotations

import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.config import DEFAULT_CONFIG, Config, parse_config
from firmware.devices.displays import open_dummy_device
from firmware.simulator.pins import ManualClock, PinDriver
from tests.fakeos import BoundedPWMPin

pytest_plugins = ["tests.tiers"]  # the tiers: markers, --fast, hypothesis's profiles (docs/develop/tests.md)

ROOT = Path(__file__).resolve().parent.parent


def config_data(**sections) -> dict:
    """The reference config as a dict, with ``sections`` merged over it (tests' timing)."""
    import tomllib

    data = tomllib.loads(DEFAULT_CONFIG.read_text())
    data["timing"] = {
        "hold_seconds": 0.5,
        "debounce_seconds": 0.02,
        "strike_flash_seconds": 0.3,
        "card_seconds": 0.0,
        "result_seconds": 0.0,
        "pacing": "quick",  # today's tests run instant deals; the original's timeline has tests of its own
    }
    data["limits"] = {"mode": "fixed", "min": 25, "max": 1000}
    data["deck"] = {"first_color": "red"}
    for name, value in sections.items():
        if isinstance(value, dict) and isinstance(data.get(name), dict):
            data[name] = {**data[name], **value}
        else:
            data[name] = value
    return data


def spi_display(role: str, driver: str, size: tuple[int, int], *, device: int, dc: int, reset: int) -> dict:
    """A ``[[displays]]`` table for an SPI display on SPI0 CE``device`` with its DC and reset pins."""
    width, height = size
    return {
        "role": role,
        "driver": driver,
        "interface": "spi",
        "port": 0,
        "device": device,
        "dc": dc,
        "reset": reset,
        "width": width,
        "height": height,
    }


def make_config(**sections) -> Config:
    return parse_config(config_data(**sections))


class RigPin(BoundedPWMPin):
    """gpiozero's mock pin, which a rig locks: a locked pin refuses to be driven except by
    the rig's driver (:class:`RigDriver`), whose presses move the rig's clock. A raw
    ``drive_low()`` never moves it, so the debounce filter drops the press whatever the
    code under test does: a test built on one could not fail."""

    locked = False

    def close(self) -> None:
        """Closing drives the pin to its pull: no hand of a test."""
        self.locked = False
        super().close()

    def drive_high(self) -> None:
        self._refuse_if_locked()
        super().drive_high()

    def drive_low(self) -> None:
        self._refuse_if_locked()
        super().drive_low()

    def _refuse_if_locked(self) -> None:
        if self.locked:
            raise AssertionError(
                f"{self.info.name}: drive a rig's inputs with rig.driver (press, release, tap, hold, "
                "bounce, wait), whose edges move the rig's clock, never with the pin's drive_high/drive_low"
            )


class RigDriver(PinDriver):
    """The rig's :class:`PinDriver`: the one hand allowed on its locked pins."""

    def set(self, name: str, pressed: bool) -> None:
        pin = self.pin(name)
        pin.locked = False
        try:
            super().set(name, pressed)
        finally:
            pin.locked = True


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=RigPin)
    saved = Device.pin_factory
    Device.pin_factory = factory
    yield factory
    Device.pin_factory = saved
    factory.reset()


class Rig:
    """A running daemon with helpers to press its buttons like a person would.

    When the board's debounce filters and hold timer read ``clock``, a :class:`ManualClock`
    that ``driver`` advances, a tap lasts 40 ms, a hold exactly its seconds and bounce 1 ms
    per edge without any sleep, so a loaded machine cannot turn bounce into a press or a
    tap into a hold (``rig_factory`` does this). Without one, presses take real time.
    The input pins are locked: only ``driver`` may drive them (:class:`RigPin`).
    """

    def __init__(self, daemon, factory: MockFactory, clock: ManualClock | None = None) -> None:
        self.daemon = daemon
        self.factory = factory
        self.clock = clock
        self.driver = RigDriver(daemon.board, clock=clock)
        for wrapper in daemon.board.inputs.values():  # only the driver may drive them now
            wrapper.button.pin.locked = True
        self.events: list = []
        self._event_seen = threading.Condition()
        daemon.on_handled.append(self._record)

    def _record(self, events, module) -> None:
        with self._event_seen:
            self.events.extend(events)
            self._event_seen.notify_all()

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def wait_for(self, kind: str, timeout: float = 3.0):
        deadline = time.monotonic() + timeout
        with self._event_seen:
            while True:
                for event in self.events:
                    if event.kind == kind:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {kind} event within {timeout} s; got {self.kinds()}")
                self._event_seen.wait(left)

    def tap(self, name: str, seconds: float = 0.04) -> None:
        """Press for ``seconds`` (on the manual clock) and release, then wait for the daemon."""
        self.driver.tap(name, seconds)
        self.daemon.wait_idle()

    def chips(self, area: str, *values: int) -> None:
        """Put chips of ``values`` on ``area``, moving the denomination with the arrows."""
        from baccarat_core.chips import DENOMINATIONS

        for value in values:
            for _ in DENOMINATIONS:
                if self.daemon.module.denomination < value:
                    self.tap("right")
                elif self.daemon.module.denomination > value:
                    self.tap("left")
            assert self.daemon.module.denomination == value, f"no chip of ${value}"
            self.tap(area)
        assert all(v in DENOMINATIONS for v in values)

    def deal(self) -> None:
        self.tap("deal")

    def frame(self, role: str):
        return self.daemon.screens[role].last_frame

    def led(self, name: str) -> bool:
        status = self.daemon.board.status
        return bool(getattr(status, name).value)


@pytest.fixture
def rig_factory(mock_factory):
    made: list[Rig] = []

    def make(
        config: Config | None = None, *, seed: int = 1, device_factory=open_dummy_device, schedule_clock=None
    ) -> Rig:
        """``schedule_clock``: what the daemon's schedule and the bomb's countdown read (a
        ManualClock the test moves; ``"rig"``: the rig's own clock, which the presses move too),
        else real time."""
        clock = ManualClock()
        if schedule_clock == "rig":
            schedule_clock = clock
        daemon = build_daemon(
            config or make_config(),
            pin_factory=mock_factory,
            device_factory=device_factory,
            rng=random.Random(seed),
            clock=clock,
            schedule_clock=schedule_clock or time.monotonic,
        )
        rig = Rig(daemon, mock_factory, clock)
        daemon.start()
        assert daemon.ready.wait(5), "daemon did not get ready"
        made.append(rig)
        return rig

    yield make
    for rig in made:
        rig.daemon.stop()
        close_daemon(rig.daemon)


@pytest.fixture
def rig(rig_factory) -> Rig:
    return rig_factory()


@pytest.fixture
def short_dir():
    """Unix socket paths must stay under ~100 characters: pytest's tmp_path can be longer."""
    path = Path(tempfile.mkdtemp(prefix="bac-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def start_served(
    config: Config, factory: MockFactory, *, seed: int = 1, clock: ManualClock | None = None, **build: Any
) -> tuple[Rig, Callable[[], None]]:
    """A daemon on ``factory``'s pins and dummy displays with the room services the config asks for,
    attached as ``baccarat run`` attaches them (:func:`~firmware.app.attach_services`), started and
    ready; and the function that stops the daemon, then the services, then the devices.

    ``clock``: what the debounce filters, the hold timer and the rig's presses read (see
    :class:`Rig`); ``build``: more of ``build_daemon``'s arguments (``schedule_clock``, ``restore``,
    an ``rng`` of the test's own instead of one seeded with ``seed``).
    """
    if clock is not None:
        build["clock"] = clock
    build.setdefault("rng", random.Random(seed))
    daemon = build_daemon(config, pin_factory=factory, device_factory=open_dummy_device, **build)
    rig = Rig(daemon, factory, clock)
    closers = attach_services(daemon, config)
    rig.master = closers.prop.commands  # the one command path the services were given
    rig.prop = closers.prop  # its drain() waits for the third parties' hooks

    def stop() -> None:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)

    daemon.start()
    if not daemon.ready.wait(5):
        stop()
        raise AssertionError("the daemon did not get ready within 5 s")
    console = closers.prop.service("web")  # on a Pi the console starts once the game is ready
    if console is not None:
        console.wait(30)
    return rig, stop


@contextmanager
def served_prop(config: Config, factory: MockFactory, **kwargs: Any) -> Iterator[Rig]:
    """:func:`start_served` for a ``with`` block, stopped at its end whatever happens."""
    rig, stop = start_served(config, factory, **kwargs)
    try:
        yield rig
    finally:
        stop()


@pytest.fixture
def served(mock_factory, short_dir):
    """A running daemon with its control socket; yields (rig, socket path)."""
    sock = short_dir / "control.sock"
    config = make_config(control={"socket": str(sock)}, state={"file": ""})
    with served_prop(config, mock_factory, seed=5) as rig:
        yield rig, sock
    assert not sock.exists()
