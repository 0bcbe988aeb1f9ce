"""A real Mosquitto broker for the tests: a free loopback port, a temp config, stop/start.

``Broker.start()`` waits until the port accepts connections; ``stop()`` ends it
with SIGTERM (its persistence file is written, so a restarted broker keeps
retained messages and the sessions of clients with ``clean_session=False``).
Tests skip when Mosquitto is not installed (scripts/test.sh installs it).
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

CANDIDATES = ("mosquitto", "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def mosquitto_binary() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name) or (name if Path(name).is_file() else None)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Broker:
    def __init__(self, workdir: Path, port: int | None = None, *, listener: str = "", extra: str = "") -> None:
        """``listener``: lines under the listener (TLS files, ...); ``extra``: lines after the rest."""
        binary = mosquitto_binary()
        if binary is None:
            pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
        self.binary = binary
        self.workdir = workdir
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.conf = workdir / "mosquitto.conf"
        self.log = workdir / "mosquitto.log"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            f"{listener}"
            f"{'' if 'allow_anonymous' in listener else 'allow_anonymous true' + chr(10)}"
            "persistence true\n"
            f"persistence_location {workdir}/\n"
            f"log_dest file {self.log}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
            # Run as root, mosquitto would switch to the "mosquitto" user and could
            # not write its log and persistence file in the test's directory.
            f"user {getpass.getuser()}\n"
            f"{extra}"
        )
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 5.0) -> None:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        if self.process.stderr:
            self.process.stderr.close()
        self.process = None
