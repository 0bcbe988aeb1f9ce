"""Game state that survives a power cut: one small JSON file, written atomically.

After every batch of events that changes :meth:`BaccaratModule.snapshot` in a way a
restart would lose, the file is rewritten (temporary file, fsync, rename, fsync of the
directory), so a power cut leaves either the old state or the new one, never half of each.
The write happens before the events are shown: pulling the plug during a deal cannot undo
the round's strike. What an SD card is spared (:class:`StateKeeper`): bets, the active chip
on its own, and the clearing after a round, none of which a restore needs; an idle prop
writes nothing.

**The countdown** (``[bomb] timer_seconds``) is saved with the time left and the moment
(``saved_at``, the wall clock), whenever the rest is; a running countdown needs no other
writes, since it runs at a known rate from there. A restart counts the time since
``saved_at`` down at that rate: the clock keeps running while the prop is off, as the
players' own time does (a power cut neither gives them time back nor takes more than
passed). A wall clock that reads earlier than ``saved_at`` (a Pi without a real-time clock
before it has the network time) counts nothing: the countdown resumes where it was saved.

**The outputs** held on (a lock that opened) are saved with the game, as the daemon
offers them (:meth:`~firmware.game.daemon.Daemon.held_outputs`): each with what is left of
its ``max_on_seconds`` cut-off, so a restart switches it on again for no more than that,
never a fresh cut-off, whatever the clock says (:mod:`.held_outputs`). Pulses are never
saved: a restart does not repeat one.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from baccarat_core import BaccaratError, BaccaratModule, strict
from baccarat_core import events as ev
from baccarat_core.bomb import RandomBombs
from baccarat_core.numbers import show_value
from baccarat_core.records import record
from baccarat_core.timer import BombRules

from ..config import Config
from ..devices.switching import OutputSwitched
from .held_outputs import Checkpoints, Schedule, encode, held_outputs, thread_timer
from .state_file import read_state, remove_leftover_temp_files, write_atomic

log = logging.getLogger("baccarat.state")

#: The state file's format (its ``"version"`` key). A change to what the file holds raises it, with an
#: entry in :data:`MIGRATIONS` that turns the file of the format before into this one, so that a newer
#: release reads the game an older one saved (an update keeps the game: docs/operate/updates.md).
VERSION = 1
#: ``MIGRATIONS[n](document)``: a format-``n`` document as format ``n + 1`` (none yet: 1 is the first).
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}
#: A failed save is tried again after this many seconds, doubling up to :data:`RETRY_MAX_SECONDS`.
RETRY_FIRST_SECONDS = 0.25
RETRY_MAX_SECONDS = 5.0


def private_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's own directory for the prop, when no system directory serves:
    ``$XDG_STATE_HOME/baccarat``, else ``~/.local/state/baccarat`` (the state file, and the
    control socket where no runtime directory exists)."""
    env = os.environ if env is None else env
    base = Path(env.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "baccarat"


def state_path(config: Config, env: Mapping[str, str] | None = None) -> Path | None:
    """Where the state lives: ``[state] file``; else systemd's ``$STATE_DIRECTORY``,
    ``/var/lib/baccarat`` when writable, or ``state.json`` in :func:`private_dir`.
    ``file = ""`` turns saving off (None)."""
    env = os.environ if env is None else env
    if config.state_file is not None:
        return Path(config.state_file).expanduser() if config.state_file else None
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / "state.json"
    system = Path("/var/lib/baccarat")
    if system.is_dir() and os.access(system, os.W_OK):
        return system / "state.json"
    return private_dir(env) / "state.json"


def fingerprint(config: Config) -> dict[str, Any]:
    """The parts of the config a saved game depends on: if they change, start afresh.

    With random edgework that is the mode, the seed and the first solved count, not a bomb:
    the saved game's bomb is the one in play (a restart keeps it).
    """
    if config.edgework is not None:
        edgework = config.edgework.to_dict()
    else:
        bombs = config.bombs or RandomBombs()
        edgework = {"mode": "random", "seed": bombs.seed, "solved": bombs.solved}
    out: dict[str, Any] = {"edgework": edgework, "limits": config.limits.to_dict() if config.limits else None}
    if config.bomb != BombRules():  # only with [bomb]: the games saved before it existed still restore
        b = config.bomb
        out["bomb"] = {"timer_seconds": b.timer_seconds, "strike_limit": b.strike_limit, "speed_up": b.speed_up}
    return out


def _on_disk(path: Path) -> str | None:
    """The snapshot text the state file holds (as :class:`StateKeeper` compares it: without the
    moment it was saved), or None if unreadable."""
    try:
        text = read_state(path).decode("utf-8").removesuffix("\n")
        if '"saved_at"' not in text:
            return text
        data = json.loads(text)
        data.pop("saved_at", None)
        return json.dumps(data, sort_keys=True)
    except (OSError, BaccaratError, UnicodeDecodeError, ValueError, AttributeError):
        return None


@record
class SavedGame:
    """What a restart brings back: the module, and the outputs held on (name -> the seconds left
    of its cut-off, or None)."""

    module: BaccaratModule
    outputs: dict[str, float | None]


def load_module(
    path: Path, config: Config, rng: random.Random, *, wall_clock: Callable[[], float] = time.time
) -> BaccaratModule:
    """The module saved in ``path``; raises OSError or BaccaratError with the reason. A running
    countdown has counted down the time since it was saved (``wall_clock`` reads now)."""
    return load_game(path, config, rng, wall_clock=wall_clock).module


def load_game(
    path: Path, config: Config, rng: random.Random, *, wall_clock: Callable[[], float] = time.time
) -> SavedGame:
    """The game saved in ``path`` (:func:`load_module`), with the outputs held on. Held outputs
    that cannot be brought back (a name no longer configured, a damaged entry) are left off,
    each with a log line: the game itself is restored."""
    data = strict.loads(read_state(path), "the file")
    strict.check_keys(
        data, "the file", required=frozenset({"version", "config", "module"}), optional=_SAVED_AT | _OUTPUTS
    )
    data = _migrated(data)
    expected = fingerprint(config)
    if data["config"] != expected:
        saved = data["config"] if isinstance(data["config"], dict) else {}
        if {k: v for k, v in saved.items() if k != "bomb"} == {k: v for k, v in expected.items() if k != "bomb"}:
            raise BaccaratError("the config's [bomb] (timer, strike limit) changed since it was saved")
        raise BaccaratError("the config's edgework or limits changed since it was saved")
    module = BaccaratModule.restore(data["module"], rng=rng, bombs=config.bombs, rules=config.bomb)
    if module.timer is not None:
        saved_at = data.get("saved_at")
        if isinstance(saved_at, bool) or not isinstance(saved_at, int | float):
            raise BaccaratError(f"saved_at {show_value(saved_at)} is not the time the countdown was saved")
        off = wall_clock() - saved_at
        if off < 0:
            log.warning(
                "the clock reads %.0f s before the saved game's time; the countdown resumes where it was saved", -off
            )
        elif module.timer.running:
            module.timer.elapse(off)
            log.info("the countdown ran on for the %.1f s since the game was saved", off)
    return SavedGame(module, held_outputs(data.get("outputs", {}), config, path, wall_clock()))


_SAVED_AT = frozenset({"saved_at"})
_OUTPUTS = frozenset({"outputs"})


def restore(config: Config, rng: random.Random) -> BaccaratModule | None:
    """The saved module, or None (with a log line saying why) for a fresh game."""
    game = restore_game(config, rng)
    return None if game is None else game.module


def restore_game(config: Config, rng: random.Random) -> SavedGame | None:
    """The saved game, or None (with a log line saying why) for a fresh one."""
    path = state_path(config)
    if path is None:
        log.info('state saving is off ([state] file = ""); starting a fresh game')
        return None
    remove_leftover_temp_files(path)
    try:
        game = load_game(path, config, rng)
    except FileNotFoundError:
        log.info("no saved state at %s; starting a fresh game", path)
        return None
    except StateFormatError as error:
        log.warning("state file %s: %s; starting a fresh game", path, strict.one_line(str(error), 200))
        return None
    except (OSError, BaccaratError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        log.warning("state file %s is damaged or stale (%s); starting a fresh game", path, strict.one_line(reason, 200))
        return None
    held = f" (outputs held on: {', '.join(game.outputs)})" if game.outputs else ""
    log.info("restored the game saved in %s%s", path, held)
    return game


#: Events that change only the bets on the table, which a restart does not keep: a chip press
#: needs no snapshot compared (a test checks that these leave the snapshot as it was).
_BETS_ONLY = (ev.ChipAdded, ev.AreaCleared, ev.InputIgnored)

#: A batch of these changes the snapshot but needs no write: the clearing after a round that
#: drew no new deck. The file still says the round's chips are on the table, and a restore
#: finishes that round the same way (``BaccaratModule.resume``; a test checks it over thousands
#: of rounds). It halves what a round writes to the SD card.
_RESTORED_ALIKE = (ev.ChipsCleared,)


class StateFormatError(BaccaratError):
    """A state file of a format this version does not read: from a newer release, or too old."""


def _migrated(data: dict[str, Any]) -> dict[str, Any]:
    """The document in this version's format (:data:`MIGRATIONS`), or :class:`StateFormatError`."""
    found = data["version"]
    if type(found) is not int:
        raise BaccaratError(f"its format version {show_value(found)} is not a whole number")
    if found > VERSION:
        raise StateFormatError(
            f"it was saved by a newer version of the prop, in format {found}; this one reads {VERSION}"
        )
    while found < VERSION:
        migrate = MIGRATIONS.get(found)
        if migrate is None:
            raise StateFormatError(f"it was saved in format {found}, which this version no longer reads ({VERSION})")
        data = migrate(data)
        found += 1
        data["version"] = found
    return data


class StateKeeper:
    """A daemon ``on_handled`` hook that saves the snapshot whenever a restart would otherwise lose something.

    Every change that matters after a restart (a deal, a strike, a new deck, a reset, a
    game-master command) is written before the hook returns, so before it is shown: a
    deal counts from its start. The clearing after a round that drew no new deck is not
    written: the restore finishes that round the same way.

    With ``background=True`` (the daemon's) the writes happen on a thread of their own (the
    listener waits at most 5 s for one, then the game goes on), and a change of the active
    chip alone (an arrow) is not written on its own: like the bets, it belongs to placing a
    bet, and it is saved with the next write (or at :meth:`close`). An arrow thus costs the
    SD card nothing. Without ``background`` every change is written at once.

    A save that fails (a full disk, no descriptor free, a read-only mount) is said
    once, and the writer thread tries the newest snapshot again, after 0.25 s and
    then up to every 5 s, until it is on disk: a change is never dropped for want
    of a later one. The game never waits for those retries.

    ``outputs`` returns the outputs held on (:meth:`~firmware.game.daemon.Daemon.held_outputs`),
    saved with the module. An output an event switches is saved with that event's batch,
    before it is shown (a deal's lock from its gesture); what an output did on its own (a
    command, a pulse that ended, a cut-off) is handed to the writer without waiting: the
    pin has switched already, and the frame need not wait for an fsync. While one with a
    cut-off is on, its time left (on ``clock``) is written again now and then (``schedule``
    times it), and at :meth:`close` as at the stop (:class:`~.held_outputs.Checkpoints`).
    """

    def __init__(
        self,
        path: Path,
        config: Config,
        *,
        background: bool = False,
        wall_clock: Callable[[], float] = time.time,
        outputs: Callable[[], Mapping[str, float | None]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        schedule: Schedule = thread_timer,
    ) -> None:
        self.path = path
        self._outputs = outputs
        self._time_left = Checkpoints(self._hand_time_left, clock=clock, wall_clock=wall_clock, schedule=schedule)
        self.wall_clock = wall_clock
        self.fingerprint = fingerprint(config)
        # What the file holds now: a restored game that resumes unchanged is not written again
        # (a start spared a write and two fsyncs before "ready", slow on an SD card).
        self._last: str | None = _on_disk(path)
        self._failing = False
        self._background = background
        self._cond = threading.Condition()
        self._pending: str | None = None
        self._handed = 0  # snapshots handed to the writer
        self._done = 0  # of those, written (or failed)
        self._closing = False
        self._unsaved: str | None = None  # the newest snapshot whose write failed: tried again
        self._thread: threading.Thread | None = None
        self._later: BaccaratModule | None = None  # an arrow's change, until the next write

    def __call__(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_handled`` hook: save the snapshot if it changed (before the events are shown)."""
        if module.deck is None or (events and all(isinstance(event, _BETS_ONLY) for event in events)):
            return
        if events and self._last is not None and all(isinstance(event, _RESTORED_ALIKE) for event in events):
            return
        if self._background and events and all(isinstance(e, ev.DenominationChanged) for e in events):
            self._later = module  # with the next write
            return
        if self._background and events and all(isinstance(e, OutputSwitched) for e in events):
            self._later = None  # this snapshot has the arrow's change too
            self._save(module, urgent=False)
            return
        self._later = None  # this snapshot has the arrow's change too
        self._save(module, urgent=True)

    def _save(self, module: BaccaratModule, *, urgent: bool) -> None:
        saved: dict[str, Any] = {"version": VERSION, "config": self.fingerprint, "module": module.snapshot()}
        held = dict(self._outputs()) if self._outputs is not None else {}
        if held:  # a file without outputs reads as before
            saved["outputs"] = encode(held, self.wall_clock())
        text = json.dumps(saved, sort_keys=True)
        if text == self._last:
            return
        self._last = text
        if module.timer is not None:  # the countdown's time left holds at this moment
            saved["saved_at"] = round(self.wall_clock(), 3)
            text = json.dumps(saved, sort_keys=True)
        self._time_left.saved(saved, held)
        if not self._background:
            if not self._write(text):
                self._background = True  # from now on the writer thread writes, in order
                with self._cond:
                    self._unsaved = text
                self._start_writer()
            return
        self._hand(text)
        if urgent:
            self.flush()

    def _hand_time_left(self, text: str) -> None:
        with self._cond:
            self._background = True  # from now on the writer thread writes, in order
        self._hand(text)

    def _hand(self, text: str) -> None:
        """Give ``text`` to the writer thread (it replaces one not yet written)."""
        with self._cond:
            self._pending = text
            self._handed += 1
            self._cond.notify_all()
        self._start_writer()

    def _start_writer(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="baccarat-state", daemon=True)
            self._thread.start()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every snapshot handed over so far is written; False if ``timeout`` ran out."""
        with self._cond:
            target = self._handed
            return self._cond.wait_for(lambda: self._done >= target, timeout)

    def close(self) -> None:
        """Write what is pending (an arrow's change) and stop the writer thread."""
        module, self._later = self._later, None
        if module is not None:
            self._save(module, urgent=False)
        if self._outputs is not None and (stopped := self._time_left.stopped(self._outputs)) is not None:
            self._hand(stopped)  # the writer thread writes it before it stops
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        delay = RETRY_FIRST_SECONDS
        while True:
            with self._cond:
                if self._unsaved is None:
                    self._cond.wait_for(lambda: self._pending is not None or self._closing)
                elif self._pending is None and not self._closing:  # a newer snapshot or the stop ends the pause
                    self._cond.wait_for(lambda: self._pending is not None or self._closing, delay)
                closing = self._closing
                if self._pending is not None:
                    text, self._pending, upto = self._pending, None, self._handed
                elif self._unsaved is not None:
                    text, upto = self._unsaved, self._done
                else:
                    return
                self._unsaved = None
            saved = self._write(text)
            with self._cond:
                self._done = max(self._done, upto)  # flush() waits for the attempt, not for its success
                if not saved and self._pending is None:
                    self._unsaved = text
                self._cond.notify_all()
            if saved:
                delay = RETRY_FIRST_SECONDS
            elif closing:
                log.error("stopping with the state unsaved in %s: its last change is lost", self.path)
                return
            else:
                delay = min(delay * 2, RETRY_MAX_SECONDS)

    def _write(self, text: str) -> bool:
        """Write ``text``; False (said once per failure spell) if it could not be written."""
        try:
            write_atomic(self.path, text + "\n")
        except OSError as error:
            if not self._failing:  # say it once per failure spell, not on every chip
                log.error(
                    "cannot save the state to %s (%s); the game goes on, the save is tried again",
                    self.path,
                    error.strerror or error,
                )
            self._failing = True
            self._last = None  # the next change is written even if it matches this one
            return False
        if self._failing:
            log.info("state saved to %s again", self.path)
        self._failing = False
        return True
