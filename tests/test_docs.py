"""What the docs say against what the code does: the webhook body, the bytes a press sends, the
resistors and the shutdown pin of the reference build; and the README stays a short way in."""

from __future__ import annotations

import json
import random
import re
import socket

from firmware.app import build_daemon, close_daemon
from firmware.devices.displays import open_dummy_device
from firmware.room.commands import GameMaster
from firmware.services import webhooks
from firmware.services.webhooks.settings import Webhook, WebhookSettings
from firmware.web.attach import attach_web
from firmware.web.settings import WebSettings
from tests.conftest import ROOT, Rig, make_config
from tests.test_web_webhooks import Receiver

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
WEBHOOKS = (DOCS / "integrate" / "webhooks.md").read_text(encoding="utf-8")
PERFORMANCE = (DOCS / "performance" / "index.md").read_text(encoding="utf-8")
#: The pages the builder reads (hardware/README.md's text moved there) and hardware/README.md itself.
BUILD = "\n".join(p.read_text(encoding="utf-8") for p in sorted((DOCS / "build").glob("*.md")))
HARDWARE_README = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")


def test_the_docs_webhook_body_is_what_a_receiver_gets(mock_factory):
    """The console attached as `baccarat run` attaches it (no name given): a strike's POST body has
    the webhooks page's example's keys, and its "prop" is the host name, as the page says."""
    example = re.search(r"A POST carries the event as JSON: `(\{.*?\})`", WEBHOOKS, re.S)
    assert example, "the webhooks page's example is gone"
    shown = json.loads(" ".join(example.group(1).split()))
    assert re.search(r"`prop` is the host name", WEBHOOKS)

    receiver = Receiver()
    config = make_config(state={"file": ""}, control={"socket": ""})
    daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
    settings = WebSettings(enabled=True, port=0)
    hooks = WebhookSettings((Webhook("strike", receiver.url("/hook"), "POST"),))
    commands = GameMaster(daemon, default_limits=config.limits)
    service = attach_web(daemon, commands, settings, extensions=[webhooks.console_factory(hooks)])
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
    """The Performance page's bytes-per-input table: (input, display) -> mean bytes."""
    rows = re.findall(r"^\| ([a-z ]+) \| (\w+ \((?:SPI|I2C)\)) \| (\d+) \| (\d+) \|", PERFORMANCE, re.M)
    return {(name, display): int(mean) for name, display, mean, _ in rows}


def test_bytes_per_press_have_one_source_the_performance_table():
    """The benchmark's table on the Performance page is the one source: the page's prose quotes it,
    and the builder's pages state no per-press figure of their own (they point at the table)."""
    table = _table_bytes()
    assert ("chip press", "bets (SPI)") in table, table
    quoted = re.findall(r"a chip press now (\d+) bytes", PERFORMANCE)
    assert quoted and all(int(q) == table["chip press", "bets (SPI)"] for q in quoted), quoted
    for text in (BUILD, HARDWARE_README, README):
        own = re.findall(r"(?:press|arrow|hold|deal)\b[^.]{0,60}?\b(\d[\d,]*) bytes on average", text)
        assert own == [], f"a page states its own bytes per press: {own}"
    assert "../performance/index.md#bytes-and-bus-time-per-input" in BUILD


def test_the_build_pages_name_the_resistors_and_the_shutdown_pin_generate_py_uses():
    """hardware/README.md's text moved to docs/build/: the resistor values and the shutdown overlay
    there are the generator's, and the pin map and drawings are embedded, not copied."""
    from hardware import generate

    for resistor in generate.resistors(generate.load_config(generate.DEFAULT_CONFIG)).values():
        assert f"{resistor.ohms} Ω" in BUILD, resistor.ohms
    assert f"dtoverlay=gpio-shutdown,gpio_pin={generate.SHUTDOWN_GPIO}" in BUILD
    assert "](wiring.svg)" in BUILD and "](front-panel.svg)" in BUILD and "](pinmap.md)" in BUILD
    assert not (DOCS / "build" / "wiring.svg").exists(), "the drawing is generated into the site, not copied"


def test_the_readme_is_a_short_way_in_that_opens_with_the_two_commands():
    """At most 150 lines; the two commands first, as .ci/run and check_fresh_debian.sh run them; a link
    into each part of the site; the licence."""
    lines = README.splitlines()
    assert len(lines) <= 150, len(lines)
    assert lines[:6] == [
        "# Baccarat prop",
        "",
        "```sh",
        "bash scripts/start.sh    # installs and starts the module (the simulator on a PC)",
        "bash scripts/test.sh     # installs what the tests need and runs the whole suite",
        "```",
    ]
    for part in ("play", "run", "build", "integrate", "operate", "develop", "reference", "performance"):
        assert f"](docs/{part}/index.md)" in README, part
    for link in re.findall(r"\]\(((?:docs|hardware)/[^)#]+)", README):
        assert (ROOT / link).exists(), link
    assert "## Licence" in README and "MIT" in README
