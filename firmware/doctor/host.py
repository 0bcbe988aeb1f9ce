"""The machine the doctor looks at (:class:`Host`: files under a root, commands, free disk, who
asks) and the I2C probe; a line of the report is a :class:`firmware.config.findings.Finding`."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from firmware.config.findings import FAIL, OK, WARN, Finding

__all__ = ["FAIL", "OK", "WARN", "Finding", "Host", "Runner", "probe_i2c", "run_command"]


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
