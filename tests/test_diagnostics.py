"""The diagnostics document (version, start, last warning or error) and the loop it must never feed."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

import firmware
from firmware.cli import helptext
from firmware.room.commands import GameMaster
from firmware.room.diagnostics import MAX_LINE, Diagnostics
from firmware.services.mqtt.room import MqttService
from tests.conftest import make_config
from tests.mosquitto import free_port


def test_the_last_warning_or_error_is_kept_on_one_line():
    changes = []
    diagnostics = Diagnostics(lambda: changes.append(1), started=0.0)
    diagnostics.attach()
    try:
        assert diagnostics.document() == {
            "version": helptext.version(),
            "started": "1970-01-01T00:00:00+00:00",
            "last_error": "none",
            "last_error_at": None,
            "self_test": None,
        }
        logging.getLogger("baccarat.sound").info("a cue played")
        logging.getLogger("elsewhere").error("not the prop's")
        assert changes == [] and diagnostics.document()["last_error"] == "none"
        logging.getLogger("baccarat.displays").warning("bets display lost:\n%s", "EIO " * 100)
        document = diagnostics.document()
        assert changes == [1]
        assert document["last_error"].startswith("WARNING baccarat.displays: bets display lost: EIO EIO")
        assert len(document["last_error"]) <= MAX_LINE and "\n" not in document["last_error"]
        assert datetime.fromisoformat(document["last_error_at"]).tzinfo is not None
        logging.getLogger("baccarat").error("state file: %s", "ENOSPC")
        assert diagnostics.document()["last_error"] == "ERROR baccarat: state file: ENOSPC"
    finally:
        diagnostics.detach()
    logging.getLogger("baccarat").error("after detach")
    assert diagnostics.document()["last_error"] == "ERROR baccarat: state file: ENOSPC"
    assert firmware.__version__ == helptext.version()


def test_quiet_holds_only_this_threads_records():
    diagnostics = Diagnostics(lambda: None)
    diagnostics.attach()
    try:
        with diagnostics.quiet():
            logging.getLogger("baccarat.mqtt").warning("sending the diagnostics failed")
            other = threading.Thread(target=lambda: logging.getLogger("baccarat.web").warning("from elsewhere"))
            other.start()
            other.join()
        assert diagnostics.document()["last_error"] == "WARNING baccarat.web: from elsewhere"
    finally:
        diagnostics.detach()


def test_a_diagnostics_document_that_cannot_be_sent_does_not_feed_itself(rig):
    """Sending the document fails and logs an error: that error must not ask for another send."""
    config = make_config(mqtt={"host": "127.0.0.1", "port": free_port()}, state={"file": ""}, control={"socket": ""})
    service = MqttService(rig.daemon, GameMaster(rig.daemon), config.settings["mqtt"])
    calls = []

    def broken() -> None:
        calls.append(1)
        raise OSError("the broker's socket is gone")

    service.publish_diagnostics = broken
    service.link.start = lambda after=None: None  # no broker, no connection attempt: only this test's warning
    service.start()
    try:
        logging.getLogger("baccarat.inputs").warning("deal input stuck")
        deadline = time.monotonic() + 5
        while not calls:
            assert time.monotonic() < deadline, "the warning never asked for the document"
            time.sleep(0.01)
        time.sleep(0.3)
        assert len(calls) == 1, f"the failure fed itself: {len(calls)} sends"
        assert service.diagnostics.document()["last_error"] == "WARNING baccarat.inputs: deal input stuck"
        logging.getLogger("baccarat.inputs").warning("deal input free again")  # a new problem asks again
        while len(calls) < 2:
            assert time.monotonic() < deadline + 5, "a later warning never asked for the document"
            time.sleep(0.01)
    finally:
        service.stop()


def test_a_flood_of_warnings_asks_for_one_document(rig):
    """A warning per bad message, thousands of them: the out thread is asked once until it publishes."""
    config = make_config(mqtt={"host": "127.0.0.1", "port": free_port()}, state={"file": ""}, control={"socket": ""})
    service = MqttService(
        rig.daemon, GameMaster(rig.daemon), config.settings["mqtt"]
    )  # not started: nothing takes the queue
    service.diagnostics.attach()
    try:
        for n in range(1000):
            logging.getLogger("baccarat.mqtt").warning("ignored the message on bomb/solved: %d", n)
        assert service._out.qsize() == 1
        assert service.diagnostics.document()["last_error"].endswith(": 999")
    finally:
        service.diagnostics.detach()
