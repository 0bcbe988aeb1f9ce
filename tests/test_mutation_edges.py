"""Edges of the newest code that hand-written mutants showed no test held (issue 44, item 8): a
guess exactly at the limit or at a window's end, IPv4-mapped peers and catch-all networks,
``q=0`` and equal weights in ``Accept-Language``, symlinks and hidden files in the docs site, a
secret inside another. ``scripts/mutants_edges.toml`` lists the mutants; docs/develop/mutation.md
has the score per module."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer, make_mocked_request
from hypothesis import given
from hypothesis import strategies as st

from baccarat_core.strict import InputError
from firmware.cli.support import PATH_SECRET_LENGTH, SECRET, redact_config, removed_secrets, scrub
from firmware.i18n import accepted, negotiate
from firmware.plugin import Noise
from firmware.services.osc.listener import CommandListener
from firmware.services.redscape.messages import parse_command, report
from firmware.web import docs_site
from firmware.web.language import COOKIE, PageTexts
from firmware.web.settings import WebSettings
from firmware.web.throttle import Throttle, address_key
from tests.conftest import make_config
from tests.test_osc import udp_port

# -- the console's throttle: exactly at the limit, at the window's end ---------------------------------


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@given(attempts=st.integers(1, 12))
def test_a_guesser_gets_exactly_its_attempts(attempts):
    throttle = Throttle(attempts=attempts, window=60, clock=Clock())
    for _ in range(attempts - 1):
        throttle.fail("192.0.2.7")
    assert throttle.allow("192.0.2.7"), "locked one wrong secret early"
    throttle.fail("192.0.2.7")
    assert not throttle.allow("192.0.2.7"), f"a wrong secret past the {attempts} allowed"
    assert throttle.allow("192.0.2.8"), "another address was locked out"


def test_a_failure_exactly_a_window_old_no_longer_counts():
    clock = Clock()
    throttle = Throttle(attempts=3, window=60, clock=clock)
    for _ in range(3):
        throttle.fail("192.0.2.7")
    clock.now = 59.999
    assert not throttle.allow("192.0.2.7")
    assert throttle.retry_after("192.0.2.7") == 1
    clock.now = 60.0
    assert throttle.allow("192.0.2.7"), "a failure exactly a window old still counted"
    assert len(throttle) == 0, "its record was kept past its window"


def test_retry_after_is_rounded_up_to_when_a_guess_is_allowed_again():
    clock = Clock()
    throttle = Throttle(attempts=1, window=10, clock=clock)
    throttle.fail("192.0.2.7")
    clock.now = 5.8  # 4.2 s left: at 4 s it would still be refused
    assert throttle.retry_after("192.0.2.7") == 5
    clock.now = 10.0 - 1e-6
    assert throttle.retry_after("192.0.2.7") == 1


def test_an_ipv4_mapped_peer_is_the_ipv4_address_and_ipv6_counts_by_its_64():
    assert address_key("::ffff:192.0.2.7") == address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff:ffff:ffff:fffe")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("fe80::1%eth0") == address_key("fe80::2")
    throttle = Throttle(attempts=2, window=60, clock=Clock())
    throttle.fail("::ffff:192.0.2.7")
    throttle.fail("192.0.2.7")
    assert not throttle.allow("::ffff:192.0.2.7") and not throttle.allow("192.0.2.7")
    throttle.fail("2001:db8:1:2::a")
    throttle.fail("2001:db8:1:2::b")  # the same host's next address in its /64
    assert not throttle.allow("2001:db8:1:2::c")
    assert throttle.allow("2001:db8:1:3::a")


def test_an_address_names_at_most_max_origins_of_its_own():
    throttle = Throttle(attempts=2, window=60, max_origins=2, clock=Clock())
    throttle.fail("192.0.2.7", "http://one.example")
    throttle.fail("192.0.2.7", "http://two.example")
    for _ in range(2):
        throttle.fail("192.0.2.7", "http://three.example")  # past the two: counted with the rest
    assert not throttle.allow("192.0.2.7", "http://four.example"), "a third origin got a count of its own"
    assert throttle.allow("192.0.2.7", "http://one.example") and throttle.allow("192.0.2.7")


def test_beyond_the_exact_table_a_guesser_gets_exactly_its_attempts():
    throttle = Throttle(attempts=3, window=60, max_addresses=1, clock=Clock())
    throttle.fail("198.51.100.1")  # the table's one place taken
    for _ in range(2):
        throttle.fail("192.0.2.7")
    assert throttle.allow("192.0.2.7")
    throttle.fail("192.0.2.7")
    assert not throttle.allow("192.0.2.7"), "counted in the crowd, it got a fourth"


def test_the_origins_that_gave_the_right_secret_last_are_the_ones_kept():
    throttle = Throttle(attempts=1, window=60, max_origins=0, clock=Clock())
    for n in range(65):  # one more than it keeps: the oldest is forgotten
        throttle.passed("192.0.2.7", f"http://page{n}.example")
    throttle.fail("192.0.2.7", "http://page64.example")  # a kept one: its own count
    assert throttle.allow("192.0.2.7", "http://elsewhere.example"), "the newest good origin was forgotten"
    throttle.fail("192.0.2.7", "http://page0.example")  # the forgotten one: counted with the rest
    assert not throttle.allow("192.0.2.7", "http://elsewhere.example")


# -- the docs site: symlinks, hidden files, the front page, the policy ----------------------------------


def _fetch(root: Path, path: str) -> tuple[int, str, bytes]:
    """GET /docs/PATH from a console app serving the site in ``root``: status, policy, body."""

    async def run() -> tuple[int, str, bytes]:
        app = web.Application()
        docs_site.register(app, root)
        async with TestClient(TestServer(app)) as client:
            response = await client.get(docs_site.PREFIX + path, allow_redirects=False)
            return response.status, response.headers.get("Content-Security-Policy", ""), await response.read()

    return asyncio.run(run())


@pytest.fixture
def site(tmp_path) -> Path:
    root = tmp_path / "site"
    (root / "play").mkdir(parents=True)
    (root / "index.html").write_text("<html><script>front()</script><script>front()</script></html>")
    (root / "play" / "index.html").write_text("<html>play</html>")
    (tmp_path / "secret.txt").write_text("outside the site")
    return root


def test_a_symlink_leading_out_of_the_site_is_not_served(site):
    (site / "out.txt").symlink_to(site.parent / "secret.txt")
    (site / "loop").symlink_to(site / "loop")
    (site / "inside.html").symlink_to(site / "play" / "index.html")
    assert _fetch(site, "out.txt")[0] == 404
    assert _fetch(site, "loop")[0] == 404
    assert _fetch(site, "inside.html")[:1] == (200,), "a symlink inside the site is served"


def test_a_site_reached_through_a_symlink_is_served(site, tmp_path):
    current = tmp_path / "current"
    current.symlink_to(site, target_is_directory=True)  # as /opt/baccarat/current/site is
    status, _, body = _fetch(current, "play/")
    assert (status, body) == (200, b"<html>play</html>")


def test_hidden_names_backslashes_and_the_front_page(site):
    (site / ".env").write_text("TOKEN=x")
    (site / "a\\b").write_text("odd")
    assert _fetch(site, ".env")[0] == 404
    assert _fetch(site, "a\\b")[0] == 404
    status, policy, body = _fetch(site, "")
    assert status == 200 and b"front()" in body
    assert policy.count("'sha256-") == 1, "the one inline script's hash, once"


def test_a_script_with_src_gets_no_hash_and_a_page_rewritten_gets_its_new_policy(site):
    page = site / "play" / "index.html"
    assert docs_site.script_hashes(b"<script src='a.js'></script><script defer src=b.js></script>") == []
    page.write_text("<html><script>one()</script></html>")
    stamp = page.stat().st_mtime_ns
    first = _fetch(site, "play/")[1]
    page.write_text("<html><script>another()</script></html>")
    os.utime(page, ns=(stamp, stamp))  # rewritten within the same mtime (a copy that keeps times)
    second = _fetch(site, "play/")[1]
    assert first != second and docs_site.script_hashes(page.read_bytes())[0] in second


# -- Accept-Language ----------------------------------------------------------------------------------


def test_q_zero_stars_and_unreadable_weights_are_refusals():
    assert accepted("fr;q=0, de;q=0.0, es") == ["es"]
    assert accepted("*, fr;q=0.5") == ["fr"]
    assert accepted("fr;q=1.2.3, de;q=0.1") == ["de"]
    assert negotiate("fr;q=0, *;q=0.9", ("en", "fr")) == "en"


@given(st.lists(st.sampled_from(["fr", "de", "es", "it", "nl"]), min_size=2, max_size=5, unique=True))
def test_equal_weights_keep_the_headers_order(tags):
    header = ", ".join(f"{tag};q=0.5" for tag in tags)
    assert accepted(header) == tags
    assert negotiate(header, tuple(reversed(tags))) == tags[0]


def test_a_region_the_prop_has_comes_before_its_language():
    assert negotiate("fr-CH, fr;q=0.9", ("fr", "fr_CH")) == "fr_CH"
    assert negotiate("fr-ch", ("fr", "fr_CH")) == "fr_CH"
    assert negotiate("fr-BE", ("fr", "fr_CH")) == "fr"


def test_the_players_cookie_counts_only_when_it_names_a_language():
    texts = PageTexts(Path("."), WebSettings())
    asks_german = {"Accept-Language": "de"}
    chosen = make_mocked_request("GET", "/play", headers={**asks_german, "Cookie": f"{COOKIE}=fr"})
    assert texts.players_language(chosen) == "fr"
    bogus = make_mocked_request("GET", "/play", headers={**asks_german, "Cookie": f"{COOKIE}=xx"})
    assert texts.players_language(bogus) == "de"


# -- the support bundle: secrets inside secrets, lengths at their limits ---------------------------------


#: Secrets' letters: none of the text around them (lower case), so only the secrets are replaced.
SECRET_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@given(st.text(SECRET_LETTERS, min_size=3, max_size=12), st.text(SECRET_LETTERS, min_size=1, max_size=12))
def test_a_secret_inside_another_leaves_nothing_of_either(inner, rest):
    outer = inner + rest
    text = f"password={outer} token={inner}"
    scrubbed = scrub(text, {inner, outer})
    assert scrubbed == f"password={SECRET} token={SECRET}"


def test_an_unset_secret_stays_visibly_unset_and_short_ones_are_scrubbed():
    config = {"web": {"password": "", "token": None}, "mqtt": {"password": "pw1"}}
    redacted = redact_config(config)
    assert redacted == {"web": {"password": "", "token": None}, "mqtt": {"password": SECRET}}
    assert removed_secrets(config, redacted) == {"pw1"}


def test_every_part_of_a_url_that_is_secret_is_scrubbed_from_the_other_texts():
    webhook = "a" * PATH_SECRET_LENGTH
    url = f"http://user:pw1@ha.local:8123/api/webhook/{webhook}?key=k3y#frag"
    config = {"web": {"webhooks": [[{"url": url}], [{"url": "http://h/x?second=s3cond"}]]}}
    found = removed_secrets(config, redact_config(config))
    assert {"pw1", "user", "key=k3y", "frag", webhook, "second=s3cond"} <= found
    assert "a" * (PATH_SECRET_LENGTH - 1) not in found


# -- OSC's allow-list -----------------------------------------------------------------------------------


def _listener(allow: list[str] | None) -> CommandListener:
    osc = {"targets": ["192.168.1.20:53000"], "solved": "/cue/solved/start", "listen": f"127.0.0.1:{udp_port()}"}
    if allow is not None:
        osc["allow"] = allow
    settings = make_config(osc=osc).settings["osc"]
    return CommandListener(None, settings, Noise(logging.getLogger("baccarat.test.osc")))  # type: ignore[arg-type]


def test_the_allow_list_takes_ipv4_mapped_and_scoped_senders_of_its_networks():
    listener = _listener(["192.168.1.0/24", "fe80::/64"])
    try:
        assert listener.allowed(("192.168.1.20", 9000))
        assert listener.allowed(("::ffff:192.168.1.20", 9000, 0, 0)), "a dual-stack socket's IPv4 sender"
        assert listener.allowed(("fe80::1%eth0", 9000, 0, 2)), "a link-local sender with its scope"
        assert not listener.allowed(("192.168.2.20", 9000))
        assert not listener.allowed(("::ffff:192.168.2.20", 9000, 0, 0))
        assert not listener.allowed(("not an address", 9000))
    finally:
        listener.server.server_close()


def test_no_allow_list_on_loopback_lets_every_sender_in():
    listener = _listener(None)
    try:
        assert listener.allowed(("127.0.0.1", 9000))
    finally:
        listener.server.server_close()


@pytest.mark.parametrize("network", ["0.0.0.0/0", "::/0", "::0/0"])
def test_a_catch_all_network_is_no_allow_list(network):
    from firmware.errors import ConfigError

    osc = {"targets": ["192.168.1.20:53000"], "solved": "/cue/solved/start", "listen": 9000, "allow": [network]}
    with pytest.raises(ConfigError, match="lets every sender in"):
        make_config(osc=osc)


# -- node-redscape's messages ---------------------------------------------------------------------------


@pytest.mark.parametrize("state", [1, 0, 1.0, None, "1", "yes"])
def test_an_output_state_that_is_a_number_or_a_word_it_does_not_know_is_refused(state):
    payload = json.dumps({"command": "OUTPUT", "output": 0, "state": state}).encode()
    with pytest.raises(InputError, match='"state" must be'):
        parse_command(payload, ("lock",))


@pytest.mark.parametrize("which", [-1, 2, True])
def test_an_output_number_outside_the_props_outputs_is_refused(which):
    payload = json.dumps({"command": "OUTPUT", "output": which, "state": "on"}).encode()
    with pytest.raises(InputError):
        parse_command(payload, ("lock", "horn"))
    assert parse_command(b'{"command": "OUTPUT", "output": 1, "state": "Pulse"}', ("lock", "horn"))["name"] == "horn"


def test_a_prop_without_outputs_is_reported():
    document = {"solved": True, "status": "solved", "enabled": True, "strikes": 0}
    assert report("baccarat", document, ("S", "U")) == {
        "id": "baccarat",
        "state": "S",
        "status": "solved",
        "enabled": True,
        "strikes": 0,
        "outputs": {},
    }
