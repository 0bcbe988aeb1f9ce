"""The prop's sounds, synthesised by this code: no recorded or copied audio.

Each cue is a pure function of a fixed seed, so ``scripts/make_sounds.py``
writes byte-identical WAV files every time. Only the standard library is used
(``math``, ``random``, ``array``, ``wave``): nothing to compile on the Pi.

The building blocks are the usual ones of sound effects:

- a *clack* (a chip landing on a chip): a short noise burst through a band-pass
  filter plus three damped, slightly inharmonic partials, as a small ceramic
  disc rings;
- a *swish* (a card sliding on felt): noise through a low-pass filter whose
  corner falls while the card slows down;
- a *riffle* (a deck shuffled): dozens of tiny clicks whose spacing widens and
  whose brightness falls, over a swish;
- the strike *buzz*: a square wave mixed with a saw wave, low and harsh;
- the solve *chime*: bell notes, each the sum of inharmonic partials that
  decay at different rates;
- the *explosion*: a crack of bright noise, then a low boom (noise through a
  low-pass filter whose corner falls, over a falling sine) that rumbles out.
"""

from __future__ import annotations

import io
import math
import random
import sys
import wave
from array import array
from collections.abc import Callable, Iterable, Sequence

#: Samples a second of every cue (16-bit signed, mono).
SAMPLE_RATE = 16000
#: The loudest sample of a cue, as a fraction of full scale.
PEAK = 0.8
#: The strike buzz is a square wave: as loud to the ear at a lower peak.
BUZZ_PEAK = 0.55
#: The pitch of the strike buzz (Hz).
BUZZ_HZ = 140.0
#: The solve chime's notes (Hz): C6, E6, G6, C7.
CHIME_NOTES: tuple[float, ...] = (1046.50, 1318.51, 1567.98, 2093.00)
#: Seconds between the chime's notes.
CHIME_STEP = 0.11

Samples = list[float]


# -- building blocks -----------------------------------------------------------------
def _silence(seconds: float) -> Samples:
    return [0.0] * int(round(seconds * SAMPLE_RATE))


def _mix(into: Samples, sound: Sequence[float], at: float, gain: float = 1.0) -> None:
    """Add ``sound`` into ``into`` starting ``at`` seconds (``into`` grows when needed)."""
    start = int(round(at * SAMPLE_RATE))
    end = start + len(sound)
    if end > len(into):
        into.extend([0.0] * (end - len(into)))
    for i, value in enumerate(sound):
        into[start + i] += gain * value


def _bandpass(signal: Sequence[float], centre: float, q: float) -> Samples:
    """A two-pole band-pass filter (the RBJ cookbook's, 0 dB peak gain)."""
    w = 2 * math.pi * centre / SAMPLE_RATE
    alpha = math.sin(w) / (2 * q)
    a0 = 1 + alpha
    b0, b2 = alpha / a0, -alpha / a0
    a1, a2 = -2 * math.cos(w) / a0, (1 - alpha) / a0
    out: Samples = []
    x1 = x2 = y1 = y2 = 0.0
    for x in signal:
        y = b0 * x + b2 * x2 - a1 * y1 - a2 * y2
        out.append(y)
        x2, x1, y2, y1 = x1, x, y1, y
    return out


def _lowpass_sweep(signal: Sequence[float], corner: Callable[[float], float]) -> Samples:
    """Two one-pole low-pass stages (12 dB an octave) whose corner (Hz) follows ``corner(t)``."""
    out: Samples = []
    y1 = y2 = 0.0
    for i, x in enumerate(signal):
        k = 1 - math.exp(-2 * math.pi * corner(i / SAMPLE_RATE) / SAMPLE_RATE)
        y1 += k * (x - y1)
        y2 += k * (y1 - y2)
        out.append(y2)
    return out


def _noise(rng: random.Random, seconds: float) -> Samples:
    return [rng.uniform(-1.0, 1.0) for _ in range(int(round(seconds * SAMPLE_RATE)))]


def _envelope(n: int, attack: float, decay: float) -> Samples:
    """Linear attack of ``attack`` seconds, then exponential decay with time constant ``decay``."""
    out: Samples = []
    for i in range(n):
        t = i / SAMPLE_RATE
        out.append(t / attack if t < attack else math.exp(-(t - attack) / decay))
    return out


def _normalise(samples: Samples, peak: float) -> Samples:
    top = max(abs(v) for v in samples)
    return [v * peak / top for v in samples]


def _fade_out(samples: Samples, seconds: float) -> Samples:
    n = min(len(samples), int(seconds * SAMPLE_RATE))
    for i in range(n):
        samples[len(samples) - n + i] *= 1 - (i + 1) / n
    return samples


def _clack(rng: random.Random, brightness: float = 1.0) -> Samples:
    """One chip landing on another: a noise tick and three damped partials."""
    seconds = 0.06
    n = int(seconds * SAMPLE_RATE)
    detune = rng.uniform(0.95, 1.05) * brightness
    tick = _bandpass(_noise(rng, seconds), 4200 * detune, 1.2)
    env = _envelope(n, 0.0005, 0.004)
    out = [tick[i] * env[i] * 2.5 for i in range(n)]
    for ratio, amp, decay in ((1.0, 0.5, 0.012), (1.73, 0.3, 0.008), (2.61, 0.2, 0.005)):
        f = 2300 * ratio * detune
        if f >= SAMPLE_RATE / 2 * 0.9:
            continue
        phase = rng.uniform(0, 2 * math.pi)
        for i in range(n):
            t = i / SAMPLE_RATE
            out[i] += amp * math.exp(-t / decay) * math.sin(2 * math.pi * f * t + phase)
    return out


def _swish(rng: random.Random, seconds: float, start_hz: float, end_hz: float, attack: float, decay: float) -> Samples:
    """Noise through a low-pass filter sweeping from ``start_hz`` to ``end_hz``."""
    n = int(round(seconds * SAMPLE_RATE))

    def corner(t: float) -> float:
        return start_hz * math.pow(end_hz / start_hz, min(1.0, t / seconds))

    filtered = _lowpass_sweep(_noise(rng, seconds), corner)
    # a one-pole high-pass takes the rumble out: felt hisses, it does not boom
    out: Samples = []
    previous_in = previous_out = 0.0
    for x in filtered:
        previous_out = 0.97 * (previous_out + x - previous_in)
        previous_in = x
        out.append(previous_out)
    env = _envelope(n, attack, decay)
    return [out[i] * env[i] for i in range(n)]


def _thump(seconds: float, hz: float, decay: float) -> Samples:
    n = int(round(seconds * SAMPLE_RATE))
    return [math.exp(-i / SAMPLE_RATE / decay) * math.sin(2 * math.pi * hz * i / SAMPLE_RATE) for i in range(n)]


def _bell(hz: float, seconds: float) -> Samples:
    """A bell note: inharmonic partials, the higher ones dying sooner."""
    n = int(round(seconds * SAMPLE_RATE))
    out = [0.0] * n
    for ratio, amp, decay in ((1.0, 1.0, 0.40), (2.76, 0.30, 0.15), (5.40, 0.12, 0.06), (2.0, 0.15, 0.25)):
        f = hz * ratio
        if f >= SAMPLE_RATE / 2 * 0.9:
            continue  # above what 16 kHz can carry: it would fold back as a false note
        for i in range(n):
            t = i / SAMPLE_RATE
            attack = min(1.0, t / 0.002)
            out[i] += amp * attack * math.exp(-t / decay) * math.sin(2 * math.pi * f * t)
    return out


# -- the cues ----------------------------------------------------------------------------
def chip() -> Samples:
    """A chip placed on a stack: one clack and a small bounce."""
    rng = random.Random(101)
    out = _silence(0.11)
    _mix(out, _clack(rng), 0.0)
    _mix(out, _clack(rng, 1.08), 0.028, 0.4)
    return _normalise(out, PEAK)


def many_chips() -> Samples:
    """A stack of chips paid out: clacks at uneven, widening intervals."""
    rng = random.Random(202)
    out = _silence(0.42)
    t, gain = 0.0, 1.0
    for _ in range(9):
        _mix(out, _clack(rng, rng.uniform(0.9, 1.1)), t, gain)
        t += rng.uniform(0.025, 0.05) * (1 + t)
        gain *= 0.88
    return _fade_out(_normalise(out[: int(0.42 * SAMPLE_RATE)], PEAK), 0.03)


def chip_clear() -> Samples:
    """Chips swept off the table: a swish with chips knocking together in it."""
    rng = random.Random(303)
    out = _swish(rng, 0.38, 6000, 1500, 0.05, 0.09)
    for _ in range(6):
        _mix(out, _clack(rng, rng.uniform(0.8, 1.0)), rng.uniform(0.01, 0.22), rng.uniform(0.15, 0.35))
    return _fade_out(_normalise(out[: int(0.38 * SAMPLE_RATE)], PEAK), 0.04)


def card_deal() -> Samples:
    """A card slid from the shoe: a falling swish and a soft landing."""
    rng = random.Random(404)
    out = _swish(rng, 0.16, 7000, 1200, 0.015, 0.05)
    _mix(out, _thump(0.05, 190, 0.012), 0.12, 0.5)
    return _fade_out(_normalise(out, PEAK), 0.01)


def card_flip() -> Samples:
    """A card turned face up: a snap, and the card slapping the felt."""
    rng = random.Random(505)
    out = _silence(0.09)
    snap = _bandpass(_noise(rng, 0.02), 2600, 0.9)
    env = _envelope(len(snap), 0.0008, 0.003)
    _mix(out, [snap[i] * env[i] for i in range(len(snap))], 0.0)
    slap = _bandpass(_noise(rng, 0.03), 1400, 0.8)
    env = _envelope(len(slap), 0.001, 0.006)
    _mix(out, [slap[i] * env[i] for i in range(len(slap))], 0.035, 0.7)
    return _normalise(out, PEAK)


def shuffle() -> Samples:
    """A new deck riffled: tiny clicks that slow down and darken, over a falling swish."""
    rng = random.Random(606)
    seconds = 0.85
    out = _swish(rng, seconds, 5000, 1000, 0.04, 0.35)
    out = [v * 0.5 for v in out]
    t = 0.02
    while t < 0.68:
        progress = t / 0.68
        n = int(0.012 * SAMPLE_RATE)
        click = _bandpass(_noise(rng, 0.012), 5200 - 3600 * progress, 1.5)
        env = _envelope(n, 0.0005, 0.0025)
        _mix(out, [click[i] * env[i] * 3.0 for i in range(n)], t, 1.0 - 0.4 * progress)
        t += 0.011 + 0.022 * progress + rng.uniform(-0.002, 0.002)
    _mix(out, _thump(0.08, 150, 0.02), 0.72, 0.6)  # the bridge: both halves pushed together
    return _fade_out(_normalise(out[: int(seconds * SAMPLE_RATE)], PEAK), 0.05)


def strike() -> Samples:
    """The strike buzzer: a low, harsh square-and-saw buzz."""
    seconds = 0.45
    n = int(seconds * SAMPLE_RATE)
    out: Samples = []
    for i in range(n):
        t = i / SAMPLE_RATE
        phase = (t * BUZZ_HZ) % 1.0
        square = 1.0 if phase < 0.5 else -1.0
        saw = 2 * phase - 1
        gate = min(1.0, t / 0.005, (seconds - t) / 0.02)
        out.append(gate * (0.7 * square + 0.3 * saw))
    return _normalise(out, BUZZ_PEAK)


def solve() -> Samples:
    """The solve chime: four bell notes rising (C6, E6, G6, C7)."""
    out = _silence(0.9)
    for k, hz in enumerate(CHIME_NOTES):
        _mix(out, _bell(hz, 0.9 - k * CHIME_STEP), k * CHIME_STEP, 1.0 if k < 3 else 1.2)
    return _fade_out(_normalise(out[: int(0.9 * SAMPLE_RATE)], PEAK), 0.1)


def explosion() -> Samples:
    """The bomb explodes: a sharp crack, a deep falling boom and a long rumble."""
    rng = random.Random(707)
    seconds = 1.0
    out = _swish(rng, seconds, 2400, 60, 0.004, 0.3)  # the blast: noise that darkens as it dies
    n = int(seconds * SAMPLE_RATE)
    boom = [
        math.exp(-i / SAMPLE_RATE / 0.25) * math.sin(2 * math.pi * (70 - 30 * min(1.0, i / n)) * i / SAMPLE_RATE)
        for i in range(n)
    ]
    _mix(out, boom, 0.0, 1.6)
    crack = _bandpass(_noise(rng, 0.05), 3000, 0.7)
    env = _envelope(len(crack), 0.0005, 0.01)
    _mix(out, [crack[i] * env[i] * 2.0 for i in range(len(crack))], 0.0)
    return _fade_out(_normalise(out[:n], PEAK), 0.2)


def button() -> Samples:
    """A denomination arrow pressed: a dry tick."""
    n = int(0.03 * SAMPLE_RATE)
    out = [math.exp(-i / SAMPLE_RATE / 0.003) * math.sin(2 * math.pi * 1800 * i / SAMPLE_RATE) for i in range(n)]
    return _normalise(out, PEAK * 0.6)


#: Every cue's synthesiser, by the cue's name (also the WAV file's name).
SYNTHS: dict[str, Callable[[], Samples]] = {
    "chip": chip,
    "many_chips": many_chips,
    "chip_clear": chip_clear,
    "card_deal": card_deal,
    "card_flip": card_flip,
    "shuffle": shuffle,
    "strike": strike,
    "solve": solve,
    "button": button,
    "explosion": explosion,
}


# -- PCM and WAV -------------------------------------------------------------------------
def to_pcm(samples: Iterable[float], volume: float = 1.0) -> array[int]:
    """Floats in -1..1 to 16-bit signed samples, scaled by ``volume`` (0..1) and clipped."""
    out = array("h")
    for v in samples:
        out.append(max(-32767, min(32767, int(round(v * volume * 32767)))))
    return out


def render(cue: str) -> array[int]:
    """The 16-bit PCM samples of ``cue`` at :data:`SAMPLE_RATE` (``KeyError`` for an unknown cue)."""
    return to_pcm(SYNTHS[cue]())


def wav_bytes(pcm: array[int], rate: int = SAMPLE_RATE) -> bytes:
    """A mono 16-bit WAV file holding ``pcm``, as bytes (little-endian, as WAV requires)."""
    data = array("h", pcm)
    if data.itemsize != 2:
        raise ValueError("16-bit samples expected")
    if sys.byteorder == "big":
        data.byteswap()
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(data.tobytes())
    return buffer.getvalue()


def read_wav(data: bytes) -> tuple[array[int], int]:
    """The samples and the sample rate of a mono 16-bit WAV file given as bytes."""
    with wave.open(io.BytesIO(data), "rb") as source:
        if source.getnchannels() != 1 or source.getsampwidth() != 2:
            raise ValueError("a mono 16-bit WAV file expected")
        rate = source.getframerate()
        pcm = array("h", source.readframes(source.getnframes()))
    if sys.byteorder == "big":
        pcm.byteswap()
    return pcm, rate


def scale(pcm: array[int], volume: float) -> array[int]:
    """``pcm`` at ``volume`` (0..1): the samples multiplied, rounded to whole numbers."""
    return array("h", (int(round(v * volume)) for v in pcm))


def square_tones(sequence: Iterable[tuple[float | None, float]], peak: float = 0.5) -> Samples:
    """What a piezo buzzer plays for a tone sequence: square waves of 50 % duty and silences.

    ``sequence`` holds (frequency in Hz or None for silence, seconds). The
    simulator plays this so that the PC sounds like the prop's buzzer.
    """
    out: Samples = []
    for hz, seconds in sequence:
        n = int(round(seconds * SAMPLE_RATE))
        start = len(out)
        if hz is None:
            out.extend([0.0] * n)
            continue
        for i in range(n):
            out.append(peak if ((start + i) * hz / SAMPLE_RATE) % 1.0 < 0.5 else -peak)
    return out
