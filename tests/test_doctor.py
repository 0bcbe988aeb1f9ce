"""``baccarat doctor`` (issue 23, part 2) on a made-up Pi (tests/fakehost.py): files under a
root, command outputs, and the fake kernel of tests/fakeos.py under smbus2 for the probes.
Each line is checked healthy and broken; the command's exit status is 1 exactly when a
line says FAIL."""

from __future__ import annotations

import errno
import os

import pytest

from firmware import cli, doctor
from firmware.config import DEFAULT_CONFIG
from tests import fakeos
from tests.fakehost import (
    CHROOT,
    OVERLAY,
    OVERLAY_ROOT_READ_ONLY,
    OVERLAY_STATE_READ_ONLY,
    OVERLAY_WITH_STATE_PARTITION,
    STICK_READ_ONLY,
    FakePi,
)


@pytest.fixture
def pi(monkeypatch, tmp_path):
    with fakeos.installed(monkeypatch) as kernel:
        yield FakePi(tmp_path / "root", kernel)


def examine(pi: FakePi, config=DEFAULT_CONFIG) -> list[doctor.Finding]:
    return doctor.examine(pi.host(), config)


def line(findings: list[doctor.Finding], start: str) -> doctor.Finding:
    """The one finding whose text starts with ``start``."""
    (found,) = [f for f in findings if f.text.startswith(start)]
    return found


def test_a_healthy_pi_is_all_ok_but_the_spi_display_nobody_can_probe(pi):
    findings = examine(pi)
    assert [(f.status, f.text.split(":")[0].split(" (")[0]) for f in findings if f.status != "OK"] == [
        ("WARN", "display bets on /dev/spidev0.0 cannot be probed")
    ]
    texts = [f.text for f in findings]
    for expected in (
        "config ",
        "I2C is on: /dev/i2c-1 (placard, table)",
        "SPI is on: /dev/spidev0.0 (bets)",
        "display placard answers at 0x3C on /dev/i2c-1",
        "display table answers at 0x3D on /dev/i2c-1",
        "baccarat (the service) is in gpio, i2c, spi",
        "pi (to run the prop by hand) is in gpio, i2c, spi",
        "baccarat.service is running (running), no restarts",
        "state file /var/lib/baccarat/state.json is on ext4 /dev/mmcblk0p2 at /: it survives a power cut",
        "power: no under-voltage or throttling since boot",
        "disk: 21.0 GiB free of 29.0 GiB at /",
        "clock synchronised (NTP)",
    ):
        assert any(text.startswith(expected) for text in texts), (expected, texts)
    # The probe is an SMBus quick write: the address and a stop, nothing a display would show.
    assert pi.placard.probes == pi.table.probes == 1
    assert pi.placard.writes == pi.table.writes == [] and pi.bets.writes == []


def test_the_command_prints_one_line_a_check_and_exits_1_only_on_a_fail(pi, monkeypatch, capsys):
    monkeypatch.setattr(doctor, "Host", pi.host)
    assert cli.main(["doctor", "--config", str(DEFAULT_CONFIG)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert all(text.split()[0] in ("OK", "WARN", "FAIL") for text in out[:-1]), out
    assert out[-1] == f"doctor: 0 FAIL, 1 WARN, {len(out) - 2} OK"
    pi.table.unplug()
    assert cli.main(["doctor", "--config", str(DEFAULT_CONFIG)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [text for text in out if text.startswith("FAIL")] == [
        "FAIL display table does not answer at 0x3D on /dev/i2c-1 (Remote I/O error); fix: check its wiring "
        "and address: i2cdetect -y 1 (hardware/README.md, sections 6 and 8)"
    ]
    assert out[-1].startswith("doctor: 1 FAIL")


def test_a_broken_config_fails_with_its_one_line_and_an_unreadable_one_asks_for_sudo(pi, tmp_path, monkeypatch):
    bad = tmp_path / "bad.toml"
    bad.write_text(DEFAULT_CONFIG.read_text().replace("tie = 13", "tie = 5"))
    found = line(examine(pi, bad), "config")
    assert (
        found.status == "FAIL" and "GPIO5 is used twice" in found.text and found.fix == f"baccarat check-config {bad}"
    )
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(bad) else real(path, mode))
    findings = examine(pi, bad)
    found = line(findings, "config")
    assert found.status == "WARN" and "is not readable by pi" in found.text
    assert found.fix == "sudo baccarat doctor"
    assert not [f for f in findings if f.text.startswith("display")]  # nothing to probe without the config


@pytest.mark.parametrize("in_config_txt", [False, True], ids=["off", "on-but-not-rebooted"])
def test_i2c_off(pi, in_config_txt):
    pi.remove("/dev/i2c-1")
    if not in_config_txt:
        pi.write("/boot/firmware/config.txt", "[all]\ndtparam=spi=on\n#dtparam=i2c_arm=on\n")
    findings = examine(pi)
    bus = line(findings, "I2C is")
    assert bus.status == "FAIL"
    if in_config_txt:
        assert bus.text == "I2C is on in config.txt but /dev/i2c-1 is missing" and bus.fix == "sudo reboot"
    else:
        assert bus.text == "I2C is off: /dev/i2c-1 is missing (placard, table)"
        assert bus.fix.startswith("sudo raspi-config nonint do_i2c 0")
    assert line(findings, "display table").status == "FAIL"
    assert pi.table.probes == 0


def test_spi_off(pi):
    pi.remove("/dev/spidev0.0")
    pi.write("/boot/config.txt", "dtparam=i2c_arm=on\n")  # before Bookworm, and no SPI
    pi.remove("/boot/firmware/config.txt")
    findings = examine(pi)
    bus = line(findings, "SPI is")
    assert bus.status == "FAIL" and bus.fix.startswith("sudo raspi-config nonint do_spi 0")
    assert line(findings, "display bets").status == "FAIL"


@pytest.mark.parametrize(
    "breakage, status, text",
    [
        (
            lambda pi: pi.table.unplug(),
            "FAIL",
            "display table does not answer at 0x3D on /dev/i2c-1 (Remote I/O error)",
        ),
        (
            lambda pi: pi.table.unplug(errno.EIO),
            "FAIL",
            "display table does not answer at 0x3D on /dev/i2c-1 (Input/output error)",
        ),
        (lambda pi: pi.kernel.deny("/dev/i2c-1"), "WARN", "display table not probed: pi may not open /dev/i2c-1"),
        (
            lambda pi: pi.kernel.i2c_bus(1).claimed.add(0x3D),
            "FAIL",
            "display table: a kernel driver holds 0x3D on /dev/i2c-1",
        ),
    ],
    ids=["nack", "eio", "eacces", "ebusy"],
)
def test_a_display_that_does_not_answer(pi, breakage, status, text):
    breakage(pi)
    found = line(examine(pi), "display table")
    assert (found.status, found.text) == (status, text)
    assert found.fix
    assert pi.table.writes == []


def test_groups(pi):
    pi.write("/etc/group", pi.root.joinpath("etc/group").read_text().replace("spi:x:999:pi,baccarat", "spi:x:999:"))
    findings = examine(pi)
    mine = line(findings, "pi (to run the prop by hand)")
    assert (
        mine.status == "WARN"
        and mine.text.endswith("is not in spi")
        and mine.fix == "sudo usermod -aG spi pi, log in again"
    )
    service = line(findings, "baccarat (the service)")
    assert service.status == "WARN" and "SupplementaryGroups" in service.text
    pi.write("/etc/group", "root:x:0:\npi:x:1000:\nbaccarat:x:996:\naudio:x:29:\n")
    found = line(examine(pi), "groups gpio, i2c, spi do not exist")
    assert found.status == "FAIL"


@pytest.mark.parametrize(
    "service, status, text",
    [
        ({"NRestarts": "2", "Result": "watchdog", "ExecMainCode": "3", "ExecMainStatus": "6"}, "WARN",
         "baccarat.service is running, but restarted 2 times; last exit: the watchdog killed it: it hung (signal 6)"),
        ({"ActiveState": "failed", "SubState": "failed", "Result": "exit-code", "ExecMainCode": "1",
          "ExecMainStatus": "2"}, "FAIL",
         "baccarat.service failed; last exit: it exited with an error (exit status 2)"),
        ({"ActiveState": "inactive", "SubState": "dead"}, "WARN", "baccarat.service is inactive (dead)"),
        ({"LoadState": "not-found", "ActiveState": "inactive"}, "WARN", "baccarat.service is not installed"),
    ],
    ids=["restarted by the watchdog", "failed", "stopped", "not installed"],
)  # fmt: skip
def test_the_service(pi, service, status, text):
    pi.service.update(service)
    found = line(examine(pi), "baccarat.service")
    assert (found.status, found.text) == (status, text)
    assert found.fix


def test_no_systemd(pi):
    pi.commands["systemctl"] = None
    findings = examine(pi)
    assert line(findings, "cannot ask systemd").status == "WARN"


def test_the_state_file_on_the_overlay_fails_and_on_its_own_partition_is_ok(pi, tmp_path):
    pi.write("/proc/self/mountinfo", OVERLAY)
    found = line(examine(pi), "state file")
    assert found.status == "FAIL" and "will not survive a power cut" in found.text
    assert found.fix == "put the state directory on a disk of its own (hardware/README.md, section 18)"
    pi.write("/proc/self/mountinfo", OVERLAY_WITH_STATE_PARTITION)
    found = line(examine(pi), "state file")
    assert found.status == "OK" and found.text == (
        "state file /var/lib/baccarat/state.json is on ext4 /dev/mmcblk0p3 at /var/lib/baccarat: "
        "it survives a power cut"
    )
    off = tmp_path / "off.toml"
    off.write_text(DEFAULT_CONFIG.read_text() + '\n[state]\nfile = ""\n')
    assert line(examine(pi, off), "state saving is off").status == "WARN"


@pytest.mark.parametrize(
    "vcgencmd, sysfs, status, text",
    [
        ((0, "throttled=0x50005\n"), None, "FAIL", "power: under-voltage now, throttled now (get_throttled 0x50005)"),
        ((0, "throttled=0x50000\n"), None, "WARN", "power: under-voltage, throttling happened since boot"),
        (None, "50000\n", "WARN", "power: under-voltage, throttling happened since boot"),  # no vcgencmd: sysfs
        ((255, ""), "1\n", "FAIL", "power: under-voltage now (get_throttled 0x1)"),  # vcgencmd not allowed (/dev/vcio)
        (None, "", "WARN", "cannot read the power flags"),
    ],
    ids=["under-voltage now", "since boot", "sysfs", "vcgencmd refused", "neither"],
)
def test_power(pi, vcgencmd, sysfs, status, text):
    pi.commands["vcgencmd"] = vcgencmd
    if sysfs is not None:
        pi.write(doctor.THROTTLED_SYSFS, sysfs)
    (found,) = [f for f in examine(pi) if f.text.startswith(("power", "cannot read the power"))]
    assert found.status == status and found.text.startswith(text), found


@pytest.mark.parametrize("free, status", [(21 << 30, "OK"), (150 << 20, "WARN"), (1 << 30, "WARN"), (10 << 20, "FAIL")])
def test_free_disk(pi, free, status):
    pi.disk = (29 << 30, free)
    found = line(examine(pi), "disk")
    assert found.status == status
    assert bool(found.fix) == (status != "OK")


@pytest.mark.parametrize(
    "answer, status", [((0, "yes\n"), "OK"), ((0, "no\n"), "WARN"), (None, "WARN"), ((1, ""), "WARN")]
)
def test_clock(pi, answer, status):
    pi.commands["timedatectl"] = answer
    findings = examine(pi)
    found = [f for f in findings if "clock" in f.text][0]
    assert found.status == status
    assert ("timedatectl", "show", "--property=NTPSynchronized", "--value") in pi.asked


# -- not a Pi, a chroot (issue 32, item 7) -------------------------------------------------------------

#: Words only a Pi's fixes use: none may show where the Pi's checks are skipped.
PI_FIXES = ("raspi-config", "config.txt", "usermod", "power supply", "i2cdetect", "dtoverlay")


@pytest.mark.parametrize("model", [None, "Pine64 RockPro64 v2.1\0"], ids=["pc", "another-board"])
def test_off_a_pi_it_says_so_first_and_skips_the_pi_checks(pi, monkeypatch, capsys, model):
    pi.remove(doctor.MODEL)
    if model is not None:
        pi.write(doctor.MODEL, model)
    for node in ("/dev/i2c-1", "/dev/spidev0.0", "/dev/spidev0.1", "/dev/gpiochip0"):  # a PC has none
        pi.remove(node)
    pi.commands["vcgencmd"] = None
    pi.service.update({"LoadState": "not-found", "ActiveState": "inactive"})
    monkeypatch.setattr(doctor, "Host", pi.host)
    assert cli.main(["doctor", "--config", str(DEFAULT_CONFIG)]) == 0
    out = capsys.readouterr().out.splitlines()
    board = "this is a Pine64 RockPro64 v2.1" if model else "/proc/device-tree/model does not say so"
    assert out[0] == (
        f"WARN not a Raspberry Pi ({board}): the Pi's checks (buses, displays, groups, power) are skipped; "
        "fix: on a PC, play the simulator: baccarat run --simulate"
    )
    assert not [text for text in out if any(word in text for word in PI_FIXES)], out
    assert [text.split()[1] for text in out[1:-1]] == ["config", "baccarat.service", "state", "disk:", "clock"]
    assert pi.table.probes == 0


def test_in_a_chroot_without_proc_it_blames_the_missing_mount_not_the_state_file(pi):
    import shutil

    shutil.rmtree(pi.root / "proc")
    findings = examine(pi)
    assert findings[0].text.startswith("cannot tell whether this is a Raspberry Pi: /proc is not mounted (a chroot?)")
    assert not [f for f in findings if f.text.startswith("state file")]
    found = line(findings, "/proc is not mounted here")
    assert found.status == "WARN" and found.text.endswith("where the state file lives cannot be told")
    assert found.fix == "sudo mount -t proc proc /proc, or run doctor on the system itself"


def test_in_a_chroot_whose_root_is_no_mount_point_it_says_so(pi):
    pi.write("/proc/self/mountinfo", CHROOT)
    found = line(examine(pi), "no mount in /proc/self/mountinfo holds /var/lib/baccarat")
    assert found.status == "WARN" and "(a chroot whose root is not a mount point?)" in found.text


# -- a state directory that takes no writes (issue 33, item 19) -------------------------------------


@pytest.mark.parametrize(
    "mountinfo, text, fix",
    [
        (
            OVERLAY_STATE_READ_ONLY,
            "its mount (ext4 /dev/mmcblk0p3 at /var/lib/baccarat) is read-only, so the game cannot be saved; "
            "Raspberry Pi OS's overlay turns the other partitions read-only unless told not to (raspi-config #288",
            "overlayroot=tmpfs:recurse=0 in /boot/firmware/cmdline.txt, then reboot (hardware/README.md, section 18)",
        ),
        (
            OVERLAY_ROOT_READ_ONLY,
            "its mount (overlay overlayroot at /) is read-only, so the game cannot be saved; an overlay root that "
            "comes up read-only is Debian 13's systemd-remount-fs failing under overlayroot (systemd #39558)",
            "sudo mount -o remount,rw / for now, and keep the state on a partition of its own "
            "(hardware/README.md, section 18)",
        ),
        (
            STICK_READ_ONLY,
            "its mount (ext4 /dev/sda1 at /var/lib/baccarat) is read-only, so the game cannot be saved",
            "sudo mount -o remount,rw /var/lib/baccarat, and check its line in /etc/fstab (after a disk error: fsck)",
        ),
    ],
    ids=["trixie-state-partition", "trixie-overlay-root", "stick-after-an-error"],
)
def test_a_read_only_state_directory_fails_with_what_to_do(pi, mountinfo, text, fix):
    pi.write("/proc/self/mountinfo", mountinfo)
    found = line(examine(pi), "state file")
    assert found.status == "FAIL"
    assert found.text.startswith(f"state file /var/lib/baccarat/state.json: {text}"), found.text
    assert found.fix == fix


def test_one_disk_line_a_file_system_while_its_free_space_moves(pi):
    """The state directory on the root: one line, though the free bytes changed between the two asks
    (another process writing), as doctor showed two lines of the same disk under the ARM check."""
    frees = iter([21 << 30, (21 << 30) - 4096])
    pi.host = lambda original=pi.host: _moving(original(), frees)
    assert len([f for f in examine(pi) if f.text.startswith("disk:")]) == 1


def _moving(host, frees):
    host._disk_usage = lambda path: (29 << 30, next(frees))
    return host
