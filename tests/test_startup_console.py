"""The console off the start's path (issue 44, item 1): a start with ``[web]`` reaches "ready" without
aiohttp, the console answers once the game is ready without aiohttp's client (whose TLS contexts
read the CA store at import), which loads when first asked for, and a webhook still sends over
TLS, verified.

Each start is the benchmark's child (``baccarat run`` over the recorded bus, as the service runs
it) in a process of its own, so that what it loads is its own.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests import test_mqtt_tls, test_web_attach
from tests.test_startup_loads import ROOT

pki = test_mqtt_tls.pki  # the fixture: a CA, and a certificate for 127.0.0.1 it signed
daemon = test_web_attach.daemon  # the fixture: a daemon on mock pins, stopped at the end

CHILD = """
import json, logging, os, sys, threading
sys.path.insert(0, os.path.join(sys.argv[1], "benchmarks"))
import child
out = {}
def done():
    with open(sys.argv[3], "w") as f:
        json.dump(out, f)
    os._exit(0)
def ask(url):
    import urllib.request
    from firmware.web import client_tls
    with urllib.request.urlopen(url, timeout=60) as page:
        out["status"], out["page"] = page.status, page.read().decode()
    out["bare"] = client_tls.bare()
    out["at_answer"] = sorted(sys.modules)
    out["threads_at_answer"] = sorted(t.name for t in threading.enumerate())
    import aiohttp
    out["session"] = aiohttp.ClientSession.__name__  # the bare package made whole by the first name asked
    import aiohttp.connector as c
    contexts = (c._SSL_CONTEXT_VERIFIED, c._SSL_CONTEXT_UNVERIFIED)
    out["cas_after"] = [x.cert_store_stats()["x509_ca"] for x in contexts]
    out["whole"] = not client_tls.bare()
    done()
class Watch(logging.Handler):
    def emit(self, record):
        from firmware.game.daemon import READY
        if record.msg == READY:
            out["at_ready"] = sorted(sys.modules)
            out["threads_at_ready"] = sorted(t.name for t in threading.enumerate())
        elif str(record.msg).startswith("web console on "):
            threading.Thread(target=ask, args=(record.args[0],), daemon=True).start()
logging.getLogger("baccarat").addHandler(Watch(logging.INFO))
sys.exit(child.main([sys.argv[2]]))
"""


def _start(tmp_path: Path, env: dict[str, str], extra: str) -> dict[str, Any]:
    """The child with the reference config, ``extra`` added; what it wrote at its end."""
    config = tmp_path / "config.toml"
    config.write_text(
        (ROOT / "firmware" / "config" / "default-config.toml").read_text(encoding="utf-8")
        + f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
        + f'\n[control]\nsocket = "{tmp_path / "control.sock"}"\n'
        + extra,
        encoding="utf-8",
    )
    out = tmp_path / "out.json"
    clean = {k: v for k, v in os.environ.items() if k not in ("GPIOZERO_PIN_FACTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), str(config), str(out)],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.exists(), run.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_game_is_ready_before_the_console_loads_and_the_console_answers_after(tmp_path, pki):
    seen = _start(tmp_path, {"SSL_CERT_FILE": str(pki / "ca.crt")}, f"\n[web]\nport = {_free_port()}\n")
    at_ready = set(seen["at_ready"])
    assert "firmware.game.daemon" in at_ready and "firmware.web.backend" in at_ready  # the backend is made at start
    early = sorted(m for m in at_ready if m.split(".")[0] in ("aiohttp", "ssl", "asyncio", "yarl", "multidict"))
    assert early == [], f"loaded before ready: {early}"
    assert not any(name.startswith("baccarat-web") for name in seen["threads_at_ready"])
    assert "baccarat-asyncio" not in seen["threads_at_ready"]  # no event loop before ready either
    # Then the console answers, with its page ...
    assert seen["status"] == 200 and "<title>Baccarat prop</title>" in seen["page"]
    # ... without aiohttp's client (its TLS contexts read the CA store at import): loaded when first asked for.
    client = sorted(m for m in seen["at_answer"] if m in ("aiohttp.client", "aiohttp.connector", "aiohttp.tracing"))
    assert seen["bare"] and client == []
    assert seen["session"] == "ClientSession" and seen["whole"]
    assert seen["cas_after"] == [1, 1]  # SSL_CERT_FILE: the test's CA alone


SENDER = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from firmware.web.client_tls import import_server_side, bare
import_server_side("firmware.services.webhooks.sender")
from firmware.services.webhooks.settings import Webhook
from firmware.services.webhooks.sender import WebhookSender
before = bare()
sender = WebhookSender((Webhook("solved", sys.argv[2], "POST"),), retries=0, timeout=30)
async def send():
    try:
        return await sender.deliver(sender.hooks[0], {"prop": "p", "event": "solved", "id": "d1"}, "d1")
    finally:
        await sender.close()
print(json.dumps({"before": before, "delivered": asyncio.run(send()), "after": bare()}))
"""


class _TLSReceiver(ThreadingHTTPServer):
    """An HTTPS server on 127.0.0.1 with the fixture's certificate; the paths it was sent."""

    daemon_threads = True

    def __init__(self, pki: Path) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(pki / "server.crt", pki / "server.key")
        self.paths: list[tuple[str, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.paths.append((self.path, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    def get_request(self) -> tuple[Any, Any]:
        connection, address = super().get_request()
        return self.context.wrap_socket(connection, server_side=True), address


@pytest.fixture
def tls_receiver(pki):
    server = _TLSReceiver(pki)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_webhook_sends_over_tls_verified_with_the_store_read_at_its_first_send(tls_receiver, pki):
    url = f"https://127.0.0.1:{tls_receiver.server_address[1]}/solved"
    env = {**os.environ, "SSL_CERT_FILE": str(pki / "ca.crt")}
    run = subprocess.run(
        [sys.executable, "-c", SENDER, str(ROOT), url], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    sent = json.loads(run.stdout.strip().splitlines()[-1])
    assert sent == {"before": True, "delivered": True, "after": False}, run.stderr[-3000:]
    assert [path for path, _ in tls_receiver.paths] == ["/solved"]
    assert json.loads(tls_receiver.paths[0][1])["event"] == "solved"


def test_a_webhook_to_a_server_the_store_does_not_trust_is_refused(tls_receiver, pki):
    """The store read at the first send is the system's (here the other CA alone): verification is on."""
    url = f"https://127.0.0.1:{tls_receiver.server_address[1]}/solved"
    env = {**os.environ, "SSL_CERT_FILE": str(pki / "other.crt")}
    run = subprocess.run(
        [sys.executable, "-c", SENDER, str(ROOT), url], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    sent = json.loads(run.stdout.strip().splitlines()[-1])
    assert sent["delivered"] is False and "CERTIFICATE_VERIFY_FAILED" in run.stderr
    assert tls_receiver.paths == []


# -- LateConsole in the process: started at ready, stopped before or after --------------------------


def test_the_console_listens_once_the_game_is_ready_and_stops_with_the_prop(daemon):
    import socket
    import threading
    import urllib.request

    from firmware.room.commands import GameMaster
    from firmware.web.attach import LateConsole
    from firmware.web.settings import WebSettings

    heard: list[int] = []
    console = LateConsole(
        daemon, GameMaster(daemon), WebSettings(enabled=True, port=0), listening=lambda s: heard.append(s.port)
    )
    assert console.service is None  # nothing before the game starts: no thread, no server
    assert not any(t.name.startswith("baccarat-web") for t in threading.enumerate())
    daemon.start()
    service = console.wait(60)
    assert service is not None and heard == [service.port]
    with urllib.request.urlopen(service.url, timeout=10) as page:
        assert b"<title>Baccarat prop</title>" in page.read()
    console.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", service.port), timeout=5).close()


def test_a_console_stopped_before_the_game_was_ready_never_starts(daemon):
    import threading

    from firmware.room.commands import GameMaster
    from firmware.web.attach import LateConsole
    from firmware.web.settings import WebSettings

    console = LateConsole(daemon, GameMaster(daemon), WebSettings(enabled=True, port=0))
    console.stop()
    assert console.wait(5) is None
    daemon.start()
    assert daemon.ready.wait(10)
    daemon.wait_idle(10)  # the first on_settled call has come and gone
    assert console.service is None
    assert not any(t.name.startswith("baccarat-web") for t in threading.enumerate())


def test_the_console_and_clue_control_share_one_event_loop(tmp_path, pki):
    """Issue 44 item 2: the services that need an asyncio loop (the console and what rides on it,
    Clue Control's link) run on one, started once (firmware/system/aloop.py): one thread for it,
    none of their own."""
    extra = (
        f"\n[web]\nport = {_free_port()}\n"
        f'\n[clue_control]\nport = {_free_port()}\nbind = "127.0.0.1"\ncontroller = "127.0.0.1:{_free_port()}"\n'
    )
    seen = _start(tmp_path, {"SSL_CERT_FILE": str(pki / "ca.crt")}, extra)
    assert seen["status"] == 200
    threads = seen["threads_at_answer"]
    assert threads.count("baccarat-asyncio") == 1, threads
    assert not {"baccarat-web", "baccarat-clue-control"} & set(threads), threads
