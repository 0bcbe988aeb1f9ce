"""What the MQTT service keeps across restarts (firmware/services/mqtt/memory.py), on a real Mosquitto.

- Issue 41 item 21: the events' ``seq`` goes on from one run to the next, so that a consumer
  dropping a ``seq`` it has seen drops no new run's events.
- Issue 41 item 7: renaming ``client_id`` leaves Home Assistant's device where it was: the same
  discovery topic and device, no second one mirroring the prop.
"""

from __future__ import annotations

import json
import logging
import os

import pytest

from firmware.services.mqtt.memory import FILE, SEQ_BLOCK, Memory
from tests import test_mqtt
from tests.conftest import make_config, served_prop
from tests.test_mqtt import P

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory


def config_for(broker, state_dir, *, client_id: str = "casino-baccarat", **mqtt):
    return make_config(
        mqtt=test_mqtt.mqtt_section(broker, client_id=client_id, **mqtt),
        state={"file": str(state_dir / "state.json")},
        control={"socket": ""},
    )


def seqs(watcher) -> list[int]:
    return [json.loads(payload)["seq"] for payload in watcher.on(f"{P}/events")]


def test_seq_goes_on_across_restarts(mock_factory, broker, watcher_factory, tmp_path):
    w = watcher_factory(topics=(f"{P}/events",))
    runs: list[list[int]] = []
    for _ in range(3):
        before = len(seqs(w))
        with served_prop(config_for(broker, tmp_path), mock_factory) as rig:
            rig.master.handle({"command": "force_solve"}).result(5)
            w.wait_after(f"{P}/events", before, lambda p: json.loads(p)["event"] == "solved")
        runs.append(seqs(w)[before:])
    # The events published while the prop was connecting can arrive after newer ones (the docs
    # say to order by seq): each run's numbers, in seq order, have no gap and no repeat.
    runs = [sorted(run) for run in runs]
    for run in runs:
        assert run == list(range(run[0], run[0] + len(run))), run  # no gap within a run
    # Each run's numbers are above every number of the runs before: a "drop what I have seen"
    # consumer keeps all of them.
    assert runs[0][0] == 1
    assert runs[1][0] > runs[0][-1] and runs[2][0] > runs[1][-1], [(r[0], r[-1]) for r in runs]
    assert runs[1][0] == SEQ_BLOCK + 1 and runs[2][0] == 2 * SEQ_BLOCK + 1  # one block a run, one write
    kept = json.loads((tmp_path / FILE).read_text())
    assert kept == {"seq": 3 * SEQ_BLOCK, "identity": "casino-baccarat", "topic_prefix": P}


def test_a_run_killed_before_its_block_ended_never_hands_out_its_numbers_again(tmp_path):
    path = tmp_path / FILE
    killed = Memory(path, client_id="b", topic_prefix=P)
    used = [killed.next_seq() for _ in range(SEQ_BLOCK + 5)]  # a second block was reserved on the way
    # no stop, no write: as kill -9 leaves it
    after = Memory(path, client_id="b", topic_prefix=P)
    assert after.next_seq() > max(used)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe garbage", "is ignored"),
        (b'["seq", 4]', "is not an object"),
        (b'{"seq": 1e999}', "is ignored"),
        (b"{" * 5000, "is ignored"),
    ],
)
def test_a_damaged_file_is_one_line_and_seq_starts_again(tmp_path, caplog, content, problem):
    path = tmp_path / FILE
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        memory = Memory(path, client_id="b", topic_prefix=P)
        assert memory.next_seq() == 1 and memory.identity == "b"
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"mqtt: {path} ") and problem in line and not caplog.records[0].exc_info
    assert json.loads(path.read_text())["seq"] == SEQ_BLOCK  # written anew


def test_a_fifo_or_an_unwritable_directory_never_blocks_nor_stops_the_events(tmp_path, caplog):
    fifo = tmp_path / FILE
    os.mkfifo(fifo)
    with caplog.at_level(logging.WARNING):
        memory = Memory(fifo, client_id="b", topic_prefix=P)  # no writer: an open without O_NONBLOCK would hang
    assert "is not a regular file" in caplog.records[0].getMessage()
    fifo.unlink()
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        pytest.skip("run as root: a read-only directory is writable")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        memory = Memory(locked / FILE, client_id="b", topic_prefix=P)
        assert [memory.next_seq() for _ in range(2 * SEQ_BLOCK + 2)][-1] == 2 * SEQ_BLOCK + 2
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["mqtt"]  # said once, not per block


def test_renaming_client_id_leaves_home_assistants_device_where_it_was(mock_factory, broker, watcher_factory, tmp_path):
    w = watcher_factory(topics=("homeassistant/#",))
    old = "homeassistant/device/casino-baccarat/config"
    with served_prop(config_for(broker, tmp_path, home_assistant=True), mock_factory):
        first = json.loads(w.wait_for(old))
    assert first["dev"]["ids"] == ["casino-baccarat"]  # an unchanged config: the topic it always had

    count = len(w.on(old))
    with served_prop(config_for(broker, tmp_path, client_id="room-7-baccarat", home_assistant=True), mock_factory):
        again = json.loads(w.wait_after(old, count, lambda p: bool(p)))
    assert again["dev"]["ids"] == ["casino-baccarat"] and again["cmps"].keys() == first["cmps"].keys()
    # No second device: nothing under the new client id, live or retained.
    late = watcher_factory(topics=("homeassistant/device/+/config",))
    late.wait_for(old)
    assert {t for t, _, _ in w.messages + late.messages} == {old}


def test_a_new_topic_prefix_is_a_new_device(tmp_path):
    Memory(tmp_path / FILE, client_id="a", topic_prefix=P).next_seq()
    assert Memory(tmp_path / FILE, client_id="b", topic_prefix=P).identity == "a"
    assert Memory(tmp_path / FILE, client_id="b", topic_prefix="room7/baccarat").identity == "b"
