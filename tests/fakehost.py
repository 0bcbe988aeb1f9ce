"""A Raspberry Pi as ``baccarat doctor`` sees it, on a PC: a root directory with the files it
reads (its model, device nodes, ``/etc/group``, ``/boot/firmware/config.txt``, ``/proc/self/mountinfo``,
the firmware's ``get_throttled``), the output of the commands it runs (``systemctl``,
``vcgencmd``, ``timedatectl``), free disk, and the fake kernel of ``tests/fakeos.py`` under
smbus2 for the display probes. :class:`FakePi` starts healthy; each test breaks one thing.

The mount tables are what these systems show in ``/proc/self/mountinfo``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from firmware import doctor
from firmware.doctor import Host
from tests import fakeos

SD_CARD = """\
22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/mmcblk0p2 rw
23 22 179:1 / /boot/firmware rw,relatime shared:2 - vfat /dev/mmcblk0p1 rw,fmask=0022
24 22 0:21 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=89480k,mode=755
25 22 0:5 / /dev rw,nosuid shared:3 - devtmpfs udev rw
"""

# Raspberry Pi OS Bookworm with the overlay file system on (overlayroot=tmpfs): the card's root
# is read-only at /media/root-ro, every change goes to a tmpfs at /media/root-rw.
OVERLAY = (
    "22 1 0:25 / / rw,relatime shared:1 - overlay overlayroot "
    "rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/overlay-workdir\n"
    "23 22 179:2 / /media/root-ro ro,relatime shared:2 - ext4 /dev/mmcblk0p2 ro\n"
    "24 22 0:24 / /media/root-rw rw,relatime shared:3 - tmpfs tmpfs-root rw\n"
    "25 22 179:1 / /boot/firmware rw,relatime shared:4 - vfat /dev/mmcblk0p1 rw\n"
)

# The same, with the state directory on a small ext4 partition of its own (recurse=0 leaves it
# alone), as the README's "A read-only root" sets it up; inside the service its StateDirectory=
# is bind-mounted again.
OVERLAY_WITH_STATE_PARTITION = (
    OVERLAY
    + "26 22 179:3 / /var/lib/baccarat rw,noatime shared:5 - ext4 /dev/mmcblk0p3 rw\n"
    + "27 22 179:3 / /var/lib/baccarat rw,nosuid,nodev,noexec - ext4 /dev/mmcblk0p3 rw\n"
)

# Raspberry Pi OS Trixie's traps with the overlay on (hardware/README.md, section 18): the state
# partition comes up read-only (raspi-config #288), and the overlay root itself comes up read-only
# when systemd-remount-fs fails under overlayroot (Debian 13, systemd #39558).
OVERLAY_STATE_READ_ONLY = OVERLAY + "26 22 179:3 / /var/lib/baccarat ro,noatime shared:5 - ext4 /dev/mmcblk0p3 ro\n"
OVERLAY_ROOT_READ_ONLY = OVERLAY.replace("/ / rw,relatime shared:1", "/ / ro,relatime shared:1", 1)
# A USB stick the kernel remounted read-only after an error (errors=remount-ro), no overlay.
STICK_READ_ONLY = SD_CARD + "30 22 8:1 / /var/lib/baccarat rw,noatime - ext4 /dev/sda1 ro,errors=remount-ro\n"

# A chroot whose root is not a mount point: its /proc shows the mounts below it, none holding /.
CHROOT = "40 39 0:60 / /proc rw,relatime - proc proc rw\n41 39 0:6 / /dev rw,nosuid - devtmpfs udev rw\n"

# Bullseye's boot=overlay script, or a container: the upper layer's mount is out of sight.
HIDDEN_UPPER = "22 1 0:25 / / rw - overlay overlay rw,lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work\n"

# A file system with a space in its mount point (mountinfo writes it \\040).
SPACES = SD_CARD + "30 22 8:1 / /media/my\\040stick rw - ext4 /dev/sda1 rw\n"

GROUPS = """\
root:x:0:
audio:x:29:pi,baccarat
pi:x:1000:
gpio:x:997:pi,baccarat
i2c:x:998:pi,baccarat
spi:x:999:pi,baccarat
baccarat:x:996:
"""
PASSWD = """\
root:x:0:0:root:/root:/bin/bash
pi:x:1000:1000:,,,:/home/pi:/bin/bash
baccarat:x:996:996::/var/lib/baccarat:/usr/sbin/nologin
"""
BOOT_CONFIG = "[all]\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtparam=spi=on\n"
SERVICE_RUNNING = {
    "LoadState": "loaded",
    "ActiveState": "active",
    "SubState": "running",
    "NRestarts": "0",
    "Result": "success",
    "ExecMainCode": "0",
    "ExecMainStatus": "0",
}

Answer = tuple[int, str] | None | Callable[[Sequence[str]], "tuple[int, str] | None"]


class FakePi:
    """A healthy Pi wired as the reference config says, the service running."""

    def __init__(self, root: Path, kernel: fakeos.FakeLinux) -> None:
        self.root = root
        self.kernel = kernel
        self.user = "pi"
        self.disk = (29 << 30, 21 << 30)  # total, free: a 32 GB card
        self.service = dict(SERVICE_RUNNING)
        self.unit = "# /etc/systemd/system/baccarat.service\n[Service]\nUser=baccarat\n"  # systemctl cat
        self.commands: dict[str, Answer] = {
            "systemctl": self._systemctl,
            "vcgencmd": (0, "throttled=0x0\n"),
            "timedatectl": (0, "yes\n"),
        }
        self.asked: list[tuple[str, ...]] = []
        self.placard = kernel.i2c_display(1, 0x3C)
        self.table = kernel.i2c_display(1, 0x3D)
        self.bets = kernel.spi_device(0, 0, dc=24)
        for name in ("/dev/i2c-1", "/dev/spidev0.0", "/dev/spidev0.1", "/dev/gpiochip0"):
            self.write(name, "")
        self.write("/etc/group", GROUPS)
        self.write("/etc/passwd", PASSWD)
        self.write("/boot/firmware/config.txt", BOOT_CONFIG)
        self.write("/proc/self/mountinfo", SD_CARD)
        self.write(doctor.MODEL, "Raspberry Pi 4 Model B Rev 1.5\0")
        (self.root / "run" / "systemd" / "system").mkdir(parents=True)  # booted with systemd
        self.write(doctor.THROTTLED_SYSFS, "0\n")

    def write(self, name: str, text: str) -> None:
        """A file of the fake machine."""
        path = self.root / name.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def remove(self, name: str) -> None:
        """The file is not there (a device node of a bus that is off)."""
        (self.root / name.lstrip("/")).unlink()

    def host(self) -> Host:
        """The doctor's view of this machine."""
        return Host(self.root, run=self._run, user=self.user, disk_usage=lambda path: self.disk)

    def _run(self, argv: Sequence[str]) -> tuple[int, str] | None:
        self.asked.append(tuple(argv))
        answer = self.commands.get(argv[0])
        return answer(argv) if callable(answer) else answer

    def _systemctl(self, argv: Sequence[str]) -> tuple[int, str]:
        if argv[1] == "cat":  # the unit as systemd runs it, when installed
            assert argv[2] == doctor.SERVICE, argv
            loaded = self.service.get("LoadState") == "loaded"
            return (0, self.unit) if loaded else (1, "")
        assert argv[1] == "show" and argv[2] == doctor.SERVICE, argv
        wanted = argv[3].removeprefix("--property=").split(",")
        return 0, "".join(f"{key}={self.service[key]}\n" for key in wanted if key in self.service)
