"""State that survives a reboot: the atomic file, restore on start, kill -9 between rounds and mid-deal."""

from __future__ import annotations

import errno
import json
import logging
import os
import queue
import random
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from baccarat_core import BaccaratModule
from firmware.app import attach_services, build_daemon, close_daemon, restore_module
from firmware.config import Config
from firmware.room import saved_state as state_store
from tests.conftest import ROOT, Rig, config_data, make_config, served_prop


def saved(path: Path) -> dict:
    return json.loads(path.read_text())["module"]


def started_module(config: Config, seed: int = 1) -> BaccaratModule:
    """A started module of ``config``'s edgework and limits, its first deck red, dealt from ``seed``."""
    module = BaccaratModule(config.edgework, config.limits, rng=random.Random(seed), first_color="red")
    module.start()
    return module


# -- the file --------------------------------------------------------------------------


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "deep" / "state.json"
    state_store.write_atomic(target, "one\n")
    state_store.write_atomic(target, "two\n")
    assert target.read_text() == "two\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json"]


def test_temporary_files_left_by_a_kill_9_during_a_save_are_removed_at_start(tmp_path, caplog):
    """A process killed (SIGKILL) inside write_atomic, after its temporary file exists: the next
    start removes that file and every other left like it, and nothing else in the directory."""
    target = tmp_path / "state.json"
    state_store.write_atomic(target, "{}\n")
    killed = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from firmware.room import state_file as saved_state\n"
        "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)\n"
        "saved_state.write_atomic(Path(sys.argv[1]), 'half a save')\n"
    )
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", killed, str(target)], cwd=ROOT, capture_output=True, timeout=60)
        assert run.returncode == -signal.SIGKILL, run.stderr
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != "state.json")
    assert len(leftovers) == 3 and all(name.startswith(".state.json.") for name in leftovers), leftovers
    # Names that only look alike, a directory, and a symlink: none of them a save's own.
    decoys = [
        ".state.json.tmp",
        ".state.json.ABCDEFGH",
        ".state.json.abc1234",
        ".state.json.abcd12345",
        "state.json.abcd1234",
        ".other.json.abcd1234",
        ".state.json.abcd1234.bak",
    ]
    for name in decoys:
        (tmp_path / name).write_text("not ours")
    (tmp_path / ".state.json.dir_1234").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    (tmp_path / ".state.json.link1234").symlink_to(elsewhere)
    before = set(os.listdir(tmp_path))

    config = make_config(state={"file": str(target)})
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        restore_module(config, random.Random(1))
    assert set(os.listdir(tmp_path)) == before - set(leftovers)
    assert elsewhere.read_text() == "keep" and target.read_text() == "{}\n"
    assert "removed 3 temporary file(s)" in caplog.text


def test_state_path_defaults(tmp_path):
    assert state_store.state_path(make_config(state={"file": str(tmp_path / "s.json")})) == tmp_path / "s.json"
    assert state_store.state_path(make_config(state={"file": ""})) is None
    config = make_config()
    assert state_store.state_path(config, {"STATE_DIRECTORY": "/var/lib/baccarat"}) == Path(
        "/var/lib/baccarat/state.json"
    )
    if not os.access("/var/lib/baccarat", os.W_OK):
        assert state_store.state_path(config, {"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "baccarat" / "state.json"


def test_missing_file_starts_a_fresh_game_and_says_so(tmp_path, caplog):
    config = make_config(state={"file": str(tmp_path / "state.json")})
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_module(config, random.Random(1)) is None
    assert "no saved state" in caplog.text and "fresh game" in caplog.text


@pytest.mark.parametrize("content", ["{not json", "[]", '{"version": 1, "module": {"limits": 3}}', ""])
def test_damaged_file_starts_a_fresh_game_and_says_so(tmp_path, caplog, content):
    path = tmp_path / "state.json"
    path.write_text(content)
    config = make_config(state={"file": str(path)})
    if content.startswith('{"version"'):  # damaged inside, right envelope
        path.write_text(json.dumps({"version": 1, "config": state_store.fingerprint(config), "module": {"limits": 3}}))
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_module(config, random.Random(1)) is None
    assert "damaged" in caplog.text and "fresh game" in caplog.text


def test_state_of_another_config_is_not_restored(tmp_path, caplog):
    path = tmp_path / "state.json"
    first = make_config(state={"file": str(path)})
    module = BaccaratModule(first.edgework, first.limits, rng=random.Random(1), first_color="red")
    module.start()
    state_store.StateKeeper(path, first)([], module)
    changed = make_config(state={"file": str(path)}, edgework={"serial": "ZZ9ZZ9"})
    with caplog.at_level(logging.INFO, logger="baccarat.state"):
        assert restore_module(changed, random.Random(1)) is None
    assert "config's edgework or limits changed" in caplog.text
    assert restore_module(first, random.Random(1)) is not None


def test_keeper_writes_only_when_the_snapshot_changes(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    module = started_module(config, seed=1)
    writes = []
    real = state_store.write_atomic
    monkeypatch.setattr(state_store, "write_atomic", lambda p, t: (writes.append(t), real(p, t)))
    keeper = state_store.StateKeeper(path, config)
    keeper([], module)
    keeper(module.press("player"), module)  # chips are not saved: no write
    keeper(module.arrow("right"), module)  # the active chip is
    assert len(writes) == 2
    assert saved(path) == module.snapshot()


def test_a_restored_game_that_resumes_unchanged_is_not_written_again(tmp_path, monkeypatch):
    """A start after a restart spares the write and its fsyncs when the file already holds the game;
    a file that holds something else (another game, damage) is written as before."""
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    module = started_module(config, seed=1)
    state_store.StateKeeper(path, config)([], module)
    writes = []
    real = state_store.write_atomic
    monkeypatch.setattr(state_store, "write_atomic", lambda p, t: (writes.append(t), real(p, t)))
    restored = restore_module(config, random.Random(2))
    state_store.StateKeeper(path, config)(restored.resume(), restored)
    assert writes == [], "the file already holds this game"
    restored.arrow("right")
    state_store.StateKeeper(path, config)([], restored)
    assert len(writes) == 1 and saved(path) == restored.snapshot()
    path.write_text("damaged\n")
    state_store.StateKeeper(path, config)([], restored)
    assert len(writes) == 2 and saved(path) == restored.snapshot()


def test_unwritable_state_file_is_reported_once_and_the_game_goes_on(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("")
    config = make_config(state={"file": str(blocker / "state.json")})  # a directory that is a file
    module = started_module(config, seed=1)
    keeper = state_store.StateKeeper(blocker / "state.json", config)
    with caplog.at_level(logging.ERROR, logger="baccarat.state"):
        keeper([], module)
        keeper(module.arrow("right"), module)
    assert len(caplog.records) == 1 and "the game goes on" in caplog.text
    keeper.close()  # its writer would go on trying, into the later tests' patched disks


def test_a_failure_between_write_and_rename_leaves_the_old_file_whole(tmp_path, monkeypatch, caplog):
    """Write, fsync, rename: a failure before the rename (a power cut there) keeps the old state."""
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    module = started_module(config, seed=1)
    keeper = state_store.StateKeeper(path, config)
    keeper([], module)
    old = path.read_bytes()
    calls: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls.append("fsync")
        real_fsync(fd)

    def replace(src, dst) -> None:
        calls.append("replace")
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(state_store, "RETRY_FIRST_SECONDS", 3600.0)  # tried again only at close, below
    with caplog.at_level(logging.ERROR, logger="baccarat.state"):
        keeper(module.arrow("right"), module)  # the active chip is saved: a write is due
    assert calls == ["fsync", "replace"], "the new text must be on disk before the rename"
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"], "a temporary file was left"
    assert "cannot save the state" in caplog.text
    monkeypatch.undo()
    assert restore_module(config, random.Random(1)).snapshot()["denomination"] == 1
    keeper.close()  # the failed save is never dropped: the writer tries it again
    assert restore_module(config, random.Random(1)).snapshot()["denomination"] == 5


def test_the_directory_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    """The rename is durable only once the directory holding it is on disk: the new text is
    synced, renamed over the old file, then the state file's own directory is synced."""
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    module = started_module(config, seed=1)
    keeper = state_store.StateKeeper(path, config)
    keeper([], module)
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    folder = tmp_path.stat()

    def fsync(fd: int) -> None:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            same = (info.st_dev, info.st_ino) == (folder.st_dev, folder.st_ino)
            calls.append("fsync the state's directory" if same else "fsync another directory")
        else:
            written = json.loads(os.pread(fd, 1 << 20, 0))["module"]
            calls.append("fsync the new text" if written == module.snapshot() else "fsync other text")
        real_fsync(fd)

    def replace(src, dst) -> None:
        calls.append("rename over state.json" if Path(dst) == path else "rename elsewhere")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    keeper(module.arrow("right"), module)  # the active chip is saved: a write is due
    assert calls == ["fsync the new text", "rename over state.json", "fsync the state's directory"]
    assert saved(path) == module.snapshot()


def test_the_round_is_saved_before_its_first_card_is_shown(tmp_path, mock_factory):
    """A kill at the first card must find the round counted: the state keeper runs before the
    cards are shown. Read the file at the moment the first card reaches the table display."""
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)}, control={"socket": ""}, timing={"card_seconds": 0.05})
    seen: dict = {}
    holder: dict = {}

    def factory(spec):
        from luma.core.device import dummy

        class Watching(dummy):
            def display(self, image) -> None:
                daemon = holder.get("daemon")
                if spec.role == "table" and daemon is not None and daemon.dealing and "first" not in seen:
                    seen["first"] = saved(path)
                super().display(image)

        return Watching(width=spec.width, height=spec.height, mode=spec.mode)

    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=factory, rng=random.Random(7))
    holder["daemon"] = daemon
    rig = Rig(daemon, mock_factory)
    closers = attach_services(daemon, config)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        game = daemon.module.next_round()
        side = "banker" if game.winner == "player" else "player"
        if game.winner == "tie":
            side = "player"
        rig.chips(side, 25)
        before = saved(path)
        rig.deal()
        rig.wait_for("round")
        daemon.wait_idle()
        after = daemon.module.snapshot()
    finally:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)
    first = seen["first"]
    assert before["position"] == 0
    assert first["position"] == after["position"] > 0, "the round was not saved before its first card"
    assert first["strikes"] == after["strikes"]


# -- in process: save and restore through the services -------------------------------------


def test_daemon_saves_after_each_change_and_a_restart_restores_it(tmp_path, mock_factory):
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)}, control={"socket": ""})
    rng = random.Random(7)
    assert restore_module(config, rng) is None
    with served_prop(config, mock_factory, rng=rng) as rig:
        assert saved(path) == rig.daemon.module.snapshot()
        rig.chips("player", 25)
        rig.deal()
        rig.wait_for("round")
        rig.daemon.wait_idle()
        after = rig.daemon.module.snapshot()
        # The round's clearing is not written (a restore finishes the round the same way):
        # what the file holds is the game after the round once resumed.
        on_disk = BaccaratModule.restore(saved(path), rng=random.Random(1))
        on_disk.resume()
        assert on_disk.snapshot() == after
    rng2 = random.Random(99)
    module = restore_module(config, rng2)
    assert module is not None
    module.resume()  # as the daemon does: a round whose clearing was not written is finished
    assert module.snapshot() == after
    assert module.rng is rng2  # later decks and resets still draw from the injected generator
    assert all(not stack for stack in module.stacks.values())  # bets on the table are dropped


# -- kill -9 of a real process -------------------------------------------------------------------


class PropProcess:
    """tests/prop_process.py as a child process; JSON lines both ways."""

    def __init__(self, config_file: Path, seed: int = 3) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "prop_process.py"), str(config_file), str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = self.expect("ready", 20)

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def expect(self, key: str, timeout: float = 10.0, test=lambda value: True):
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no {key!r} from the prop within {timeout} s") from None
            if item is None:
                raise AssertionError(f"the prop ended: {self.proc.stderr.read()[-2000:]}")
            if key in item and test(item[key]):
                return item[key]

    def send(self, **command) -> None:
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def tap(self, name: str) -> None:
        self.send(tap=name)
        self.expect("tapped")

    def snapshot(self) -> dict:
        self.send(snapshot=True)
        return self.expect("snapshot", 30)

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.kill9()


@pytest.fixture
def prop_process(tmp_path):
    made: list[PropProcess] = []

    def start(card_seconds: float, pacing: str = "quick") -> PropProcess:
        data = config_data(
            state={"file": str(tmp_path / "state.json")},
            control={"socket": ""},
            timing={"card_seconds": card_seconds, "pacing": pacing},
        )
        config_file = tmp_path / "config.json"
        config_file.write_text(json.dumps(data))
        made.append(PropProcess(config_file))
        return made[-1]

    yield start
    for p in made:
        p.stop()


def _bet_to_lose(prop: PropProcess) -> dict:
    """A $25 bet on the hand that does not win the next round; returns the hint."""
    prop.send(hint=True)
    hint = prop.expect("hint")
    loser = "player" if hint["winner"] != "player" else "banker"
    prop.tap("right")
    prop.tap("right")  # $1 -> $5 -> $25
    prop.tap(loser)
    return hint


def test_kill_9_between_rounds_restores_the_state_after_the_last_round(prop_process):
    prop = prop_process(card_seconds=0.05)
    assert prop.ready["restored"] is False
    hint = _bet_to_lose(prop)
    prop.send(deal=True)
    prop.expect("events", test=lambda kinds: "round" in kinds)
    after = prop.snapshot()  # answered once the deal has been shown in full
    assert after["position"] == hint["cards"]
    assert after["strikes"] == (0 if hint["winner"] == "tie" else 1)
    prop.kill9()

    again = prop_process(card_seconds=0.05)
    assert again.ready["restored"] is True
    assert again.ready["snapshot"] == after
    assert again.snapshot() == after


@pytest.mark.parametrize("pacing", ["quick", "original"])
def test_kill_9_mid_deal_keeps_the_round_that_was_being_dealt(prop_process, pacing):
    prop = prop_process(card_seconds=1.0, pacing=pacing)
    hint = _bet_to_lose(prop)
    before = prop.snapshot()
    prop.send(deal=True)
    prop.expect("events", test=lambda kinds: "round" in kinds)
    dealt_at = time.monotonic()
    prop.kill9()  # the cards take 1 s each to appear (the result 2.75 s or more): we are mid-deal
    assert time.monotonic() - dealt_at < 1.0

    again = prop_process(card_seconds=1.0, pacing=pacing)
    restored = again.ready["snapshot"]
    assert again.ready["restored"] is True
    # The round was decided when the deal started: pulling the plug cannot undo its strike.
    lost = hint["winner"] != "tie"
    expected = {
        **before,
        "position": before["position"] + hint["cards"],
        "strikes": before["strikes"] + (1 if lost else 0),
    }
    assert before["position"] + hint["cards"] < 26  # no deck replacement in this round
    assert restored == expected
    assert restored["limits"] == {"min": 25, "max": 1000} and restored["deck"]["color"] == "red"
    assert restored["solved"] is False


def test_an_arrow_is_not_written_on_its_own_it_goes_with_the_next_write_and_a_deal_waits(tmp_path, monkeypatch):
    """The daemon's keeper: an arrow costs the SD card nothing (it is saved with the next write,
    or at close); a deal is on disk before the listener returns (before its first card is shown)."""
    path = tmp_path / "state.json"
    config = make_config(state={"file": str(path)})
    module = BaccaratModule(config.edgework, config.limits, rng=random.Random(1), first_color="red")
    keeper = state_store.StateKeeper(path, config, background=True)
    # A new deck: written before the call returns (it waits 5 s at most: a busy disk's fsync can take
    # longer, and the game goes on; the test waits for the write then).
    keeper(module.start(), module)
    assert keeper.flush(60) and saved(path) == module.snapshot()
    gate = threading.Event()
    writes = []
    real = state_store.write_atomic

    def slow_disk(target, text):
        if Path(target) != path:  # another keeper's writer (an earlier test's, retrying)
            return real(target, text)
        writes.append(json.loads(text)["module"])
        gate.wait(5)
        real(target, text)

    monkeypatch.setattr(state_store, "write_atomic", slow_disk)
    keeper(module.arrow("right"), module)
    keeper(module.arrow("right"), module)  # $25: not written
    # (the start's own write may still be in fsync on a machine whose disk is busy: waited for)
    assert keeper.flush(60) and writes == [] and saved(path)["denomination"] == 1
    module.press("player")
    dealt = threading.Event()
    worker = threading.Thread(target=lambda: (keeper(module.deal(finish=False), module), dealt.set()))
    worker.start()
    assert not dealt.wait(0.3), "the deal was shown before it was saved"
    gate.set()
    assert dealt.wait(60)
    assert saved(path)["position"] == module.position > 0
    assert saved(path)["denomination"] == 25  # the arrows went with the deal
    assert len(writes) == 1
    keeper(module.finish_round(), module)
    keeper(module.arrow("left"), module)
    assert keeper.flush(60) and len(writes) == 1
    keeper.close()  # SIGTERM: what is pending is written
    assert len(writes) == 2 and saved(path)["denomination"] == 5


def test_the_clearing_after_a_round_is_not_written_and_a_restore_finishes_the_round_alike():
    """Over 2,000 random inputs: every batch the keeper does not write because it only clears a
    round's chips leaves a game that the snapshot from before it, restored and resumed, equals."""
    from firmware.room.saved_state import _RESTORED_ALIKE

    rng = random.Random(11)
    config = make_config()
    module = started_module(config, seed=2)
    checked = 0
    for _ in range(2000):
        before = module.snapshot()
        kind = rng.random()
        area = rng.choice(["player", "banker", "tie", "player_pair", "banker_pair"])
        if module.solved:
            events = module.reset(config.limits)
        elif module.round_pending:
            events = module.finish_round()
        elif kind < 0.4:
            events = module.press(area)
        elif kind < 0.5:
            events = module.arrow(rng.choice(["left", "right"]))
        elif kind < 0.55:
            events = module.set_solved(rng.randrange(10))
        elif kind < 0.6:
            events = module.deal(finish=False)  # whatever is on the table: often a strike
        else:  # $25 on one hand, and the deal: a round is played
            for each in ("player", "banker", "tie", "player_pair", "banker_pair"):
                module.hold(each)
            while module.denomination != 25:
                module.arrow("right" if module.denomination < 25 else "left")
            module.press(rng.choice(["player", "banker"]))
            events = module.deal(finish=False)
        if events and all(isinstance(event, _RESTORED_ALIKE) for event in events):
            restored = BaccaratModule.restore(before, rng=random.Random(3))
            restored.resume()
            assert restored.snapshot() == module.snapshot(), events
            checked += 1
    assert checked > 100


def test_events_the_keeper_skips_never_change_what_is_saved():
    """The state keeper compares no snapshot after chip presses and clears (bets are not kept):
    over 3,000 random inputs, every batch made only of such events left the snapshot as it was."""
    from firmware.room.saved_state import _BETS_ONLY

    rng = random.Random(7)
    config = make_config()
    module = started_module(config, seed=1)
    skipped = 0
    for _ in range(3000):
        before = module.snapshot()
        kind = rng.random()
        area = rng.choice(["player", "banker", "tie", "player_pair", "banker_pair"])
        if kind < 0.6:
            events = module.press(area)
        elif kind < 0.75:
            events = module.hold(area)
        elif kind < 0.9:
            events = module.arrow(rng.choice(["left", "right"]))
        elif kind < 0.97:
            events = module.deal()
        else:
            events = module.set_enabled(rng.random() < 0.7)
        if events and all(isinstance(event, _BETS_ONLY) for event in events):
            skipped += 1
            assert module.snapshot() == before, events
    assert skipped > 1000
