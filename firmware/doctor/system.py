"""The doctor's checks of the system the prop runs on: the config, the service, where the state
file lives, free disk and the clock."""

from __future__ import annotations

import os
import re
from pathlib import Path

from firmware.system import storage

from ..config import Config, load_config
from ..errors import ConfigError
from .host import FAIL, OK, WARN, Finding, Host

SERVICE = "baccarat.service"
SERVICE_USER = "baccarat"
#: Where the service keeps its state (``StateDirectory=baccarat``).
SERVICE_STATE_DIRECTORY = "/var/lib/baccarat"
MOUNTINFO = "/proc/self/mountinfo"
#: Where the read-only root, its traps and what was tried are written down.
READ_ONLY_ROOT = "hardware/README.md, section 18"
#: Free space below which the state file's writes and the journal may fail.
FAIL_FREE_BYTES = 20 * 1024 * 1024
WARN_FREE_BYTES = 200 * 1024 * 1024


def check_config(path: Path, user: str) -> tuple[Finding, Config | None]:
    """The config the prop runs with: valid, or why not."""
    if path.exists() and not os.access(path, os.R_OK):
        return Finding(
            WARN,
            f"config {path} is not readable by {user}: the displays and the state file are not checked",
            "sudo baccarat doctor",
        ), None
    try:
        config = load_config(path)
    except ConfigError as error:
        return Finding(FAIL, f"config: {error}", f"baccarat check-config {path}"), None
    return Finding(OK, f"config {path} is valid ({len(config.displays)} displays)"), config


SERVICE_PROPERTIES = ("LoadState", "ActiveState", "SubState", "NRestarts", "Result", "ExecMainCode", "ExecMainStatus")
#: systemd's ``Result=`` in words.
RESULTS = {
    "exit-code": "it exited with an error",
    "signal": "it was killed by a signal",
    "core-dump": "it crashed",
    "watchdog": "the watchdog killed it: it hung",
    "timeout": "it did not start or stop in time",
    "start-limit-hit": "it failed too often in a row",
    "oom-kill": "it ran out of memory",
    "resources": "its directories or user could not be set up",
}


def service_state(host: Host) -> dict[str, str] | None:
    """``systemctl show``'s properties of the service, or None without systemd."""
    done = host.command("systemctl", "show", SERVICE, "--property=" + ",".join(SERVICE_PROPERTIES))
    if done is None or done[0] != 0:
        return None
    return dict(line.split("=", 1) for line in done[1].splitlines() if "=" in line)


def check_service(state: dict[str, str] | None) -> Finding:
    """The service is installed and running, and how often it restarted."""
    if state is None:
        return Finding(WARN, f"cannot ask systemd about {SERVICE} (no systemctl, or no systemd here)")
    if state.get("LoadState") != "loaded":
        return Finding(WARN, f"{SERVICE} is not installed", "sudo bash scripts/install-service.sh")
    active, sub = state.get("ActiveState", "?"), state.get("SubState", "?")
    restarts = int(state.get("NRestarts", "0") or 0)
    result = state.get("Result", "success")
    last = ""
    if result != "success":
        code, status = state.get("ExecMainCode", ""), state.get("ExecMainStatus", "")
        how = f"signal {status}" if code in ("2", "3") else f"exit status {status}"
        last = f"; last exit: {RESULTS.get(result, result)} ({how})"
    journal = "journalctl -u baccarat -b"
    if active == "active":
        if restarts:
            times = "once" if restarts == 1 else f"{restarts} times"
            return Finding(WARN, f"{SERVICE} is running, but restarted {times}{last}", f"read why: {journal}")
        return Finding(OK, f"{SERVICE} is running ({sub}), no restarts")
    if active == "failed":
        return Finding(FAIL, f"{SERVICE} failed{last}", f"{journal}, then sudo systemctl restart baccarat")
    if active in ("activating", "reloading"):
        return Finding(WARN, f"{SERVICE} is starting ({sub}){last}", f"wait, then look again; {journal}")
    return Finding(WARN, f"{SERVICE} is {active} ({sub}){last}", "sudo systemctl enable --now baccarat")


def state_file(config: Config | None, service_installed: bool) -> Path | None:
    """Where the prop keeps its game: the service's state directory when it is installed."""
    from ..room.saved_state import state_path

    if config is None:
        return Path(SERVICE_STATE_DIRECTORY) / "state.json" if service_installed else None
    env = {"STATE_DIRECTORY": SERVICE_STATE_DIRECTORY} if service_installed else None
    return state_path(config, env)


def check_state_file(host: Host, config: Config | None, path: Path | None) -> Finding:
    """Where the state file lives: on a mount that takes writes, and that survives a power cut."""
    if config is not None and config.state_file == "":
        return Finding(WARN, "state saving is off: a restart starts a fresh game", 'remove [state] file = ""')
    if path is None:
        return Finding(WARN, "state file not checked (the config could not be read)")
    text = host.read(MOUNTINFO)
    if text is None:
        if not host.exists("/proc/self"):
            return Finding(
                WARN,
                "/proc is not mounted here (a chroot or a container?): where the state file lives cannot be told",
                "sudo mount -t proc proc /proc, or run doctor on the system itself",
            )
        return Finding(WARN, f"cannot read {MOUNTINFO}: where the state file lives cannot be told")
    mounts = storage.parse_mountinfo(text)
    mount = storage.mount_of(path, mounts)
    if mount is None:
        return Finding(
            WARN,
            f"no mount in {MOUNTINFO} holds {path.parent} (a chroot whose root is not a mount point?): "
            "whether the state file survives a power cut cannot be told",
            "run doctor on the system itself",
        )
    if read_only(text, mount.point):
        return _read_only_finding(path, mount, mounts)
    reason = storage.volatile_reason(path, mounts)
    if reason is not None:
        return Finding(
            FAIL,
            f"state file {path} will not survive a power cut: {reason}",
            f"put the state directory on a disk of its own ({READ_ONLY_ROOT})",
        )
    return Finding(OK, f"state file {path} is on {mount.describe()}: it survives a power cut")


def read_only(mountinfo: str, point: str) -> bool:
    """Whether the mount at ``point`` (the last one there: it covers the others) takes no writes: ``ro``
    among its own options or its file system's."""
    found = False
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 10 or "-" not in fields[6:] or _unescape(fields[4]) != point:
            continue
        super_options = fields[fields.index("-", 6) + 3]
        found = "ro" in fields[5].split(",") or "ro" in super_options.split(",")
    return found


def _unescape(text: str) -> str:
    """mountinfo's octal escapes (``\\040`` for a space)."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), text)


def _read_only_finding(path: Path, mount: storage.Mount, mounts: list[storage.Mount]) -> Finding:
    """The state directory's mount takes no writes: why it may be so, and what to do."""
    root = storage.mount_of("/", mounts)
    overlay_root = root is not None and root.fs_type == "overlay"
    where = f"state file {path}: its mount ({mount.describe()}) is read-only, so the game cannot be saved"
    if mount.point == "/" and overlay_root:
        return Finding(
            FAIL,
            f"{where}; an overlay root that comes up read-only is Debian 13's systemd-remount-fs failing under "
            "overlayroot (systemd #39558)",
            f"sudo mount -o remount,rw / for now, and keep the state on a partition of its own ({READ_ONLY_ROOT})",
        )
    if overlay_root:
        return Finding(
            FAIL,
            f"{where}; Raspberry Pi OS's overlay turns the other partitions read-only unless told not to "
            "(raspi-config #288, Trixie)",
            f"overlayroot=tmpfs:recurse=0 in /boot/firmware/cmdline.txt, then reboot ({READ_ONLY_ROOT})",
        )
    return Finding(
        FAIL,
        where,
        f"sudo mount -o remount,rw {mount.point}, and check its line in /etc/fstab (after a disk error: fsck)",
    )


def _size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def check_disk(host: Host, path: Path | None) -> list[Finding]:
    """Free space on the file systems of the state file and of ``/``."""
    out = []
    seen: set[object] = set()
    mounts = storage.parse_mountinfo(host.read(MOUNTINFO) or "")
    for name in dict.fromkeys([str(path.parent) if path is not None else "/", "/"]):
        where, total, free = host.free(name)
        mount = storage.mount_of(where, mounts)  # one line a file system (free space moves between calls)
        key: object = mount.point if mount is not None else (total, free)
        if key in seen:
            continue
        seen.add(key)
        text = f"disk: {_size(free)} free of {_size(total)} at {where}"
        fix = "sudo apt-get clean; sudo journalctl --vacuum-size=50M"
        if free < FAIL_FREE_BYTES:
            out.append(Finding(FAIL, text + ": the state file and the journal need room", fix))
        elif free < WARN_FREE_BYTES or free < total // 20:
            out.append(Finding(WARN, text, fix))
        else:
            out.append(Finding(OK, text))
    return out


def check_clock(host: Host) -> Finding:
    """The clock is synchronised (a Pi has no clock of its own: the log's times depend on it)."""
    done = host.command("timedatectl", "show", "--property=NTPSynchronized", "--value")
    if done is None or done[0] != 0:
        return Finding(WARN, "cannot ask timedatectl whether the clock is synchronised")
    if done[1].strip() == "yes":
        return Finding(OK, "clock synchronised (NTP)")
    return Finding(
        WARN,
        "clock not synchronised: the log's times may be wrong (a Pi has no clock of its own)",
        "connect the Pi to a network that reaches an NTP server; timedatectl timesync-status",
    )
