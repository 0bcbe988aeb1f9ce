"""The game master's commands to a running daemon, over its control socket.

``baccarat solved N``, ``reset``, ``force-solve``, ``hint``, ``status``, ``bet``,
``start-timer``, ``add-time SECONDS`` and ``output NAME STATE`` send the same JSON commands as MQTT
(see :mod:`firmware.room.commands`) to
the socket the daemon serves (:mod:`firmware.services.control.socket`).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baccarat_core import BaccaratError, strict
from baccarat_core.numbers import format_dollars, parse_dollars, show_value
from baccarat_core.strict import MAX_SOLVED, MAX_TABLE_MAXIMUM
from baccarat_core.timer import check_seconds, clock_text
from firmware.services.control.socket import read_reply, socket_path

from ..devices.wiring import INPUT_NAMES, OUTPUT_STATES
from ..errors import PropError
from ..room import COMMAND_TIMEOUT
from ..selftest import DEFAULT_BUTTON_SECONDS, MAX_BUTTON_SECONDS
from . import Parser, arg_type, whole_number


def _group_of(path: Path) -> str | None:
    """The group of the socket, or of its directory when the socket cannot be seen (a 0750 one)."""
    import grp

    for candidate in (path, path.parent):
        try:
            gid = candidate.stat().st_gid
        except OSError:
            continue
        try:
            return grp.getgrgid(gid).gr_name
        except KeyError:
            return str(gid)
    return None


def request(path: Path, payload: dict[str, Any], timeout: float = COMMAND_TIMEOUT + 5) -> dict[str, Any]:
    """Send one command to a running daemon and return its reply document.

    A daemon serving as many connections as it allows refuses a new one unread (``"busy": true``):
    the request is sent again every 50 ms until it is taken or ``timeout`` has passed.
    """
    deadline = time.monotonic() + timeout
    while True:
        reply = _request_once(path, payload, timeout, deadline)
        if not reply.get("busy") or time.monotonic() > deadline:
            return reply
        time.sleep(0.05)


def _request_once(path: Path, payload: dict[str, Any], timeout: float, deadline: float) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        while True:
            try:
                sock.connect(str(path))
                break
            except BlockingIOError:  # the daemon's backlog is full: it is busy, try again shortly
                if time.monotonic() > deadline:
                    raise PropError(f"the daemon at {path} is too busy to accept a connection") from None
                time.sleep(0.05)
            except FileNotFoundError:
                raise PropError(f"no daemon is listening at {path} (is `baccarat run` running?)") from None
            except ConnectionRefusedError:
                raise PropError(
                    f"no daemon is listening at {path} (a stale socket: is `baccarat run` running?)"
                ) from None
            except PermissionError:
                group = _group_of(path)
                join = f": sudo usermod -aG {group} $USER, then log in again" if group else ""
                raise PropError(f"no permission to use {path} (try sudo, or join its group{join})") from None
            except OSError as error:
                raise PropError(f"cannot reach the daemon at {path} ({error.strerror or error})") from None
        with sock.makefile("rb") as stream:
            try:
                sock.sendall((strict.dumps(payload) + "\n").encode())
            except OSError as error:  # closed before reading it: a refusal's reply may be waiting still
                try:
                    refused = read_reply(stream)
                except (OSError, PropError):
                    refused = {}
                if refused.get("busy"):
                    return refused
                raise PropError(f"the connection to the daemon at {path} failed ({error.strerror or error})") from None
            try:
                return read_reply(stream)
            except TimeoutError:
                raise PropError(f"the daemon at {path} did not answer within {timeout:g} s") from None
            except OSError as error:
                raise PropError(f"the connection to the daemon at {path} failed ({error.strerror or error})") from None


def _client_socket(args: argparse.Namespace) -> Path:
    """Exactly the path the daemon would use (:func:`socket_path`), unless told otherwise."""
    if args.socket:
        return Path(args.socket)
    if os.environ.get("BACCARAT_SOCKET"):
        return Path(os.environ["BACCARAT_SOCKET"])
    configured = None
    if args.config:
        from ..config import load_config

        configured = load_config(args.config).settings.get("control")
    path = socket_path(configured)
    if path is None:
        raise PropError(f'{args.config} turns the control socket off ([control] socket = "")')
    return path


def _send(args: argparse.Namespace, payload: dict[str, Any]) -> dict[str, Any]:
    return _send_with(args, payload, COMMAND_TIMEOUT + 5)


def _send_with(args: argparse.Namespace, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
    reply = request(_client_socket(args), payload, timeout)
    if not reply.get("ok"):
        raise PropError(reply.get("error") or "the daemon refused the command")
    result: dict[str, Any] = reply["result"]  # every command's result is an object
    return result


def parse_seconds(text: str, *, maximum: float) -> float:
    """A number of seconds from 1 to ``maximum``."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 1 <= value <= maximum:
        raise BaccaratError(f"{show_value(text)} is not a number of seconds from 1 to {maximum:g}")
    return value


def cmd_solved(args: argparse.Namespace) -> int:
    """Tell the daemon the bomb's solved count."""
    _send(args, {"command": "set_solved", "solved": args.count})
    print(f"solved count set to {args.count}; the next deck uses it")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    """Start a fresh game."""
    payload: dict[str, Any] = {"command": "reset"}
    if (args.min is None) != (args.max is None):
        raise PropError("give both --min and --max, or neither")
    if args.min is not None:
        payload |= {"min": args.min, "max": args.max}
    result = _send(args, payload)
    limits = next((e for e in result["events"] if e["event"] == "limits"), None)
    deck = next((e for e in result["events"] if e["event"] == "deck"), None)
    if limits and deck:
        print(f"reset: limits {format_dollars(limits['min'])} - {format_dollars(limits['max'])}, {deck['color']} deck")
    else:
        print("reset")
    return 0


def cmd_force_solve(args: argparse.Namespace) -> int:
    """Solve the module."""
    result = _send(args, {"command": "force_solve"})
    already = any(e["event"] == "ignored" for e in result["events"])
    print("already solved" if already else "solved (forced)")
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    """Print which bet wins the next round."""
    h = _send(args, {"command": "hint"})
    pairs = [name for name in ("player_pair", "banker_pair") if h[name]]
    print(f"next round: {h['winner']} wins ({h['advice']})")
    print(
        f"  player {' '.join(h['player'])} = {h['player_score']}, "
        f"banker {' '.join(h['banker'])} = {h['banker_score']}"
        + (f"; {', '.join(p.replace('_', ' ') for p in pairs)} wins" if pairs else "")
    )
    return 0


def cmd_output(args: argparse.Namespace) -> int:
    """Switch one of the prop's outputs on, off, or on for its pulse."""
    result = _send(args, {"command": "output", "name": args.name, "state": args.state})
    if not result["events"]:
        print(f"output {args.name} was {args.state} already")
    for event in result["events"]:
        seconds = f" for {event['seconds']:g} s" if event["on"] and event.get("seconds") is not None else ""
        print(f"output {event['name']} {'on' if event['on'] else 'off'}{seconds}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Print the running module's state."""
    doc = _send(args, {"command": "status"})
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    e = doc["edgework"]
    bets = ", ".join(f"{a} {format_dollars(v)}" for a, v in doc["bets"].items() if v) or "none"
    limits = f"{format_dollars(doc['limits']['min'])} - {format_dollars(doc['limits']['max'])}"
    print(
        f"{doc['status']}, {doc['strikes']} strike(s); limits {limits}; {doc['deck']} deck, "
        f"{doc['cards_left']} cards left (appeared with {doc['deck_solved']} solved)"
    )
    print(f"bets: {bets}; active chip {format_dollars(doc['denomination'])}")
    if doc.get("outputs"):
        print("outputs: " + ", ".join(f"{o['name']} {'on' if o['on'] else 'off'}" for o in doc["outputs"]))
    timer, limit = doc.get("timer"), doc.get("strike_limit")
    if timer or limit:
        rate = f" at x{timer['rate']:g}" if timer and timer["rate"] != 1 else ""
        countdown = f"{clock_text(timer['seconds_left'])} left, {timer['state']}{rate}" if timer else "no timer"
        print(f"bomb: {countdown}; " + (f"explodes at {limit} strikes" if limit else "no strike limit"))
    if doc.get("stuck_minutes") is not None:  # the stuck indicator (firmware/history): the status is made now
        print(f"players' last progress: {doc['stuck_minutes']} minute(s) ago, at {doc['progress_at']}")
    batteries = f", battery holders {', '.join(e['batteries'])}" if e.get("batteries") else ""
    drawn = f" (drawn at random for game {doc.get('game')})" if doc.get("edgework_drawn") else ""
    print(
        f"edgework: serial {e['serial']}, ports {', '.join(e['ports']) or 'none'}, lit "
        f"{', '.join(e['lit']) or 'none'}, unlit {', '.join(e['unlit']) or 'none'}{batteries}, "
        f"{e['solved']} solved{drawn}"
    )
    return 0


def cmd_bet(args: argparse.Namespace) -> int:
    """Play the players' bets (remote play): the table cleared, the chips stacked, the deal."""
    result = _send(args, {"command": "bet", "bets": " ".join(args.bets)})
    print(result["summary"])
    return 0


def cmd_start_timer(args: argparse.Namespace) -> int:
    """Start the bomb's countdown now."""
    result = _send(args, {"command": "start"})
    started = next((e for e in result["events"] if e["event"] == "timer_started"), None)
    print(f"timer started: {clock_text(started['seconds_left'])} left" if started else "the timer runs already")
    return 0


def cmd_add_time(args: argparse.Namespace) -> int:
    """Add seconds to the countdown (take them away when negative)."""
    result = _send(args, {"command": "add_time", "seconds": args.seconds})
    for event in result["events"]:
        if event["event"] == "time_added":
            print(f"{clock_text(event['seconds_left'])} left")
        elif event["event"] == "exploded":
            print("the bomb exploded (no time left)")
        elif event["event"] == "ignored":
            print(f"not added: the game is over ({event['reason']})")
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BaccaratError(f"seconds {show_value(text)} is not a number") from None
    return check_seconds(value, "seconds")


def cmd_send(args: argparse.Namespace) -> int:
    """Any command the daemon takes, in words (a room service's own too); its result as JSON."""
    result = _send(args, {"words": " ".join(args.words)})
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


def cmd_self_test(args: argparse.Namespace) -> int:
    """Run the pre-game self-test and print each part's result; exit 1 when something is wrong."""
    payload: dict[str, Any] = {"command": "self_test"}
    if args.button_seconds is not None:
        payload["button_seconds"] = args.button_seconds
    if args.output:
        payload["outputs"] = args.output
    print("self-test: watch the displays and lights, listen, and press each button when the displays ask", flush=True)
    wait = len(INPUT_NAMES) * (args.button_seconds or DEFAULT_BUTTON_SECONDS) + COMMAND_TIMEOUT + 60
    result = _send_with(args, payload, wait)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for part in result["parts"]:
            detail = f" ({part['detail']})" if part["detail"] and part["result"] not in ("ok",) else ""
            print(f"  {part['part']:<8} {part['name']:<13} {part['result'].upper()}{detail}")
        print(f"self-test {'passed' if result['ok'] else 'found faults'}: {result['summary']}")
    return 0 if result["ok"] else 1


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """``solved``, ``reset``, ``force-solve``, ``hint``, ``status``, ``bet``, ``output``: talk to a running daemon."""
    count = whole_number("solved count", maximum=MAX_SOLVED)
    dollars = arg_type(lambda t: parse_dollars(t, "amount", maximum=MAX_TABLE_MAXIMUM))

    def parser(name: str, help_text: str, handler: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.add_argument(
            "--socket",
            help="the daemon's control socket (default: $BACCARAT_SOCKET, else the path the daemon uses: "
            "$RUNTIME_DIRECTORY, /run/baccarat, $XDG_RUNTIME_DIR, ~/.local/state/baccarat)",
        )
        p.add_argument("--config", help="read the socket path from this config file's [control] socket")
        p.set_defaults(handler=handler)
        return p

    p = parser("solved", "tell a running daemon how many modules are solved on the bomb", cmd_solved)
    p.add_argument("count", type=count, help="solved modules (the next deck uses it)")
    p = parser("reset", "start a fresh game on a running daemon", cmd_reset)
    p.add_argument("--min", type=dollars, help="table minimum (default: the config's, else random)")
    p.add_argument("--max", type=dollars, help="table maximum")
    parser("force-solve", "mark the running module solved (status light green)", cmd_force_solve)
    parser("hint", "which bet wins the next round from the current deck", cmd_hint)
    p = parser("status", "the running module's state", cmd_status)
    p.add_argument("--json", action="store_true", help="the state document as JSON")
    p = parser("bet", "play the players' bets on a running daemon: clear, stack, deal (remote play)", cmd_bet)
    p.add_argument("bets", nargs="+", metavar="WORDS", help="the bets: 25 on banker, 5 on tie")
    p = parser("self-test", "the pre-game self-test: displays, lights, sounds and every button", cmd_self_test)
    p.add_argument(
        "--button-seconds",
        type=arg_type(lambda t: parse_seconds(t, maximum=MAX_BUTTON_SECONDS)),
        help=f"how long to wait for each button (default {DEFAULT_BUTTON_SECONDS:g})",
    )
    p.add_argument(
        "--output", action="append", metavar="NAME", help="switch this output on and off too (never unless named)"
    )
    p.add_argument("--json", action="store_true", help="the result document as JSON")
    parser("start-timer", "start the bomb's countdown on a running daemon now", cmd_start_timer)
    p = parser("add-time", "add seconds to the running bomb's countdown (negative: take them away)", cmd_add_time)
    p.add_argument("seconds", type=arg_type(_seconds), metavar="SECONDS", help="seconds to add, e.g. 120 or -30")
    p = parser("send", "send a running daemon any command it takes, in words (a room service's too)", cmd_send)
    p.add_argument(
        "words", nargs="+", metavar="WORDS", help="the command and its arguments: log-note round 3 was a tie"
    )
    p = parser("output", "switch one of a running prop's outputs ([[outputs]]): on, off or pulse", cmd_output)
    p.add_argument("name", help="the output's name, as the config's [[outputs]] name it")
    p.add_argument("state", choices=OUTPUT_STATES, help="on (held), off, or pulse (on for its pulse_seconds)")
