"""Guessing the console's password and the controller's token: each guesser is locked out after
its ten, concurrent guesses cannot slip past the count, and no crowd of guessers locks out the
one who knows the secret (issue 33, item 6: tests/test_web_trust.py has the browser's side)."""

from __future__ import annotations

import logging
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from firmware.web.guard import MAX_PER_ADDRESS
from firmware.web.throttle import Throttle, address_key
from tests import browser
from tests.browser import TOKEN
from tests.conftest import ROOT
from tests.test_web_hostile import FORM, PASSWORD, http

web_factory = browser.web_factory  # the fixture


@pytest.mark.parametrize("login", ["/login", "/play/login"])  # the console's, the players' pages'
def test_concurrent_slow_bodied_guesses_get_ten_comparisons(web_factory, login):
    """Sixteen logins (all one address may hold) send their heads, wait, then their bodies: ten are compared
    (the unit's documented limit), the right password among the rest gets no session."""
    web = web_factory(settings={"password": PASSWORD})
    port = web.service.port
    guesses = [f"password=wrong-{n:02d}".encode() for n in range(MAX_PER_ADDRESS - 1)] + [
        f"password={PASSWORD}".encode()
    ]
    socks = []
    for body in guesses:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(
            f"POST {login} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n".encode()
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        )
        socks.append((sock, body))
    time.sleep(1.0)  # every head has reached its handler, which waits for the body
    for sock, body in socks:
        sock.sendall(body)
    statuses = []
    for sock, _ in socks:
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        sock.close()
        statuses.append(int(answer.split(b" ", 2)[1]))
    assert statuses.count(401) == 10, statuses
    assert statuses.count(429) == MAX_PER_ADDRESS - 10, statuses
    assert 303 not in statuses, "a login got through the throttle"


def test_a_crowd_of_guessers_locks_out_each_guesser_and_never_the_right_password(web_factory):
    """1,100 addresses with one wrong password each (more than the 1,024 counted one by one): the
    locked address stays locked, a guesser beyond the table is locked after its ten, and the game
    master logs in from an address of its own."""
    web = web_factory(settings={"password": PASSWORD})
    web.service.wrong_secret_pause = 0  # only the counting is tested here
    port = web.service.port
    for n in range(10):
        assert http(port, "POST", "/login", f"password=wrong-{n}", FORM, source="127.0.7.1")[0] == 401
    status, headers, _ = http(port, "POST", "/login", f"password={PASSWORD}", FORM, source="127.0.7.1")
    assert status == 429 and 0 < int(headers["retry-after"]) <= 300
    others = [f"127.0.{8 + n // 250}.{1 + n % 250}" for n in range(1100)]
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda s: http(port, "POST", "/login", "password=x", FORM, source=s)[0], others))
    assert statuses.count(401) == 1100, "a guess was refused uncompared: the right password would have been too"
    assert len(web.service.throttle) == 1024
    assert http(port, "POST", "/login", f"password={PASSWORD}", FORM, source="127.0.7.1")[0] == 429
    assert http(port, "POST", "/login", f"password={PASSWORD}", FORM, source="127.0.30.1")[0] == 303
    beyond = [http(port, "POST", "/login", f"password=w{n}", FORM, source="127.0.31.1")[0] for n in range(11)]
    assert beyond == [401] * 10 + [429], "a guesser the table has no room for was not locked"
    status, headers, _ = http(port, "POST", "/login", f"password={PASSWORD}", FORM, source="127.0.31.1")
    assert status == 429 and 0 < int(headers["retry-after"]) <= 300


def test_the_throttle_counts_an_ipv6_host_by_its_prefix():
    now = [0.0]
    throttle = Throttle(attempts=10, window=300, max_addresses=4, clock=lambda: now[0])
    for n in range(10):
        address = f"2001:db8:1:2:{n:x}::1"  # a new address each time, all in one /64
        assert throttle.allow(address)
        throttle.fail(address)
    assert not throttle.allow("2001:db8:1:2:ffff::99")
    assert throttle.allow("2001:db8:1:3::1"), "another /64 is another host"
    assert address_key("::ffff:10.0.0.5") == "10.0.0.5" and throttle.allow("10.0.0.5")
    for n in range(3):
        throttle.fail(f"10.0.0.{n}")
    assert len(throttle) == 4 and throttle.allow("10.0.0.99"), "a full table must not lock out a newcomer"
    for _ in range(10):
        throttle.fail("10.0.0.99")  # counted beyond the table
    assert len(throttle) == 4 and not throttle.allow("10.0.0.99"), "a guesser beyond the table was not locked"
    assert 0 < throttle.retry_after("10.0.0.99") <= 300
    now[0] = 299.0
    assert not throttle.allow("2001:db8:1:2::1"), "locked for the whole window"
    now[0] = 301.0
    assert throttle.allow("2001:db8:1:2::1") and throttle.allow("10.0.0.99")


def test_a_page_origin_is_a_guesser_of_its_own_within_bounds():
    """Origins split an address's count, but a client naming a new origin each time gains at most
    ``max_origins`` counts of ten, and an origin that gave the right secret keeps its own."""
    throttle = Throttle(attempts=10, window=60, clock=lambda: 0.0)
    address = "10.0.0.5"
    throttle.passed(address, "http://erm.example")
    forged = [f"http://forged-{n}.example" for n in range(100)]
    compared = 0
    for origin in forged:
        while throttle.allow(address, origin):
            throttle.fail(address, origin)
            compared += 1
    assert compared == 10 * (throttle.max_origins + 1), compared
    assert throttle.allow(address, "http://erm.example"), "the origin that knows the token was locked out"
    assert throttle.allow(address), "a client naming no origin is another guesser"
    assert not throttle.allow(address, "http://another-new.example")


def test_wrong_controller_tokens_are_throttled_and_logged_once(web_factory, caplog):
    caplog.set_level(logging.INFO)
    web = web_factory()
    port = web.service.port
    before = web.state()

    def wrong(n: int) -> int:
        return http(port, "GET", f"/reset?token=wrong-token-{n:04d}", source="127.0.9.1")[0]

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(wrong, range(200)))
    assert statuses.count(403) == 10 and statuses.count(429) == 190, statuses
    assert http(port, "GET", f"/reset?token={TOKEN}", source="127.0.9.1")[0] == 429, "a locked address is locked"
    assert http(port, "GET", f"/status?token={TOKEN}", source="127.0.9.2")[0] == 200
    assert web.state() == before
    lines = [r.getMessage() for r in caplog.records if "token" in r.getMessage()]
    assert len(lines) == 1 and "wrong controller token" in lines[0], lines
    assert all("wrong-token" not in line for line in lines)


def test_the_security_page_states_the_codes_figures():
    """docs/run/console-security.md against the constants it quotes."""
    from firmware.room.held_outputs import CHECKPOINT_SECONDS
    from firmware.web.auth import MAX_FORM_FIELDS
    from firmware.web.guard import MAX_CONNECTIONS, RESERVED
    from firmware.web.replies import MAX_BODY

    page = (ROOT / "docs" / "run" / "console-security.md").read_text(encoding="utf-8")
    throttle = Throttle()
    figures = [
        f"at most {MAX_FORM_FIELDS} fields",
        f"at most {MAX_BODY // 1024} KiB",
        f"At most {MAX_CONNECTIONS} connections are served at once, {MAX_PER_ADDRESS} from one address",
        f"**{RESERVED} are kept for trusted requests**",
        f"may have at most {MAX_CONNECTIONS - RESERVED} in progress",
        f"The first {throttle.max_addresses:,} guessers are counted one by one",
        f"for at most {throttle.max_origins} origins",
        f"written again every {CHECKPOINT_SECONDS:g} s",
    ]
    for figure in figures:
        assert figure in " ".join(page.split()), f"the page no longer says {figure!r}"
