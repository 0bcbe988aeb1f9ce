"""Sound: the cues measured as audio, the buzzer read back from its pin, the players' failures,
and a listener that never holds up the game."""

from __future__ import annotations

import logging
import math
import shutil
import threading
import time
from array import array
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from baccarat_core import events as ev
from firmware.config import ConfigError, describe_wiring
from firmware.services.sound import parse_sound_section
from firmware.sound import (
    BUZZER_SEQUENCES,
    CUES,
    WAV_DIR,
    AlsaPlayer,
    BuzzerPlayer,
    NullPlayer,
    Players,
    PygameMixerPlayer,
    SoundListener,
    SoundSettings,
    cues_for,
    make_player,
    synth,
)
from firmware.sound.cues import CuePlanner, note_hz, payout_cue, payout_items
from firmware.sound.players import buzzer_clips, load_clips
from tests.conftest import make_config

ROOT = Path(__file__).resolve().parent.parent
RATE = synth.SAMPLE_RATE
FULL = 32767


# -- measuring audio (plain Python: what an oscilloscope and a spectrum analyser would say) ----
def _samples(cue: str) -> list[float]:
    """The committed WAV file of ``cue`` as floats in -1..1 (checked to be 16-bit mono at RATE)."""
    pcm, rate = synth.read_wav((WAV_DIR / f"{cue}.wav").read_bytes())
    assert rate == RATE
    return [v / FULL for v in pcm]


def _rms(x: list[float]) -> float:
    return math.sqrt(sum(v * v for v in x) / len(x))


def _power(x: list[float], hz: float) -> float:
    """Goertzel: the power of ``x`` (Hann-windowed) at ``hz``."""
    n = len(x)
    c = 2 * math.cos(2 * math.pi * hz / RATE)
    s1 = s2 = 0.0
    for i, v in enumerate(x):
        s0 = v * (0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1))) + c * s1 - s2
        s2, s1 = s1, s0
    return s1 * s1 + s2 * s2 - c * s1 * s2


def _spectrum_peak(power, lo: float, hi: float) -> float:
    """The frequency where ``power(hz)`` peaks between lo and hi: a 10 Hz scan, then 0.5 Hz steps."""
    coarse = max((power(f), f) for f in _frange(lo, hi, 10.0))[1]
    return max((power(f), f) for f in _frange(coarse - 10, coarse + 10, 0.5))[1]


def _frange(lo: float, hi: float, step: float) -> list[float]:
    return [lo + i * step for i in range(int((hi - lo) / step) + 1)]


def _dominant_hz(x: list[float], lo: float = 50, hi: float = 4000) -> float:
    return _spectrum_peak(lambda f: _power(x, f), lo, hi)


def _window(x: list[float], start: float, seconds: float) -> list[float]:
    return x[int(start * RATE) : int((start + seconds) * RATE)]


def _onsets(x: list[float], frame: float = 0.004) -> list[float]:
    """Times where the short-time loudness jumps (a click, a clack, a note starting)."""
    n = int(frame * RATE)
    levels = [_rms(x[i : i + n]) for i in range(0, len(x) - n, n)]
    top = max(levels)
    out = []
    for i in range(1, len(levels)):
        if levels[i] > 0.12 * top and levels[i] > 2.0 * levels[i - 1]:
            out.append(i * frame)
    return out


def _zero_crossing_rate(x: list[float]) -> float:
    """Sign changes a second: high for hiss, low for rumble."""
    return sum(1 for a, b in zip(x, x[1:], strict=False) if (a < 0) != (b < 0)) / (len(x) / RATE)


# -- every cue, rendered and measured ---------------------------------------------------------
#: Each cue's length in seconds: (at least, at most).
LENGTHS = {
    "chip": (0.06, 0.2),
    "many_chips": (0.25, 0.6),
    "chip_clear": (0.2, 0.5),
    "card_deal": (0.1, 0.3),
    "card_flip": (0.04, 0.15),
    "shuffle": (0.5, 1.0),
    "strike": (0.3, 0.7),
    "solve": (0.5, 1.2),
    "button": (0.01, 0.06),
    "explosion": (0.8, 1.2),
}


def test_every_cue_has_a_measure_and_a_tone_sequence() -> None:
    assert set(LENGTHS) == set(CUES) == set(BUZZER_SEQUENCES)


@pytest.mark.parametrize("cue", CUES)
def test_each_cue_is_a_short_audible_wav(cue: str) -> None:
    x = _samples(cue)
    low, high = LENGTHS[cue]
    assert low <= len(x) / RATE <= high, f"{cue} lasts {len(x) / RATE:.3f} s"
    peak = max(abs(v) for v in x)
    assert 0.4 <= peak <= 0.81, f"{cue} peaks at {peak:.2f} of full scale"  # loud, never clipped
    assert _rms(x) > 0.02, f"{cue} is nearly silent (RMS {_rms(x):.4f})"
    tail = x[-int(0.002 * RATE) :]
    assert max(abs(v) for v in tail) < 0.1, f"{cue} ends with a click"


def test_the_wav_files_are_small() -> None:
    sizes = {p.name: p.stat().st_size for p in WAV_DIR.glob("*.wav")}
    assert sorted(sizes) == sorted(f"{c}.wav" for c in CUES)
    assert sum(sizes.values()) < 150_000, sizes


def test_the_committed_wavs_are_what_the_script_makes(tmp_path: Path) -> None:
    from scripts.make_sounds import main

    assert main(["--check"]) == 0
    # and --check notices a difference: a copy with one sample changed, a stray file
    for path in WAV_DIR.glob("*.wav"):
        shutil.copy(path, tmp_path / path.name)
    assert main(["--check", "--out", str(tmp_path)]) == 0
    data = bytearray((tmp_path / "chip.wav").read_bytes())
    data[100] ^= 0x01
    (tmp_path / "chip.wav").write_bytes(bytes(data))
    assert main(["--check", "--out", str(tmp_path)]) == 1
    (tmp_path / "chip.wav").write_bytes((WAV_DIR / "chip.wav").read_bytes())
    (tmp_path / "old.wav").write_bytes(b"RIFF")
    assert main(["--check", "--out", str(tmp_path)]) == 1


def test_synthesis_is_deterministic() -> None:
    assert synth.render("shuffle") == synth.render("shuffle")
    assert synth.wav_bytes(synth.render("chip")) == (WAV_DIR / "chip.wav").read_bytes()


def test_the_strike_buzz_is_low_and_at_its_pitch() -> None:
    x = _window(_samples("strike"), 0.1, 0.2)
    hz = _dominant_hz(x, 50, 2000)
    assert abs(hz - synth.BUZZ_HZ) / synth.BUZZ_HZ < 0.02, hz
    assert hz < 200


def test_the_solve_chime_rises_through_its_notes() -> None:
    """At each note's start, the frequency that grew most since just before it is that note."""
    assert [round(note_hz(n), 2) for n in ("C6", "E6", "G6", "C7")] == list(synth.CHIME_NOTES)
    x = _samples("solve")
    heard = []
    for k, _ in enumerate(synth.CHIME_NOTES):
        onset = k * synth.CHIME_STEP
        after = _window(x, onset + 0.004, 0.06)
        before = _window(x, onset - 0.064, 0.06) if onset else [0.0] * len(after)
        heard.append(_spectrum_peak(lambda f, a=after, b=before: _power(a, f) - _power(b, f), 500, 3000))
    for want, got in zip(synth.CHIME_NOTES, heard, strict=True):
        assert abs(got - want) / want < 0.02, (synth.CHIME_NOTES, heard)
    assert heard == sorted(heard)


def test_the_explosion_cracks_then_rumbles_low() -> None:
    """A bright crack at the start, then a boom far lower than any other cue, still loud after it."""
    x = _samples("explosion")
    crack, rumble = _window(x, 0.0, 0.03), _window(x, 0.15, 0.3)
    assert _zero_crossing_rate(crack) > 3 * _zero_crossing_rate(rumble)
    assert _dominant_hz(rumble, 20, 2000) < 150
    assert _rms(rumble) > 0.1


def test_chips_clack_once_many_chips_clack_many_times() -> None:
    assert 1 <= len(_onsets(_samples("chip"))) <= 2
    assert len(_onsets(_samples("many_chips"))) >= 6
    assert len(_onsets(_samples("chip_clear"))) >= 1


def test_the_shuffle_riffles_and_darkens() -> None:
    x = _samples("shuffle")
    assert len(_onsets(_window(x, 0.0, 0.7), frame=0.003)) >= 15
    assert _zero_crossing_rate(_window(x, 0.02, 0.2)) > 1.3 * _zero_crossing_rate(_window(x, 0.45, 0.2))


def test_a_dealt_card_swishes_from_bright_to_dull() -> None:
    x = _samples("card_deal")
    assert _zero_crossing_rate(_window(x, 0.0, 0.04)) > 1.3 * _zero_crossing_rate(_window(x, 0.08, 0.04))


@pytest.mark.parametrize("cue", ["strike", "solve", "chip_clear"])
def test_the_simulated_buzzer_plays_each_tone_at_its_pitch(cue: str) -> None:
    """The square waves the simulator plays for the piezo: each tone, measured by its zero crossings."""
    pcm, rate = synth.read_wav(buzzer_clips()[cue])
    x = [v / FULL for v in pcm]
    at = 0.0
    for hz, seconds in BUZZER_SEQUENCES[cue]:
        part = _window(x, at + 0.002, seconds - 0.004)
        if hz is None:
            assert max(abs(v) for v in part) == 0
        else:
            measured = _zero_crossing_rate(part) / 2
            assert abs(measured - hz) / hz < 0.06, (cue, hz, measured)
        at += seconds


def test_notes_are_equal_tempered() -> None:
    assert note_hz("A4") == 440.0
    assert note_hz("A6") == 1760.0
    assert abs(note_hz("C6") - 1046.50) < 0.01
    with pytest.raises(ValueError):
        note_hz("H2")


# -- which event sounds how, and when ----------------------------------------------------------
def test_payouts_count_chips_and_coins_as_the_original_does() -> None:
    assert payout_items(100) == 1  # $1: one chip
    assert payout_items(2500) == 1  # $25: one chip
    assert payout_items(2375) == 10  # $23.75: $5 x4, $1 x3, three quarters
    assert payout_items(95) == 7  # $0.95: three quarters, four nickels
    assert payout_cue({"banker": 2375}) == "many_chips"
    assert payout_cue({"player": 2500, "tie": -500}) == "chip"
    assert payout_cue({"player": -2500, "tie": -500}) == "chip_clear"
    assert payout_cue({"player": 0}) is None  # a push: nothing moves


def _round(results: dict[str, int]) -> ev.RoundPlayed:
    return ev.RoundPlayed(("9C", "KD"), ("2H", "3S", "4D"), 9, 9, "tie", sum(results.values()), results)


def _cards(n: int) -> list[ev.CardDealt]:
    return [ev.CardDealt("player" if i % 2 == 0 else "banker", "5C", 5) for i in range(n)]


def test_cues_follow_a_lost_round_on_the_daemons_pacing() -> None:
    events = [
        ev.DealStarted({"player": 25, "tie": 5}),
        *_cards(5),
        _round({"player": -2500, "tie": 4000}),
        ev.Strike("loss", "the round lost", 1),
        ev.ChipsCleared(),
        ev.DeckAppeared("blue", 0, False, 1, 2, "A", 1, "Serial", "AS", replaces="red"),
    ]
    got = cues_for(events, card_seconds=0.5, result_seconds=1.5)
    deals = [t for t, c in got if c == "card_deal"]
    flips = [t for t, c in got if c == "card_flip"]
    assert deals == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert flips == [t + 0.25 for t in deals]
    rest = [(t, c) for t, c in got if c not in ("card_deal", "card_flip")]
    # the tie's $40 win is paid with chips ($25 + $5 x3) while the strike sounds; 1.5 s later
    # the chips left (the tie's stack) are cleared and the new deck is shuffled
    assert rest == [(2.5, "many_chips"), (2.5, "strike"), (4.0, "chip_clear"), (4.0, "shuffle")]


def test_a_clearing_is_silent_when_the_round_took_every_chip() -> None:
    planner = CuePlanner()
    assert planner.for_event(_round({"player": -2500})) == [(0.0, "chip_clear")]
    assert planner.for_event(ev.ChipsCleared()) == []  # nothing left to take
    assert planner.for_event(_round({"player": 0})) == []  # a push: the chips stay
    assert planner.for_event(ev.ChipsCleared()) == [(0.0, "chip_clear")]


def test_player_inputs_and_the_end_of_the_game() -> None:
    planner = CuePlanner()
    assert planner.for_event(ev.ChipAdded("banker", 25, (25,), 25)) == [(0.0, "chip")]
    assert planner.for_event(ev.AreaCleared("banker", 25)) == [(0.0, "chip_clear")]
    assert planner.for_event(ev.AreaCleared("banker", 0)) == []  # nothing was there
    assert planner.for_event(ev.ArrowClicked("right")) == [(0.0, "button")]  # every press clicks,
    assert planner.for_event(ev.DenominationChanged(5)) == []  # the change itself makes no second sound
    assert planner.for_event(ev.Strike("exclusive", "no bet", 1)) == [(0.0, "strike")]
    assert planner.for_event(ev.Solved()) == [(0.0, "solve")]
    assert planner.for_event(ev.ModuleReset()) == [(0.0, "shuffle")]
    first_deck = ev.DeckAppeared("red", 0, False, 1, 2, "A", 1, "Serial", "AS")
    assert planner.for_event(first_deck) == []  # the first deck is on the table at start
    assert planner.for_event(ev.LimitsSet(25, 1000, False)) == []


def test_a_real_game_sounds_as_it_is_played() -> None:
    """The core's own events for chips, a deal and its round."""
    from baccarat_core import BaccaratModule, Edgework, TableLimits
    from baccarat_core.inputs import Deal, Press

    module = BaccaratModule(
        Edgework("AB3DE4", ("Parallel", "Serial", "RJ-45"), ("FRK",), ("CAR",), 0),
        TableLimits(5, 200),
        first_color="red",
    )
    module.start()
    presses = [e for _ in range(5) for e in module.handle(Press("player"))]
    assert [c for _, c in cues_for(presses)] == ["chip"] * 5
    events = module.handle(Deal())
    cues = [c for _, c in cues_for(events, card_seconds=0.6)]
    cards = sum(isinstance(e, ev.CardDealt) for e in events)
    assert 4 <= cards <= 6
    assert cues.count("card_deal") == cues.count("card_flip") == cards
    assert ("solve" in cues) == module.solved


# -- the buzzer, read back from its pin ------------------------------------------------------
class RecordingPWMPin(MockPWMPin):
    """gpiozero's mock PWM pin, also noting every frequency set on it (None: off) and when."""

    def __init__(self, factory, info) -> None:
        super().__init__(factory, info)
        self.frequencies: list[tuple[float, float | None]] = []

    def _set_frequency(self, value) -> None:
        super()._set_frequency(value)
        self.frequencies.append((time.monotonic(), value))


@pytest.fixture
def buzzer_rig():
    factory = MockFactory(pin_class=RecordingPWMPin)
    player = make_player(SoundSettings(output="buzzer", pin=18), pin_factory=factory)
    assert isinstance(player, BuzzerPlayer)
    pin = factory.pin(18)
    pin.frequencies.clear()  # gpiozero's own set-up: 100 Hz, then off
    yield player, pin
    player.close()
    factory.reset()


def _wait_idle(player: BuzzerPlayer, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not player.idle():
        assert time.monotonic() < deadline, "the buzzer did not finish"
        time.sleep(0.005)


def _steps(pin: RecordingPWMPin) -> list[float | None]:
    """The frequencies set on the pin, repeated silences collapsed."""
    out: list[float | None] = []
    for _, hz in pin.frequencies:
        if hz is None and out and out[-1] is None:
            continue
        out.append(hz)
    return out


def _expected(cue: str) -> list[float | None]:
    out: list[float | None] = []
    for hz, _ in BUZZER_SEQUENCES[cue]:
        if hz is None and out and out[-1] is None:
            continue
        out.append(hz)
    return out + ([None] if out[-1] is not None else [])


def test_every_buzzer_tone_is_in_the_buzzers_range(buzzer_rig) -> None:
    player, _ = buzzer_rig
    low, high = player.buzzer.min_tone.frequency, player.buzzer.max_tone.frequency
    assert (low, high) == (440.0, 7040.0)
    for cue, sequence in BUZZER_SEQUENCES.items():
        for hz, seconds in sequence:
            assert seconds > 0, cue
            assert hz is None or low <= hz <= high, (cue, hz)


@pytest.mark.parametrize("cue", ["chip", "card_flip", "solve", "strike"])
def test_the_buzzer_plays_the_cues_tones_on_its_pin(buzzer_rig, cue: str) -> None:
    player, pin = buzzer_rig
    pin.clear_states()
    player.play(cue)
    _wait_idle(player)
    assert _steps(pin) == _expected(cue)
    # the duty cycle: 50 % while a tone sounds, 0 when silent, silent at the end
    duties = [s.state for s in pin.states[1:]]
    assert duties and set(duties) <= {0.5, 0.0}
    assert duties[-1] == 0.0 and pin.frequency is None
    # each tone lasted its time at least (a lower bound: the worker waits out every step)
    times = [t for t, _ in pin.frequencies]
    held = [b - a for a, b in zip(times, times[1:], strict=False)]
    for (hz, seconds), took in zip(BUZZER_SEQUENCES[cue], held, strict=False):
        assert took >= seconds - 0.002, (cue, hz, seconds, took)


def test_a_strike_cuts_a_shuffle_short_and_a_chip_does_not_cut_a_strike(buzzer_rig) -> None:
    player, pin = buzzer_rig
    player.play("shuffle")
    while not pin.frequencies:
        time.sleep(0.001)
    player.play("strike")
    player.play("chip")  # ranks lower than the strike: dropped
    _wait_idle(player)
    steps = _steps(pin)
    strike = _expected("strike")
    assert steps[-len(strike) :] == strike
    shuffle_part = steps[: -len(strike)]
    shuffle = _expected("shuffle")
    assert 1 <= len(shuffle_part) < len(shuffle) and shuffle_part == shuffle[: len(shuffle_part)]
    chip_hz = {hz for hz, _ in BUZZER_SEQUENCES["chip"] if hz}
    assert not chip_hz & set(steps)


def test_a_buzzer_that_fails_is_logged_once(caplog) -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    player = make_player(SoundSettings(output="buzzer", pin=18), pin_factory=factory)
    player.buzzer.pwm_device.close()  # the device under the buzzer is gone: every play raises
    with caplog.at_level(logging.DEBUG, logger="baccarat.sound"):
        for _ in range(3):
            player.play("button")
            _wait_idle(player)
    player.close()
    factory.reset()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "buzzer" in warnings[0].getMessage()


def test_a_buzzer_pin_that_cannot_open_gives_silence(caplog) -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    from gpiozero import LED

    taken = LED(18, pin_factory=factory)
    with caplog.at_level(logging.WARNING, logger="baccarat.sound"):
        player = make_player(SoundSettings(output="buzzer", pin=18), pin_factory=factory)
    assert isinstance(player, NullPlayer)
    assert "GPIO18" in caplog.text
    taken.close()
    factory.reset()


# -- ALSA through aplay --------------------------------------------------------------------
def _wait_for(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "baccarat.sound" and r.levelno >= logging.WARNING]


def test_no_aplay_is_logged_once_and_play_returns_at_once(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no aplay on it
    caplog.set_level(logging.DEBUG, logger="baccarat.sound")
    player = AlsaPlayer("default", 0.5, retry_seconds=0)
    try:
        for _ in range(3):
            player.play("chip")  # returns at once: the worker finds aplay missing
        _wait_for(player.idle)
    finally:
        player.close()
    assert len(_warnings(caplog)) == 1
    assert "aplay not found" in _warnings(caplog)[0] and "alsa-utils" in _warnings(caplog)[0]
    assert sum("still failing" in r.getMessage() for r in caplog.records) == 2  # tried three times


def test_while_failing_cues_are_dropped_until_the_retry(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    now = [100.0]
    player = AlsaPlayer("default", 0.5, retry_seconds=30, clock=lambda: now[0])
    try:
        with caplog.at_level(logging.DEBUG, logger="baccarat.sound"):
            player.play("chip")
            _wait_for(lambda: _warnings(caplog))
            _wait_for(player.idle)
            player.play("chip")  # within the 30 s: not even queued
            assert player.idle()
            now[0] += 31
            player.play("chip")  # tried again: fails again, quietly
            _wait_for(lambda: any("still failing" in r.getMessage() for r in caplog.records))
    finally:
        player.close()
    assert len(_warnings(caplog)) == 1


needs_aplay = pytest.mark.skipif(shutil.which("aplay") is None, reason="aplay (alsa-utils) is not installed")


@needs_aplay
def test_real_aplay_on_a_missing_device_is_logged_once(caplog) -> None:
    player = AlsaPlayer("nosuchcard", 1.0, retry_seconds=0)
    try:
        with caplog.at_level(logging.DEBUG, logger="baccarat.sound"):
            for _ in range(3):
                player.play("button")
                _wait_for(player.idle)
    finally:
        player.close()
    warnings = _warnings(caplog)
    assert len(warnings) == 1
    assert "audio open error: No such file or directory" in warnings[0], warnings
    assert sum("still failing" in r.getMessage() for r in caplog.records) == 2


@needs_aplay
def test_real_aplay_plays_the_clip_at_its_volume(tmp_path, caplog) -> None:
    """ALSA's file plugin writes what aplay sent to the device: the chip, at half volume."""
    out = tmp_path / "out.raw"
    player = AlsaPlayer(f"file:FILE={out},FORMAT=raw", 0.5)
    pcm, _ = synth.read_wav((WAV_DIR / "chip.wav").read_bytes())
    want = synth.scale(pcm, 0.5)
    try:
        player.play("chip")
        _wait_for(player.idle)
    finally:
        player.close()
    got = array("h", out.read_bytes()[: 2 * len(want)])
    assert got == want
    assert max(abs(v) for v in got) == pytest.approx(0.5 * max(abs(v) for v in pcm), abs=1)
    assert not _warnings(caplog)


@needs_aplay
def test_real_aplay_on_the_null_device_works(caplog) -> None:
    player = AlsaPlayer("null", 1.0)
    try:
        with caplog.at_level(logging.DEBUG, logger="baccarat.sound"):
            for cue in CUES:
                player.play(cue)
                _wait_for(player.idle)
    finally:
        player.close()
    assert not _warnings(caplog)


@needs_aplay
def test_the_bring_up_command_says_whether_sound_works(capsys) -> None:
    from firmware.sound.__main__ import main

    assert main(["--output", "alsa", "--device", "null", "button"]) == 0
    assert "every cue played" in capsys.readouterr().out
    assert main(["--output", "alsa", "--device", "nosuchcard", "button"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: sound device 'nosuchcard': aplay:") and "\n" not in err
    assert main(["--volume", "2", "button"]) == 2
    assert capsys.readouterr().err.strip() == "error: [sound] volume = 2.0: must be from 0.0 (silent) to 1.0 (full)"
    assert main(["bell"]) == 2
    assert "no cue 'bell'" in capsys.readouterr().err


# -- the simulator's player -------------------------------------------------------------------
def test_the_pc_player_plays_through_sdl(tmp_path, monkeypatch) -> None:
    """SDL's "disk" audio driver writes the mixed output to a file: the chip is in it."""
    import pygame

    if pygame.mixer.get_init():
        pygame.mixer.quit()
    out = tmp_path / "sdl.raw"
    monkeypatch.setenv("SDL_AUDIODRIVER", "disk")
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(out))
    monkeypatch.setenv("SDL_DISKAUDIODELAY", "10")
    player = PygameMixerPlayer(load_clips(), volume=1.0)
    try:
        player.play("strike")
        _wait_for(lambda: out.exists() and _loud(out))
    finally:
        player.close()
    assert not pygame.mixer.get_init()


def _loud(path: Path) -> bool:
    data = path.read_bytes()
    samples = array("h", data[: len(data) // 2 * 2])
    return bool(samples) and max(abs(v) for v in samples) > 8000


def test_the_pc_player_without_audio_logs_once(monkeypatch, caplog) -> None:
    import pygame

    if pygame.mixer.get_init():
        pygame.mixer.quit()
    monkeypatch.setenv("SDL_AUDIODRIVER", "nosuchdriver")
    with caplog.at_level(logging.WARNING, logger="baccarat.sound"):
        player = PygameMixerPlayer(load_clips())
        for cue in CUES:
            player.play(cue)
        player.close()
    assert len(_warnings(caplog)) == 1 and "no audio output" in _warnings(caplog)[0]


def test_make_player_picks_the_output() -> None:
    assert isinstance(make_player(SoundSettings()), NullPlayer)
    assert isinstance(make_player(SoundSettings(output="alsa", volume=0.0)), NullPlayer)
    player = make_player(SoundSettings(output="alsa", device="null"))
    assert isinstance(player, AlsaPlayer) and player.device == "null"
    player.close()


# -- the listener never holds up the game -------------------------------------------------------
class BlockingPlayer:
    """A player whose backend hangs until released (a stuck sound server)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.played: list[str] = []

    def play(self, cue: str) -> None:
        self.entered.set()
        self.release.wait(10)
        self.played.append(cue)

    def close(self) -> None:
        self.release.set()


class RaisingPlayer:
    def __init__(self) -> None:
        self.calls = 0

    def play(self, cue: str) -> None:
        self.calls += 1
        raise OSError(5, "Input/output error")

    def close(self) -> None:
        pass


def test_the_listener_returns_while_the_player_hangs() -> None:
    player = BlockingPlayer()
    listener = SoundListener(player, card_seconds=0.0)
    try:
        listener.on_shown(ev.ChipAdded("banker", 1, (1,), 1))
        assert player.entered.wait(5)  # the scheduler is stuck inside play()
        for event in (ev.ChipAdded("banker", 1, (1, 1), 2), ev.Strike("loss", "lost", 1), ev.ArrowClicked("left")):
            listener.on_shown(event)
        # we are here: the game thread was not held up, though the player still hangs
        assert not player.release.is_set() and player.played == []
        assert listener.pending() == ["chip", "strike", "button"]
        player.release.set()
        _wait_for(lambda: len(player.played) == 4)
        assert player.played == ["chip", "chip", "strike", "button"]
    finally:
        listener.close()


def test_the_listener_survives_a_player_that_raises(caplog) -> None:
    player = RaisingPlayer()
    listener = SoundListener(player)
    try:
        with caplog.at_level(logging.WARNING, logger="baccarat.sound"):
            for _ in range(3):
                listener.on_shown(ev.ChipAdded("banker", 1, (1,), 1))
            _wait_for(lambda: player.calls == 3)
    finally:
        listener.close()
    assert len(_warnings(caplog)) == 1


def test_a_card_that_landed_face_down_only_flips_as_it_turns() -> None:
    """The original's pacing: the deal sounds as the card lands, the flip as it turns 1 s later."""
    planner = CuePlanner()
    card = _cards(1)[0]
    assert planner.for_event(ev.CardLanded("player")) == [(0.0, "card_deal")]
    assert planner.for_event(ev.CardLanded("banker", sideways=True)) == [(0.0, "card_deal")]
    assert planner.for_event(card) == [(0.0, "card_flip")]
    assert planner.for_event(card) == [(0.0, "card_flip")]
    assert planner.for_event(card) == [(0.0, "card_deal"), (0.25, "card_flip")]  # face up at once: quick


def test_shown_mode_plays_a_cards_flip_after_its_deal() -> None:
    player = NullPlayer()
    listener = SoundListener(player, card_seconds=0.6)
    try:
        listener.on_shown(_cards(1)[0])
        _wait_for(lambda: len(player.played) >= 2)
        time.sleep(0.05)  # room for a stray cue to show up
    finally:
        listener.close()
    assert player.played == ["card_deal", "card_flip"]  # no "chip": only shown events sound


def test_players_fan_out_and_keep_going_when_one_fails() -> None:
    good, bad = NullPlayer(), RaisingPlayer()
    both = Players([bad, good])
    both.play("chip")
    both.close()
    assert good.played == ["chip"] and bad.calls == 1


# -- a deal with a broken sound device ----------------------------------------------------
@pytest.mark.parametrize("broken", ["no aplay", "no device"])
def test_a_failing_sound_device_does_not_stop_a_deal(rig_factory, tmp_path, monkeypatch, caplog, broken) -> None:
    if broken == "no aplay":
        monkeypatch.setenv("PATH", str(tmp_path))
    elif shutil.which("aplay") is None:
        pytest.skip("aplay (alsa-utils) is not installed")
    caplog.set_level(logging.INFO)
    rig = rig_factory()
    listener = SoundListener(AlsaPlayer("nosuchcard", 1.0), card_seconds=0.0)
    rig.daemon.on_shown.append(listener.on_shown)
    try:
        rig.chips("player", 25)
        _wait_for(lambda: _warnings(caplog))  # the arrow's and the chip's sounds failed
        rig.deal()
        played = rig.wait_for("round")  # the reference deck's first round: banker wins, a strike
        rig.wait_for("chips_cleared")
        rig.tap("player")  # and the prop still takes input after the round
    finally:
        listener.close()
    assert played.results == {"player": -2500}
    assert len(_warnings(caplog)) == 1
    assert rig.kinds().count("chip") == 2 and "strike" in rig.kinds()


# -- the config section -------------------------------------------------------------------------
def test_the_sound_section_defaults_to_silence() -> None:
    settings = parse_sound_section({})
    assert settings == SoundSettings("none", "default", 18, 0.8)
    assert settings.pins == {}
    buzzer = parse_sound_section({"output": "buzzer", "pin": 12, "volume": 1})
    assert buzzer.pins == {"pin": 12} and buzzer.volume == 1.0
    alsa = parse_sound_section({"output": "alsa", "device": "plughw:CARD=Device,DEV=0", "volume": 0.25})
    assert alsa.device == "plughw:CARD=Device,DEV=0"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"output": "speaker"}, '[sound] output = "speaker": must be "none", "alsa" or "buzzer"'),
        ({"output": 1}, "[sound] output = 1: must be a string in quotes"),
        ({"volume": 1.5}, "[sound] volume = 1.5: must be from 0.0 (silent) to 1.0 (full)"),
        ({"volume": "loud"}, '[sound] volume = "loud": must be a number'),
        ({"volume": True}, "[sound] volume = true: must be a number"),
        ({"volume": float("nan")}, "[sound] volume = nan: must be a finite number"),
        ({"pin": 40}, "[sound] pin = 40: not a GPIO on the 40-pin header"),
        ({"pin": 1}, "[sound] pin = 1: GPIO0/1 carry the HAT EEPROM bus"),
        ({"pin": "GPIO18"}, '[sound] pin = "GPIO18": must be a whole number'),
        ({"device": ""}, '[sound] device = "": must be an ALSA device name without spaces'),
        ({"device": "hw:1, 0"}, '[sound] device = "hw:1, 0": must be an ALSA device name without spaces'),
        ({"device": 3}, "[sound] device = 3: must be a string in quotes"),
        ({"colume": 0.5}, "[sound] colume: unknown key"),
        ({"output": "alsa", "i2s": "yes"}, '[sound] i2s = "yes": must be true or false'),
        ({"output": "buzzer", "i2s": True}, '[sound] i2s = true: is for output = "alsa"'),
    ],
)
def test_bad_sound_settings_are_named_in_one_line(data: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:  # the config's one section validator (firmware.config.Section)
        parse_sound_section(data)
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text
    assert not isinstance(caught.value, ValueError)  # caught by name


def test_an_i2s_card_keeps_the_inputs_off_its_pins() -> None:
    """dtparam=i2s=on gives the kernel GPIO18-21: three of the reference build's inputs are there."""
    i2s = {"output": "alsa", "device": "plughw:CARD=MAX98357A,DEV=0", "i2s": True}
    with pytest.raises(ConfigError) as caught:
        make_config(sound=i2s)
    assert str(caught.value) == "GPIO19 is used twice: I2S LRCLK ([sound] i2s) and [inputs] player_pair"
    # The inputs moved to free GPIOs (the bets display on I2C frees SPI0 and GPIO24/25; GPIO15 is the lock's):
    moved = {"player_pair": 14, "arrow_right": 25, "deal": 24}
    bets_on_i2c = {"role": "bets", "driver": "sh1106", "interface": "i2c", "port": 3, "address": 0x3C}  # a mux channel
    data_displays = [d for d in make_config().displays if d.role != "bets"]
    displays = [
        {"role": d.role, "driver": d.driver, "interface": d.interface, "port": d.port, "address": d.address}
        | {"width": d.width, "height": d.height}
        for d in data_displays
    ] + [bets_on_i2c | {"width": 128, "height": 64}]
    config = make_config(sound=i2s, inputs=moved, displays=displays)
    assert config.settings["sound"].i2s
    wiring = describe_wiring(config)
    assert 'Sound: ALSA "plughw:CARD=MAX98357A,DEV=0", an I2S card on GPIO18-21 (dtparam=i2s=on)' in wiring
    assert not [line for line in wiring.splitlines() if line.startswith(("GPIO18 ", "GPIO19 ", "GPIO20 ", "GPIO21 "))]
    # Without i2s the same ALSA device leaves the pins to the config (nothing is known about the card).
    plain = make_config(sound={"output": "alsa", "device": "plughw:CARD=MAX98357A,DEV=0"})
    assert not plain.settings["sound"].i2s
