"""The two roles as state machines, driven with numbers for the time (no bus, no prop): the
spread delays, the silence, the counts and the ends, frame by frame."""

from __future__ import annotations

import random
from typing import Any

from baccarat_core.timer import BombRules
from firmware.services.obus import protocol as p
from firmware.services.obus.controller_role import ControllerRole
from firmware.services.obus.module_role import ModuleRole
from firmware.services.obus.roles import INFO_SECONDS, PropEvent
from firmware.services.obus.serial import readings

ME = p.Node(p.PUZZLE, 3)


class Game:
    """A :class:`~firmware.services.obus.roles.Game` that keeps the calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.changes = 0

    def forget(self, edgework: dict[str, Any]) -> None:
        self.calls.append(("forget", edgework))

    def edgework(self, edgework: dict[str, Any]) -> None:
        self.calls.append(("edgework", edgework))

    def begin(self, left: float, strikes: int, solved: int) -> None:
        self.calls.append(("begin", left, strikes, solved))

    def sync(self, left: Any, strikes: Any, solved: Any, rate: Any = None, *, start: bool = False) -> None:
        self.calls.append(("sync", left, strikes, solved, rate))

    def end(self, how: str) -> None:
        self.calls.append(("end", how))

    def changed(self) -> None:
        self.changes += 1


def frames(sent: list[p.Message]) -> list[tuple[int, str]]:
    return [(can_id, data.hex()) for can_id, data in map(p.encode, sent)]


def status(kind: int, left_ms: int, strikes: int = 0, count: int = 3) -> p.Message:
    return p.status_message(kind, left_ms, strikes, 3, count)


def module(count: str = "left") -> tuple[ModuleRole, Game, list[p.Message], list[tuple[str, str]]]:
    sent: list[p.Message] = []
    notes: list[tuple[str, str]] = []
    game = Game()
    role = ModuleRole(ME, sent.append, game, count=count, note=lambda kind, text: notes.append((kind, text)))
    return role, game, sent, notes


def playing(role: ModuleRole, sent: list[p.Message]) -> None:
    role.on_message(p.hello(), 0.0)
    role.tick(0.749)
    assert sent == []  # 250 ms x (id 3): not yet
    role.tick(0.75)
    assert frames(sent) == [(0x503, "00")]
    role.on_message(p.ack(p.Node(p.PUZZLE, 4)), 0.8)  # another module's
    assert role.phase == "waiting"
    role.on_message(p.ack(ME), 0.8)
    role.on_message(status(p.GAME_START, 60_000), 1.0)
    assert role.phase == "playing"


def test_a_module_registers_after_its_delay_and_plays_after_its_ack() -> None:
    role, game, sent, _ = module()
    role.on_prop(PropEvent("strike", 1), 0.0)  # no game: nothing goes out
    playing(role, sent)
    assert game.calls[0] == ("forget", {}) and game.calls[-1] == ("begin", 60.0, 0, 0)
    role.on_message(status(p.STATE, 59_500, strikes=1, count=2), 1.5)  # a strike, a module solved
    assert game.calls[-1] == ("sync", 59.5, 1, 1, None)
    role.on_message(status(p.STATE, 58_875, strikes=1, count=2), 2.0)
    role.on_message(status(p.STATE, 58_250, strikes=1, count=2), 2.5)  # 1.25 s in 1 s since the strike
    assert game.calls[-1] == ("sync", 58.25, 1, None, 1.25)
    role.on_prop(PropEvent("strike", 2), 1.6)
    role.on_prop(PropEvent("strike", 3), 1.7)
    role.on_prop(PropEvent("solved"), 1.8)
    role.on_prop(PropEvent("solved"), 1.9)
    assert frames(sent)[1:] == [(0x503, "0101"), (0x503, "0102"), (0x503, "02")]


def test_a_state_that_changes_nothing_the_players_see_costs_the_game_nothing() -> None:
    role, game, sent, _ = module()
    playing(role, sent)  # GAME START at 1.0 with 60 s
    calls = len(game.calls)
    for n in range(1, 41):  # 20 s of the controller's countdown, as the prop's own runs it
        role.on_message(status(p.STATE, 60_000 - 500 * n), 1.0 + 0.5 * n)
    assert len(game.calls) == calls
    role.on_message(status(p.STATE, 39_000), 21.5)  # 0.5 s off the prop's (its speed as good as 1): corrected
    assert game.calls[-1][:4] == ("sync", 39.0, 0, None) and abs(game.calls[-1][4] - 1.024) < 0.001
    calls = len(game.calls)
    role.on_prop(PropEvent("reset"), 21.6)  # the game master reset the prop: the next STATE tells it all
    role.on_message(status(p.STATE, 38_500), 22.0)
    assert len(game.calls) == calls + 1 and game.calls[-1][:3] == ("sync", 38.5, 0)


def test_a_module_counts_solved_modules_either_way() -> None:
    left, game, sent, _ = module("left")
    playing(left, sent)
    left.on_message(status(p.STATE, 59_000, count=1), 2.0)  # 3 at the start, 1 left: 2 solved
    assert game.calls[-1][3] == 2
    solved, game, sent, _ = module("solved")
    playing(solved, sent)
    solved.on_message(status(p.STATE, 59_000, count=1), 2.0)  # 1 solved
    assert game.calls[-1][3] == 1


def test_a_silent_controller_after_3_s_and_back() -> None:
    role, game, sent, _ = module()
    playing(role, sent)
    role.on_message(status(p.STATE, 59_500), 1.5)
    changes = game.changes
    role.tick(4.49)
    assert not role.silent
    role.tick(4.5)
    assert role.silent and role.document()["controller_silent"] and game.changes == changes + 1
    role.on_message(status(p.STATE, 55_000), 9.0)
    assert not role.silent and role.phase == "playing"


def test_the_game_ends_once_and_hello_forgets_it() -> None:
    role, game, sent, _ = module()
    playing(role, sent)
    role.on_message(status(p.TIMEOUT, 0, strikes=9, count=9), 5.0)  # bytes 5 and 7 are not read
    role.on_message(status(p.STRIKEOUT, 0), 5.1)
    assert [c for c in game.calls if c[0] == "end"] == [("end", "timer")]
    role.on_prop(PropEvent("strike", 1), 5.2)
    assert frames(sent) == [(0x503, "00")]  # nothing after the end
    role.on_message(p.hello(), 6.0)
    assert role.phase == "waiting" and role.document()["strikes_sent"] == 0


def test_info_modules_give_the_edgework_at_hello() -> None:
    role, game, sent, notes = module()
    role.on_message(p.info_start(5), 0.0)
    role.on_message(p.info_message(1, b"AB3ZDE4"), 0.5)
    role.on_message(p.info_message(3, bytes((0xFF & ~4,))), 1.5)
    role.on_message(p.hello(), 3.0)
    assert game.calls[0] == ("forget", {"serial": "AB3DE4", "ports": ["Serial"]})
    role.on_message(p.info_start(6), 10.0)
    role.on_message(p.info_message(1, b"KT3XQ47"), 10.5)  # no six-character form
    role.on_message(p.hello(), 13.0)
    assert game.calls[-1] == ("forget", {}) and notes[0][0] == "serial"


# -- the controller ----------------------------------------------------------------------------

RULES = BombRules(timer_seconds=60.0, strike_limit=3)


def controller(
    count: str = "left", serial: str = "AB3DE4", drawn: bool = False
) -> tuple[ControllerRole, Game, list[p.Message], list[tuple[str, str]]]:
    sent: list[p.Message] = []
    notes: list[tuple[str, str]] = []
    game = Game()
    role = ControllerRole(
        sent.append,
        game,
        RULES,
        serial=lambda: serial,
        count=count,
        note=lambda k, t: notes.append((k, t)),
        drawn=lambda: drawn,
        rng=random.Random(4),
    )
    return role, game, sent, notes


def started(role: ControllerRole, sent: list[p.Message], nodes: list[p.Node]) -> None:
    role.begin(0.0)
    role.tick(INFO_SECONDS)
    for node in nodes:
        role.on_message(p.module_message(node, p.REGISTER), 3.5)
    del sent[:]
    role.on_prop(PropEvent("timer_started", 60.0), 4.0)


def test_the_rounds_and_the_prop_s_serial() -> None:
    role, game, sent, _ = controller()
    role.begin(0.0)
    assert [m.name() for m in sent] == ["INFO START"] and len(p.encode(sent[0])[1]) == 5
    role.tick(2.49)
    assert len(sent) == 1
    role.tick(2.5)
    assert p.encode(sent[1]) == (0x401, b"\x00AB3ZDE4")  # as info module 1
    role.tick(INFO_SECONDS - 0.01)
    assert len(sent) == 2
    role.tick(INFO_SECONDS)
    assert sent[2].name() == "HELLO" and role.phase == "registering"
    heard, _, heard_sent, _ = controller()
    heard.begin(0.0)
    heard.on_message(p.info_message(1, b"QQ7QQ77"), 0.5)
    heard.tick(2.5)
    assert [m.name() for m in heard_sent] == ["INFO START"]  # a serial was on the bus already
    three, _, three_sent, notes = controller(serial="A13DE4")  # three letters, three digits
    three.begin(0.0)
    three.tick(2.5)
    assert len(three_sent) == 1 and notes[0][0] == "serial"
    # a bomb drawn at random draws its serial again, for the prop and the bus alike
    drawn, drawn_game, drawn_sent, _ = controller(serial="A13DE4", drawn=True)
    drawn.begin(0.0)
    drawn.tick(2.5)
    drawn.tick(INFO_SECONDS)
    seven = drawn_sent[1].info.decode()
    assert drawn_sent[1].sender == p.Node(0, 1) and len(seven) == 7
    (six,) = [call[1]["serial"] for call in drawn_game.calls if call[0] == "edgework"]
    assert readings(six) == readings(seven) and len(six) == 6


def test_registration_acks_each_new_module_up_to_16() -> None:
    role, game, sent, notes = controller()
    role.begin(0.0)
    role.tick(INFO_SECONDS)
    for number in range(17):
        role.on_message(p.module_message(p.Node(p.PUZZLE, number), p.REGISTER), 3.5)
    acks = [m for m in sent if m.name() == "ACK"]
    assert len(acks) == 16 and acks[0].target == p.Node(p.PUZZLE, 0) and notes[-1][0] == "full"
    role.on_message(p.module_message(p.Node(p.PUZZLE, 0), p.REGISTER), 3.6)  # again: ACKed again, noted
    assert sent[-1] == p.ack(p.Node(p.PUZZLE, 0)) and notes[-1][0] == "twice puzzle module 0"


def test_game_start_states_and_strikes_against_one_limit() -> None:
    role, game, sent, notes = controller()
    two, needy = p.Node(p.PUZZLE, 2), p.Node(p.NEEDY, 1)
    started(role, sent, [two, needy])
    assert p.encode(sent[0]) == (0x400, bytes.fromhex("02") + (60_000).to_bytes(4, "big") + bytes((0, 3, 2)))
    role.tick(4.49)
    role.tick(4.5)
    assert sent[-1].name() == "STATE" and sent[-1].status == p.Status(59_500, 0, 3, 2)
    role.on_message(p.module_message(needy, p.STRIKE, 1), 4.6)
    role.on_message(p.module_message(needy, p.STRIKE, 1), 4.7)  # the same count again: no new strike
    role.on_prop(PropEvent("strike", 2), 4.8)
    assert role.strikes == 2 and role.clock.rate == 1.5
    role.on_message(p.module_message(p.Node(p.PUZZLE, 9), p.STRIKE, 1), 4.9)
    assert notes[-1][0] == "unregistered puzzle module 9" and role.strikes == 2
    role.on_message(p.module_message(two, p.STRIKE, 1), 5.0)
    assert sent[-1].name() == "STRIKEOUT" and sent[-1].status is not None and sent[-1].status.strikes == 3
    assert ("end", "strikes") in game.calls and role.phase == "over"


def test_solved_when_every_puzzle_module_is_the_prop_included() -> None:
    role, game, sent, _ = controller(count="solved")
    two, needy = p.Node(p.PUZZLE, 2), p.Node(p.NEEDY, 1)
    started(role, sent, [two, needy])
    role.on_message(p.module_message(two, p.MODULE_SOLVED), 5.0)
    role.tick(5.0)
    assert sent[-1].status is not None and sent[-1].status.count == 1  # solved, the Arduino's way
    assert role.phase == "playing"  # the prop is not solved yet
    role.on_prop(PropEvent("solved"), 6.0)
    assert sent[-1].name() == "SOLVED" and ("end", "solved") in game.calls


def test_the_bomb_s_clock_runs_out_and_follows_the_game_master() -> None:
    role, game, sent, _ = controller()
    started(role, sent, [p.Node(p.PUZZLE, 2)])
    role.on_prop(PropEvent("enabled", False), 10.0)  # paused: the clock stops at 54 s
    role.tick(30.0)
    assert round(role.clock.left) == 54
    role.on_prop(PropEvent("enabled", True), 30.0)
    role.on_prop(PropEvent("time_added", -50.0), 30.0)
    role.tick(33.99)
    assert role.phase == "playing"
    role.tick(34.0)
    assert sent[-1].name() == "TIMEOUT" and sent[-1].status is not None and sent[-1].status.left_ms == 0
    assert game.calls[-1] == ("end", "timer")
    role.on_message(p.module_message(p.Node(p.PUZZLE, 5), p.REGISTER), 35.0)  # too late: after its start
    role.on_prop(PropEvent("reset"), 40.0)  # the rounds again
    assert sent[-1].name() == "INFO START" and role.phase == "info" and role.modules == {}
