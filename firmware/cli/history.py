"""``baccarat history``: how each game went, read from the history file (no daemon needed)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from baccarat_core import BaccaratError

from . import Parser, whole_number

#: Where the service keeps its state (and so its history), when it is installed.
SERVICE_STATE_DIRECTORY = Path("/var/lib/baccarat")


def history_file(config_state_file: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """The history file of the prop a config describes, as a reader finds it: beside ``[state]
    file``; else the service's (``$STATE_DIRECTORY``, else ``/var/lib/baccarat`` when that
    directory exists, writable or not); else the user's own. None when saving is off."""
    from ..history import history_path

    env = os.environ if env is None else env
    if config_state_file == "":
        return None
    if config_state_file is not None:
        return history_path(Path(config_state_file).expanduser())
    if env.get("STATE_DIRECTORY"):
        return history_path(Path(env["STATE_DIRECTORY"].split(":")[0]) / "state.json")
    if SERVICE_STATE_DIRECTORY.is_dir():
        return history_path(SERVICE_STATE_DIRECTORY / "state.json")
    from ..room.saved_state import private_dir

    return history_path(private_dir(env) / "state.json")


def cmd_history(args: argparse.Namespace) -> int:
    """Print the last games, their averages and the stuck indicator (``--json``: as one object)."""
    from ..history.games import averages, build_games, duration
    from ..history.lines import local_time
    from ..history.store import read_files

    if args.file:
        path = Path(args.file)
    else:
        from ..config import load_config
        from .run import config_path

        config = load_config(config_path(args.config))
        found = history_file(config.state_file)
        if found is None:
            raise BaccaratError(
                f'{config.source} turns saving off ([state] file = ""): no history is written '
                "(the simulator keeps this run's games in the console's History view)"
            )
        path = found
    lines, problems = read_files(path)
    games, orphans = build_games(lines)
    unreadable = [p for p in problems if p.line == 0]
    for problem in [*problems, *orphans]:
        advice = (
            " (run it with sudo, or as a member of the baccarat group)" if "ermission denied" in problem.reason else ""
        )
        print(f"baccarat history: {problem.describe()}{advice}", file=sys.stderr)
    now = time.time()
    unfinished = games[-1] if games and games[-1].end is None else None
    shown = games[-args.last :] if args.last else games
    summaries = [g.summary(now if g is unfinished else None) for g in reversed(shown)]
    stuck = _stuck(unfinished, now)
    if args.json:
        out = {
            "file": str(path),
            "games": summaries,
            "total": len(games),
            "averages": averages(games),
            "skipped": [p.describe() for p in [*problems, *orphans]],
            "stuck": stuck,
        }
        print(json.dumps(out, indent=2))
        return 2 if unreadable else 0
    if not games:
        print(f"no games recorded in {path}" if unreadable else f"no games recorded yet in {path}")
        return 2 if unreadable else 0
    print(f"{path}: {len(games)} game(s)" + (f", the last {len(shown)} shown" if args.last else ""))
    head = ("game", "started", "outcome", "time", "rounds", "strikes", "hints", "commands")
    print("{:>6}  {:<16}  {:<19} {:>8} {:>6} {:>7} {:>5} {:>8}".format(*head))
    for row in summaries:
        started = local_time(_epoch(row["started"]))
        outcome = row["outcome"] + (f" ({row['cause']})" if row["cause"] else " (forced)" if row["forced"] else "")
        print(
            f"{row['game']:>6}  {started:<16}  {outcome:<19} {duration(row['seconds']):>8} {row['rounds']:>6} "
            f"{row['strikes']:>7} {row['hints']:>5} {row['commands']:>8}"
        )
        if "bomb" in row:  # an OBUS bomb's modules, under its game's row
            from ..history.bomb import record_words

            print(f"{'':>8}OBUS bomb: {record_words(row['bomb'])}")
    print(_averages_line(averages(games)))
    if stuck["progress_at"] is not None:
        what = (
            f"the players last made progress {stuck['stuck_minutes']} minute(s) ago"
            if stuck["progress_made"]
            else f"no progress yet (the game started {stuck['stuck_minutes']} minute(s) ago)"
        )
        print(f"the game being played: {what} (as of the last line written: rounds are written four at a time)")
    return 2 if unreadable else 0


def _epoch(iso: str) -> float:
    import calendar

    return float(calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ")))


def _stuck(game: Any, now: float) -> dict[str, Any]:
    """The stuck indicator of an unfinished last game, from its lines."""
    from ..history.games import iso_time

    if game is None or (game.entries and game.entries[-1]["t"] == "stop"):  # none, or the prop stopped
        return {"progress_at": None, "stuck_minutes": None, "progress_made": None}
    made = game.last_progress is not None
    since = game.last_progress if made else game.start["at"]
    return {"progress_at": iso_time(since), "stuck_minutes": max(0, int((now - since) // 60)), "progress_made": made}


def _averages_line(result: dict[str, Any]) -> str:
    from ..history.games import duration

    if not result["games"]:
        return "averages: no game played to its end yet"
    rate = round(result["solve_rate"] * 100)
    return (
        f"averages over {result['games']} game(s) played: solved {result['solved']} ({rate} %), exploded "
        f"{result['exploded']}; time to solve {duration(result['mean_seconds_to_solve'])} mean, "
        f"{duration(result['median_seconds_to_solve'])} median; {result['mean_rounds']} rounds, "
        f"{result['mean_strikes']} strikes, {result['mean_hints']} hints a game"
    )


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``history``."""
    history = sub.add_parser(
        "history",
        help="how each game went: outcome, time, rounds, strikes, hints (from the history file)",
        description="The games the prop recorded (the history file beside its state file), newest first, "
        "their averages, and how long the players of a game being played have made no progress.",
    )
    history.add_argument("--json", action="store_true", help="print everything as one JSON object")
    history.add_argument(
        "--config", metavar="FILE", help="the prop's config: where its state file is (default: as run finds it)"
    )
    history.add_argument("--file", metavar="FILE", help="read this history file instead")
    last = whole_number("--last", minimum=1, maximum=100_000)
    history.add_argument("--last", type=last, default=None, metavar="N", help="only the last N games")
    history.set_defaults(handler=cmd_history)
