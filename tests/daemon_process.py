"""A whole daemon process on mock pins and luma dummy displays (for the SIGTERM tests).

Runs like ``baccarat run`` (saved state restored, services attached,
``run_forever`` with its signal handlers) but with gpiozero's ``MockFactory`` and
dummy devices. Lines on stdout tell the parent what happened:

- ``frames-saved`` after ready, once the first frames are in ``--dump`` (with ``--snap``);
- ``dealt-frame`` when the first frame of a deal has gone to the table display;
- at exit, the displays' last frames are saved as PNGs in ``--dump`` and
  ``summary.json`` holds the LED and output pin levels and the module's snapshot.

With ``--play`` a thread puts $25 on Player and deals, as a person would.
With ``--hog SECONDS`` a thread takes every free file descriptor once ready (says
``hogging``), deals with no bet (a strike, which the state file must get), and gives
the descriptors back after SECONDS (says ``released``).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import random
import signal
import sys
import threading
from pathlib import Path

from luma.core.device import dummy

from firmware.app import attach_services, build_daemon, mock_pin_factory, restore_game, run_forever, setup_logging
from firmware.config import load_config
from firmware.devices.displays import DisplaySpec
from firmware.game.daemon import Daemon
from firmware.simulator.pins import PinDriver


def say(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--dump", required=True, help="directory for the frames and summary.json")
    parser.add_argument("--play", action="store_true", help="bet $25 on Player and deal")
    parser.add_argument("--snap", action="store_true", help="save the frames once ready")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hog", type=float, default=None, help="take every descriptor for this many seconds")
    args = parser.parse_args(argv)
    faulthandler.register(signal.SIGUSR1)  # a hung test can ask where the threads are
    dump = Path(args.dump)
    dump.mkdir(parents=True, exist_ok=True)

    config = load_config(args.config)
    setup_logging("INFO")
    rng = random.Random(args.seed)
    game = restore_game(config, rng)
    holder: dict[str, Daemon] = {}
    devices: dict[str, dummy] = {}

    class Watched(dummy):
        """A dummy device that tells the parent when a deal's first frame arrives."""

        announced = False
        hidden = False

        def hide(self) -> None:
            super().hide()
            self.hidden = True

        def display(self, image) -> None:
            super().display(image)
            daemon = holder.get("daemon")
            if self.role == "table" and daemon is not None and daemon.dealing and not Watched.announced:
                Watched.announced = True
                say("dealt-frame")

    def factory(cfg: DisplaySpec) -> dummy:
        device = Watched(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=cfg.mode)
        device.role = cfg.role
        devices[cfg.role] = device
        return device

    pins = mock_pin_factory()
    daemon = build_daemon(config, pin_factory=pins, device_factory=factory, rng=rng, restore=lambda: game)
    holder["daemon"] = daemon
    closers = attach_services(daemon, config)

    def save_frames(suffix: str) -> None:
        for role, device in devices.items():
            if device.image is not None:
                device.image.save(dump / f"{role}{suffix}.png")

    def after_ready() -> None:
        if not daemon.ready.wait(10):
            return
        if args.snap:
            daemon.call(lambda: save_frames("-ready")).result(5)
            say("frames-saved")
        if args.play:
            play(daemon)
        if args.hog is not None:
            console = closers.prop.service("web")  # started once the game is ready: let it listen first
            if console is not None:
                console.wait(30)
            hog(daemon, args.hog)

    def summary() -> None:  # runs after the game thread stopped, before the pins are closed
        # The levels on the LED pins (active-high in the reference config: 0 = off).
        leds = {
            "status_red": pins.pin(config.status_light.red).state,
            "status_green": pins.pin(config.status_light.green).state,
            **{f"deck_{c}": pins.pin(getattr(config.deck_light, c)).state for c in ("red", "green", "blue")},
        }
        save_frames("")
        blank = {
            role: (device.image is not None and device.image.getbbox() is None) for role, device in devices.items()
        }
        hidden = {role: device.hidden for role, device in devices.items()}
        state = {
            "leds": leds,
            "outputs": {o.name: pins.pin(o.pin).state for o in config.outputs},  # active-high: 0 = off
            "blank": blank,
            "hidden": hidden,
            "snapshot": daemon.module.snapshot(),
            "cards_left": daemon.module.cards_left,
        }
        (dump / "summary.json").write_text(json.dumps(state), encoding="utf-8")

    threading.Thread(target=after_ready, daemon=True).start()
    return run_forever(daemon, [*closers, summary])


def hog(daemon: Daemon, seconds: float) -> None:
    """Take every free descriptor, deal with no bet (a strike), hold them ``seconds``, give them back."""
    import os
    import time

    taken: list[int] = []

    def take_all() -> int:
        count = 0
        try:
            while True:
                taken.append(os.open(os.devnull, os.O_RDONLY))
                count += 1
        except OSError:  # EMFILE: none left
            return count

    take_all()
    # A save still under way at this moment (a slow fsync on a busy disk) gives its descriptors back
    # later, and the strike's save would take them: take what comes back until a second passes quietly.
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < 1.0:
        time.sleep(0.05)
        if take_all():
            quiet_since = time.monotonic()
    say(f"hogging {len(taken)}")
    PinDriver(daemon.board).tap("deal", 0.05, settle=0.05)
    time.sleep(seconds)
    for fd in taken:
        os.close(fd)
    say("released")


def play(daemon: Daemon) -> None:
    """Arrows to $25, a chip on Player, then the deal, with human timing (until the stop)."""
    try:
        _play(daemon)
    except Exception:  # the daemon stopped and closed its pins under the player's fingers
        if daemon.ready.is_set() and daemon.board.deal.button.closed:
            return
        raise


def _play(daemon: Daemon) -> None:
    driver = PinDriver(daemon.board)
    while daemon.module.denomination < 25:
        driver.tap("arrow_right", 0.05, settle=0.05)
    driver.tap("player", 0.05, settle=0.05)
    driver.tap("deal", 0.05, settle=0.05)


if __name__ == "__main__":
    sys.exit(main())
