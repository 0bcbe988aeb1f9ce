"""Remote play on the running prop (issue 25 part 2): the ``bet`` command on the one command path.

A bet through the daemon is compared with the same presses made on the pins of a second daemon
with the same seed: the same events, the same frames. Then what a bet does while a round is being
dealt, on a closed or solved table, and over the control socket, MQTT and Room 2.0.
"""

from __future__ import annotations

import json
import logging
import random
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from baccarat_core.inputs import Arrow, Deal, Hold, Press
from firmware.app import build_daemon, close_daemon
from firmware.cli import main
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster
from tests import test_hostile_mqtt as hostile_mqtt_tests
from tests import test_mqtt as mqtt_tests
from tests.conftest import Rig, make_config
from tests.hostile import Hostile
from tests.test_bets import presses_for

# The broker, a watcher and a prop with MQTT, as test_mqtt.py makes them.
broker = mqtt_tests.broker
watcher_factory = mqtt_tests.watcher_factory
prop_factory = mqtt_tests.prop_factory
# A prop whose MQTT and Room 2.0 services are built but never connected, every publish recorded.
unplugged = hostile_mqtt_tests.unplugged


def bet(rig, bets, **extra) -> dict:
    return GameMaster(rig.daemon).handle({"command": "bet", "bets": bets, **extra}).result(10)


def press_like_a_person(rig, bets: dict[str, int], before_deal=lambda: None) -> None:
    """The bet's presses on the pins: holds of 0.6 s, taps, the deck."""
    for action in presses_for(rig.daemon.module, bets):
        if isinstance(action, Hold):
            cleared = rig.kinds().count("clear")
            rig.driver.hold(action.area, 0.6)
            deadline = time.monotonic() + 5
            while rig.kinds().count("clear") == cleared and time.monotonic() < deadline:
                time.sleep(0.02)  # the board's hold timer runs on a thread of its own
            rig.daemon.wait_idle()
        elif isinstance(action, Arrow):
            rig.tap(action.direction)
        elif isinstance(action, Press):
            rig.tap(action.area)
        else:
            assert isinstance(action, Deal)
            before_deal()
            rig.deal()


@pytest.fixture
def remote_rig():
    """A second prop on pins of its own (a bet never touches them), with the tests' config and seed 7."""
    factory = MockFactory(pin_class=MockPWMPin)
    daemon = build_daemon(make_config(), pin_factory=factory, device_factory=open_dummy_device, rng=random.Random(7))
    rig = Rig(daemon, factory)
    daemon.start()
    assert daemon.ready.wait(5)
    yield rig
    daemon.stop()
    close_daemon(daemon)
    factory.reset()


def test_a_bet_gives_the_events_and_frames_of_the_same_presses(rig_factory, remote_rig):
    remote, pressed = remote_rig, rig_factory(seed=7)
    tables: dict[str, list[bytes]] = {"remote": [], "pressed": []}
    for rig, name in ((remote, "remote"), (pressed, "pressed")):
        rig.daemon.on_frame.append(
            lambda role, image, seen=tables[name]: seen.append(image.tobytes()) if role == "table" else None
        )
    pressed.chips("tie", 5)
    assert bet(remote, "5 on tie")["ok"]  # the same chip on the table of both (the remote one deals: a strike)
    pressed.deal()
    seen: dict[str, list] = {"remote": [], "pressed": []}

    def losing() -> dict[str, int]:
        winner = GameMaster(remote.daemon).handle({"command": "hint"}).result(5)["result"]["winner"]
        return {"player": 30} if winner == "tie" else {"banker" if winner == "player" else "player": 130, "tie": 5}

    def winning() -> dict[str, int]:
        winner = GameMaster(remote.daemon).handle({"command": "hint"}).result(5)["result"]["winner"]
        return {winner: 130} if winner != "tie" else {"player": 25, "tie": 25}

    # A strike after a round: the last hands leave the table at the bet, as at a press.
    both = {"player": 25, "banker": 25}
    for make in [lambda: both, lambda: {"banker": 5000}, losing, lambda: both, winning]:
        bets = make()
        remote.events.clear()
        from_remote = len(tables["remote"])
        reply = bet(remote, bets)
        assert reply["ok"], reply
        remote.daemon.wait_idle()
        seen["remote"] += remote.events
        from_deal: list[int] = []
        from_presses = len(tables["pressed"])
        pressed.events.clear()
        press_like_a_person(pressed, bets, lambda marks=from_deal: marks.append(len(tables["pressed"])))
        pressed.daemon.wait_idle()
        seen["pressed"] += pressed.events
        assert reply["result"]["events"] == [e.to_dict() for e in remote.events][: len(reply["result"]["events"])]
        assert remote.daemon.module.snapshot() == pressed.daemon.module.snapshot()
        assert remote.daemon.module.stacks == pressed.daemon.module.stacks
        for role in remote.daemon.screens:
            assert remote.frame(role).tobytes() == pressed.frame(role).tobytes(), role
        # The deal is shown as a pressed deal is: the same table frames, one by one, from the gesture on;
        # without cards, what the presses showed (the last hands leaving the table, the strike).
        drawn = tables["remote"][from_remote:]
        if "card" in remote.kinds():
            assert drawn == tables["pressed"][from_deal[0] :] and len(drawn) >= 4, bets
        else:
            assert drawn == tables["pressed"][from_presses:], bets
    # The holds are timed by a thread of the board: the events are compared once the whole game is over.
    assert seen["remote"] == seen["pressed"]
    kinds = [e.kind for e in seen["remote"]]
    assert kinds.count("strike") >= 3 and kinds.count("round") == 2 and kinds.count("clear") >= 5
    assert remote.daemon.module.solved


def test_a_bet_while_a_round_is_dealt_is_refused_and_changes_nothing(rig_factory):
    rig = rig_factory(make_config(timing={"card_seconds": 5.0, "result_seconds": 5.0}))
    gm = GameMaster(rig.daemon)
    winner = gm.handle({"command": "hint"}).result(5)["result"]["winner"]
    loser = "banker" if winner == "player" else "player"  # a round that does not solve: its chips are cleared
    first = gm.handle(
        {"command": "bet", "bets": f"1000 on {loser}, 100 on tie" if winner != "tie" else "1000 on banker"}
    )
    second = gm.handle({"command": "bet", "bets": "25 on player"})  # queued behind the first: during its deal
    reply = second.result(10)
    assert not first.done(), "the first bet was answered before its result was on the table"
    assert reply == {
        "id": None,
        "ok": False,
        "command": "bet",
        "error": "a round is being dealt: bet again once the table is cleared",
    }
    stacks = rig.daemon.call(lambda: dict(rig.daemon.module.stacks), during_round=True).result(5)
    # The chips stay on the table until the round is cleared, as after a pressed deal.
    placed = {loser: [1000], "tie": [100]} if winner != "tie" else {"banker": [1000]}
    assert {area: chips for area, chips in stacks.items() if chips} == placed
    assert rig.daemon.dealing and not rig.daemon.module.solved
    assert [e.kind for e in rig.events].count("deal") == 1


def test_a_bet_on_a_closed_or_solved_table_is_ignored_like_its_presses(rig):
    rig.chips("tie", 5)
    gm = GameMaster(rig.daemon)
    assert gm.handle({"command": "disable"}).result(5)["ok"]
    before = rig.daemon.module.snapshot(), dict(rig.daemon.module.stacks)
    reply = bet(rig, {"banker": 30})
    assert reply["ok"] and reply["result"]["summary"] == "bet $30 on Banker: ignored deal: the table is closed"
    events = reply["result"]["events"]
    assert [e["input"] for e in events] == [
        "hold tie",
        "arrow right",
        "press banker",
        "arrow left",
        "press banker",
        "deal",
    ]
    assert {e["event"] for e in events} == {"ignored"}
    assert (rig.daemon.module.snapshot(), dict(rig.daemon.module.stacks)) == before
    gm.handle({"command": "enable"}).result(5)
    gm.handle({"command": "force_solve"}).result(5)
    reply = bet(rig, "bet 25 on banker")
    assert reply["result"]["summary"] == "bet $25 on Banker: ignored deal: the module is solved"
    assert rig.daemon.module.stacks["banker"] == []


def test_the_control_socket_and_the_shell_command(served, capsys):
    rig, sock = served
    code = main(["bet", "--socket", str(sock), "25", "on", "banker,", "$5", "on", "tie"])
    out = capsys.readouterr()
    assert code == 0 and out.err == ""
    assert out.out.startswith("bet $25 on Banker, $5 on Tie: ") and out.out.count("\n") == 1
    assert [e.kind for e in rig.events].count("deal") == 1
    before, count = rig.daemon.module.snapshot(), len(rig.events)
    code = main(["bet", "--socket", str(sock), "0", "on", "tie"])
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert out.err == "baccarat bet: error: bet: the amount on Tie 0 is below the smallest chip ($1)\n"
    rig.daemon.wait_idle()
    assert rig.daemon.module.snapshot() == before and len(rig.events) == count


def test_hostile_bets_on_the_socket_get_one_reply_each_and_change_nothing(served, caplog):
    rig, sock = served
    rig.chips("tie", 5)
    hostile = Hostile(2525)
    payloads = [{"command": "bet", "bets": hostile.bet_words()} for _ in range(300)]
    payloads += [{"command": "bet", "bets": {area: amount}} for area, amount in hostile_objects(hostile, 200)]
    payloads += [{"command": "bet"}, {"command": "bet", "bets": None}, {"command": "bet", "bets": [], "x": 1}]
    before, count = rig.daemon.module.snapshot(), len(rig.events)
    stacks = dict(rig.daemon.module.stacks)
    with caplog.at_level(logging.WARNING, logger="baccarat"), mqtt_tests_socket(sock) as stream:
        for payload in payloads:
            stream.write(json.dumps(payload).encode() + b"\n")
        stream.flush()
        replies = [json.loads(stream.readline()) for _ in payloads]
    rig.daemon.wait_idle()
    for payload, reply in zip(payloads, replies, strict=True):
        assert reply["ok"] is False and reply["command"] == "bet", payload
        assert reply["error"].startswith("bet: ") and reply["error"].isprintable() and len(reply["error"]) <= 240
    assert rig.daemon.module.snapshot() == before and len(rig.events) == count
    assert dict(rig.daemon.module.stacks) == stacks
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == len(payloads) and not [r for r in caplog.records if r.exc_info]


def hostile_objects(hostile: Hostile, count: int):
    """Areas and JSON amounts that are no bet: a bad area, or an amount no chips make."""
    amounts = [0, -5, 2.5, 1e3, "25", "$25", True, None, [25], {"a": 1}, 1_000_001, 10**19, -(10**19)]
    for _ in range(count):
        if hostile.rng.random() < 0.3:
            yield hostile.pick(["table", "Player x", "tie_", "", "b\u0430nker", "player__pair"]), 25
        else:
            yield hostile.pick(["banker", "tie", "player_pair", "Player Pair"]), hostile.pick(amounts)


def mqtt_tests_socket(path):
    import contextlib
    import socket

    @contextlib.contextmanager
    def opened():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(str(path))
            with s.makefile("rwb") as stream:
                yield stream

    return opened()


def test_mqtt_json_and_room_2_0_words(prop_factory, watcher_factory):
    rig = prop_factory(mqtt_extra={"room": "Casino", "prop": "Baccarat"})
    mqtt_tests.connected(rig)
    w = watcher_factory()
    rig.chips("player", 5)
    reply = w.command({"command": "bet", "bets": {"player": 25, "banker": 25}})
    assert reply["ok"] and reply["command"] == "bet"
    result = reply["result"]
    assert result["bets"] == {"player": 25, "banker": 25}
    strike = "STRIKE 1: bets on both Player ($25) and Banker ($25); no deal, the chips stay"
    assert result["summary"] == f"bet $25 on Player, $25 on Banker: {strike}"
    kinds = [e["event"] for e in result["events"]]
    assert kinds[:2] == ["clear", "denomination"] and kinds[-2:] == ["deal", "strike"]
    assert rig.daemon.module.strikes == 1
    w.wait_for(f"{mqtt_tests.P}/events", lambda p: json.loads(p).get("event") == "strike")
    refused = w.command({"command": "bet", "bets": {"tie": 0}})
    assert refused == {
        "id": refused["id"],
        "ok": False,
        "command": "bet",
        "error": "bet: the amount on Tie 0 is below the smallest chip ($1)",
    }
    # Room 2.0: the players' words as they wrote them; MESG says what they came to.
    inbox, outbox = "Room/Casino/Props/Baccarat/inbox", "Room/Casino/Props/Baccarat/outbox"
    start = len(w.on(outbox))
    mqtt_tests.settle(rig)
    w.publish(inbox, "bet 25 on player, 25 on banker")
    w.wait_after(outbox, start, lambda p: p == "DONE bet 25 on player, 25 on banker")
    mesg = [p for p in w.on(outbox)[start:] if p.startswith("MESG ")]
    assert mesg and mesg[-1].startswith("MESG bet $25 on Player, $25 on Banker: STRIKE ")
    start = len(w.on(outbox))
    w.publish(inbox, "bet 25 on tabel")
    w.wait_after(outbox, start, lambda p: p == "OMIT bet 25 on tabel")
    w.wait_after(outbox, start, lambda p: p.startswith('MESG bet: "tabel" is not a betting area'))
    # The words in a JSON command: the same reader as Room 2.0's, and the cards come.
    reply = w.command({"command": "bet", "bets": "bet $1,000 on banker, 5 on tie"})
    assert reply["ok"] and reply["result"]["bets"] == {"banker": 1000, "tie": 5}
    assert "round" in [e["event"] for e in reply["result"]["events"]]


def test_1000_hostile_bets_in_the_room_inbox_get_one_omit_each_and_change_nothing(unplugged, caplog):
    rig, _, room, sent = unplugged
    rig.chips("tie", 5)
    hostile = Hostile(2526)
    payloads = [hostile.bet_words().encode() for _ in range(1000)]
    payloads = [p if p.lower().startswith(b"bet") else b"bet " + p for p in payloads]  # the inbox needs its name
    before, count = rig.daemon.module.snapshot(), len(rig.events)
    with caplog.at_level(logging.INFO, logger="baccarat"):
        for payload in payloads:
            room._on_message(hostile_mqtt_tests.INBOX, payload)
        hostile_mqtt_tests.check_refused(rig, before, count, caplog, len(payloads))
    said = [text for topic, text in sent if topic == hostile_mqtt_tests.OUTBOX]
    assert len([t for t in said if t.lower().startswith("omit bet")]) == len(payloads)
    assert len([t for t in said if t.startswith("MESG bet: ")]) == len(payloads)
    assert not [t for t in said if t.startswith("DONE ")]
    assert rig.daemon.module.stacks["tie"] == [5]
