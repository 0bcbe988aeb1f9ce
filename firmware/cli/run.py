"""``baccarat run`` (the prop, or the simulator) and ``baccarat check-config``."""

from __future__ import annotations

import argparse
import logging
import random
import warnings
from dataclasses import replace
from pathlib import Path

from ..config import DEFAULT_CONFIG, describe_wiring, load_config
from ..config_perms import warn_if_readable
from ..errors import PropError

#: Where the service looks for its config when --config is not given.
SYSTEM_CONFIG = Path("/etc/baccarat/config.toml")


def config_path(path: str | None) -> Path:
    """``--config``, else the system config if there is one, else the reference build's."""
    if path:
        return Path(path)
    return SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else DEFAULT_CONFIG


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate a config file and print the wiring it describes."""
    print(describe_wiring(load_config(args.file)))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run the prop until SIGTERM (or the simulator until it is closed)."""
    from gpiozero.exc import BadPinFactory, GPIOZeroError

    from ..app import attach_services, build_daemon, mock_pin_factory, restore_module, run_forever, setup_logging
    from ..devices.displays import open_dummy_device, open_luma_device

    config = load_config(config_path(args.config))
    if args.card_seconds is not None:
        config = replace(config, timing=replace(config.timing, card_seconds=args.card_seconds))
    if args.sound and config.sound.output == "none":  # the simulator through the PC's speakers
        config = replace(config, sound=replace(config.sound, output="alsa"))
    if args.simulate and config.state_file is None:
        # The simulator starts a fresh game each time unless [state] file asks to keep one.
        config = replace(config, state_file="")
    setup_logging(args.log_level)
    web = config.web_table or {}
    secret = bool(config.mqtt and config.mqtt.password) or bool(web.get("password") or web.get("controller_token"))
    warn_if_readable(config.source, has_secret=secret)
    rng = random.Random()
    module = restore_module(config, rng)
    if args.simulate:
        from ..simulator import run_simulator

        daemon = build_daemon(
            config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=rng, module=module
        )
        from ..simulator.pins import PinDriver

        closers = attach_services(daemon, config, simulate=True, pin_driver=PinDriver(daemon.board))
        try:
            return run_simulator(daemon, view=args.view, hold_seconds=config.timing.hold_seconds)
        finally:
            for close in closers:
                close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            daemon = build_daemon(config, device_factory=open_luma_device, rng=rng, module=module)
        except BadPinFactory as error:
            raise PropError(
                f"no GPIO pin factory works here ({error}); on a PC use --simulate, on a Pi install the [pi] extras"
            ) from None
        except GPIOZeroError as error:
            raise PropError(f"GPIO: {error}") from None
    for warning in caught:
        logging.getLogger("baccarat").info("gpiozero: %s", warning.message)
    return run_forever(daemon, attach_services(daemon, config))


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``run`` and ``check-config``."""
    run = sub.add_parser("run", help="run the prop (on a Pi), or the simulator with --simulate")
    run.add_argument("--config", help=f"config file (default {SYSTEM_CONFIG} if present, else the reference build's)")
    run.add_argument(
        "--simulate", action="store_true", help="run on a PC: mock pins, emulated displays, keyboard input"
    )
    run.add_argument(
        "--view",
        choices=("auto", "window", "terminal", "asciiblock"),
        default="auto",
        help="simulator display: a pygame window, or the terminal (auto: window if a display server is there)",
    )
    run.add_argument(
        "--card-seconds", type=float, default=None, help="pause between cards during a deal (overrides the config)"
    )
    run.add_argument("--sound", action="store_true", help="play the cues even when the config's [sound] output is none")
    run.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    run.set_defaults(handler=cmd_run)

    check = sub.add_parser("check-config", help="validate a config file and print its wiring")
    check.add_argument("file", help="the TOML file to check")
    check.set_defaults(handler=cmd_check_config)
