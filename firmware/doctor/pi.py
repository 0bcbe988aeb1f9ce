"""The doctor's checks of the Pi itself: its I2C and SPI buses, the displays on them, the groups
that own their device nodes, and the power flags."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

from ..config import Config
from .host import FAIL, OK, WARN, Finding, Host
from .system import SERVICE_USER

#: What the firmware calls the board ("Raspberry Pi 5 Model B Rev 1.0"); what start.sh reads too.
MODEL = "/proc/device-tree/model"
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
POWER_FIX = "use the official power supply for this Pi (hardware/README.md, section 10)"


def check_machine(host: Host) -> tuple[Finding, bool]:
    """Is this a Raspberry Pi? The first line, and whether the Pi's own checks (buses, displays,
    groups, power) are worth running: on a PC or in a chroot they would only list Pi fixes."""
    model = (host.read(MODEL) or "").replace("\0", "").strip()
    if "Raspberry Pi" in model:
        return Finding(OK, f"this is a {model}"), True
    skipped = "the Pi's checks (buses, displays, groups, power) are skipped"
    if not host.exists("/proc/self"):
        return Finding(
            WARN,
            f"cannot tell whether this is a Raspberry Pi: /proc is not mounted (a chroot?); {skipped}",
            "sudo mount -t proc proc /proc, or run doctor on the Pi itself",
        ), False
    board = f"this is a {model[:80]}" if model else f"{MODEL} does not say so"
    return Finding(
        WARN,
        f"not a Raspberry Pi ({board}): {skipped}",
        "on a PC, play the simulator: baccarat run --simulate",
    ), False


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
    from ..services.registry import installed

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
