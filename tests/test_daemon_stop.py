"""When the prop stops, nobody is left waiting: a command that waited for a deal's end, one
queued behind the stop, and one sent after it all fail at once with one clear line, rather
than leave their caller waiting for the 30 s command timeout (issue 26)."""

from __future__ import annotations

import threading

import pytest

from firmware.cli.gm import request
from firmware.errors import PropError
from tests.conftest import make_config

STOPPED = "the prop stopped before the command ran"


def _dealing(rig) -> None:
    """Deal (card_seconds is long) and return once the round is being shown."""
    rig.chips("player", 25)
    rig.driver.tap("deal")  # not rig.tap: its wait for the daemon would wait for the round's end
    assert rig.daemon.call(lambda: rig.daemon.dealing, during_round=True).result(5)


def _failed_at_stop(future) -> None:
    assert future.done(), "the command is still waiting"
    with pytest.raises(PropError, match=STOPPED):
        future.result(0)


def test_commands_waiting_for_the_deal_fail_when_the_prop_stops(rig_factory):
    rig = rig_factory(make_config(timing={"card_seconds": 5.0}))
    daemon = rig.daemon
    _dealing(rig)
    solve = daemon.apply(lambda module: module.force_solve())
    count = daemon.set_solved(3)
    daemon.call(lambda: None, during_round=True).result(5)  # both have reached the game thread
    assert not solve.done() and not count.done()  # they wait for the round's end
    daemon.stop()
    _failed_at_stop(solve)
    _failed_at_stop(count)
    assert not daemon.module.solved


def test_commands_queued_behind_the_stop_or_after_it_fail_at_once(rig):
    daemon = rig.daemon
    behind: list = []

    def stop_then_queue() -> None:  # on the game thread: the stop is queued before the next two
        daemon.stop()
        behind.append(daemon.apply(lambda module: module.force_solve()))
        behind.append(daemon.set_solved(2))

    daemon.call(stop_then_queue, during_round=True)
    daemon.wait_stopped(5)
    assert not daemon.running() and len(behind) == 2
    for future in behind:
        _failed_at_stop(future)
    _failed_at_stop(daemon.apply(lambda module: module.force_solve()))
    _failed_at_stop(daemon.call(lambda: None))
    _failed_at_stop(daemon.set_solved(4))
    assert not daemon.module.solved and daemon.module.edgework.solved == 0


def test_a_shell_command_sent_during_a_deal_is_answered_when_the_prop_stops(served):
    """Through the control socket: the reply says the prop stopped, and comes at once (the
    client below gives up after 10 s; the server's own limit is 30 s)."""
    rig, sock = served
    rig.daemon.card_seconds = 5.0
    _dealing(rig)
    replies: list = []
    sent = threading.Thread(target=lambda: replies.append(request(sock, {"command": "force_solve"}, timeout=10)))
    sent.start()
    rig.daemon.stop()
    sent.join(15)
    assert replies and replies[0]["ok"] is False and replies[0]["error"] == STOPPED, replies
    # A command that comes after the stop, while the socket still serves: the same answer.
    reply = request(sock, {"command": "set_solved", "solved": 3}, timeout=10)
    assert reply["ok"] is False and reply["error"] == STOPPED
    assert not rig.daemon.module.solved
