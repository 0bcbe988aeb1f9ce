"""Sound in the assembled prop: [sound] in the config, cues at the moment events are shown."""

from __future__ import annotations

import logging
import random
import subprocess
import sys
import time
from pathlib import Path

from firmware.app import attach_services, build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.simulator.pins import ManualClock
from firmware.sound.listener import SoundListener
from tests.conftest import ROOT, Rig, make_config


def until(condition, timeout: float = 10.0) -> bool:
    """True once ``condition()`` is, False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _listener(daemon) -> SoundListener:
    """The sound service's listener (found by its hook on the daemon)."""
    found = [hook.__self__ for hook in daemon.on_shown if isinstance(getattr(hook, "__self__", None), SoundListener)]
    assert len(found) == 1, daemon.on_shown
    return found[0]


def _check(tmp_path: Path, sound: str) -> subprocess.CompletedProcess:
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text(encoding="utf-8")
    text = text.replace("[sound]\n", "[sound]\n" + sound + "\n", 1).replace('output = "none"', "", 1)
    path = tmp_path / "sound.toml"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli", "check-config", str(path)], capture_output=True, text=True, timeout=30
    )


def test_check_config_names_the_output_and_refuses_a_buzzer_on_a_taken_pin(tmp_path):
    done = _check(tmp_path, 'output = "buzzer"\npin = 18')
    assert done.returncode == 0 and "Sound: piezo on GPIO18 (header pin 12)" in done.stdout, done.stderr
    done = _check(tmp_path, 'output = "buzzer"\npin = 5')
    assert done.returncode == 2 and "GPIO5 is used twice: [inputs] player and [sound] pin" in done.stderr
    done = _check(tmp_path, 'output = "speaker"')
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "[sound] output" in done.stderr


def test_cues_follow_the_cards_as_they_are_shown_and_a_buzzer_plays_them(mock_factory):
    """The deal's schedule reads a clock the test moves in steps of 20 ms, so the cards are shown
    card_seconds apart on it however busy the machine is; the buzzer plays on its own thread."""
    config = make_config(
        sound={"output": "buzzer", "pin": 18},
        timing={"card_seconds": 0.1},
        state={"file": ""},
        control={"socket": ""},
    )
    clock, schedule = ManualClock(), ManualClock(0.0)
    daemon = build_daemon(
        config,
        pin_factory=mock_factory,
        device_factory=open_dummy_device,
        rng=random.Random(3),
        clock=clock,
        schedule_clock=schedule,
    )
    shown: list[tuple[float, str]] = []
    daemon.on_shown.append(lambda event: shown.append((schedule(), event.kind)))
    closers = attach_services(daemon, config, pin_factory=mock_factory)
    rig = Rig(daemon, mock_factory, clock)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        rig.chips("player", 25)
        rig.driver.tap("deal")
        deadline = time.monotonic() + 30
        while "round" not in {kind for _, kind in shown}:  # the result, after the last card
            assert time.monotonic() < deadline, [kind for _, kind in shown]
            schedule.advance(0.02)
            daemon.catch_up()
        cards = [t for t, kind in shown if kind == "card"]
        assert len(cards) >= 4
        gaps = [b - a for a, b in zip(cards, cards[1:], strict=False)]
        assert all(gap >= 0.08 - 1e-9 for gap in gaps), f"cards were shown {gaps} s apart, not card_seconds"
        # The buzzer plays on its own thread: wait for its first tone (a square wave: duty 0.5).
        assert until(lambda: 0.5 in [state.state for state in mock_factory.pin(18).states]), "the piezo never sounded"
    finally:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)


def test_a_missing_sound_card_costs_one_line_and_the_game_goes_on(mock_factory, monkeypatch, tmp_path, caplog):
    monkeypatch.setenv("PATH", str(tmp_path))  # no aplay anywhere
    config = make_config(sound={"output": "alsa", "device": "nosuchcard"}, state={"file": ""}, control={"socket": ""})
    clock = ManualClock()
    daemon = build_daemon(
        config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(3), clock=clock
    )
    closers = attach_services(daemon, config)
    rig = Rig(daemon, mock_factory, clock)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        with caplog.at_level(logging.WARNING, logger="baccarat.sound"):
            rig.chips("player", 25)
            rig.deal()
            rig.wait_for("round")
            rig.tap("tie")
            sound = _listener(daemon)
            # Every cue of the round played (or dropped) on the sound threads before the log is read.
            assert until(lambda: not sound.pending() and sound.player.idle()), sound.pending()
        assert daemon.module.stacks["tie"] == [25]
        warnings = [r for r in caplog.records if r.name.startswith("baccarat.sound")]
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
    finally:
        daemon.stop()
        for close in closers:
            close()
        close_daemon(daemon)
