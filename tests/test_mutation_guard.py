"""The console's connection guard exactly at its caps (issue 44, item 8): the connection that
reaches a cap is the one that makes room or is refused, never the one after it; untrusted requests
at their limit, with every connection reserved, between addresses holding as many; a game master's
idle connection kept over a stranger's. ``scripts/mutants_edges.toml`` has the mutants.

The transport is what the guard asks of asyncio's (its peer, to be closed), as in
tests/test_web_guard.py; the timers are a real event loop's, never run."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest

from firmware.system.noise import Noise
from firmware.web.guard import MAX_REFUSED, ConnectionGuard
from tests.test_web_guard import Transport


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    made = asyncio.new_event_loop()
    try:
        yield made
    finally:
        made.close()


def guard_on(loop: asyncio.AbstractEventLoop, **limits: int) -> ConnectionGuard:
    guard = ConnectionGuard(Noise(logging.getLogger("test.guard")), **limits)
    guard._loop = loop  # what install() sets, without a server
    return guard


def open_from(guard: ConnectionGuard, address: str) -> tuple[object, Transport]:
    handler, transport = object(), Transport(address)
    guard.opened(handler, transport)
    return handler, transport


def test_the_connection_that_reaches_an_addresss_cap_makes_room(loop):
    guard = guard_on(loop, max_connections=10, max_per_address=2)
    (_, first), (_, second) = open_from(guard, "192.0.2.1"), open_from(guard, "192.0.2.1")
    assert len(guard) == 2 and not first.closed and guard.closed_idle == 0
    open_from(guard, "192.0.2.1")
    assert len(guard) == 2 and first.closed and not second.closed


def test_the_connection_that_reaches_the_servers_cap_makes_room(loop):
    guard = guard_on(loop, max_connections=3, max_per_address=10)
    held = [open_from(guard, f"192.0.2.{n}")[1] for n in range(1, 4)]
    assert len(guard) == 3 and not any(t.closed for t in held)
    open_from(guard, "192.0.2.9")
    assert len(guard) == 3 and [t.closed for t in held] == [True, False, False]


def test_refused_connections_held_for_their_503_stop_at_max_refused(loop):
    guard = guard_on(loop, max_connections=1, max_per_address=10)
    busy, _ = open_from(guard, "192.0.2.1")
    assert guard.begin(busy, trusted=True)  # a request in progress: no room can be made
    held = [open_from(guard, f"198.51.100.{n % 250}")[1] for n in range(MAX_REFUSED)]
    assert guard.refused == MAX_REFUSED and not any(t.closed for t in held)
    _, dropped = open_from(guard, "203.0.113.1")
    assert dropped.closed and guard.refused == MAX_REFUSED + 1


def test_untrusted_requests_stop_exactly_at_their_limit(loop):
    """At the limit, the next untrusted request (from an address holding none) is served by closing
    the oldest request of an address holding more: never one more than the limit at once."""
    guard = guard_on(loop, max_connections=4, max_per_address=10, reserved=2)
    assert guard.untrusted_limit == 2
    opened = [open_from(guard, f"192.0.2.{n}") for n in range(1, 4)]
    assert guard.begin(opened[0][0]) and guard.begin(opened[1][0])
    assert not any(transport.closed for _, transport in opened), "room was made below the limit"
    assert guard.begin(opened[2][0])
    assert [transport.closed for _, transport in opened] == [True, False, False]


def test_with_every_connection_reserved_one_untrusted_request_is_still_served(loop):
    guard = guard_on(loop, max_connections=2, max_per_address=10, reserved=2)
    assert guard.untrusted_limit == 1
    (first, first_transport), (second, _) = open_from(guard, "192.0.2.1"), open_from(guard, "192.0.2.2")
    assert guard.begin(first), "no untrusted request served at all"
    assert guard.begin(second) and first_transport.closed  # the one place, taken in turn


def test_an_address_holding_as_many_untrusted_requests_is_not_evicted(loop):
    guard = guard_on(loop, max_connections=4, max_per_address=10, reserved=2)
    a, a_transport = open_from(guard, "192.0.2.1")
    b, b_again = open_from(guard, "192.0.2.2")[0], open_from(guard, "192.0.2.2")[0]
    assert guard.begin(a) and guard.begin(b)
    assert not guard.begin(b_again), "two addresses holding one each would take turns evicting"
    assert not a_transport.closed
    c = open_from(guard, "192.0.2.3")[0]
    assert guard.begin(c), "holding none, it evicts the oldest request of an address holding more"
    assert a_transport.closed


def test_at_the_cap_a_strangers_idle_connection_goes_before_the_game_masters(loop):
    guard = guard_on(loop, max_connections=2, max_per_address=10)
    master, master_transport = open_from(guard, "192.0.2.1")
    assert guard.begin(master, trusted=True)
    guard.end(master)  # idle now, its last request trusted
    _, stranger = open_from(guard, "192.0.2.2")  # idle, never asked anything
    open_from(guard, "192.0.2.3")
    assert stranger.closed and not master_transport.closed
