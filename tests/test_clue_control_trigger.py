"""Clue Control (issue 31, part 1): the prop as a Modbus TCP client ("trigger").

Clue Control's computer is pymodbus's own server (tests/clue_control_peer.py), on loopback,
so the prop's number is 1 (127.0.0.1's last octet) unless ``coil_base`` says otherwise. The
waits between retries go through an injected ``sleep`` that the test releases: no test
waits for the wall clock. A trigger waits up to PATIENCE for the answers of a Clue Control that
is up (the default 2 s is a margin a busy machine can miss: a late answer is written again), and
a test stops Clue Control only once the trigger has its answers (``settled``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import textwrap

import pytest

from firmware.services.clue_control.link import ClueControl
from firmware.services.clue_control.trigger import Trigger
from tests.clue_control_peer import PATIENCE, FakeClueControl, closed_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Gate:
    """An injected ``sleep``: records each wait and returns when the test opens the gate."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self._open = asyncio.Event()
        self.waiting = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.waiting.set()
        await self._open.wait()
        self._open.clear()

    async def next_wait(self) -> None:
        """Until the trigger waits (again)."""
        await asyncio.wait_for(self.waiting.wait(), PATIENCE)
        self.waiting.clear()

    def release(self) -> None:
        self._open.set()


def test_each_change_writes_its_coil_under_the_prop_s_octet() -> None:
    async def main():
        clue = await FakeClueControl().start()
        trigger = Trigger("127.0.0.1", clue.port, timeout=PATIENCE)
        trigger.set_solved(False)
        trigger.set_enabled(True)
        trigger.set_output(0, False)
        trigger.set_output(2, True)
        trigger.start()
        start = await clue.wait_writes(4)  # the state at the start, once
        trigger.set_solved(True)
        await clue.wait_writes(5)
        trigger.set_solved(True)  # no change: nothing written
        trigger.set_output(0, True)
        trigger.set_output(0, True)
        trigger.set_enabled(False)
        writes = await clue.wait_writes(7)
        await asyncio.wait_for(trigger.settled(), PATIENCE)  # Clue Control saw the write: its answer may still come
        await trigger.close()
        await clue.stop()
        return start, writes, trigger

    start, writes, trigger = asyncio.run(main())
    assert start == [(10, False), (11, True), (110, False), (112, True)]
    assert writes[4:] == [(10, True), (110, True), (11, False)]
    assert trigger.written == 7 and trigger.up is True and trigger.pending() == {}


def test_coil_base_replaces_the_octet() -> None:
    async def main():
        clue = await FakeClueControl().start()
        trigger = Trigger("127.0.0.1", clue.port, coil_base=123, timeout=PATIENCE)
        trigger.set_solved(True)
        trigger.set_enabled(True)
        trigger.set_output(1, True)
        trigger.start()
        writes = await clue.wait_writes(3)
        await trigger.close()
        await clue.stop()
        return writes

    assert asyncio.run(main()) == [(1230, True), (1231, True), (12311, True)]


def test_a_controller_that_is_down_costs_a_retry_with_backoff_and_gets_every_change_in_order(caplog) -> None:
    holder = closed_port()
    port = holder.getsockname()[1]

    async def main():
        gate = Gate()
        trigger = Trigger("127.0.0.1", port, sleep=gate, first_retry=0.5, longest_retry=4, timeout=PATIENCE)
        trigger.set_solved(False)
        trigger.set_enabled(True)
        trigger.set_output(0, False)
        trigger.start()
        for _ in range(6):  # refused six times: each wait doubles, up to the longest
            await gate.next_wait()
            if len(gate.waits) == 2:  # changes meanwhile: each is an edge, in order
                trigger.set_solved(True)
                trigger.set_output(0, True)
                trigger.set_output(0, False)  # on and off again: Clue Control sees it on, then off
                trigger.set_output(1, True)
            gate.release()
        await gate.next_wait()
        pending = trigger.pending()
        holder.close()
        clue = await FakeClueControl(port).start()  # Clue Control answers again
        gate.release()
        writes = await clue.wait_writes(7)
        await asyncio.wait_for(trigger.settled(), PATIENCE)
        await trigger.close()
        await clue.stop()
        return gate.waits, pending, writes, clue.writes, trigger

    with caplog.at_level(logging.INFO, logger="baccarat.clue_control"):
        waits, pending, writes, everything, trigger = asyncio.run(main())
    assert waits == [0.5, 1, 2, 4, 4, 4, 4]
    assert pending == {("enabled", 0): True, ("solved", 0): True, ("output", 0): False, ("output", 1): True}
    # the state at the start, then each change, in the order they came
    assert writes == [(10, False), (11, True), (110, False), (10, True), (110, True), (110, False), (111, True)]
    assert everything == writes
    assert trigger.up is True and trigger.pending() == {}
    messages = [r.getMessage() for r in caplog.records]
    down = [m for m in messages if "trying again" in m]
    assert len(down) == 1, messages
    assert down[0].startswith(f"Clue Control at 127.0.0.1:{port}: it does not accept a connection;")
    assert messages.count(f"Clue Control at 127.0.0.1:{port} answers again") == 1


def test_a_solve_and_a_reset_while_clue_control_is_down_reach_it_in_order() -> None:
    """Issue 41 item 1: a solve then a reset (and a second game solved) made while Clue Control
    was away reach it as edges, so its triggers on 10N fire; not as nothing."""

    async def main():
        gate = Gate()
        clue = await FakeClueControl().start()
        port = clue.port
        trigger = Trigger("127.0.0.1", port, sleep=gate)
        trigger.set_solved(False)
        trigger.start()
        await clue.wait_writes(1)
        await asyncio.wait_for(trigger.settled(), PATIENCE)
        await clue.stop()  # Clue Control goes away
        trigger.set_solved(True)  # solved,
        await gate.next_wait()
        trigger.set_solved(False)  # reset,
        trigger.set_solved(True)  # and the next game solved too
        trigger.set_solved(False)
        clue = await FakeClueControl(port).start()
        trigger.timeout = PATIENCE  # the new connection's answers: a busy machine may be slow
        gate.release()
        writes = await clue.wait_writes(4)
        await asyncio.wait_for(trigger.settled(), PATIENCE)
        await trigger.close()
        await clue.stop()
        return writes, trigger

    writes, trigger = asyncio.run(main())
    assert writes == [(10, True), (10, False), (10, True), (10, False)]
    assert trigger.edges() == [] and trigger.pending() == {} and trigger.dropped == 0


def test_past_the_queue_the_oldest_changes_are_dropped_with_one_line(caplog) -> None:
    holder = closed_port()
    port = holder.getsockname()[1]

    async def main():
        gate = Gate()
        trigger = Trigger("127.0.0.1", port, sleep=gate, max_edges=4, timeout=PATIENCE)
        trigger.set_enabled(True)
        trigger.start()
        await gate.next_wait()  # refused: Clue Control is down
        for _ in range(3):  # three games solved and reset: six edges, and the queue keeps four
            trigger.set_solved(True)
            trigger.set_solved(False)
        trigger.set_output(0, True)
        edges = trigger.edges()
        holder.close()
        clue = await FakeClueControl(port).start()
        gate.release()
        await asyncio.wait_for(trigger.settled(), PATIENCE)
        await trigger.close()
        await clue.stop()
        return edges, clue.writes, trigger

    with caplog.at_level(logging.INFO, logger="baccarat.clue_control"):
        edges, writes, trigger = asyncio.run(main())
    assert edges == [  # the four newest of eight
        (("solved", 0), False),
        (("solved", 0), True),
        (("solved", 0), False),
        (("output", 0), True),
    ]
    # the four newest edges in order, then the coil whose only change was dropped (enabled)
    assert writes == [(10, False), (10, True), (10, False), (110, True), (11, True)]
    assert trigger.dropped == 4 and trigger.pending() == {}
    messages = [r.getMessage() for r in caplog.records]
    dropped = [m for m in messages if "dropped" in m]
    assert dropped == [
        f"Clue Control at 127.0.0.1:{port}: more than 4 changes wait for it: the oldest are dropped "
        "(each coil's latest value is still written)",
        f"Clue Control at 127.0.0.1:{port} answers again (4 older changes were dropped)",
    ], messages


def test_a_controller_that_goes_away_and_returns_gets_what_changed_meanwhile() -> None:
    async def main():
        gate = Gate()
        clue = await FakeClueControl().start()
        port = clue.port
        trigger = Trigger("127.0.0.1", port, sleep=gate)
        trigger.set_solved(False)
        trigger.start()
        await clue.wait_writes(1)
        await asyncio.wait_for(trigger.settled(), PATIENCE)  # the write answered, not only seen
        await clue.stop()  # Clue Control closes
        trigger.set_solved(True)
        await gate.next_wait()  # the write on the dead connection waited its 2 s for an answer
        trigger.set_enabled(True)
        clue = await FakeClueControl(port).start()
        trigger.timeout = PATIENCE  # the new connection's answers: a busy machine may be slow
        gate.release()
        writes = await clue.wait_writes(2)
        await trigger.close()
        await clue.stop()
        return writes

    assert asyncio.run(main()) == [(10, True), (11, True)]


def test_a_refused_coil_is_logged_once_and_not_tried_again(caplog) -> None:
    async def main():
        clue = await FakeClueControl(coils=64).start()  # no coil 110 there
        trigger = Trigger("127.0.0.1", clue.port, timeout=PATIENCE)
        trigger.set_output(0, True)
        trigger.set_solved(True)
        trigger.start()
        writes = await clue.wait_writes(1)
        trigger.set_enabled(True)
        writes = await clue.wait_writes(2)
        await asyncio.wait_for(trigger.settled(), PATIENCE)  # Clue Control saw the write: its answer may still come
        await trigger.close()
        await clue.stop()
        return writes, trigger

    with caplog.at_level(logging.WARNING, logger="baccarat.clue_control"):
        writes, trigger = asyncio.run(main())
    assert writes == [(10, True), (11, True)]  # 110 was answered with an exception, never recorded
    assert trigger.pending() == {} and trigger.up is True
    refused = [r.getMessage() for r in caplog.records if "refused coil 110" in r.getMessage()]
    assert len(refused) == 1 and "(exception 2)" in refused[0]


def test_a_new_address_moves_the_coils_and_writes_them_all_again() -> None:
    addresses = iter(["10.0.0.5", "10.0.0.6"])

    async def main():
        gate = Gate()
        clue = await FakeClueControl().start()
        port = clue.port
        trigger = Trigger("127.0.0.1", port, sleep=gate, route=lambda host, port: next(addresses))
        trigger.set_solved(True)
        trigger.set_enabled(True)
        trigger.start()
        await clue.wait_writes(2)
        await asyncio.wait_for(trigger.settled(), PATIENCE)  # the writes answered, not only seen
        await clue.stop()  # the link drops; the prop comes back with another address
        trigger.set_solved(False)
        await gate.next_wait()
        clue = await FakeClueControl(port).start()
        trigger.timeout = PATIENCE  # the new connection's answers: a busy machine may be slow
        gate.release()
        writes = await clue.wait_writes(2)
        await trigger.close()
        await clue.stop()
        return writes

    assert asyncio.run(main()) == [(60, False), (61, True)]  # the change first, then what it never had


def test_the_link_writes_the_state_given_before_and_after_it_starts() -> None:
    async def serve():
        clue = await FakeClueControl().start()
        return clue

    loop = asyncio.new_event_loop()
    try:
        clue = loop.run_until_complete(serve())
        link = ClueControl(
            lambda commands, sender: None, ["lock", "siren"], port=None, controller=("127.0.0.1", clue.port)
        )
        link.update(solved=False, enabled=True, outputs={"lock": False, "siren": True, "nonesuch": True})
        link.start()
        first = loop.run_until_complete(clue.wait_writes(4))
        link.update(solved=True)
        link.update(outputs={"lock": True})
        writes = loop.run_until_complete(clue.wait_writes(6))
        link.stop()
        loop.run_until_complete(clue.stop())
    finally:
        loop.close()
    assert first == [(10, False), (11, True), (110, False), (111, True)]
    assert writes[4:] == [(10, True), (110, True)]


def test_binding_502_unprivileged_is_one_line_naming_the_capability() -> None:
    """The real thing: a process without CAP_NET_BIND_SERVICE asks for port 502."""
    script = textwrap.dedent(
        """
        import os, sys
        import firmware.services.clue_control.switch  # pymodbus, imported while it can be read
        from firmware.services.clue_control.link import ClueControl, ClueControlError
        if os.geteuid() == 0:
            os.setgroups([]); os.setgid(65534); os.setuid(65534)  # nobody: no capabilities left
        try:
            ClueControl(lambda c, s: None, [], host="127.0.0.1", port=502).start()
        except ClueControlError as error:
            print(error)
            sys.exit(2)
        print("listening")
        """
    )
    with open("/proc/sys/net/ipv4/ip_unprivileged_port_start") as sysctl:
        if int(sysctl.read()) <= 502:
            pytest.skip("this kernel lets every user bind port 502 (net.ipv4.ip_unprivileged_port_start)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stdout.strip() == (
        "Clue Control: cannot listen on 127.0.0.1 port 502: permission denied (a port below 1024 needs "
        "CAP_NET_BIND_SERVICE, which the service unit gives when [clue_control] port is below 1024; "
        "or choose a port from 1024)"
    )
    assert "Traceback" not in done.stderr
