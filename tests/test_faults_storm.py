"""Input storms: 100,000 random pin edges against the real daemon on mock pins (10,000 in the fast
tier: :func:`tests.tiers.examples`).

Presses, holds, contact bounce, arrows, deals and several pins at once are
driven on gpiozero's ``MockFactory`` pins. Every input the board emits is
recorded (in queue order, with the game master's resets) and replayed through
a fresh :class:`BaccaratModule` with the same seed; the daemon's state and its
event stream must match the replay at every deal, the displays must show the
current state, there are never two solves in one game, and every strike has
its cause in the bets at the deal or in the round's result.

Timing: the debounce filters and the hold timer read a fake clock that the storm
advances by hand (so a press "lasts" 30 ms and a hold half a second without
sleeping); after each step the hold timer makes the calls now due before the
next edge. The model of the board (which edges make a press, a hold, an arrow
step, a deal) reads the same fake clock, so the inputs the board must emit are
known exactly, however loaded the machine is: any difference fails the test.
Set ``BACCARAT_STORM_EDGES`` to run a shorter or longer storm in any tier.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections import Counter
from typing import Any

import pytest

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.inputs import Arrow, Deal, Hold, Input, Press, SetSolved
from baccarat_core.rounds import AREAS, MAIN_AREAS, SIDE_AREAS
from firmware.app import build_daemon, close_daemon
from firmware.config import Config
from firmware.devices.displays import open_dummy_device
from firmware.devices.switching import OutputSwitched
from firmware.game.daemon import Daemon
from firmware.simulator.pins import ManualClock
from tests.conftest import make_config
from tests.tiers import examples

EDGES = int(os.environ.get("BACCARAT_STORM_EDGES", "0")) or examples(100_000)
SEED = int(os.environ.get("BACCARAT_STORM_SEED", "20240611"))
HOLD = 0.5  # hold_seconds in the storm's config (fake time; longer than any tap or chord here)
DEBOUNCE = 0.02  # debounce_seconds (fake time)
ARROWS = ("arrow_left", "arrow_right")


class Recorder:
    """Everything that enters the daemon's queue, in queue order."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self._submit = daemon.submit
        self._lock = threading.Lock()
        self.items: list[Any] = []  # Input, or the string "reset"
        self.events: list[ev.Event] = []
        self._events_lock = threading.Lock()
        daemon.submit = self.submit  # type: ignore[method-assign]  # the board connects to this
        daemon.on_handled.append(self._listen)

    def submit(self, action: Input) -> None:
        with self._lock:
            self.items.append(action)
            self._submit(action)

    def reset(self) -> None:
        """The game master's reset: new limits, new deck, no chips, no strikes."""
        with self._lock:
            self.items.append("reset")
            self.daemon.apply(lambda module: module.reset())

    def inputs(self, start: int = 0) -> list[Any]:
        with self._lock:
            return self.items[start:]

    def pin_inputs(self) -> list[Input]:
        """The inputs alone, without the resets."""
        return [item for item in self.inputs() if item != "reset"]

    def count(self) -> int:
        with self._lock:
            return len(self.items)

    def _listen(self, events: list[ev.Event], module: BaccaratModule) -> None:
        module_events = [e for e in events if not isinstance(e, OutputSwitched)]  # the prop's lock: not the game's
        with self._events_lock:
            self.events.extend(module_events)

    def event_list(self, start: int = 0) -> list[ev.Event]:
        with self._events_lock:
            return self.events[start:]


class Driver:
    """Drives the pins like hands would and predicts what the board must emit."""

    def __init__(self, daemon: Daemon, clock: ManualClock, recorder: Recorder, rng: random.Random) -> None:
        board = daemon.board
        self.daemon = daemon
        self.clock = clock
        self.recorder = recorder
        self.rng = rng
        self.pins = {name: wrapper.button.pin for name, wrapper in board.inputs.items()}
        self.pressed_level = {name: wrapper.pressed_high for name, wrapper in board.inputs.items()}
        self.down: set[str] = set()
        self.expected: list[Input] = []
        self.checked = 0  # expected[:checked] matched the recording up to recorded item `seen`
        self.seen = 0
        self.edges = 0
        self.hold_episodes = 0
        # The model of firmware.buttons, on the same clock readings.
        self._closed_at: dict[str, float | None] = {area: None for area in AREAS}
        self._held: set[str] = set()
        self._last: dict[str, float | None] = {name: None for name in (*ARROWS, "deal")}

    # -- edges -------------------------------------------------------------------
    def _drive(self, name: str, pressed: bool) -> None:
        pin = self.pins[name]
        if pressed == self.pressed_level[name]:
            pin.drive_high()
        else:
            pin.drive_low()
        self.edges += 1

    def press(self, name: str) -> None:
        assert name not in self.down
        now = self.clock()
        self.down.add(name)
        if name in AREAS:
            self._closed_at[name] = now
            self._held.discard(name)
            self._drive(name, True)
            return
        last = self._last[name]
        counts = last is None or not now - last < DEBOUNCE
        self._last[name] = now
        self._drive(name, True)
        if counts:
            self.expected.append(Deal() if name == "deal" else Arrow(name[6:]))
            if name == "deal":
                # Nothing else may arrive while the deal runs: those inputs are ignored
                # by design, and the replay could not know which ones.
                self.daemon.wait_idle(30)

    def release(self, name: str) -> None:
        assert name in self.down
        now = self.clock()
        self.down.discard(name)
        if name in AREAS:
            closed_at, held = self._closed_at[name], name in self._held
            self._closed_at[name] = None
            self._held.discard(name)
            self._drive(name, False)
            if not held and closed_at is not None and now - closed_at >= DEBOUNCE:
                self.expected.append(Press(name))
            return
        self._last[name] = now
        self._drive(name, False)

    def wait(self, low: float, high: float) -> None:
        """Time passes: the areas closed for HOLD by now are held (in the order their holds
        fell due), and the board's hold timer fires them before the next edge."""
        self.clock.advance(self.rng.uniform(low, high))
        now = self.clock()
        due = [
            (closed_at + HOLD, area)
            for area, closed_at in self._closed_at.items()
            if closed_at is not None and area not in self._held and closed_at + HOLD <= now
        ]
        for _, area in sorted(due):
            self.expected.append(Hold(area))
            self._held.add(area)
        self.daemon.board.catch_up()

    # -- gestures ------------------------------------------------------------------
    def chatter(self, name: str, pressed_after: bool) -> None:
        """Contact bounce: short closures and openings, ending in ``pressed_after``."""
        for _ in range(self.rng.randint(1, 4)):
            if name in self.down:
                self.release(name)
                self.wait(0.0002, 0.004)
                self.press(name)
            else:
                self.press(name)
                self.wait(0.0002, 0.004)
                self.release(name)
            self.wait(0.0002, 0.004)
        if pressed_after and name not in self.down:
            self.press(name)
        elif not pressed_after and name in self.down:
            self.release(name)

    def tap(self, name: str, *, short: bool = False) -> None:
        """A press and release, sometimes bouncing; ``short`` = shorter than the debounce."""
        if self.rng.random() < 0.25:
            self.chatter(name, pressed_after=True)
        else:
            self.press(name)
        if short:
            self.wait(0.0002, DEBOUNCE * 0.75)
        else:
            self.wait(DEBOUNCE * 1.25, 0.3)
        if self.rng.random() < 0.25:
            self.chatter(name, pressed_after=False)
        else:
            self.release(name)
        self.wait(DEBOUNCE * 1.25, 0.2)

    def chord(self) -> None:
        """Several pins at once: pressed and released in random order."""
        names = self.rng.sample([*AREAS, *ARROWS], self.rng.randint(2, 6))
        for name in names:
            self.press(name)
            self.wait(0.0, 0.012)
        self.wait(0.0, 0.08)
        self.rng.shuffle(names)
        for name in names:
            self.release(name)
            self.wait(0.0, 0.012)
        self.wait(DEBOUNCE * 1.25, 0.1)

    def deal(self) -> None:
        held = [n for n in self.rng.sample(ARROWS, self.rng.randint(0, 2))]
        for name in held:  # an arrow kept down across the deal
            self.press(name)
            self.wait(0.0, 0.01)
        if self.rng.random() < 0.3:
            self.chatter("deal", pressed_after=True)
        else:
            self.press("deal")
        self.wait(0.0, 0.2)
        if self.rng.random() < 0.3:
            self.chatter("deal", pressed_after=False)
        else:
            self.release("deal")
        for name in held:
            self.release(name)
        self.wait(DEBOUNCE * 1.25, 0.2)

    def hold(self, areas: list[str]) -> None:
        """Holds on ``areas`` (at once): each clears its area HOLD seconds after it closed."""
        assert not self.down & set(AREAS)
        self.check_model()
        for area in areas:
            if self.rng.random() < 0.3:
                self.chatter(area, pressed_after=True)
            else:
                self.press(area)
            self.wait(0.0, 0.01)
        if self.rng.random() < 0.5:  # an arrow tapped with the other hand meanwhile
            self.tap(self.rng.choice(ARROWS))
        self.wait(HOLD, HOLD * 2)
        assert self._held >= set(areas)
        self.check_model()  # each hold fired, in the order its time came
        self.rng.shuffle(areas)
        for area in areas:
            if self.rng.random() < 0.3:
                self.chatter(area, pressed_after=False)
            else:
                self.release(area)
            self.wait(0.0, 0.01)
        self.hold_episodes += 1

    # -- checks --------------------------------------------------------------------
    def check_model(self) -> None:
        """The board emitted exactly the inputs the pin edges call for."""
        new = self.recorder.inputs(self.seen)
        self.seen += len(new)
        recorded = [item for item in new if item != "reset"]
        start = self.checked
        expected = self.expected[start:]
        self.checked = len(self.expected)
        if recorded == expected:
            return
        first = next(
            (i for i, (a, b) in enumerate(zip(recorded, expected, strict=False)) if a != b),
            min(len(recorded), len(expected)),
        )
        raise AssertionError(
            f"board emitted {recorded[first : first + 5]} at input {start + first}, "
            f"expected {expected[first : first + 5]}"
        )


def _disordered(stack: list[int]) -> bool:
    return any(lower < upper for lower, upper in zip(stack, stack[1:], strict=False))


class Replay:
    """The same inputs through a fresh module, with the rules' own checks on each deal."""

    def __init__(self, config: Config) -> None:
        self.module = BaccaratModule(
            config.edgework, config.limits, rng=random.Random(SEED), first_color=config.first_color
        )
        self.events = self.module.start()
        self.done = 0
        self.solves_this_game = 0
        self.strike_reasons: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()

    def feed(self, items: list[Any]) -> None:
        for item in items:
            self.done += 1
            m = self.module
            if item == "reset":
                produced = m.reset()
                self.solves_this_game = 0
            else:
                stacks = {a: list(s) for a, s in m.stacks.items()}
                was_solved, strikes = m.solved, m.strikes
                produced = m.handle(item) + m.finish_round()  # as the daemon, after the result's pause
                self._check(item, stacks, was_solved, strikes, produced)
            self.events += produced

    def _check(
        self, item: Input, stacks: dict[str, list[int]], was_solved: bool, strikes: int, produced: list[ev.Event]
    ) -> None:
        m = self.module
        self.kinds.update(e.kind for e in produced)
        if was_solved:
            assert all(isinstance(e, (ev.InputIgnored, ev.SolvedCountChanged)) for e in produced), produced
        solves = [e for e in produced if isinstance(e, ev.Solved)]
        self.solves_this_game += len(solves)
        assert self.solves_this_game <= 1, "two solves in one game"
        struck = [e for e in produced if isinstance(e, ev.Strike)]
        if not isinstance(item, Deal):
            assert not struck, f"{item} struck: {struck}"
            return
        bets = {a: sum(s) for a, s in stacks.items()}
        lo, hi = m.limits.minimum, m.limits.maximum
        for number, strike in enumerate(struck, start=strikes + 1):
            assert strike.strikes == number
            self.strike_reasons[strike.reason] += 1
            if strike.reason == "exclusive":
                assert (bets["player"] > 0) == (bets["banker"] > 0), bets
                assert not any(isinstance(e, ev.CardDealt) for e in produced)
            elif strike.reason == "limits":
                assert (bets["player"] > 0) != (bets["banker"] > 0)
                assert any(bets[a] and not lo <= bets[a] <= hi for a in MAIN_AREAS) or any(
                    bets[a] and not lo <= 10 * bets[a] <= hi for a in SIDE_AREAS
                ), (bets, lo, hi)
                assert not any(isinstance(e, ev.CardDealt) for e in produced)
            elif strike.reason == "stack_order":
                assert any(_disordered(s) for s in stacks.values()), stacks
                assert any(isinstance(e, ev.ChipsReordered) for e in produced)
            elif strike.reason == "loss":
                played = [e for e in produced if isinstance(e, ev.RoundPlayed)]
                assert len(played) == 1 and played[0].profit_cents < 0, played
            else:
                raise AssertionError(f"strike with an unknown reason: {strike}")
        assert m.strikes == strikes + len(struck)
        assert len(struck) <= 2
        if solves:
            played = [e for e in produced if isinstance(e, ev.RoundPlayed)]
            assert len(played) == 1 and played[0].profit_cents > 0


def _state(module: BaccaratModule) -> dict[str, Any]:
    return {
        "snapshot": module.snapshot(),
        "stacks": {a: list(s) for a, s in module.stacks.items()},
        "solved": module.solved,
    }


def _frames_current(daemon: Daemon) -> list[str]:
    """Roles whose device does not show the picture of the current state (game thread)."""
    wrong = []
    for role, screen in daemon.screens.items():
        picture = daemon.picture(role).convert(screen.device.mode)
        if screen.device.image is None or screen.device.image.tobytes() != picture.tobytes():
            wrong.append(role)
    return wrong


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.timeout(600)
def test_a_storm_of_pin_events_keeps_the_game_consistent(mock_factory, monkeypatch):
    thread_errors: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", thread_errors.append)
    errors = _Errors()
    logging.getLogger("baccarat").addHandler(errors)

    config = make_config(
        timing={"hold_seconds": HOLD, "debounce_seconds": DEBOUNCE, "card_seconds": 0.0, "strike_flash_seconds": 0.05}
    )
    clock = ManualClock()
    daemon = build_daemon(
        config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(SEED), clock=clock
    )
    recorder = Recorder(daemon)
    rng = random.Random(SEED + 1)
    driver = Driver(daemon, clock, recorder, rng)
    replay = Replay(config)
    daemon.start()
    try:
        assert daemon.ready.wait(5)
        deals = resets = compared = 0
        started = time.monotonic()
        while driver.edges < EDGES:
            # One round: chips on a main area (now and then both or neither), side bets,
            # arrows, bounce and chords as noise, then the deal.
            main = rng.choices(["player", "banker", "both", "none"], [45, 45, 5, 5])[0]
            for _ in range(rng.randint(1, 8)):
                roll = rng.random()
                if roll < 0.35:
                    driver.tap(
                        rng.choice(ARROWS)
                        if rng.random() < 0.5
                        else ("arrow_right" if daemon.module.denomination < 25 else "arrow_left")
                    )
                elif roll < 0.65:
                    target = {"both": rng.choice(MAIN_AREAS), "none": rng.choice(SIDE_AREAS)}.get(main, main)
                    driver.tap(target)
                elif roll < 0.75:
                    driver.tap(rng.choice(SIDE_AREAS))
                elif roll < 0.85:
                    driver.tap(rng.choice([*AREAS, *ARROWS]), short=True)
                elif roll < 0.93:
                    driver.chord()
                else:
                    driver.chatter(rng.choice([*AREAS, *ARROWS]), pressed_after=False)
            driver.deal()
            deals += 1
            driver.check_model()
            replay.feed(recorder.inputs(replay.done))
            state = daemon.call(lambda: _state(daemon.module)).result(10)
            assert state == _state(replay.module), f"state differs after deal {deals}"
            assert recorder.event_list(compared) == replay.events[compared:], f"event stream differs after deal {deals}"
            compared = len(replay.events)
            status = daemon.board.status
            assert bool(status.green.value) == daemon.module.solved
            if deals % 10 == 0:
                assert daemon.call(lambda: _frames_current(daemon)).result(10) == []
            # Chips left on the table after a refused deal: clear them by holding, or a
            # game-master reset.
            left = [a for a in AREAS if daemon.module.stacks[a]]
            if daemon.module.solved or rng.random() < 0.02:
                recorder.reset()
                resets += 1
                if rng.random() < 0.2:  # the bomb reports another solved module
                    solved = SetSolved(rng.randint(0, 11))
                    driver.expected.append(solved)
                    recorder.submit(solved)
                daemon.wait_idle()
            elif left and rng.random() < 0.05:
                driver.hold(left)
            elif left and rng.random() < 0.5:
                recorder.reset()
                resets += 1
                daemon.wait_idle()
        daemon.wait_idle(30)
        driver.check_model()
        replay.feed(recorder.inputs(replay.done))
        assert daemon.call(lambda: _state(daemon.module)).result(10) == _state(replay.module)
        assert recorder.event_list() == replay.events
        assert daemon.call(lambda: _frames_current(daemon)).result(10) == []
        elapsed = time.monotonic() - started
    finally:
        daemon.stop()
        close_daemon(daemon)
        logging.getLogger("baccarat").removeHandler(errors)

    assert not errors.records, [r.getMessage() for r in errors.records]
    assert not thread_errors, thread_errors
    # The storm really went through every kind of input and outcome.
    inputs = Counter(type(item).__name__ for item in recorder.inputs())
    print(
        f"\nstorm: {driver.edges} edges, {deals} deals, {resets} resets, {driver.hold_episodes} hold "
        f"episodes in {elapsed:.1f} s; inputs {dict(inputs)}; strikes {dict(replay.strike_reasons)}; "
        f"solves {replay.kinds['solved']}"
    )
    assert driver.edges >= EDGES
    if EDGES >= 20000:
        assert min(inputs[k] for k in ("Press", "Hold", "Arrow", "Deal")) > 0, inputs
        assert set(replay.strike_reasons) == {"exclusive", "limits", "stack_order", "loss"}, replay.strike_reasons
        assert replay.kinds["solved"] > 0 and replay.kinds["reorder"] > 0
