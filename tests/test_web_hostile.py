"""The console against a stranger on the room network: held connections, guessing, malformed requests.

The descriptor tests run a whole daemon process (``tests/daemon_process.py``) under the
open-file limit the systemd unit sets (``LimitNOFILE=``, applied with ``setrlimit`` in
the child) and read its log from stderr; the others run the console in this process and
read the captured log. Every limit here is the one the README documents, not a smaller
one for the test.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from firmware.cli.gm import request as control_request
from firmware.config import DEFAULT_CONFIG
from firmware.services.webhooks.settings import Webhook
from firmware.system.noise import Noise
from firmware.web.guard import ACCEPT_BACKLOG, MAX_CONNECTIONS, MAX_PER_ADDRESS, MAX_REFUSED
from tests import browser
from tests.browser import TOKEN
from tests.conftest import ROOT
from tests.test_web_api import Stream

web_factory = browser.web_factory  # the fixture

PASSWORD = "correct horse battery"
UNIT = ROOT / "firmware" / "baccarat.service"
HELPER = ROOT / "tests" / "daemon_process.py"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def unit_file_limit() -> int:
    """The ``LimitNOFILE=`` of the systemd unit."""
    match = re.search(r"^LimitNOFILE=(\d+)$", UNIT.read_text(encoding="utf-8"), re.MULTILINE)
    assert match, "the unit sets no LimitNOFILE="
    return int(match.group(1))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http(
    port: int,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    *,
    source: str = "127.0.0.1",
    timeout: float = 20.0,
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection from ``source`` (any 127.x.y.z address is this machine)."""
    connection = HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def hold(port: int, sources: list[str], each: int) -> list[socket.socket]:
    """``each`` idle connections from every address in ``sources``: opened, never a byte sent."""
    held = []
    for source in sources:
        for _ in range(each):
            sock = socket.socket()
            sock.bind((source, 0))
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            held.append(sock)
    return held


def closed_by_server(sock: socket.socket, timeout: float = 20.0) -> bool:
    """True once the server closed ``sock`` (EOF or reset) within ``timeout``."""
    sock.settimeout(timeout)
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def all_text(caplog) -> str:
    """Every captured log line, with any traceback formatted as the journal would show it."""
    formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


# -- a daemon process under the unit's descriptor limit -----------------------------------------------
class Prop:
    """``tests/daemon_process.py`` with the console, the control socket and a state file."""

    def __init__(self, directory: Path, *flags: str, nofile: int) -> None:
        self.port = free_port()
        self.socket = directory / "c.sock"
        self.state = directory / "state.json"
        text = DEFAULT_CONFIG.read_text(encoding="utf-8").replace(
            'mode = "random"', 'mode = "fixed"\nmin = 25\nmax = 1000'
        )
        text += (
            f"\n[state]\nfile = {json.dumps(str(self.state))}\n"
            f"\n[control]\nsocket = {json.dumps(str(self.socket))}\n"
            f'\n[web]\nport = {self.port}\ncontroller_token = "{TOKEN}"\n'
        )
        config = directory / "config.toml"
        config.write_text(text, encoding="utf-8")

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            [sys.executable, str(HELPER), "--config", str(config), "--dump", str(directory / "dump"), *flags],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=limit,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.out.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.log.append), daemon=True).start()

    @staticmethod
    def _read(stream, put) -> None:
        for line in stream:
            put(line.rstrip("\n"))

    def wait_log(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.log):
            assert self.proc.poll() is None, "the daemon exited:\n" + "\n".join(self.log)
            assert time.monotonic() < deadline, f"no {text!r} in the log:\n" + "\n".join(self.log)
            time.sleep(0.05)

    def wait_out(self, prefix: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.out.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} from the daemon:\n" + "\n".join(self.log)) from None
            if line.startswith(prefix):
                return line

    def descriptors(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def saved(self) -> dict:
        return json.loads(self.state.read_text())["module"]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def prop(short_dir):
    made: list[Prop] = []

    def make(*flags: str, nofile: int) -> Prop:
        p = Prop(short_dir, *flags, nofile=nofile)
        made.append(p)
        return p

    yield make
    for p in made:
        p.stop()


def until(test, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"{what} not met within {timeout} s"
        time.sleep(0.05)


def test_held_connections_cost_the_game_nothing(prop):
    """More idle connections than the unit's file limit, from 40 addresses: the state is saved,
    the control socket and the console answer, the log stays short."""
    nofile = unit_file_limit()
    daemon = prop(nofile=nofile)
    daemon.wait_log("web console on")  # once the game is ready
    limits = Path(f"/proc/{daemon.proc.pid}/limits").read_text()
    assert re.search(rf"Max open files\s+{nofile}\s+{nofile}", limits), limits
    before = daemon.descriptors()
    logged = len(daemon.log)
    sources = [f"127.0.1.{n}" for n in range(1, 41)]
    held = hold(daemon.port, sources, each=(nofile + 100) // len(sources) + 1)
    assert len(held) > nofile
    try:
        time.sleep(1.0)  # the kernel hands the connections over as fast as the daemon accepts them
        # At most: its cap, the ones answered "busy", and a batch being accepted (closed a moment later).
        cap = before + MAX_CONNECTIONS + MAX_REFUSED + ACCEPT_BACKLOG
        assert daemon.descriptors() <= cap, "the console holds more than its cap"
        reply = control_request(daemon.socket, {"command": "set_limits", "min": 50, "max": 5000}, timeout=10)
        assert reply["ok"], reply
        until(lambda: daemon.saved()["limits"] == {"min": 50, "max": 5000}, what="the new limits saved")
        status, _, body = http(daemon.port, "GET", f"/status?token={TOKEN}", source="127.0.2.1")
        assert (status, body) == (200, b"not_triggered")
        assert daemon.descriptors() <= cap
    finally:
        for sock in held:
            sock.close()
    assert daemon.stop() == 0
    during = daemon.log[logged:]
    assert not any("Traceback" in line or "Too many open files" in line for line in during), "\n".join(during)
    assert len(during) < 20, "\n".join(during)


def test_out_of_descriptors_the_save_is_retried_and_accept_fails_in_one_line(prop):
    """Every descriptor taken (by anything): the change made meanwhile reaches the state file once
    they are free again, with no later change; a failed accept is one line, and so is its end."""
    daemon = prop("--hog", "3", nofile=unit_file_limit())
    daemon.wait_log("ready: inputs armed")
    logged = next(n for n, line in enumerate(daemon.log) if "ready: inputs armed" in line) + 1
    daemon.wait_out("hogging")
    waiting = socket.create_connection(("127.0.0.1", daemon.port), timeout=20)  # in the kernel's backlog
    daemon.wait_log("cannot save the state")
    daemon.wait_out("released")
    until(lambda: daemon.saved()["strikes"] == 1, what="the strike saved")
    waiting.sendall(f"GET /status?token={TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    answer = b""
    while chunk := waiting.recv(4096):
        answer += chunk
    waiting.close()
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"not_triggered"), answer
    assert daemon.stop() == 0
    during = daemon.log[logged:]
    text = "\n".join(during)
    assert "Traceback" not in text, text
    assert sum("cannot accept connections" in line for line in during) == 1, text
    assert sum("accepting connections again" in line for line in during) == 1, text
    assert sum("cannot save the state" in line for line in during) == 1, text
    assert sum("saved to" in line and "again" in line for line in during) == 1, text
    assert len(during) < 15, text


# -- connections -------------------------------------------------------------------------------------
def test_a_head_that_never_completes_is_closed(web_factory):
    web = web_factory()
    web.service.guard.head_seconds = 0.5
    web.service.guard.idle_seconds = 0.5
    silent = socket.create_connection(("127.0.0.1", web.service.port))
    partial = socket.create_connection(("127.0.0.1", web.service.port))
    partial.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the blank line never comes
    kept = socket.create_connection(("127.0.0.1", web.service.port))
    kept.sendall(f"GET /status?token={TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    kept.settimeout(10)
    assert kept.recv(4096).startswith(b"HTTP/1.1 200")
    for sock in (silent, partial, kept):  # kept: no next request within the idle time
        # Within 5 s: ten times the limit set here, a third of aiohttp's own keep-alive time (15 s).
        assert closed_by_server(sock, timeout=5), "a connection that asks nothing was kept open"
        sock.close()
    until(lambda: len(web.service.guard) == 0, what="every connection forgotten")


def test_at_the_caps_the_oldest_idle_connection_makes_room(web_factory):
    web = web_factory()
    port = web.service.port
    mine = hold(port, ["127.0.3.1"], MAX_PER_ADDRESS)
    until(lambda: len(web.service.guard) == MAX_PER_ADDRESS, what="every connection accepted")
    status, _, body = http(port, "GET", f"/status?token={TOKEN}", source="127.0.3.1")
    assert (status, body) == (200, b"not_triggered"), "one address full of idle connections locked itself out"
    assert closed_by_server(mine[0]), "the oldest idle connection of that address was not closed"
    # A live page (a request in progress) is never closed to make room.
    web.login()
    stream = browser_stream(web)
    others = hold(port, [f"127.0.4.{n}" for n in range(1, 9)], MAX_CONNECTIONS // 8)
    until(lambda: web.service.guard.closed_idle >= MAX_CONNECTIONS // 8, what="room made")
    assert http(port, "GET", f"/status?token={TOKEN}", source="127.0.5.1")[0] == 200
    assert len(web.service.guard) <= MAX_CONNECTIONS
    web.rig.tap("player")
    assert stream.update(), "the live page lost its stream"
    stream.close()
    for sock in mine + others:
        sock.close()


def test_when_every_connection_is_busy_a_new_one_is_told_so(web_factory, caplog):
    web = web_factory()
    web.service.guard.max_connections = 2
    web.login()
    streams = [browser_stream(web), browser_stream(web)]
    for _ in range(3):
        status, _, body = http(web.service.port, "GET", "/", source="127.0.6.1")
        assert status == 503 and b"too many connections" in body
    for stream in streams:
        stream.close()
    until(lambda: len(web.service.guard) == 0, what="the streams closed")
    assert http(web.service.port, "GET", f"/status?token={TOKEN}")[0] == 200
    busy = [r for r in caplog.records if "refused a connection" in r.getMessage()]
    assert len(busy) == 1, "each refusal was logged"


def browser_stream(web) -> Stream:
    """A live page's event stream, its first update read."""
    stream = Stream(web)
    stream.update()
    return stream


# -- the log -----------------------------------------------------------------------------------------
def test_an_episode_ends_with_one_line_counting_the_rest():
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    logger = logging.getLogger("test.episodes")
    logger.addHandler(Collect())
    logger.propagate = False
    now = [0.0]
    episodes = Noise(logger, quiet=60, clock=lambda: now[0])
    for n in range(500):
        episodes.note("token", f"wrong token from 10.0.0.{n % 7}")
    assert lines == ["wrong token from 10.0.0.0"]
    now[0] = 61.0
    episodes.note("token", "wrong token from 10.0.0.1")
    assert lines[1] == "wrong token from 10.0.0.1 (after 499 more like it)"
    episodes.note("token", "wrong token from 10.0.0.2")
    episodes.close_all()
    assert lines[2] == "1 more like it in 60 s, the last: wrong token from 10.0.0.2"
    assert len(lines) == 3


def malformed(cookie: str) -> list[bytes]:
    """Requests aiohttp refuses, each carrying the controller token, the session cookie or the password."""
    t = f"/status?token={TOKEN}".encode()
    c = f"Cookie: {cookie}".encode()
    p = f"password={PASSWORD}".encode()
    return [
        b"GET " + t + b" HTTP/9.9\r\nHost: x\r\n" + c + b"\r\n\r\n",
        b"GET " + t + b"\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /sta\xfftus?token=" + TOKEN.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET http://[::1" + t + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET " + t + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\x01\r\n\r\n",
        b"GET " + t + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\r\nBad Header: y\r\n\r\n",
        b"GET " + t + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\r\nContent-Length: -1\r\n\r\n",
        b"GET " + t + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\r\nX: " + b"a" * 9000 + b"\r\n\r\n",
        b"GET " + t + b"&" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /login?token=" + TOKEN.encode() + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\r\nTransfer-Encoding: chunked"
        b"\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\n" + p + b"\r\n",
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + p,
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n" + c + b"\r\n\r\n" + p,
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Encoding: gzip\r\nContent-Length: " + str(len(p)).encode() + b"\r\n\r\n" + p,
        b"POST /api/command?token=" + TOKEN.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + c + b"\r\n"
        b"Content-Type: application/json\r\nContent-Encoding: deflate\r\nContent-Length: 10\r\n\r\n0123456789",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + t,
        b"GET " + t + b" HTTP/1.1\r\nHost: x\r\n" + c + b"\r\n" + b"X-A: b\r\n" * 200 + b"\r\n",
    ]


def test_malformed_requests_leave_no_secret_and_no_traceback_in_the_log(web_factory, caplog):
    caplog.set_level(logging.DEBUG)
    web = web_factory(settings={"password": PASSWORD})
    web.service.guard.head_seconds = web.service.guard.idle_seconds = 1.0  # a cut-off head waits no longer
    web.login(PASSWORD)
    session = web.cookie.split("=", 1)[1]
    for raw in malformed(web.cookie):
        sock = socket.create_connection(("127.0.0.1", web.service.port), timeout=10)
        sock.sendall(raw)
        try:
            while sock.recv(65536):
                pass
        except (ConnectionResetError, TimeoutError):
            pass
        sock.close()
    until(lambda: not web.service.guard._open, what="every connection closed")
    text = all_text(caplog)
    for secret in (TOKEN, session, PASSWORD, PASSWORD.replace(" ", "+")):
        assert secret not in text, f"{secret[:6]}... is in the log"
    assert "Traceback" not in text and "Error handling request" not in text
    refused = [r.getMessage() for r in caplog.records if "refused a request" in r.getMessage()]
    assert len(refused) == 1, "each malformed request was logged"
    assert web.command({"command": "status"})[0] == 200, "the session still works"


class Redirector:
    """An HTTP server that answers every request with a redirect to ``location`` (a secret in its query)."""

    def __init__(self, location: str) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://user:pw@127.0.0.1:{self.server.server_address[1]}/hook?key=hunter3"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    ("location", "problem"),
    [
        ("/loop?secret=hunter2&n=1", "too many redirects"),  # a loop: aiohttp's text names the last URL
        ("http://[::1/x?secret=hunter2", "does not look like a URL"),  # aiohttp's text quotes the URL
        ("ftp://127.0.0.1/x?secret=hunter2#hunter2", "NonHttpUrlRedirectClientError"),
    ],
    ids=["loop", "invalid", "ftp"],
)
def test_a_webhook_redirect_logs_no_query(web_factory, caplog, location, problem):
    caplog.set_level(logging.DEBUG)
    loop = Redirector(location)
    try:
        web = web_factory(settings={"webhooks": (Webhook("strike", loop.url),), "webhook_retries": 1})
        web.rig.deal()  # no bet: a strike
        until(lambda: "not delivered" in caplog.text, what="the last line")
    finally:
        loop.close()
    text = all_text(caplog)
    assert problem in text, text
    for secret in ("hunter2", "hunter3", "pw@", "user:"):
        assert secret not in text, f"{secret} is in the log"


# -- one strict reader -------------------------------------------------------------------------------
STRICT = [
    (b'{"command": "status", "command": "force_solve"}', 'key "command" appears twice'),
    (b'{"command": "set_solved", "solved": NaN}', "NaN is not a number strict JSON allows"),
    (b'{"command": "set_solved", "solved": 1e400}', "out of range"),
    (b'{"command": "set_solved", "solved": ' + b"7" * 4000 + b"}", "4000 digits is too long"),
    (b'{"command": "reset", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested deeper than 8 levels"),
    (b'{"command": "force_solve"}\xff', "not UTF-8"),
]


@pytest.mark.parametrize(("body", "message"), STRICT, ids=["twice", "nan", "inf", "digits", "deep", "utf8"])
def test_the_console_reads_json_strictly(web_factory, caplog, body, message):
    web = web_factory()
    web.login()
    before = web.state()
    for path in ("/api/command", "/api/panel"):
        status, reply = web.post(path, None, raw=body)
        assert status == 400 and message in reply["error"], (path, status, reply)
    assert web.state() == before
    assert "Traceback" not in all_text(caplog)


def test_the_players_panel_reads_json_strictly(web_factory):
    web = web_factory(front_panel=True)
    status, headers, _ = web.request("GET", "/play")
    cookie = headers["set-cookie"].split(";")[0]
    csrf = json.loads(web.request("GET", "/play/session", headers={"Cookie": cookie})[2])["csrf"]
    headers = {"Cookie": cookie, "Content-Type": "application/json", "X-CSRF-Token": csrf}
    for body, message in STRICT:
        status, _, answer = web.request("POST", "/play/panel", body, headers)
        assert status == 400 and message in json.loads(answer)["error"], (body[:40], answer)
    status, _, answer = web.request(
        "POST", "/play/panel", b'{"input": "tie", "input": "deal", "action": "press"}', headers
    )
    assert status == 400 and "appears twice" in json.loads(answer)["error"]
