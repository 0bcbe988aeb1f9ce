"""A flood of tiny M3 and node-redscape commands through a real Mosquitto (issue 41 item 15).

M3 brokers are often anonymous: anyone on the room's network can publish 200,000 one-byte
``set/...`` messages. What the conventions hand to the one command path is bounded, as the
prop's own command topic is: with the game busy (held on a gate here, so that the count does
not depend on how fast this machine is), at most ``MAX_PENDING`` of each convention's commands
wait; the rest are dropped with one log line each (then a count), never a traceback; and once the
game is free it answers the ones it took and the next command runs.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware.broker import conventions
from firmware.services.m3.convention import M3Convention
from firmware.services.redscape.device import RedscapeDevice
from tests import test_mqtt
from tests.conventions import convention_of, convention_prop, until

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory
__all__ = ["convention_prop"]

#: Messages sent to each convention.
FLOOD = 5_000


class Outstanding:
    """Wraps the one command path: how many requests it was handed and has not answered, at most."""

    def __init__(self, master) -> None:
        self.handle = master.handle
        self.lock = threading.Lock()
        self.now = self.most = self.handed = 0

    def __call__(self, payload, **kwargs) -> Future:
        with self.lock:
            self.now += 1
            self.handed += 1
            self.most = max(self.most, self.now)
        reply = self.handle(payload, **kwargs)
        reply.add_done_callback(self._done)
        return reply

    def _done(self, future: Future) -> None:
        with self.lock:
            self.now -= 1


@pytest.mark.mosquitto_conf("max_queued_messages 0\nmax_inflight_messages 0\n")  # the broker drops none
def test_a_flood_of_tiny_commands_waits_bounded_and_is_one_line(convention_prop, caplog):
    rig = convention_prop(m3={"name": "baccarat"}, redscape={"id": "baccarat"})
    m3, redscape = convention_of(rig, M3Convention), convention_of(rig, RedscapeDevice)
    counted = Outstanding(rig.master)
    rig.master.handle = counted  # the conventions hold this very GameMaster
    gate = threading.Event()
    held = rig.daemon.apply(lambda module: gate.wait(60) and [])  # the game is busy until the gate opens

    flooder = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="flooder")
    flooder.max_queued_messages_set(0)
    cfg = test_mqtt.service_of(rig).link.cfg
    flooder.connect(cfg.host, cfg.port)
    flooder.loop_start()
    try:
        with caplog.at_level(logging.INFO):
            last = None
            for i in range(FLOOD):
                flooder.publish("baccarat/set/output1", "1" if i % 2 else "0", qos=1)
                last = flooder.publish("ToDevice/baccarat", b'{"command":"STATUS"}', qos=1)
            assert last is not None
            last.wait_for_publish(60)

            def received() -> int:
                return counted.handed + getattr(m3, "dropped", 0) + getattr(redscape, "dropped", 0)

            until(lambda: received() >= 2 * FLOOD, 60, f"{2 * FLOOD} messages at the prop")
            waiting = counted.most
            gate.set()
            held.result(10)
            until(lambda: counted.now == 0, 30, "the game answers what it took")
            # Bounded by counting: at most MAX_PENDING of each convention's waited, the rest were dropped.
            assert waiting <= 2 * conventions.MAX_PENDING, waiting
            dropped = m3.dropped + redscape.dropped
            assert dropped == 2 * FLOOD - counted.handed >= 2 * FLOOD - 2 * conventions.MAX_PENDING
            # One line for each convention's flood (then a count), no traceback.
            drops = [r.getMessage() for r in caplog.records if "dropped a command" in r.getMessage()]
            assert sorted(line.split(":")[0] for line in drops) == ["m3", "redscape"], drops
            assert not any(r.exc_info for r in caplog.records)
        # The prop goes on: the next command runs.
        flooder.publish("baccarat/set/solve", "1", qos=1).wait_for_publish(5)
        until(lambda: rig.daemon.module.solved, 10, "solved after the flood")
    finally:
        gate.set()
        flooder.loop_stop()
        flooder.disconnect()
