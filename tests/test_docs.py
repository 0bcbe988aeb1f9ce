"""What the READMEs say against what the code does: the webhook body and the bytes a press sends."""

from __future__ import annotations

import json
import random
import re
import socket

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster
from firmware.web.attach import attach_web
from firmware.web.settings import Webhook, WebSettings
from tests.conftest import ROOT, Rig, make_config
from tests.test_web_webhooks import Receiver

README = (ROOT / "README.md").read_text(encoding="utf-8")
HARDWARE_README = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")


def test_the_readme_webhook_body_is_what_a_receiver_gets(mock_factory):
    """The console attached as `baccarat run` attaches it (no name given): a strike's POST body has
    the README example's keys, and its "prop" is the host name, as the README says."""
    example = re.search(r"A POST carries the event as JSON: `(\{.*?\})`", README, re.S)
    assert example, "the README's webhook example is gone"
    shown = json.loads(" ".join(example.group(1).split()))
    assert re.search(r"`prop` is the host name", README)

    receiver = Receiver()
    config = make_config(state={"file": ""}, control={"socket": ""})
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    settings = WebSettings(enabled=True, port=0, webhooks=(Webhook("strike", receiver.url("/hook"), "POST"),))
    service = attach_web(daemon, GameMaster(daemon, default_limits=config.limits), settings)
    assert service is not None
    try:
        daemon.start()
        assert daemon.ready.wait(5)
        Rig(daemon, mock_factory).deal()  # no bet: a strike
        body = receiver.wait_for(1)[0][2]
    finally:
        service.stop()
        daemon.stop()
        close_daemon(daemon)
        receiver.close()
    assert set(body) == set(shown), (body, shown)
    assert body["prop"] == socket.gethostname()
    assert body["event"] == shown["event"] == "strike"


def _table_bytes() -> dict[tuple[str, str], int]:
    """The README's bytes-per-input table: (input, display) -> mean bytes."""
    rows = re.findall(r"^\| ([a-z ]+) \| (\w+ \((?:SPI|I2C)\)) \| (\d+) \| (\d+) \|", README, re.M)
    return {(name, display): int(mean) for name, display, mean, _ in rows}


def test_bytes_per_press_have_one_source_the_readme_table():
    """The benchmark's table in the README is the one source: the README's prose quotes it, and
    hardware/README states no per-press figure of its own (it points at the table)."""
    table = _table_bytes()
    assert ("chip press", "bets (SPI)") in table, table
    quoted = re.findall(r"a chip press now (\d+) bytes", README)
    assert quoted and all(int(q) == table["chip press", "bets (SPI)"] for q in quoted), quoted
    own = re.findall(r"(?:press|arrow|hold|deal)\b[^.]{0,60}?\b(\d[\d,]*) bytes on average", HARDWARE_README)
    assert own == [], f"hardware/README.md states its own bytes per press: {own}"
    assert "../README.md#speed-and-robustness" in HARDWARE_README
