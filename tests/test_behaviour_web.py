"""Behaviour no other test held (issue 35 item 3): the console's host check without a password,
and the connection guard's room-making at one address's cap.

Without a password the console answers only to a Host header that names this machine's loopback
(against DNS rebinding): ``localhost``, a name under ``.localhost`` (RFC 6761 keeps those on the
loopback), or a loopback address. A name that merely ends in the letters "localhost" is some
other machine."""

from __future__ import annotations

import pytest

from firmware.web.guard import MAX_PER_ADDRESS
from tests import browser
from tests.browser import TOKEN
from tests.test_web_hostile import closed_by_server, hold, http, until

web_factory = browser.web_factory  # the fixture


@pytest.mark.parametrize("host", ["evillocalhost", "attacker-localhost", "localhost.evil.example", "127.0.0.1.nip.io"])
def test_a_host_that_only_looks_like_localhost_is_refused(web_factory, host):
    web = web_factory()
    port = web.service.port
    assert web.request("GET", "/", host=f"{host}:{port}")[0] == 403
    assert web.request("GET", "/api/session", host=f"{host}:{port}")[0] == 401


@pytest.mark.parametrize("host", ["localhost", "prop.localhost", "127.0.0.1", "127.1.2.3", "[::1]"])
def test_the_loopbacks_names_are_answered(web_factory, host):
    web = web_factory()
    assert web.request("GET", "/", host=f"{host}:{web.service.port}")[0] == 200


def test_an_address_at_its_cap_makes_room_from_its_own_idle_connections_only(web_factory):
    """At ``MAX_PER_ADDRESS`` one address's new connection closes that address's oldest idle
    one: never the (older) idle connection of another address, a player's phone say."""
    web = web_factory()
    web.service.guard.head_seconds = 300.0  # no connection here is closed for its silence, however slow the run
    port = web.service.port
    neighbour = hold(port, ["127.0.7.1"], 1)  # the oldest connection of all
    until(lambda: len(web.service.guard) == 1, what="the neighbour's connection accepted")
    crowd = hold(port, ["127.0.7.2"], MAX_PER_ADDRESS)
    until(lambda: len(web.service.guard) == 1 + MAX_PER_ADDRESS, what="every connection accepted")
    status, _, _ = http(port, "GET", f"/status?token={TOKEN}", source="127.0.7.2")
    assert status == 200
    assert closed_by_server(crowd[0]), "the crowding address's oldest idle connection was not closed"
    assert not closed_by_server(neighbour[0], timeout=0.5), "another address's connection was closed to make room"
    for sock in neighbour + crowd:
        sock.close()
