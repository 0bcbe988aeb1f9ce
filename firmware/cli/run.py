"""``baccarat run`` (the prop, or the simulator) and ``baccarat check-config``."""

from __future__ import annotations

import argparse
import gc
import logging
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from baccarat_core import BaccaratError
from baccarat_core.numbers import show_value
from baccarat_core.records import replace
from firmware.config.perms import warn_if_readable

from ..config import DEFAULT_CONFIG, Config, describe_wiring, load_config
from ..errors import ConfigError, PropError
from . import Parser, arg_type, whole_number

if TYPE_CHECKING:
    from ..room.saved_state import SavedGame

#: Where the service looks for its config when --config is not given.
SYSTEM_CONFIG = Path("/etc/baccarat/config.toml")

#: The simulator's views (firmware.simulator.VIEWS; named here so that `baccarat --help` stays quick).
VIEWS = ("auto", "window", "terminal", "text", "asciiblock", "headless")


def _run_epilog() -> str:
    from ..simulator.keys import KEY_MAP_LINES

    keys = "\n".join("  " + line for line in KEY_MAP_LINES)
    return f"""\
the simulator (--simulate): the real daemon on gpiozero's mock pins, its displays on this PC
  --view auto        a window if a display server is there, else the terminal, else
                     (no terminal on stdin either) headless (default)
  --view window      a pygame window, scaled to fit the screen with crisp pixels (--scale N)
  --view terminal    the displays in braille when the terminal is large enough (about
                     135x36 with the reference build) and UTF-8, else the text view
  --view text        the prop in words: fits 80x24, plain ASCII works
  --view asciiblock  luma.emulator's coloured blocks (a large terminal)
  --view headless    no screen, no keyboard (a service manager, a container, a pipe): the log
                     on stderr, the console and the players' pages to look and play;
                     SIGTERM (every view) is a clean stop
  --gm               the game master's details on screen (the deck's derivation in the
                     log, the next round in the text view); players should not see them
  --port N           the web console's port (default 8080); the screen says where the
                     console is, or that the port is taken

keys:
{keys}
  In the window, keys 1-5 are real button presses: hold one 0.5 s to clear that area.
  Escape also quits the window.

examples:
  baccarat run --simulate
  baccarat run --simulate --view text --config my-config.toml
  baccarat run --simulate --port 8081                   (a second simulator beside the first)
  baccarat run --simulate --view headless </dev/null    (in a container; the console at :8080)
  baccarat run --config /etc/baccarat/config.toml      (on the Pi; the service does this)
"""


def config_path(path: str | None) -> Path:
    """``--config``, else the system config if there is one, else the reference build's."""
    if path:
        return Path(path)
    return SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else DEFAULT_CONFIG


def check_displays(config: Config) -> Config:
    """Refuse a display luma would refuse at start (asked without opening any bus)."""
    from ..devices.displays import check_spec

    for spec in config.displays:
        problem = check_spec(spec)
        if problem is not None:
            raise display_error(config, spec.role, problem)
    return config


def display_error(config: Config, role: str, problem: str) -> ConfigError:
    """The one line for a display luma refuses, naming the file and the role."""
    return ConfigError(f"{config.source}: [[displays]] {role}: {problem}")


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate a config file and print the wiring it describes."""
    print(describe_wiring(check_displays(load_config(args.file))))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run the prop until SIGTERM (or the simulator until it is closed)."""
    # Start-up makes long-lived objects only (modules, classes, devices): Python's cyclic
    # collector is off until the prop is ready (app.resume_collection, an on_settled hook).
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()  # also when the start failed


def _run(args: argparse.Namespace) -> int:
    return run_config(args, load_config(config_path(args.config)))


def run_config(
    args: argparse.Namespace, config: Config, *, before_start: Callable[[Config], None] | None = None
) -> int:
    """``run``'s work with a config already read (``baccarat party`` makes its own); ``args`` are
    ``run``'s options. ``before_start(config)`` runs once the services listen, before the game starts."""
    from gpiozero.exc import BadPinFactory, GPIOZeroError

    from ..app import (
        attach_services,
        build_daemon,
        mock_pin_factory,
        restore_game,
        resume_collection,
        run_forever,
        setup_logging,
    )
    from ..devices.displays import DisplayRefused, open_dummy_device, open_luma_device

    if not args.simulate and (args.gm or args.scale is not None):
        raise PropError("--gm and --scale are for the simulator: add --simulate")
    if args.port is not None:
        web = config.settings.get("web")
        if web is None or (not web.present and not args.simulate):
            raise PropError(f"--port {args.port}: the console is off on a Pi until {config.source} has a [web] section")
        config = config.with_settings("web", web.with_port(args.port))
    if args.simulate:
        check_displays(config)  # luma's dummy devices take any size: ask luma's real drivers
    if args.card_seconds is not None:  # the quick pacing, at this pace
        config = replace(config, timing=replace(config.timing, card_seconds=args.card_seconds, pacing="quick"))
    sound = config.settings.get("sound")
    if args.sound and sound is not None and sound.output == "none":  # the simulator through the PC's speakers
        config = config.with_settings("sound", replace(sound, output="alsa"))
    if args.simulate and config.state_file is None:
        # The simulator starts a fresh game each time unless [state] file asks to keep one.
        config = replace(config, state_file="")
    setup_logging(args.log_level)
    secret = config.has_secrets
    warn_if_readable(config.source, has_secret=secret)
    rng = random.Random()

    def restore() -> SavedGame | None:
        return restore_game(config, rng)

    if args.simulate:
        from ..simulator import run_simulator
        from ..simulator.screenlog import RecentLog

        # Listening from the start: what the services say as they start (the console's address,
        # a port already taken) is on the simulator's screen, not only after it quits.
        recent = RecentLog()
        logging.getLogger().addHandler(recent)
        daemon = build_daemon(
            config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device, rng=rng, restore=restore
        )
        daemon.on_settled.append(resume_collection)
        from ..simulator.pins import PinDriver

        closers = attach_services(daemon, config, simulate=True, pin_driver=PinDriver(daemon.board))
        try:
            if before_start is not None:
                before_start(config)
            return run_simulator(
                daemon,
                view=args.view,
                hold_seconds=config.timing.hold_seconds,
                scale=args.scale,
                gm=args.gm,
                recent=recent,
            )
        finally:
            logging.getLogger().removeHandler(recent)
            for close in closers:
                close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # The displays are asked whether luma takes their settings only when something fails
        # (open_luma_device), not before: building each luma device twice cost 2 ms of every start.
        try:
            daemon = build_daemon(config, device_factory=open_luma_device, rng=rng, restore=restore)
        except DisplayRefused as error:
            raise display_error(config, error.role, error.problem) from None
        except BadPinFactory as error:
            check_displays(config)  # a display luma refuses is named first, as check-config names it
            raise PropError(
                f"no GPIO pin factory works here ({error}); on a PC use --simulate; "
                "on a Pi run scripts/start.sh (it installs python3-lgpio)"
            ) from None
        except GPIOZeroError as error:
            check_displays(config)
            raise PropError(f"GPIO: {error}") from None
    for warning in caught:
        logging.getLogger("baccarat").info("gpiozero: %s", warning.message)
    daemon.on_settled.append(resume_collection)
    return run_forever(daemon, attach_services(daemon, config))


def _card_seconds(text: str) -> float:
    """``--card-seconds``: a number of seconds the config's ``[timing] card_seconds`` could hold."""
    from ..config import timing_problem

    try:
        seconds = float(text)
    except ValueError:
        raise BaccaratError(f"{show_value(text)} is not a number of seconds") from None
    problem = timing_problem("card_seconds", seconds)
    if problem:
        raise BaccaratError(f"{show_value(text.strip())} {problem} (as [timing] card_seconds)")
    return seconds


#: ``--port``, as the commands that take a console's or a page's port read it (run, party, docs).
port_number = whole_number("port", minimum=1, maximum=65535)


def add_config_option(command: argparse.ArgumentParser) -> None:
    """``--config``, as run and the commands that look at the installed prop take it (doctor, support)."""
    command.add_argument(
        "--config", help=f"config file (default {SYSTEM_CONFIG} if present, else the reference build's)"
    )


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``run`` and ``check-config``."""
    run = sub.add_parser(
        "run",
        help="run the prop (on a Pi), or the simulator with --simulate",
        description="Run the prop until SIGTERM, or with --simulate the simulator until you quit it.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.make_epilog = _run_epilog  # made when the help is shown
    add_config_option(run)
    run.add_argument(
        "--simulate", action="store_true", help="run on a PC: mock pins, emulated displays, keyboard input"
    )
    run.add_argument("--view", choices=VIEWS, default="auto", help="the simulator's view (below; default auto)")
    run.add_argument(
        "--scale",
        type=whole_number("scale", minimum=1, maximum=16),
        default=None,
        metavar="N",
        help="window pixels per display pixel, 1-16 (default: the largest that fits the screen)",
    )
    run.add_argument("--gm", action="store_true", help="show the game master's details in the simulator")
    run.add_argument(
        "--port",
        type=port_number,
        default=None,
        metavar="N",
        help="the web console's port, 1-65535 (overrides [web] port; the simulator's default is 8080)",
    )
    run.add_argument(
        "--card-seconds",
        type=arg_type(_card_seconds),
        default=None,
        metavar="SECONDS",
        help="deal with the quick pacing, this many seconds between cards, 0-60 (overrides the config's [timing])",
    )
    run.add_argument("--sound", action="store_true", help="play the cues even when the config's [sound] output is none")
    run.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    run.set_defaults(handler=cmd_run)

    check = sub.add_parser("check-config", help="validate a config file and print its wiring")
    check.add_argument("file", help="the TOML file to check")
    check.set_defaults(handler=cmd_check_config)
