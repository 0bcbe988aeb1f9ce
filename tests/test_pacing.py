"""The original's deal, moment by moment (issue 25, part 1), on the daemon's own clock.

Each test moves a :class:`ManualClock` that only the daemon's schedule reads, a sixteenth of a
second at a time, and reads the moment of every frame and every shown event from that clock
(an ``on_frame`` and an ``on_shown`` hook), so the timeline is asserted exactly, without wall
time. The spec's timeline (module-facts.md): cards 1-4 land face down at 0, 0.25, 0.5, 0.75 s
and each turns 1 s after it lands; a third card lands sideways at 2.5 s (the banker's 2 s after
the previous step); the bets are paid at 2.75, 4.75 or 6.75 s; the table clears 1.5 s later.
"""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageChops

from baccarat_core import events as ev
from firmware.game.pacing import deal_timeline
from firmware.render import BetsView, TableView, render_bets, render_placard, render_table
from firmware.render.canvas import BACK_PATTERNS, DECK_RGB
from firmware.render.placard import PLACARD_RGB
from firmware.room.commands import GameMaster
from firmware.simulator.pins import ManualClock
from firmware.system.sdnotify import status_line
from tests import test_mqtt
from tests.conftest import make_config, spi_display
from tests.pixels import find_text

broker = test_mqtt.broker  # the fixtures of a real Mosquitto
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory

TICK = 1 / 16  # every moment of the original's timeline is a multiple of it: exact in binary
P, B = "player", "banker"

#: The spec's timeline for each kind of round: (cards, landings, payout, clearing).
SPEC = {
    "four cards": ([P, B, P, B], [0, 0.25, 0.5, 0.75], 2.75, 4.25),
    "player draws": ([P, B, P, B, P], [0, 0.25, 0.5, 0.75, 2.5], 4.75, 6.25),
    "banker draws": ([P, B, P, B, B], [0, 0.25, 0.5, 0.75, 2.5], 4.75, 6.25),
    "both draw": ([P, B, P, B, P, B], [0, 0.25, 0.5, 0.75, 2.5, 4.5], 6.75, 8.25),
}


# -- the timeline alone ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SPEC)
def test_the_timeline_is_the_originals(kind):
    hands, lands, paid, cleared = SPEC[kind]
    beats = deal_timeline(hands, solved=False)
    assert [(b.at, b.card) for b in beats if b.what == "land"] == list(zip(lands, range(len(hands)), strict=True))
    assert [b.at for b in beats if b.what == "turn"] == [t + 1 for t in lands]
    assert [(b.at, b.what) for b in beats if b.what in ("pay", "clear")] == [(paid, "pay"), (cleared, "clear")]
    assert [b.at for b in beats] == sorted(b.at for b in beats)


def test_a_solve_ends_the_round_at_the_payout_and_a_restack_comes_first():
    beats = deal_timeline([P, B, P, B], solved=True, restack=True)
    assert [(b.at, b.what) for b in beats[:3]] == [(0.5, "rebuild"), (1.0, "restacked"), (1.0, "land")]
    assert [(b.at, b.what) for b in beats[-2:]] == [(3.75, "pay"), (3.75, "clear")]


def test_the_quick_pacing_is_todays():
    beats = deal_timeline([P, B, P, B, P], solved=False, pacing="quick", card_seconds=0.6, result_seconds=1.5)
    assert [(b.at, b.what) for b in beats] == [
        (0.0, "turn"),
        (0.6, "turn"),
        (1.2, "turn"),
        (pytest.approx(1.8), "turn"),
        (2.4, "turn"),
        (3.0, "pay"),
        (4.5, "clear"),
    ]
    with pytest.raises(ValueError, match="unknown pacing 'slow'"):
        deal_timeline([P, B, P, B], solved=False, pacing="slow")


# -- the daemon on the clock ---------------------------------------------------------------------------


class Table:
    """A rig whose schedule reads a manual clock, with every frame and shown event stamped by it."""

    def __init__(self, rig_factory, *, first_color: str = "red", **sections: Any) -> None:
        self.clock = ManualClock(0.0)
        config = make_config(timing={"pacing": "original"}, deck={"first_color": first_color}, **sections)
        self.rig = rig_factory(config, schedule_clock=self.clock)
        self.daemon = self.rig.daemon
        self.frames: list[tuple[float, str, Image.Image]] = []
        self.shown: list[tuple[float, ev.Event]] = []
        self.gesture = 0.0
        self.daemon.on_frame.append(lambda role, image: self.frames.append((self.clock(), role, image)))
        self.daemon.on_shown.append(lambda event: self.shown.append((self.clock(), event)))

    def bet(self, area: str, *values: int) -> None:
        self.rig.chips(area, *values)

    def deal(self) -> None:
        """The gesture, handled at this moment of the clock (which the tap does not move)."""
        self.frames.clear()
        self.shown.clear()
        self.gesture = self.clock()
        self.rig.driver.tap("deal")
        self.daemon.catch_up()

    def until(self, seconds: float) -> None:
        """Move the clock to ``seconds`` after the gesture, a tick at a time."""
        while self.clock() - self.gesture < seconds:
            self.clock.advance(TICK)
            self.daemon.catch_up()

    def to_the_end(self) -> float:
        """Move the clock until the round is over; returns when that was (seconds after the gesture)."""
        while self.read(lambda: self.daemon.dealing):
            self.clock.advance(TICK)
            self.daemon.catch_up()
        return self.clock() - self.gesture

    def read(self, fn):
        return self.daemon.call(fn, during_round=True).result(5)

    def times(self, role: str) -> list[float]:
        return [at - self.gesture for at, r, _ in self.frames if r == role]

    def images(self, role: str) -> list[Image.Image]:
        return [image for _, r, image in self.frames if r == role]

    def when(self, kind: str) -> list[float]:
        return [at - self.gesture for at, event in self.shown if event.kind == kind]

    def settled(self) -> list[tuple[float, str]]:
        """A list that gets (seconds after the gesture, kind) of each event handed to the services."""
        handed: list[tuple[float, str]] = []
        self.daemon.on_settled.append(
            lambda events, module: handed.extend((self.clock() - self.gesture, e.kind) for e in events)
        )
        return handed


def _view(table: Table) -> Any:
    return table.read(lambda: table.daemon.scene())


def _losing_side(table: Table) -> str:
    game = table.read(table.daemon.module.next_round)
    assert game.winner != "tie"
    return "banker" if game.winner == "player" else "player"


@pytest.mark.parametrize(("color", "kind"), [("red", "both draw"), ("silver", "banker draws")])
def test_a_deal_lands_face_down_and_turns_on_the_originals_timeline(rig_factory, color, kind):
    """Red's first round: six cards, banker wins; silver's: the banker alone draws. A losing bet."""
    hands, lands, paid, cleared = SPEC[kind]
    table = Table(rig_factory, first_color=color)
    side = _losing_side(table)
    table.bet(side, 25)
    table.deal()
    assert table.to_the_end() == cleared  # inputs locked until the clearing
    turns = [t + 1 for t in lands]
    assert table.times("table") == sorted([*lands, *turns, paid])  # a card back, a flip, the result
    assert table.when("card_down") == lands and table.when("card") == turns
    assert [e.hand for _, e in table.shown if isinstance(e, ev.CardDealt)] == hands
    sideways = [e.sideways for _, e in table.shown if isinstance(e, ev.CardLanded)]
    assert sideways == [False] * 4 + [True] * (len(hands) - 4)
    for kind_ in ("round", "strike"):
        assert table.when(kind_) == [paid]
    assert table.when("chips_cleared") == [cleared]
    assert table.times("bets") == [paid]  # the losing bet leaves at the payout
    # Each frame is the scene of its moment: the first a card back, the next-to-last face up.
    first = table.images("table")[0]
    left = 52 - 1
    assert (
        first.tobytes()
        == render_table(TableView(color, left, status="DEALING", player_down=1), (128, 64), "1").tobytes()
    )
    assert find_text(table.images("table")[-1], "BANKER WINS" if side == "player" else "PLAYER WINS")


def test_inputs_are_locked_from_the_gesture_until_the_clearing(rig_factory):
    table = Table(rig_factory)
    side = _losing_side(table)
    table.bet(side, 25)
    table.deal()
    table.until(4.25)  # the red deck's first round clears at 8.25
    table.rig.driver.tap("tie")
    table.daemon.catch_up()
    table.until(8.0)
    table.rig.driver.tap("tie")
    table.daemon.catch_up()
    assert table.read(lambda: table.daemon.module.stacks["tie"]) == []
    table.until(8.25)
    assert not table.read(lambda: table.daemon.dealing)
    table.rig.tap("tie")
    assert table.daemon.module.stacks["tie"] == [25]


def test_losing_bets_leave_at_the_payout_winning_ones_and_pushes_at_the_clearing(rig_factory):
    """The red deck's sixth round is a tie without a banker pair: the Player bet pushes and stays
    until the clearing, the Banker Pair bet loses and leaves at the payout (-$5: a strike, no solve)."""
    table = Table(rig_factory)
    for _ in range(5):  # five rounds on $25 bets that lose or push: strikes do not matter here
        game = table.read(table.daemon.module.next_round)
        table.bet("player" if game.winner != "player" else "banker", 25)
        table.deal()
        table.to_the_end()
    game = table.read(table.daemon.module.next_round)
    assert game.winner == "tie" and game.player_pair() and not game.banker_pair()
    table.bet("player", 25)  # pushes
    table.bet("banker_pair", 5)  # loses $5
    table.deal()
    paid = SPEC["both draw"][2]
    table.until(paid - TICK)
    before = _view(table).bets.stacks
    table.until(paid)
    at_payout = _view(table).bets.stacks
    assert before["banker_pair"] == (5,) and at_payout["banker_pair"] == ()  # the loser is taken
    assert at_payout["player"] == (25,)  # the push stays
    assert table.to_the_end() == paid + 1.5
    assert _view(table).bets.stacks["player"] == ()
    assert table.times("bets") == [paid, paid + 1.5]


def test_a_winning_round_stops_at_the_payout_and_its_losing_side_bet_is_taken(rig_factory):
    table = Table(rig_factory)
    game = table.read(table.daemon.module.next_round)  # red's first: banker wins with six cards
    table.bet(game.winner, 25)
    table.bet("tie", 5)  # loses
    master = GameMaster(table.daemon)
    table.deal()
    paid = SPEC["both draw"][2]
    table.until(paid - TICK)  # the solve is decided, not shown: armed everywhere, the light off
    assert table.read(lambda: table.daemon.module.solved)
    assert not table.read(lambda: table.daemon.shown().solved) and not table.daemon.board.status.green.value
    assert table.read(master.document)["status"] == "armed"
    assert table.to_the_end() == paid  # solved: no clearing, the round ends at the payout
    assert table.read(master.document)["status"] == "solved" and table.daemon.board.status.green.value
    assert table.when("solved") == [paid]
    stacks = _view(table).bets.stacks
    assert stacks[game.winner] == (25,) and stacks["tie"] == ()
    assert table.read(lambda: table.daemon.module.stacks["tie"]) == [5]  # the module keeps it; the display does not
    table.rig.tap("player")  # ignored: solved; the tie bet does not come back
    assert _view(table).bets.stacks["tie"] == ()


def test_a_restack_is_shown_the_strike_then_the_stack_rebuilt_then_the_cards(rig_factory):
    table = Table(rig_factory)
    side = _losing_side(table)
    table.bet(side, 1, 25)  # $25 on $1: out of order
    table.deal()
    assert table.when("strike") == [0.0]  # the stack-order strike at the gesture, as the original
    assert table.read(lambda: table.daemon.shown().strikes) == 1
    assert _view(table).bets.stacks[side] == (1, 25) and _view(table).bets.restacking == (side,)
    table.until(0.5)
    assert table.when("reorder") == [0.5]
    assert _view(table).bets.stacks[side] == (25, 1) and _view(table).bets.restacking == (side,)
    table.until(1.0)
    assert _view(table).bets.restacking == ()
    table.to_the_end()
    bets_at = dict(zip(table.times("bets"), table.images("bets"), strict=True))
    assert sorted(bets_at) == [0.0, 0.5, 1.0, 7.75]  # marked as placed, rebuilt, done, the loss
    marked = render_bets(BetsView({side: (1, 25)}, 25, True, True, (side,)), (128, 64), "1")
    assert bets_at[0.0].tobytes() == marked.tobytes()
    assert ImageChops.difference(bets_at[0.0], bets_at[0.5]).getbbox() is not None
    assert table.when("card_down")[0] == 1.0  # the cards come after the re-stacking
    assert table.when("strike") == [0.0, 7.75]


def test_nothing_gives_the_result_away_before_the_payout(rig_factory):
    """The strike light, the strike count of every view, the state document, the events handed to
    the services and a status command during the deal: all still say nothing until 6.75 s."""
    table = Table(rig_factory)
    side = _losing_side(table)
    master = GameMaster(table.daemon)
    settled = table.settled()
    table.bet(side, 25)
    table.read(master.document)
    table.deal()
    red = table.daemon.board.status.red
    paid = SPEC["both draw"][2]
    for moment in (0.0, 1.0, 3.5, paid - TICK):
        table.until(moment)
        assert not red.value, f"the strike light at {moment} s"
        assert table.read(lambda: table.daemon.shown().strikes) == 0
        assert table.read(master.document)["strikes"] == 0
        status = master.handle({"command": "status"}).result(5)["result"]
        assert status["strikes"] == 0 and status["bets"][side] == 25
    assert table.read(lambda: table.daemon.module.strikes) == 1  # the module knows: the state file saved it
    assert [kind for _, kind in settled if kind in ("round", "strike")] == []
    table.until(paid)
    assert red.value and table.read(master.document)["strikes"] == 1
    assert (paid, "strike") in settled and (paid, "round") in settled
    assert all(at == paid for at, kind in settled if kind in ("round", "strike"))
    cards = [at for at, kind in settled if kind == "card"]
    assert cards == [1, 1.25, 1.5, 1.75, 3.5, 5.5]  # each card goes out as it turns face up


def test_a_command_that_deals_is_answered_once_the_result_is_shown(rig_factory):
    """A command's reply lists its events: the reply of a deal waits for its payout."""
    table = Table(rig_factory)
    side = _losing_side(table)
    table.bet(side, 25)
    from baccarat_core.inputs import Deal

    reply = table.daemon.apply(lambda module: module.handle(Deal()))
    table.daemon.catch_up()
    table.gesture = table.clock()
    table.until(6.75 - TICK)
    assert not reply.done()
    table.until(6.75)
    assert [e.kind for e in reply.result(5)][-2:] == ["round", "strike"]


def test_the_arrows_click_on_every_press_at_either_end_and_while_locked(rig_factory):
    table = Table(rig_factory)
    clicks = lambda: [e.direction for _, e in table.shown if isinstance(e, ev.ArrowClicked)]  # noqa: E731
    table.rig.tap("left")  # $1 already: nothing changes, it still clicks
    assert clicks() == ["left"] and table.daemon.module.denomination == 1
    table.bet(_losing_side(table), 25)
    table.deal()
    table.until(1.0)
    table.rig.driver.tap("right")  # locked
    table.daemon.catch_up()
    assert clicks() == ["right"] and table.read(lambda: table.daemon.module.denomination) == 25
    published = [e for _, e in table.shown if not e.published]
    assert {e.kind for e in published} == {"card_down", "click"}


def test_the_sounds_follow_the_deals_moments(rig_factory):
    """A deal, a flip, the payout and the clearing, each at its moment (the planner the sound
    listener and the console use, fed as the daemon shows)."""
    from firmware.sound.cues import CuePlanner

    table = Table(rig_factory)
    side = _losing_side(table)
    table.bet(side, 25)
    table.bet("tie", 5)
    table.deal()
    table.to_the_end()
    planner = CuePlanner()
    cues = [(at, cue) for at, event in table.shown for offset, cue in planner.for_event(event) if offset == 0]
    lands, turns = SPEC["both draw"][1], [t + 1 for t in SPEC["both draw"][1]]
    assert [at for at, cue in cues if cue == "card_deal"] == lands
    assert [at for at, cue in cues if cue == "card_flip"] == turns
    assert [(at, cue) for at, cue in cues if cue not in ("card_deal", "card_flip")] == [
        (6.75, "chip_clear"),  # every bet lost: taken at the payout
        (6.75, "strike"),
    ]  # and nothing at the clearing: no chip was left


def test_a_new_deck_comes_at_the_clearing(rig_factory):
    """The red deck runs low in its sixth round: the new deck appears at that round's clearing."""
    table = Table(rig_factory)
    for _ in range(8):
        game = table.read(table.daemon.module.next_round)
        table.bet("player" if game.winner != "player" else "banker", 25)
        table.deal()
        end = table.to_the_end()
        if table.when("deck"):
            break
    assert table.when("deck") == [end] == table.when("chips_cleared")
    assert table.times("table")[-1] == end  # the table's header names the new deck


# -- the pictures -------------------------------------------------------------------------------------


def test_each_deck_has_a_card_back_of_its_own_on_a_monochrome_display():
    backs = {}
    for color in BACK_PATTERNS:
        image = render_table(TableView(color, 51, status="DEALING", player_down=1), (128, 64), "1")
        backs[color] = image.crop((0, 24, 12, 34)).tobytes()
    assert len(set(backs.values())) == 4  # four patterns
    face = render_table(TableView("red", 51, ("KD",), (), 0, status="DEALING"), (128, 64), "1")
    down = render_table(TableView("red", 51, status="DEALING", player_down=1), (128, 64), "1")
    assert ImageChops.difference(face, down).getbbox() is not None


def _ink(view: TableView, without: TableView) -> tuple[int, int, int, int]:
    """Where ``view`` differs from ``without`` on a 128x64 table (the box of one card)."""
    box = ImageChops.difference(render_table(view, (128, 64), "1"), render_table(without, (128, 64), "1")).getbbox()
    assert box is not None
    return box


def test_a_face_down_third_card_lies_sideways_and_a_face_up_one_is_framed():
    def hand(cards: tuple[str, ...], down: int = 0) -> TableView:
        return TableView("red", 50, cards, (), 5 if cards else None, status="DEALING", player_down=down)

    x0, y0, x1, y1 = _ink(hand(("KD",), 1), hand(("KD",)))  # a second card, face down: upright
    assert y1 - y0 > x1 - x0
    x0, y0, x1, y1 = _ink(hand(("KD", "5C"), 1), hand(("KD", "5C")))  # a third: sideways
    assert x1 - x0 > y1 - y0
    _, plain_top, _, plain_bottom = _ink(hand(("KD", "6H")), hand(("KD",)))
    _, top, _, bottom = _ink(hand(("KD", "5C", "6H")), hand(("KD", "5C")))  # face up, framed
    assert top < plain_top and bottom > plain_bottom


@pytest.mark.parametrize("minimum", sorted(PLACARD_RGB))
def test_the_colour_placard_takes_its_minimums_colour_and_the_others_stay(minimum):
    from baccarat_core import TableLimits

    limits = TableLimits(minimum, minimum * 40)
    colour = render_placard(limits, (128, 128), "RGB", colour=True)
    assert colour.getpixel((64, 4)) == PLACARD_RGB[minimum]
    letters = colour.convert("L").point(lambda v: 255 if v > 150 else 0)  # the white line on the colour
    assert find_text(letters, "TABLE LIMITS")
    grey = render_placard(limits, (256, 64), "RGB")  # a greyscale SSD1322: as before, black
    assert grey.getpixel((128, 2)) == (0, 0, 0)
    mono = render_placard(limits, (128, 64), "1")
    assert mono.tobytes() == render_placard(limits, (128, 64), "1", colour=True).tobytes()
    assert DECK_RGB  # the deck colours are the card backs'; the placard's are its own


def test_the_daemon_gives_the_ssd1351_placard_its_colour(rig_factory):
    displays = [
        spi_display("placard", "ssd1351", (128, 128), device=0, dc=24, reset=25),
        {"role": "table", "driver": "ssd1306", "interface": "i2c", "address": 0x3D, "width": 128, "height": 64},
        spi_display("bets", "ssd1322", (256, 64), device=1, dc=14, reset=18),
    ]
    rig = rig_factory(make_config(displays=displays))  # limits $25 - $1000: green
    assert rig.frame("placard").getpixel((64, 4)) == PLACARD_RGB[25]


# -- what goes out: MQTT events and state, Room 2.0 requests (a real Mosquitto) ------------------------


def test_the_strike_goes_out_on_mqtt_and_room_2_0_with_the_result_not_the_gesture(prop_factory, watcher_factory):
    """The events, the retained state and the Room 2.0 requests of a losing deal: the deal's at the
    gesture, each card as it turns, the round and the strike (and the alarm request) at 6.75 s. An
    absence is read after a reply that the prop sends after everything it handed over before."""
    import json

    from tests.test_mqtt import P, connected

    clock = ManualClock(0.0)
    requests = {"deal": ["PROG dealer:start"], "strike": ["PROG alarm:start"]}
    rig = prop_factory(
        mqtt_extra={"room": "Casino", "room_requests": requests},
        timing={"pacing": "original"},
        schedule_clock=clock,
    )
    watcher = watcher_factory()
    connected(rig)
    from tests.test_room2_requests import room_of

    assert room_of(rig).link.listening.wait(5)
    game = rig.daemon.module.next_round()
    rig.chips("banker" if game.winner == "player" else "player", 25)
    rig.driver.tap("deal")
    rig.daemon.catch_up()
    while clock() < 6.75 - TICK:
        clock.advance(TICK)
        rig.daemon.catch_up()

    status = watcher.command({"command": "status"})  # answered after every event handed over before it
    assert status["result"]["strikes"] == 0
    kinds = [json.loads(text)["event"] for text in watcher.on(f"{P}/events")]
    assert "deal" in kinds and kinds.count("card") == 6 and "round" not in kinds and "strike" not in kinds
    assert json.loads(watcher.on(f"{P}/state")[-1])["strikes"] == 0
    outbox = "Room/Casino/Props/baccarat/outbox"
    watcher.publish("Room/Casino/Props/baccarat/inbox", "@PING")
    watcher.wait_for(outbox, lambda text: text == "PONG")
    assert "PROG dealer:start" in watcher.on(outbox) and "PROG alarm:start" not in watcher.on(outbox)
    assert not [line for line in watcher.on(outbox) if line.startswith("DATA") and "strikes=1" in line]

    clock.advance(TICK)  # 6.75 s: the payout
    rig.daemon.catch_up()
    strike = json.loads(watcher.wait_for(f"{P}/events", lambda text: json.loads(text)["event"] == "strike"))
    assert strike["reason"] == "loss"
    watcher.wait_for(f"{P}/state", lambda text: json.loads(text)["strikes"] == 1)
    watcher.wait_for(outbox, lambda text: text == "PROG alarm:start")
    watcher.wait_for(outbox, lambda text: text.startswith("DATA") and "strikes=1" in text)


def test_the_console_its_log_state_and_webhook_events_come_with_the_result(rig_factory):
    """The console's backend (its log, the state the page and the room controllers read, the events
    the webhooks get): nothing of the round before the payout, and no line for a card face down."""
    from firmware.web.backend import DaemonBackend

    table = Table(rig_factory)
    side = _losing_side(table)
    backend = table.read(lambda: DaemonBackend(table.daemon, GameMaster(table.daemon), name="t"))
    hooked: list[tuple[float, str]] = []
    backend.subscribe_events(lambda events: hooked.extend((table.clock() - table.gesture, e["event"]) for e in events))
    table.bet(side, 25)
    backend.set_watching(True)  # a page is open: its answer panel advises this round
    advice = table.read(lambda: backend.page().answer)["hint"]
    table.deal()
    table.until(0.5)
    assert backend.page().answer["hint"] == advice  # no answer for the next round ahead of the table
    table.until(6.75 - TICK)
    assert backend.page().answer["hint"] == advice
    log = [entry["kind"] for entry in backend.log_between(0, 10**9)]
    assert "deal" in log and "card" in log and "strike" not in log and "round" not in log
    assert backend.controller_state()["strikes"] == 0 and backend.page().state["strikes"] == 0
    assert "strike" not in [kind for _, kind in hooked]
    table.until(6.75)
    assert (6.75, "strike") in hooked and backend.controller_state()["strikes"] == 1
    assert backend.page().answer["hint"] != advice  # the next round's, with the result
    log = [entry["kind"] for entry in backend.log_between(0, 10**9)]
    assert log[-2:] == ["round", "strike"] and "card_down" not in log and "click" not in log


def test_the_service_managers_status_line_says_the_strike_with_the_result(mock_factory, short_dir):
    """``systemctl status`` shows the strikes too: none while the deal is dealt, one at the payout."""
    import random

    from baccarat_core.inputs import Arrow, Deal, Press
    from firmware.app import build_daemon, close_daemon
    from firmware.devices.displays import open_dummy_device
    from firmware.system import sdnotify
    from tests.notify_listener import NotifyListener

    clock = ManualClock(0.0)
    listener = NotifyListener(str(short_dir / "notify"))
    daemon = build_daemon(
        make_config(timing={"pacing": "original"}, state={"file": ""}),
        pin_factory=mock_factory,
        device_factory=open_dummy_device,
        rng=random.Random(1),
        schedule_clock=clock,
    )
    assert sdnotify.attach(daemon, {"NOTIFY_SOCKET": listener.address}) is not None
    daemon.start()
    try:
        listener.wait_for("READY")
        side = "banker" if daemon.module.next_round().winner == "player" else "player"
        daemon.apply(lambda m: [*m.handle(Arrow("right")), *m.handle(Arrow("right")), *m.handle(Press(side))])
        daemon.apply(lambda m: m.handle(Deal()))  # answered at the payout: not waited for here
        daemon.catch_up()
        while clock() < 6.75 - TICK:
            clock.advance(TICK)
            daemon.catch_up()
        listener.drain()  # each status line was sent on the game thread before catch_up returned
        assert [m.fields["STATUS"] for m in listener.messages if "STATUS" in m.fields] == ["armed, 0 strikes"]
        clock.advance(TICK)
        daemon.catch_up()
        listener.wait_for("STATUS", count=2)
        assert listener.messages[-1].fields["STATUS"] == "armed, 1 strike"
    finally:
        daemon.stop()
        close_daemon(daemon)
        listener.close()


def test_a_bet_commands_deal_is_shown_as_a_pressed_deal_and_answered_with_its_result(rig_factory):
    """Remote play (the ``bet`` command): from the gesture on, the same frames at the same moments
    as the same bet pressed on the pins; its reply comes with the result, not before."""
    from firmware.app import close_daemon

    pressed = Table(rig_factory)
    side = _losing_side(pressed)
    pressed.bet(side, 25)
    pressed.deal()
    pressed.to_the_end()
    pressed.daemon.stop()
    close_daemon(pressed.daemon)  # its pins free for the second prop, on the same deck
    remote = Table(rig_factory)
    master = GameMaster(remote.daemon)
    remote.frames.clear()
    remote.shown.clear()
    remote.gesture = remote.clock()
    reply = master.handle({"command": "bet", "bets": {side: 25}})
    remote.daemon.catch_up()
    remote.until(6.75 - TICK)
    assert not reply.done()
    remote.until(6.75)
    assert reply.result(5)["ok"]
    remote.to_the_end()
    for table in (pressed, remote):
        assert table.times("table") == [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2.5, 3.5, 4.5, 5.5, 6.75]
    assert [i.tobytes() for i in pressed.images("table")] == [i.tobytes() for i in remote.images("table")]
    after = [(e.kind, at) for at, e in pressed.shown if e.kind != "click"]
    assert [(e.kind, at) for at, e in remote.shown if at > 0 or e.kind in ("deal", "card_down")] == [
        (kind, at) for kind, at in after if at > 0 or kind in ("deal", "card_down")
    ]


def test_an_explosion_at_the_strike_limit_comes_with_the_losing_result(rig_factory):
    """A bomb with one strike allowed: the losing round's strike explodes it, and every view (the
    displays, the status light, the state document, the status line, the events handed on) says
    so at the payout, not at the gesture."""
    table = Table(rig_factory, bomb={"strike_limit": 1})
    side = _losing_side(table)
    master = GameMaster(table.daemon)
    settled = table.settled()
    table.bet(side, 25)
    table.deal()
    assert table.read(lambda: table.daemon.module.exploded) == "strikes"  # decided (and saved) at the gesture
    paid = SPEC["both draw"][2]
    for moment in (0.0, 2.0, paid - TICK):
        table.until(moment)
        scene = _view(table)
        assert scene.exploded is None and scene.view("table") == scene.table, f"EXPLODED shown at {moment} s"
        document = table.read(master.document)
        assert document["status"] == "armed" and document["exploded"] is None
        assert not table.daemon.board.status.red.value
        line = table.read(lambda: status_line(table.daemon.module, table.daemon.screens, table.daemon.shown()))
        assert line.startswith("armed")
    assert "exploded" not in [kind for _, kind in settled]
    table.until(paid)
    scene = _view(table)
    assert scene.exploded is not None and scene.exploded.cause == "strikes"
    assert table.read(master.document)["status"] == "exploded"
    assert table.daemon.board.status.red.value
    assert (paid, "exploded") in settled
