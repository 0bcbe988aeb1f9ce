"""``baccarat doctor``: what the prop needs from its Pi, one line each, OK, WARN or FAIL with the fix.

The checks read the machine through a :class:`Host` (files under a root, commands,
free disk), so that the tests can give it a made-up Pi; the displays are probed
through smbus2 as the daemon reaches them, with an SMBus *quick write*: the
address and a stop, no byte the display would take as a command or a picture
(``i2cdetect``'s own probe). SPI has no acknowledge: an SPI display cannot be
probed, and says so.

Nothing here changes the machine or the game; a running service is left alone.
"""

from __future__ import annotations

import errno
import getpass
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from . import storage
from .config import Config, load_config
from .errors import ConfigError
from .findings import FAIL, OK, WARN, Finding

SERVICE = "baccarat.service"
SERVICE_USER = "baccarat"
#: Where the service keeps its state (``StateDirectory=baccarat``).
SERVICE_STATE_DIRECTORY = "/var/lib/baccarat"
#: Raspberry Pi OS's boot configuration (Bookworm and later; before, /boot/config.txt).
CONFIG_TXT = ("/boot/firmware/config.txt", "/boot/config.txt")
THROTTLED_SYSFS = "/sys/devices/platform/soc/soc:firmware/get_throttled"
#: ``get_throttled``'s bits: (bit, what it means now, what it means as "since boot").
THROTTLE_BITS = (
    (0, "under-voltage now", 16, "under-voltage"),
    (1, "ARM frequency capped now", 17, "ARM frequency capping"),
    (2, "throttled now", 18, "throttling"),
    (3, "soft temperature limit now", 19, "the soft temperature limit"),
)
#: Free space below which the state file's writes and the journal may fail.
FAIL_FREE_BYTES = 20 * 1024 * 1024
WARN_FREE_BYTES = 200 * 1024 * 1024
POWER_FIX = "use the official power supply for this Pi (hardware/README.md, section 10)"


Runner = Callable[[Sequence[str]], "tuple[int, str] | None"]


def run_command(argv: Sequence[str]) -> tuple[int, str] | None:
    """Run a command (10 s at most, C locale): (exit status, stdout), or None if it is not installed."""
    try:
        done = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=10,
            env={**os.environ, "LC_ALL": "C", "SYSTEMD_PAGER": ""},
            check=False,
        )
    except FileNotFoundError:
        return None
    except subprocess.TimeoutExpired:
        return 124, ""
    return done.returncode, done.stdout


class Host:
    """The machine the doctor looks at: files under ``root``, commands, free disk, who asks."""

    def __init__(
        self,
        root: Path = Path("/"),
        *,
        run: Runner = run_command,
        user: str | None = None,
        disk_usage: Callable[[Path], tuple[int, int]] | None = None,
    ) -> None:
        self.root = root
        self.run = run
        self.user = user or os.environ.get("SUDO_USER") or getpass.getuser()
        self._disk_usage = disk_usage

    def path(self, name: str) -> Path:
        """Where an absolute name of the machine is here."""
        return self.root / name.lstrip("/")

    def exists(self, name: str) -> bool:
        """Does the file (a device node, say) exist?"""
        return os.path.lexists(self.path(name))

    def read(self, name: str) -> str | None:
        """A small text file's contents, or None if it cannot be read."""
        try:
            with open(self.path(name), encoding="utf-8", errors="replace") as file:
                return file.read(1_000_000)
        except OSError:
            return None

    def command(self, *argv: str) -> tuple[int, str] | None:
        """(exit status, stdout) of a command, or None if it is not installed."""
        return self.run(argv)

    def free(self, name: str) -> tuple[str, int, int]:
        """(the existing directory asked, total bytes, free bytes) of the file system holding ``name``."""
        path = Path(name)
        while not self.path(str(path)).exists() and path != path.parent:
            path = path.parent
        if self._disk_usage is not None:
            total, free = self._disk_usage(path)
        else:
            usage = shutil.disk_usage(self.path(str(path)))
            total, free = usage.total, usage.free
        return str(path), total, free


def probe_i2c(port: int, address: int) -> OSError | None:
    """An SMBus quick write to ``address`` on ``/dev/i2c-<port>``: None if it acknowledged."""
    from smbus2 import SMBus

    try:
        with SMBus(port) as bus:
            bus.write_quick(address)
    except OSError as error:
        return error
    return None


# -- the checks ----------------------------------------------------------------------------------


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


def _boot_config(host: Host) -> str:
    for name in CONFIG_TXT:
        text = host.read(name)
        if text is not None:
            return text
    return ""


def _config_says(text: str, *settings: str) -> bool:
    lines = {line.split("#")[0].strip().replace(" ", "") for line in text.splitlines()}
    return any(setting in lines for setting in settings)


def check_buses(host: Host, config: Config | None) -> list[Finding]:
    """I2C and SPI are on: the device nodes the configured displays need exist."""
    out = []
    displays = config.displays if config is not None else ()
    boot = _boot_config(host)
    i2c: dict[int, list[str]] = {}
    spi: dict[tuple[int, int], list[str]] = {}
    for spec in displays:
        if spec.interface == "i2c":
            i2c.setdefault(spec.port, []).append(spec.role)
        else:
            spi.setdefault((spec.port, spec.device), []).append(spec.role)
    if not i2c:
        out.append(Finding(OK, "I2C: no display of the config uses it"))
    for port, roles in sorted(i2c.items()):
        node = f"/dev/i2c-{port}"
        if host.exists(node):
            out.append(Finding(OK, f"I2C is on: {node} ({', '.join(roles)})"))
        elif port == 1 and _config_says(boot, "dtparam=i2c_arm=on", "dtparam=i2c=on"):
            out.append(Finding(FAIL, f"I2C is on in config.txt but {node} is missing", "sudo reboot"))
        else:
            fix = "sudo raspi-config nonint do_i2c 0, then reboot (hardware/README.md, section 5)"
            if port != 1:
                fix = f"enable bus {port} with its dtoverlay in config.txt, then reboot"
            out.append(Finding(FAIL, f"I2C is off: {node} is missing ({', '.join(roles)})", fix))
    if not spi:
        out.append(Finding(OK, "SPI: no display of the config uses it"))
    for (port, device), roles in sorted(spi.items()):
        node = f"/dev/spidev{port}.{device}"
        if host.exists(node):
            out.append(Finding(OK, f"SPI is on: {node} ({', '.join(roles)})"))
        elif _config_says(boot, "dtparam=spi=on"):
            out.append(Finding(FAIL, f"SPI is on in config.txt but {node} is missing", "sudo reboot"))
        else:
            fix = "sudo raspi-config nonint do_spi 0, then reboot (hardware/README.md, section 5)"
            out.append(Finding(FAIL, f"SPI is off: {node} is missing ({', '.join(roles)})", fix))
    return out


def check_displays(host: Host, config: Config | None, probe: Callable[[int, int], OSError | None]) -> list[Finding]:
    """Each configured display answers at its address (I2C); SPI displays cannot be asked."""
    out = []
    for spec in config.displays if config is not None else ():
        if spec.interface != "i2c":
            node = f"/dev/spidev{spec.port}.{spec.device}"
            if not host.exists(node):
                out.append(Finding(FAIL, f"display {spec.role}: {node} is missing", "turn SPI on (above)"))
            else:
                out.append(
                    Finding(
                        WARN,
                        f"display {spec.role} on {node} cannot be probed: SPI has no acknowledge",
                        f"check that it shows the {spec.role} picture while the prop runs",
                    )
                )
            continue
        node = f"/dev/i2c-{spec.port}"
        if not host.exists(node):
            out.append(Finding(FAIL, f"display {spec.role}: {node} is missing", "turn I2C on (above)"))
            continue
        error = probe(spec.port, spec.address)
        at = f"0x{spec.address:02X} on {node}"
        if error is None:
            out.append(Finding(OK, f"display {spec.role} answers at {at}"))
        elif error.errno in (errno.EACCES, errno.EPERM):
            out.append(
                Finding(
                    WARN,
                    f"display {spec.role} not probed: {host.user} may not open {node}",
                    f"sudo baccarat doctor, or add {host.user} to the i2c group",
                )
            )
        elif error.errno == errno.EBUSY:
            out.append(
                Finding(
                    FAIL,
                    f"display {spec.role}: a kernel driver holds {at}",
                    "remove the dtoverlay that claims that address from config.txt",
                )
            )
        elif error.errno == errno.ETIMEDOUT:
            out.append(
                Finding(
                    FAIL,
                    f"display {spec.role}: the bus timed out at {at} (held low?)",
                    "check for a short or a chip holding SDA/SCL low; power the Pi off and on",
                )
            )
        else:
            reason = os.strerror(error.errno) if error.errno else str(error)
            out.append(
                Finding(
                    FAIL,
                    f"display {spec.role} does not answer at {at} ({reason})",
                    f"check its wiring and address: i2cdetect -y {spec.port} (hardware/README.md, sections 6 and 8)",
                )
            )
    return out


def _group_members(host: Host) -> tuple[dict[str, set[str]], dict[str, str]] | None:
    """({group: members}, {user: primary group}) from /etc/group and /etc/passwd."""
    groups_text, passwd_text = host.read("/etc/group"), host.read("/etc/passwd")
    if groups_text is None or passwd_text is None:
        return None
    gid_names: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    for line in groups_text.splitlines():
        fields = line.split(":")
        if len(fields) >= 4:
            gid_names[fields[2]] = fields[0]
            members[fields[0]] = {name for name in fields[3].split(",") if name}
    primary = {}
    for line in passwd_text.splitlines():
        fields = line.split(":")
        if len(fields) >= 4:
            primary[fields[0]] = gid_names.get(fields[3], "")
    return members, primary


def needed_groups(config: Config | None) -> list[str]:
    """The groups whose device nodes the prop opens (the unit's ``SupplementaryGroups=``)."""
    if config is None:
        return ["gpio", "i2c", "spi", "audio"]
    names = ["gpio"]
    interfaces = {spec.interface for spec in config.displays}
    names += [name for name in ("i2c", "spi") if name in interfaces]
    from .services.registry import installed

    for service in installed():
        if service.name in config.settings:
            names += [group for group in service.groups(config.settings[service.name]) if group not in names]
    return names


def check_groups(host: Host, config: Config | None, service_installed: bool) -> list[Finding]:
    """The service's user and the user who asks are in the groups that own the devices."""
    table = _group_members(host)
    if table is None:
        return [Finding(WARN, "cannot read /etc/group and /etc/passwd: groups not checked")]
    members, primary = table
    wanted = needed_groups(config)
    missing_groups = [name for name in wanted if name not in members]
    if missing_groups:
        return [
            Finding(
                FAIL,
                f"{'groups' if len(missing_groups) > 1 else 'group'} {', '.join(missing_groups)} "
                f"{'do' if len(missing_groups) > 1 else 'does'} not exist: the service cannot start",
                "sudo bash scripts/install-service.sh (it makes them), or install Raspberry Pi OS's udev rules",
            )
        ]
    out = []
    users = [(SERVICE_USER, "the service")] if service_installed or SERVICE_USER in primary else []
    if host.user not in (SERVICE_USER, "root"):
        users.append((host.user, "to run the prop by hand"))
    for user, role in users:
        lacking = [name for name in wanted if user not in members[name] and primary.get(user) != name]
        if not lacking:
            out.append(Finding(OK, f"{user} ({role}) is in {', '.join(wanted)}"))
        else:
            note = " (the unit adds them with SupplementaryGroups=)" if user == SERVICE_USER else ""
            out.append(
                Finding(
                    WARN,
                    f"{user} ({role}) is not in {', '.join(lacking)}{note}",
                    f"sudo usermod -aG {','.join(lacking)} {user}" + ("" if user == SERVICE_USER else ", log in again"),
                )
            )
    return out


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
    from .room.saved_state import state_path

    if config is None:
        return Path(SERVICE_STATE_DIRECTORY) / "state.json" if service_installed else None
    env = {"STATE_DIRECTORY": SERVICE_STATE_DIRECTORY} if service_installed else None
    return state_path(config, env)


def check_state_file(host: Host, config: Config | None, path: Path | None) -> Finding:
    """Where the state file lives, and whether it survives a power cut."""
    if config is not None and config.state_file == "":
        return Finding(WARN, "state saving is off: a restart starts a fresh game", 'remove [state] file = ""')
    if path is None:
        return Finding(WARN, "state file not checked (the config could not be read)")
    mounts = storage.parse_mountinfo(host.read("/proc/self/mountinfo") or "")
    mount = storage.mount_of(path, mounts)
    if mount is None:
        return Finding(WARN, f"state file {path}: cannot tell where it lives (no /proc/self/mountinfo)")
    reason = storage.volatile_reason(path, mounts)
    if reason is not None:
        return Finding(
            FAIL,
            f"state file {path} will not survive a power cut: {reason}",
            "put the state directory on a disk of its own (README: 'A read-only root')",
        )
    return Finding(OK, f"state file {path} is on {mount.describe()}: it survives a power cut")


def check_throttling(host: Host) -> Finding:
    """Under-voltage and throttling as the firmware reports them (``vcgencmd get_throttled``)."""
    value: int | None = None
    done = host.command("vcgencmd", "get_throttled")
    if done is not None and done[0] == 0 and "=" in done[1]:
        text = done[1].strip().split("=", 1)[1]
        try:
            value = int(text, 16)
        except ValueError:
            value = None
    if value is None:
        text = (host.read(THROTTLED_SYSFS) or "").strip()
        try:
            value = int(text, 16) if text else None
        except ValueError:
            value = None
    if value is None:
        return Finding(WARN, "cannot read the power flags (no vcgencmd, not a Raspberry Pi?)")
    now = [words for bit, words, _, _ in THROTTLE_BITS if value >> bit & 1]
    since = [words for _, _, bit, words in THROTTLE_BITS if value >> bit & 1]
    if now:
        return Finding(FAIL, f"power: {', '.join(now)} (get_throttled 0x{value:x})", POWER_FIX)
    if since:
        return Finding(WARN, f"power: {', '.join(since)} happened since boot (get_throttled 0x{value:x})", POWER_FIX)
    return Finding(OK, "power: no under-voltage or throttling since boot")


def _size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def check_disk(host: Host, path: Path | None) -> list[Finding]:
    """Free space on the file systems of the state file and of ``/``."""
    out = []
    seen = set()
    for name in dict.fromkeys([str(path.parent) if path is not None else "/", "/"]):
        where, total, free = host.free(name)
        if (total, free) in seen:
            continue
        seen.add((total, free))
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


def examine(host: Host, config_file: Path, probe: Callable[[int, int], OSError | None] = probe_i2c) -> list[Finding]:
    """Every check, in the order the report shows them."""
    found, config = check_config(config_file, host.user)
    findings = [found]
    findings += check_buses(host, config)
    findings += check_displays(host, config, probe)
    state = service_state(host)
    installed = state is not None and state.get("LoadState") == "loaded"
    findings += check_groups(host, config, installed)
    findings.append(check_service(state))
    path = state_file(config, installed)
    findings.append(check_state_file(host, config, path))
    findings.append(check_throttling(host))
    findings += check_disk(host, path)
    findings.append(check_clock(host))
    findings += check_services(host, config)
    return findings


def check_services(host: Host, config: Config | None) -> list[Finding]:
    """Each configured room service's own lines (:meth:`firmware.services.Service.doctor`)."""
    if config is None:
        return []
    from .services.registry import installed

    services = installed()
    out = [Finding(WARN, f"service {name} cannot be loaded: {reason}") for name, reason in services.broken.items()]
    for service in services.ordered():
        if service.name in config.settings:
            try:
                out += service.doctor(config.settings[service.name], host)
            except Exception as error:  # noqa: BLE001 - a plugin's fault is its own line
                out.append(Finding(WARN, f"service {service.name}: its check failed ({type(error).__name__}: {error})"))
    return out


def report(findings: list[Finding]) -> tuple[str, int]:
    """The lines and a last line that counts them; exit status 1 if anything FAILed."""
    counts = {status: sum(f.status == status for f in findings) for status in (OK, WARN, FAIL)}
    lines = [f.line() for f in findings]
    lines.append(f"doctor: {counts[FAIL]} FAIL, {counts[WARN]} WARN, {counts[OK]} OK")
    return "\n".join(lines), 1 if counts[FAIL] else 0
