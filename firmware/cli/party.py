"""``baccarat party``: a party in one step, on a PC with no hardware.

The simulator with a bomb drawn at random for each game, a countdown and a strike limit, and the
players' page reachable from a tablet on the same Wi-Fi: it prints that page's address (this
machine's address on the network, not 127.0.0.1), a QR code of it for the tablet's camera, and the
password the page asks for, then waits for Enter before the game starts.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tomllib
from gettext import NullTranslations
from typing import Any

from ..config import Config, parse_config
from ..errors import ConfigError
from ..i18n import room_language, translations
from . import Parser, arg_type, whole_number
from .run import VIEWS, config_path, port_number, run_config

#: The pages' port a party takes when ``--port`` is not given (or the next free one, up to
#: :data:`PORTS_TRIED` further: a simulator already running has 8080).
PARTY_PORT = 8080
PORTS_TRIED = 20

#: A password a party host can read out and a guest can type on a tablet: no 0/O, 1/l/I.
PASSWORD_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def new_password() -> str:
    """Nine characters in two groups (``k7m3-x9p2``): at least the console's eight."""
    pick = "".join(secrets.choice(PASSWORD_LETTERS) for _ in range(8))
    return f"{pick[:4]}-{pick[4:]}"


def party_data(
    base: dict[str, Any],
    *,
    minutes: int,
    strikes: int,
    seed: int | None,
    port: int,
    password: str,
    beside: bool = False,
) -> dict[str, Any]:
    """``base`` (a config file's tables) turned into a party's: random bombs, the countdown and the
    strike limit (0: none), the console on every interface with a password, and no saved game (each
    start is a fresh party); ``beside``: another prop (the simulator) holds the control socket, so
    the party has none (its console is its control)."""
    data = {name: (dict(table) if isinstance(table, dict) else table) for name, table in base.items()}
    solved = data.get("edgework", {}).get("solved", 0)
    data["edgework"] = {"mode": "random", "solved": solved, **({"seed": seed} if seed is not None else {})}
    bomb: dict[str, Any] = {}
    if minutes:
        bomb["timer_seconds"] = minutes * 60
    if strikes:
        bomb["strike_limit"] = strikes
    data["bomb"] = bomb
    data["web"] = {**data.get("web", {}), "enabled": True, "bind": "0.0.0.0", "port": port, "password": password}
    data["state"] = {"file": ""}
    if beside:
        data["control"] = {**data.get("control", {}), "socket": ""}
    return data


def port_free(port: int) -> bool:
    """Nothing listens on ``port`` on any of this computer's addresses (the party binds them all)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def party_port(wanted: int | None, t: NullTranslations) -> int:
    """``--port`` as given (one plain sentence if another program has it), else :data:`PARTY_PORT`
    or the next free port after it."""
    from baccarat_core import BaccaratError

    if wanted is not None:
        if port_free(wanted):
            return wanted
        said = t.gettext(
            "port {port} is taken by another program (the simulator still running?): quit it (x in its "
            "window), or give baccarat party another --port"
        )
        raise BaccaratError(said.format(port=wanted))
    for port in range(PARTY_PORT, PARTY_PORT + PORTS_TRIED):
        if port_free(port):
            return port
    said = t.gettext("ports {first} to {last} are all taken: give baccarat party a free --port")
    raise BaccaratError(said.format(first=PARTY_PORT, last=PARTY_PORT + PORTS_TRIED - 1))


def socket_held(base: dict[str, Any]) -> bool:
    """A running prop (the simulator) listens at the control socket ``base`` names (or the default)."""
    from firmware.services.control.socket import peer_pid, socket_path

    configured = (base.get("control") or {}).get("socket")
    path = socket_path(configured if isinstance(configured, str) else None)
    return path is not None and path.exists() and peer_pid(path) is not None


def party_language(config: Config | None = None) -> str:
    """The language the party speaks: the config's (``[web] language``, then ``[display] language``),
    else the shell's (``LANG``, :func:`~firmware.i18n.environment_language`)."""
    if config is None:
        return room_language()
    web = config.settings.get("web")
    pages = getattr(getattr(web, "settings", None), "language", "")
    return room_language(pages, config.display_language)


def party_config(args: argparse.Namespace, password: str, t: NullTranslations | None = None) -> Config:
    """The party's config, from ``--config`` (or the reference build's) and the options; its errors
    in ``t``'s language (the shell's)."""
    t = t or translations(party_language())
    path = config_path(args.config)
    try:
        base = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        said = t.gettext("{path}: cannot be read as a config file ({error})")
        raise ConfigError(said.format(path=path, error=error)) from None
    port = args.port if args.port is not None else PARTY_PORT
    beside = socket_held(base)
    data = party_data(
        base, minutes=args.minutes, strikes=args.strikes, seed=args.seed, port=port, password=password, beside=beside
    )
    try:
        return parse_config(data, source=f"{path} (as a party)")
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def banner(
    config: Config, password: str, urls: list[str], *, qr: bool = True, t: NullTranslations | None = None
) -> str:
    """What the party host reads before the game starts: the tablet's address, its QR code, the
    password, and the game master's console on this machine; in the room's language
    (:func:`party_language`) unless ``t`` says another."""
    t = t or translations(party_language(config))
    bomb = config.bomb
    minutes = bomb.timer_seconds / 60 if bomb.timer_seconds else 0
    clock = (
        t.ngettext("{minutes} minute on the clock", "{minutes} minutes on the clock", int(minutes)).format(
            minutes=f"{minutes:g}"
        )
        if minutes
        else t.gettext("no countdown")
    )
    limit = bomb.strike_limit
    strikes = t.gettext("explodes at strike {n}").format(n=limit) if limit else t.gettext("no strike limit")
    lan = [url for url in urls if "//127.0.0.1:" not in url]
    local = next((url for url in urls if "//127.0.0.1:" in url), urls[-1])
    said = t.gettext("The party: a new bomb drawn at random each game, {clock}, {strikes}.")
    lines = [said.format(clock=clock, strikes=strikes), ""]
    if lan:
        said = t.gettext("The players' tablet (same Wi-Fi as this computer): {url}")
        lines.append(said.format(url=f"{lan[0]}play"))
        lines += [t.gettext("  or {url}").format(url=f"{url}play") for url in lan[1:]]
        if qr:
            lines.append(_qr(f"{lan[0]}play"))
    else:
        lines.append(
            t.gettext("No network address found: connect this computer to the tablet's Wi-Fi, then start again.")
        )
    lines += [
        t.gettext("Password (the tablet asks once): {password}").format(password=password),
        "",
        t.gettext("The game master's console, on this computer: {url}   (the same password)").format(url=local),
        t.gettext("The experts read the manual: the QR code on the casing (the console's Casing page prints it)."),
    ]
    return "\n".join(lines)


def _qr(url: str) -> str:
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


def cmd_party(args: argparse.Namespace) -> int:
    """Start the party: print the tablet's address and its QR code, wait for Enter, play."""
    from firmware.system.netaddr import reachable_urls

    password = args.password or new_password()
    args.port = party_port(args.port, translations(party_language()))  # beside a simulator on 8080: 8081
    config = party_config(args, password)
    t = translations(party_language(config))
    run_args = argparse.Namespace(
        simulate=True, view=args.view, scale=None, gm=False, port=None, card_seconds=None, sound=args.sound,
        log_level="INFO",
    )  # fmt: skip

    def before_start(running: Config) -> None:
        print(banner(running, password, reachable_urls("0.0.0.0", args.port, "/"), t=t), flush=True)
        if args.wait and sys.stdin.isatty():
            input("\n" + t.gettext("Press Enter to start the game (x in the simulator, or Ctrl+C, ends it). "))

    return run_config(run_args, config, before_start=before_start)


def _password(text: str) -> str:
    from baccarat_core import BaccaratError

    if len(text) < 8 or text != text.strip() or not text.isprintable():
        t = translations(party_language())
        raise BaccaratError(t.gettext("the password must be 8 or more characters, without spaces at either end"))
    return text


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``party``."""
    party = sub.add_parser(
        "party",
        help="a party in one step: the simulator, a random bomb, a timer, the players' page on a tablet",
        description=(
            "Start the simulator for a party: a bomb drawn at random each game, a countdown and a strike "
            "limit, and the players' page reachable from a tablet on this computer's Wi-Fi (its address, "
            "a QR code of it and the password are printed first)."
        ),
    )
    party.add_argument(
        "--minutes", type=whole_number("minutes", maximum=600), default=5, help="the countdown (0: none; default 5)"
    )
    party.add_argument(
        "--strikes",
        type=whole_number("strikes", maximum=99),
        default=3,
        help="the bomb explodes at this strike (0: never; default 3)",
    )
    party.add_argument(
        "--seed", type=whole_number("seed", maximum=2**63 - 1), help="the same bombs each time (default: new ones)"
    )
    party.add_argument(
        "--port", type=port_number, default=None, help="the pages' port (default 8080, or the next free one)"
    )
    party.add_argument("--password", type=arg_type(_password), help="the pages' password (default: a new one)")
    party.add_argument("--config", help="start from this config (default: the reference build's)")
    party.add_argument("--view", choices=VIEWS, default="auto", help="the simulator's view (as run --simulate)")
    party.add_argument("--sound", action="store_true", help="play the cues through this computer's speakers")
    party.add_argument("--no-wait", dest="wait", action="store_false", help="start at once, without waiting for Enter")
    party.set_defaults(handler=cmd_party)
