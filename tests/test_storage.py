"""Where the state file lives (issue 23, part 2): read from mountinfo, and one warning at start
when a power cut would lose it. The mount tables are what these systems show in
``/proc/self/mountinfo`` (the service sees its state directory as a bind mount of its own)."""

from __future__ import annotations

import logging

import pytest

from firmware.system import storage
from tests.conftest import make_config, served_prop
from tests.fakehost import HIDDEN_UPPER, OVERLAY, OVERLAY_WITH_STATE_PARTITION, SD_CARD, SPACES


@pytest.mark.parametrize(
    "table, path, lost",
    [
        (SD_CARD, "/var/lib/baccarat/state.json", None),
        (SD_CARD, "/run/baccarat/state.json", "on tmpfs at /run, which lives in RAM"),
        (OVERLAY, "/var/lib/baccarat/state.json", "overlay file system at / whose changes live in RAM"),
        (OVERLAY, "/media/root-rw/state.json", "on tmpfs at /media/root-rw"),
        (OVERLAY_WITH_STATE_PARTITION, "/var/lib/baccarat/state.json", None),
        (OVERLAY_WITH_STATE_PARTITION, "/var/lib/baccarat-old/state.json", "changes live in RAM"),
        (HIDDEN_UPPER, "/var/lib/baccarat/state.json", "whose changes may live in RAM"),
        (SPACES, "/media/my stick/state.json", None),
    ],
    ids=["sd card", "tmpfs", "overlayroot", "the overlay's tmpfs", "own partition", "not quite", "hidden", "spaces"],
)
def test_what_a_power_cut_would_lose(table, path, lost):
    mounts = storage.parse_mountinfo(table)
    reason = storage.volatile_reason(path, mounts)
    if lost is None:
        assert reason is None
    else:
        assert reason is not None and lost in reason, reason


def test_a_mountinfo_line_is_read_whole():
    (mount,) = storage.parse_mountinfo(SPACES.splitlines()[-1])
    assert (mount.point, mount.fs_type, mount.source) == ("/media/my stick", "ext4", "/dev/sda1")
    root = storage.parse_mountinfo(OVERLAY)[0]
    assert root.option("upperdir") == "/media/root-rw/overlay" and root.option("nothing") is None
    assert storage.mount_of("/var/lib/baccarat/x", storage.parse_mountinfo(OVERLAY_WITH_STATE_PARTITION)).source == (
        "/dev/mmcblk0p3"
    )
    assert storage.parse_mountinfo("garbage\n\n1 2 3\n") == []
    assert storage.read_mounts()  # this machine's own


@pytest.mark.parametrize("table, warned", [(OVERLAY, True), (SD_CARD, False)], ids=["overlay", "sd card"])
def test_the_daemon_warns_once_at_start_when_the_state_file_would_be_lost(
    monkeypatch, mock_factory, tmp_path, caplog, table, warned
):
    info = tmp_path / "mountinfo"
    info.write_text(table)
    monkeypatch.setattr(storage, "MOUNTINFO", info)
    config = make_config(state={"file": str(tmp_path / "state.json")}, control={"socket": ""})
    with caplog.at_level(logging.INFO, logger="baccarat"), served_prop(config, mock_factory) as rig:
        rig.daemon.apply(lambda m: m.force_solve()).result(5)  # a write: no second warning
        rig.daemon.wait_idle()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    if warned:
        assert len(said) == 1, said
        assert str(tmp_path / "state.json") in said[0] and "will not survive a power cut" in said[0]
        assert "changes live in RAM" in said[0] and "\n" not in said[0]
    else:
        assert said == []
