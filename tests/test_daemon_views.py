"""Every display shows what the daemon's scene says it shows, whatever came before.

A draw builds only the views of the displays the prop has, and keeps a view whose inputs did not
change (firmware/game/presentation.py, ``Presentation.view``); ``Daemon.picture`` draws from the whole
scene, made afresh. After every moment of a game (presses, arrows, each step of a deal on the
original's timeline, a forced solve, a reset, the table closed and opened, identify) the picture
each display got is the one ``picture`` draws now, and between rounds ``Daemon.shown`` (the same
object while nothing it is made of changed) is the module's own game.
"""

from __future__ import annotations

from PIL import ImageChops

from firmware.game.scene import Shown
from firmware.simulator.pins import ManualClock
from tests.conftest import make_config

STEP = 1 / 16


def check(rig) -> None:
    daemon = rig.daemon
    daemon.wait_idle() if not daemon.dealing else daemon.catch_up()
    for role, screen in daemon.screens.items():
        wanted = daemon.call(lambda role=role: daemon.picture(role), during_round=True).result(5)
        got = screen.last_frame
        assert got is not None and ImageChops.difference(got, wanted).getbbox() is None, role
    if not daemon.dealing:  # what the players see is the module's own game between rounds
        assert daemon.call(daemon.shown).result(5) == daemon.call(lambda: Shown.of(daemon.module)).result(5)


def test_each_display_shows_the_scene_at_every_moment_of_a_game(rig_factory):
    clock = ManualClock(0.0)
    rig = rig_factory(make_config(), schedule_clock=clock)
    daemon = rig.daemon
    check(rig)
    for area in ("player", "tie", "player", "banker_pair"):
        rig.tap(area)
        check(rig)
    for arrow in ("right", "right", "left", "right"):
        rig.tap(arrow)
        check(rig)
    winner = daemon.call(lambda: daemon.module.next_round().winner).result(5)
    daemon.apply(lambda m: m.reset()).result(5)
    check(rig)
    rig.chips("banker" if winner == "player" else "player", 25)  # a lost round: a strike at the payout
    rig.tap("deal")
    while daemon.dealing:  # each card landing and turning, the result, the clearing
        clock.advance(STEP)
        check(rig)
    check(rig)
    rig.tap("tie")  # the last hands leave the table: its words show (closed, solved)
    check(rig)
    for produce in (
        lambda m: m.set_enabled(False),
        lambda m: m.set_enabled(True),
        lambda m: m.force_solve(),
        lambda m: m.reset(),
    ):
        daemon.apply(produce).result(5)
        check(rig)
    daemon.identify(0.5).result(5)
    check(rig)
    clock.advance(1.0)
    daemon.catch_up()
    check(rig)
