"""Where the cues are heard: an ALSA sound card, a piezo buzzer, the PC's speakers, or nowhere.

Every player has the same two methods: ``play(cue)`` returns at once (the
sound happens on the player's own thread or in the sound server), and
``close()``. None of them raises into the caller: a missing sound card, a
missing ``aplay`` or a buzzer that fails is logged once on the logger
``baccarat.sound`` and the game goes on without sound.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from baccarat_core.records import record

from . import synth
from .cues import BUZZER_SEQUENCES, CUES, PRIORITY, Tone

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

    import pygame
    from gpiozero import TonalBuzzer

log = logging.getLogger("baccarat.sound")

#: The committed WAV files, one per cue: ``wav/<cue>.wav``.
WAV_DIR = Path(__file__).resolve().parent / "wav"


class Player(Protocol):
    """What the listener needs of a sound output."""

    def play(self, cue: str) -> None:
        """Start ``cue`` and return at once."""

    def close(self) -> None:
        """Stop playing and release the device."""


class _Once:
    """Logs a problem once, until :meth:`ok` says the device works again."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.failing = False

    def fail(self, problem: str, hint: str = "the game goes on without sound") -> None:
        if self.failing:
            log.debug("%s still failing: %s", self.what, problem)
            return
        self.failing = True
        log.warning("%s: %s; %s", self.what, problem, hint)

    def ok(self) -> None:
        if self.failing:
            self.failing = False
            log.info("%s works again", self.what)


def load_clips(wav_dir: Path = WAV_DIR, volume: float = 1.0) -> dict[str, bytes]:
    """Every cue's WAV file, its samples scaled to ``volume``, as WAV bytes in memory."""
    clips: dict[str, bytes] = {}
    for cue in CUES:
        pcm, rate = synth.read_wav((wav_dir / f"{cue}.wav").read_bytes())
        clips[cue] = synth.wav_bytes(synth.scale(pcm, volume), rate)
    return clips


def _clip_seconds(data: bytes) -> float:
    pcm, rate = synth.read_wav(data)
    return len(pcm) / rate


class NullPlayer:
    """No sound (``output = "none"``)."""

    def __init__(self) -> None:
        self.played: list[str] = []  # what would have been heard, for tools and tests

    def play(self, cue: str) -> None:
        """Remember ``cue`` and do nothing else."""
        self.played.append(cue)
        del self.played[:-100]

    def close(self) -> None:
        """Nothing to release."""


class Players:
    """Several outputs at once (e.g. the prop's speaker and the web console)."""

    def __init__(self, players: Iterable[Player]) -> None:
        self.players = list(players)

    def play(self, cue: str) -> None:
        """Start ``cue`` on every output."""
        for player in self.players:
            try:
                player.play(cue)
            except Exception:  # a player should not raise; if one does, the others still play
                log.exception("player %r failed", player)

    def close(self) -> None:
        """Close every output."""
        for player in self.players:
            try:
                player.close()
            except Exception:
                log.exception("closing %r failed", player)


@record(frozen=False, eq=False, repr=False)
class AlsaPlayer:
    """Plays the cues' WAV files on an ALSA device with ``aplay`` (alsa-utils, on Raspberry Pi OS).

    One ``aplay -q -D <device> -`` at a time reads a clip, scaled to ``volume``
    at start, from its standard input (a plain ``hw:`` device takes one stream
    at a time). A worker thread runs it, so :meth:`play` only queues. A cue
    that ranks higher than the one playing (the strike, the chime) cuts it
    short; a cue that waited longer than ``stale_seconds`` is dropped, as a
    late click is worse than none (ranked cues wait up to 2 s). When ``aplay``
    is missing or fails (no such device, device busy, a hung device) that is
    logged once and cues are dropped for ``retry_seconds``; then the next cue
    tries again, and a success is logged.
    """

    device: str = "default"
    volume: float = 1.0
    _: KW_ONLY
    wav_dir: Path = WAV_DIR
    aplay: str = "aplay"
    retry_seconds: float = 30.0
    stale_seconds: float = 0.5
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._clips = load_clips(self.wav_dir, self.volume)
        self._seconds = {cue: _clip_seconds(data) for cue, data in self._clips.items()}
        self._once = _Once(f"sound device {self.device!r}")
        self._off_until = float("-inf")
        self._queue: queue.Queue[tuple[str, float] | None] = queue.Queue(maxsize=16)
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._playing: str | None = None
        self._waiting = 0  # cues queued and not yet played or dropped
        self._cut = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="baccarat-sound-alsa", daemon=True)
        self._thread.start()

    def play(self, cue: str) -> None:
        """Queue ``cue``; dropped when the queue is full or the device is failing."""
        if cue not in self._clips:
            log.warning("no sound for cue %r", cue)
            return
        if self._closed or self.clock() < self._off_until:
            return
        with self._lock:
            try:
                self._queue.put_nowait((cue, self.clock()))
            except queue.Full:
                log.debug("sound queue full: %s dropped", cue)
                return
            self._waiting += 1
            if self._playing is not None and PRIORITY.get(cue, 0) > PRIORITY.get(self._playing, 0):
                self._stop_process(cut=True)

    def idle(self) -> bool:
        """True when no cue plays or waits (tools and tests)."""
        with self._lock:
            return self._waiting == 0

    def close(self) -> None:
        """Stop the worker (a clip playing is cut short)."""
        self._closed = True
        with self._lock:
            self._stop_process(cut=True)
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass
        self._thread.join(timeout=2)

    def _stop_process(self, *, cut: bool) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            self._cut = cut
            process.kill()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None or self._closed:
                return
            cue, queued_at = item
            try:
                now = self.clock()
                patience = self.stale_seconds if PRIORITY.get(cue, 0) == 0 else max(2.0, self.stale_seconds)
                if now >= self._off_until and now - queued_at <= patience:
                    self._play_now(cue)
            except Exception as error:  # whatever happens, the worker lives on
                self._failed(f"{type(error).__name__}: {error}")
            finally:
                with self._lock:
                    self._waiting -= 1

    def _play_now(self, cue: str) -> None:
        command = [self.aplay, "-q", "-D", self.device, "-"]
        with self._lock:
            try:
                process = subprocess.Popen(
                    command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
                )
            except FileNotFoundError:
                self._failed(f"{self.aplay} not found", "install alsa-utils; the game goes on without sound")
                return
            except OSError as error:
                self._failed(f"cannot run {self.aplay} ({error.strerror or error})")
                return
            self._process, self._playing, self._cut = process, cue, False
        try:
            try:
                _, err = process.communicate(self._clips[cue], timeout=self._seconds[cue] + 3.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                self._failed(f"{self.aplay} hung playing {cue}")
                return
        finally:
            with self._lock:
                self._process, self._playing = None, None
        if self._cut or self._closed:
            return
        if process.returncode != 0:
            lines = [line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()]
            self._failed(lines[-1] if lines else f"{self.aplay} exited with {process.returncode}")
            return
        self._once.ok()

    def _failed(self, problem: str, hint: str | None = None) -> None:
        self._off_until = self.clock() + self.retry_seconds
        hint = hint or f"the game goes on without sound (trying again in {self.retry_seconds:g} s)"
        self._once.fail(problem, hint)


class BuzzerPlayer:
    """Plays each cue's tone sequence on a gpiozero ``TonalBuzzer`` (a piezo on a PWM pin).

    Its own thread plays the sequence; a newer cue cuts the playing one short
    unless the playing one ranks higher (the strike buzz and the solve chime
    are never cut by a chip). A lower-ranked cue that arrives meanwhile is
    dropped.
    """

    def __init__(
        self,
        buzzer: TonalBuzzer,
        *,
        sequences: Mapping[str, list[Tone]] = BUZZER_SEQUENCES,
        close_buzzer: bool = True,
    ) -> None:
        self.buzzer = buzzer
        self.sequences = dict(sequences)
        self.close_buzzer = close_buzzer
        self._cond = threading.Condition()
        self._next: str | None = None
        self._playing: str | None = None
        self._closed = False
        self._once = _Once("buzzer")
        self._thread = threading.Thread(target=self._run, name="baccarat-sound-buzzer", daemon=True)
        self._thread.start()

    def play(self, cue: str) -> None:
        """Start ``cue`` (after cutting the playing cue short, unless that one ranks higher)."""
        if cue not in self.sequences:
            log.warning("no tones for cue %r", cue)
            return
        with self._cond:
            if self._closed:
                return
            rank = PRIORITY.get(cue, 0)
            if self._playing is not None and PRIORITY.get(self._playing, 0) > rank:
                return
            if self._next is not None and PRIORITY.get(self._next, 0) > rank:
                return
            self._next = cue
            self._cond.notify()

    def idle(self) -> bool:
        """True when nothing plays and nothing waits (tools and tests)."""
        with self._cond:
            return self._next is None and self._playing is None

    def close(self) -> None:
        """Stop the sound and the thread; close the buzzer if this player owns it."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=2)
        if self.close_buzzer:
            try:
                self.buzzer.close()
            except Exception:
                log.exception("closing the buzzer failed")

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._next is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    break
                cue, self._next = self._next, None
                assert cue is not None  # the wait ends with a cue, or closed
                self._playing = cue
            try:
                self._play_sequence(self.sequences[cue])
            except Exception as error:
                self._once.fail(f"{type(error).__name__}: {error}")
            else:
                self._once.ok()
            with self._cond:
                self._playing = None
        self._silence()

    def _play_sequence(self, sequence: list[Tone]) -> None:
        from gpiozero.tones import Tone as GpioTone

        try:
            for hz, seconds in sequence:
                if hz is None:
                    self.buzzer.stop()
                else:
                    self.buzzer.play(GpioTone(frequency=hz))
                due = time.monotonic() + seconds  # every step lasts its time at least
                with self._cond:
                    # wait out the tone, unless a newer cue or close() comes first
                    while self._next is None and not self._closed:
                        left = due - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                    if self._next is not None or self._closed:
                        return
        finally:
            self.buzzer.stop()

    def _silence(self) -> None:
        try:
            self.buzzer.stop()
        except Exception:
            pass


class PygameMixerPlayer:
    """The simulator's sound: the same clips through pygame's mixer and the PC's speakers.

    pygame mixes overlapping cues itself, so :meth:`play` just starts the
    clip. With no audio device (a server, a container, SSH) the mixer cannot
    start: that is logged once and the simulator runs silent.
    ``SDL_AUDIODRIVER=dummy`` gives a mixer that plays into nothing.
    """

    def __init__(self, clips: Mapping[str, bytes] | None = None, volume: float = 1.0) -> None:
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        self._started = False
        self._once = _Once("PC sound")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame

            self._pygame = pygame
            if not pygame.mixer.get_init():
                with _alsa_lib_quiet():
                    pygame.mixer.init(frequency=synth.SAMPLE_RATE, size=-16, channels=1, buffer=512)
                self._started = True
            for cue, data in (clips if clips is not None else load_clips()).items():
                sound = pygame.mixer.Sound(io.BytesIO(data))  # converted to the mixer's format
                sound.set_volume(volume)
                self._sounds[cue] = sound
        except Exception as error:  # pygame.error: "No available audio device", ImportError, ...
            self._once.fail(f"no audio output ({error})")

    def play(self, cue: str) -> None:
        """Start ``cue`` (pygame mixes it with whatever plays)."""
        sound = self._sounds.get(cue)
        if sound is None:
            return
        try:
            sound.play()
        except Exception as error:
            self._once.fail(f"{type(error).__name__}: {error}")

    def close(self) -> None:
        """Stop the mixer if this player started it."""
        self._sounds.clear()
        if self._started:
            try:
                self._pygame.mixer.quit()
            except Exception:
                pass
            self._started = False


@contextlib.contextmanager
def _alsa_lib_quiet() -> Iterator[None]:
    """Keep libasound's own complaints ("ALSA lib ... cannot find card '0'") off the terminal,
    where the simulator draws: standard error is caught while the mixer starts and whatever
    else was written meanwhile is passed on."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            rest = [
                line for line in caught.read().decode(errors="replace").splitlines() if not line.startswith("ALSA lib ")
            ]
            if rest:
                print("\n".join(rest), file=sys.stderr)


def buzzer_clips(volume: float = 1.0) -> dict[str, bytes]:
    """WAV bytes of what the piezo plays for each cue (square waves): the simulator's buzzer."""
    return {
        cue: synth.wav_bytes(synth.to_pcm(synth.square_tones(sequence), volume))
        for cue, sequence in BUZZER_SEQUENCES.items()
    }
