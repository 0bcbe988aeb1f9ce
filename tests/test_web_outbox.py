"""Solve, strike and explosion webhooks arrive at least once across a restart (issue 41 item 23): a
delivery waits in an outbox beside the state file until the receiver answers or the retries give up,
a prop that dies meanwhile sends it again at its next start with the same id (the
``Idempotency-Key`` header, ``"id"`` in a POST's body), and the outbox is bounded in size and age.

The death is the outbox file as a ``kill -9`` leaves it (copied while the receiver fails), then a
new prop started on it, against a real local HTTP server."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import time

import pytest

from firmware.app import close_daemon
from firmware.cli.gm import request as control_request
from firmware.errors import PropError
from firmware.services.webhooks import outbox as outbox_module
from firmware.services.webhooks.outbox import MAX_ENTRIES, Outbox, hook_key
from firmware.services.webhooks.settings import Webhook
from tests import browser
from tests.conftest import ROOT
from tests.mosquitto import free_port
from tests.test_web_webhooks import Receiver, hooks, until

web_factory = browser.web_factory  # the fixture


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_a_solve_in_flight_when_the_prop_dies_is_sent_at_the_next_start(web_factory, receiver, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    path = tmp_path / "webhooks-outbox.json"
    settings = {**hooks(receiver, ("solved", "/solved", "POST")), "webhook_retries": 50, "webhook_outbox": path}
    receiver.statuses = [503] * 1000  # the room's controller is down
    web = web_factory(settings=settings)
    web.login()
    assert web.command({"command": "force_solve"})[1]["ok"]
    receiver.wait_for(1)
    left = path.read_text()  # what a kill -9 now leaves
    [entry] = json.loads(left)
    assert entry["body"]["event"] == "solved" and entry["id"] == receiver.ids[0]
    assert "127.0.0.1" not in left and "/solved" not in left  # the hook by digest, never its URL
    web.service.stop()  # a clean stop keeps it too
    assert json.loads(path.read_text())[0]["id"] == entry["id"]
    assert "1 kept to send at the next start" in caplog.text
    web.daemon.stop()  # the prop is gone; a new one starts on the same pins
    close_daemon(web.daemon)
    path.write_text(left)
    receiver.statuses = []  # the controller is back
    first = len(receiver.requests)
    again = web_factory(settings=settings)
    requests = receiver.wait_for(first + 1)
    assert requests[first][2] == entry["body"] and receiver.ids[first] == entry["id"], "not the same delivery"
    until(lambda: not path.exists())  # answered: out of the outbox
    assert again.webhooks.delivered == 1
    assert f"webhook solved: sending again after a restart (id {entry['id']})" in caplog.text


def test_a_reset_is_sent_at_most_once(web_factory, receiver, tmp_path):
    path = tmp_path / "webhooks-outbox.json"
    receiver.gate.clear()  # the receiver hangs: the reset and the strike are in flight
    web = web_factory(
        settings={
            **hooks(receiver, ("reset", "/reset", "GET"), ("strike", "/strike", "GET")),
            "webhook_outbox": path,
            "webhook_timeout_seconds": 30,
        }
    )
    web.login()
    assert web.command({"command": "reset"})[1]["ok"]
    web.rig.deal()  # a strike
    until(lambda: path.exists() and len(json.loads(path.read_text())) == 1)
    assert [entry["body"]["event"] for entry in json.loads(path.read_text())] == ["strike"]
    receiver.gate.set()
    receiver.wait_for(2)
    until(lambda: not path.exists())
    assert sorted(p for _, p, _ in receiver.requests) == ["/reset", "/strike"]
    assert receiver.ids[0] != receiver.ids[1] and None not in receiver.ids


HOOK = Webhook("strike", "http://ha.example:8123/api/webhook/secret-id", "POST")


def test_the_outbox_is_bounded_in_size(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    box = Outbox(tmp_path / "o.json")
    for n in range(MAX_ENTRIES + 150):
        box.add(HOOK, {"event": "strike", "n": n}, f"id-{n}")
    kept = json.loads((tmp_path / "o.json").read_text())
    assert len(kept) == MAX_ENTRIES and kept[0]["body"]["n"] == 150 and kept[-1]["body"]["n"] == MAX_ENTRIES + 149
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and "(1 dropped so far)" in lines[0] and "(100 dropped so far)" in lines[2], lines
    assert "secret-id" not in (tmp_path / "o.json").read_text()


def test_an_old_delivery_or_one_for_a_hook_gone_is_dropped_at_start(tmp_path, caplog, monkeypatch):
    caplog.set_level(logging.WARNING)
    now = [1_000_000.0]
    path = tmp_path / "o.json"
    box = Outbox(path, clock=lambda: now[0])
    box.add(HOOK, {"event": "strike"}, "old")
    now[0] += outbox_module.MAX_AGE_SECONDS / 2
    box.add(HOOK, {"event": "strike"}, "recent")
    box.add(Webhook("solved", "http://gone.example/x"), {"event": "solved"}, "gone")
    now[0] += outbox_module.MAX_AGE_SECONDS / 2 + 1
    pending = Outbox(path, clock=lambda: now[0]).load((HOOK,))
    assert pending == [(HOOK, {"event": "strike"}, "recent")]
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "webhook outbox: 1 undelivered webhook(s) older than 60 minutes dropped, not sent",
        "webhook outbox: 1 undelivered webhook(s) for a webhook no longer in the config dropped, not sent",
    ]
    assert [entry["id"] for entry in json.loads(path.read_text())] == ["recent"]
    assert hook_key(HOOK) != hook_key(Webhook("strike", HOOK.url, "GET"))


@pytest.mark.parametrize("text", ["not json", '[1, {}, {"id": 3}]', "{}", "\udcff"])
def test_a_damaged_outbox_is_one_line(tmp_path, caplog, text):
    caplog.set_level(logging.WARNING)
    path = tmp_path / "o.json"
    path.write_bytes(text.encode(errors="surrogateescape"))
    assert Outbox(path, clock=time.time).load((HOOK,)) == []
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) <= 1 and "Traceback" not in caplog.text, lines


def test_a_kill_9_mid_delivery_then_a_start_delivers_it_once_more(receiver, tmp_path, short_dir):
    """The real thing: a headless simulator whose solve webhook the receiver refuses is killed with
    SIGKILL after the first attempt; started again on the same state file, it sends that delivery,
    same body and id, to the receiver that is back."""
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    socket_path = short_dir / "control.sock"
    text += f'\n[state]\nfile = "{tmp_path / "state.json"}"\n'
    text += f'\n[control]\nsocket = "{socket_path}"\n'
    text += f"\n[web]\nport = {free_port()}\nwebhook_retries = 10\n"
    text += f'webhooks = [{{ event = "solved", url = "{receiver.url("/door")}", method = "POST" }}]\n'
    config = tmp_path / "sim.toml"
    config.write_text(text)
    command = [sys.executable, "-m", "firmware.cli", "run", "--simulate", "--view", "headless", "--config", str(config)]

    logs: list = []

    def start() -> subprocess.Popen:
        log = open(tmp_path / f"sim-{len(logs)}.log", "w")  # noqa: SIM115 (closed with the test's tmp_path)
        logs.append(log)
        return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    receiver.statuses = [503] * 1000
    first = start()
    try:
        until(lambda: socket_path.exists(), timeout=30)
        until(lambda: _answered(socket_path), timeout=30)
        assert control_request(socket_path, {"command": "force_solve"}, timeout=10)["ok"]
        receiver.wait_for(1, timeout=30)  # the first attempt refused, the console's own answer
        until(lambda: (tmp_path / "webhooks-outbox.json").exists(), timeout=10)
        first.kill()
        first.wait(10)
        [sent] = receiver.requests[:1]
        receiver.statuses = []
        count = len(receiver.requests)
        second = start()
        try:
            requests = receiver.wait_for(count + 1, timeout=60)
            assert requests[count] == sent and receiver.ids[count] == receiver.ids[0]
            until(lambda: not (tmp_path / "webhooks-outbox.json").exists(), timeout=10)
        finally:
            second.send_signal(signal.SIGTERM)
            assert second.wait(30) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(10)


def _answered(path) -> bool:
    """Whether the prop at ``path`` answers ``status`` now: a socket not there yet, or bound and not
    yet listening (refused: the client says "stale socket"), is not yet."""
    try:
        return bool(control_request(path, {"command": "status"}, timeout=5).get("ok"))
    except (OSError, PropError):
        return False


def test_an_event_before_the_console_listens_is_sent_once_it_does(receiver):
    """The console starts once the game is ready, on a thread of its own: a solve in between waited
    for no loop and was dropped without a line. It waits for the loop now (64 at most)."""
    import asyncio

    from firmware.services.webhooks.sender import MAX_EARLY, WebhookSender

    sender = WebhookSender((Webhook("solved", receiver.url("/door"), "POST"),), backoff=0.05, prop="p")
    sender.on_events([{"event": "solved", "forced": True}] * (MAX_EARLY + 5))  # the game thread, early

    async def console() -> None:
        sender.bind(asyncio.get_running_loop())
        while sender.delivered < MAX_EARLY:
            await asyncio.sleep(0.01)
        await sender.close()

    asyncio.run(asyncio.wait_for(console(), 30))
    received = receiver.wait_for(MAX_EARLY)
    # At least once: a delivery whose answer came late (a busy machine) is sent again with its id.
    assert len({body["id"] for _, _, body in received}) == MAX_EARLY and received[0][2]["forced"] is True
