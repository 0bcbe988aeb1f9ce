"""The console's connection guard makes room at its cap by closing a connection of the address that
holds the most, not the oldest one there is.

A controller's fresh connection (its request not read yet, on a busy machine) looked like any idle
one; while four addresses kept reopening connections, it became the oldest and was closed under it
(CI once: ``test_squatted_connections_leave_the_game_master_and_the_controller_served``).
"""

from __future__ import annotations

import asyncio
import logging

from firmware.system.noise import Noise
from firmware.web.guard import ConnectionGuard


class Transport:
    """What the guard asks of an asyncio transport: its peer, and to be closed."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.closed = False

    def get_extra_info(self, name: str) -> object:
        return (self.address, 40000) if name == "peername" else None

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True


def test_at_the_cap_the_address_holding_the_most_gives_one_up_not_a_lone_newcomer() -> None:
    loop = asyncio.new_event_loop()
    try:
        guard = ConnectionGuard(Noise(logging.getLogger("test.guard")), max_connections=4, max_per_address=4)
        guard._loop = loop
        lone = Transport("192.0.2.9")  # the controller: first in, its request not read yet
        squatters = [Transport("192.0.2.1") for _ in range(3)]
        for transport in (lone, *squatters):
            guard.opened(object(), transport)
        assert len(guard) == 4
        guard.opened(object(), Transport("192.0.2.1"))  # one more squatter: room is made
        assert len(guard) == 4 and guard.closed_idle == 1
        assert not lone.closed
        assert [t.closed for t in squatters] == [True, False, False]  # the squatters' oldest
        # Among addresses holding as many, the oldest connection goes, as before.
        even = ConnectionGuard(Noise(logging.getLogger("test.guard")), max_connections=2, max_per_address=4)
        even._loop = loop
        first, second = Transport("192.0.2.1"), Transport("192.0.2.2")
        even.opened(object(), first)
        even.opened(object(), second)
        even.opened(object(), Transport("192.0.2.3"))
        assert first.closed and not second.closed
        # An address at its own cap gives up its own oldest, never another's (older or not).
        capped = ConnectionGuard(Noise(logging.getLogger("test.guard")), max_connections=10, max_per_address=2)
        capped._loop = loop
        others = [Transport("192.0.2.2"), Transport("192.0.2.2")]
        crowd = [Transport("192.0.2.1"), Transport("192.0.2.1")]
        for transport in (*others, *crowd):
            capped.opened(object(), transport)
        capped.opened(object(), Transport("192.0.2.1"))
        assert [t.closed for t in (*others, *crowd)] == [False, False, True, False]
    finally:
        loop.close()
