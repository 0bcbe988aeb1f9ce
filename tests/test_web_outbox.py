"""Solve, strike and explosion webhooks arrive at least once across a restart (issue 41 item 23): a
delivery waits in an outbox beside the state file until the receiver answers or the retries give up,
a prop that dies meanwhile sends it again at its next start with the same id (the
``Idempotency-Key`` header, ``"id"`` in a POST's body), and the outbox is bounded in size and age.

The death is the outbox file as a ``kill -9`` leaves it (copied while the receiver fails), then a
new prop started on it, against a real local HTTP server."""

from __future__ import annotations

import json
import logging
import time

import pytest

from firmware.app import close_daemon
from firmware.web import outbox as outbox_module
from firmware.web.outbox import MAX_ENTRIES, Outbox, hook_key
from firmware.web.settings import Webhook
from tests import browser
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
    assert again.service.webhooks.delivered == 1
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


@pytest.mark.parametrize("text", ["not json", "[1, {}, {\"id\": 3}]", "{}", "\udcff"])
def test_a_damaged_outbox_is_one_line(tmp_path, caplog, text):
    caplog.set_level(logging.WARNING)
    path = tmp_path / "o.json"
    path.write_bytes(text.encode(errors="surrogateescape"))
    assert Outbox(path, clock=time.time).load((HOOK,)) == []
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) <= 1 and "Traceback" not in caplog.text, lines
