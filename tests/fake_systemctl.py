"""A stand-in for systemctl and systemd, for the update tests: it runs the unit's daemon and reads its
notify socket, as ``Type=notify`` does.

On PATH as ``systemctl`` (a wrapper runs this file with the suite's Python). Everything lives under
``$FAKE_SYSTEMD_DIR``; the unit is read from ``$FAKE_ROOT/etc/systemd/system/<unit>``, and the paths
in its ``ExecStart=``, ``Environment=`` and ``WorkingDirectory=`` that start with ``/opt``, ``/etc``,
``/var`` or ``/run`` are taken under ``$FAKE_ROOT``.

- ``restart UNIT``: stops the running supervisor, starts a new one (a process of its own) and waits
  until the daemon sent ``READY=1`` from its main pid (exit 0) or the start failed (exit 1), like
  systemd's job for a ``Type=notify`` service;
- the supervisor restarts the daemon after a failure (``Restart=on-failure``, ``RestartSec=``),
  counting ``NRestarts``, and stops it with SIGTERM (``stop``);
- ``show UNIT --property=A,B``: ``A=...`` lines (ActiveState, SubState, NRestarts, MainPID);
- ``daemon-reload``: noted in ``calls.log``, as every call is.

The daemon gets gpiozero's mock pins (``GPIOZERO_PIN_FACTORY=mock``): this is a PC.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.notify_listener import NotifyListener  # noqa: E402

HOME = Path(os.environ.get("FAKE_SYSTEMD_DIR", "/nonexistent"))
ROOT = Path(os.environ.get("FAKE_ROOT", "/nonexistent"))
STATUS = HOME / "status.json"
START_TIMEOUT = float(os.environ.get("FAKE_SYSTEMD_START_TIMEOUT", "60"))


def write_status(**fields: object) -> None:
    status = read_status() | fields
    temp = STATUS.with_suffix(".tmp")
    temp.write_text(json.dumps(status))
    os.replace(temp, STATUS)


def read_status() -> dict:
    try:
        return json.loads(STATUS.read_text())
    except (OSError, ValueError):
        return {"ActiveState": "inactive", "SubState": "dead", "NRestarts": 0, "MainPID": 0, "generation": 0}


def rooted(value: str) -> str:
    return str(ROOT / value.lstrip("/")) if value.startswith(("/opt/", "/etc/", "/var/", "/run/")) else value


def parse_unit(name: str) -> dict[str, list[str]]:
    unit: dict[str, list[str]] = {}
    for line in (ROOT / "etc" / "systemd" / "system" / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "[")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        unit.setdefault(key.strip(), []).append(value.strip())
    return unit


# -- the supervisor ------------------------------------------------------------------------------------


def supervise(name: str, generation: int) -> int:
    unit = parse_unit(name)
    command = [rooted(word) for word in unit["ExecStart"][-1].split()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FAKE_", "GPIOZERO_", "NOTIFY_", "WATCHDOG_"))}
    for assignment in unit.get("Environment", []):
        key, _, value = assignment.partition("=")
        env[key] = rooted(value)
    env |= {
        "GPIOZERO_PIN_FACTORY": "mock",
        "GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin",
        "STATE_DIRECTORY": str(ROOT / "var" / "lib" / "baccarat"),
        "RUNTIME_DIRECTORY": str(ROOT / "run" / "baccarat"),
    }
    for directory in (env["STATE_DIRECTORY"], env["RUNTIME_DIRECTORY"]):
        Path(directory).mkdir(parents=True, exist_ok=True)
    workdir = rooted(unit.get("WorkingDirectory", ["/"])[-1])
    restart_sec = float(unit.get("RestartSec", ["0.1"])[-1])
    on_failure = unit.get("Restart", ["no"])[-1] == "on-failure"
    address = str(HOME / f"notify-{generation}")
    listener = NotifyListener(address)
    env["NOTIFY_SOCKET"] = address
    stopping = False
    child: subprocess.Popen | None = None

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True
        if child is not None and child.poll() is None:
            child.terminate()

    signal.signal(signal.SIGTERM, stop)
    restarts = 0
    journal = open(HOME / "journal.log", "a")
    try:
        while not stopping:
            write_status(ActiveState="activating", SubState="start", MainPID=0, generation=generation)
            child = subprocess.Popen(command, env=env, cwd=workdir, stdout=journal, stderr=journal)
            write_status(MainPID=child.pid)
            ready = False
            while child.poll() is None and not stopping:
                message = listener.receive(0.2)
                from_main = message is not None and message.pid == child.pid  # NotifyAccess=main
                if from_main and message.fields.get("READY") == "1" and not ready:
                    ready = True
                    write_status(ActiveState="active", SubState="running", started=generation)
            code = child.wait()
            if stopping:
                break
            journal.write(f"fake-systemd: main process exited, code={code}\n")
            journal.flush()
            if not ready:
                write_status(ActiveState="failed", SubState="failed", MainPID=0, failed=generation)
            if not on_failure or code == 0:
                write_status(ActiveState="inactive" if code == 0 else "failed", SubState="dead", MainPID=0)
                return 0
            write_status(ActiveState="activating", SubState="auto-restart", MainPID=0)
            time.sleep(restart_sec)
            restarts += 1
            write_status(NRestarts=restarts)
    finally:
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        listener.close()
        journal.close()
    write_status(ActiveState="inactive", SubState="dead", MainPID=0)
    return 0


# -- systemctl ---------------------------------------------------------------------------------------------


def stop_supervisor() -> None:
    pid_file = HOME / "supervisor.pid"
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pid_file.unlink(missing_ok=True)
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        try:  # our own child when this process started it: reap it
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    pid_file.unlink(missing_ok=True)


def start(name: str) -> int:
    generation = read_status().get("generation", 0) + 1
    write_status(ActiveState="activating", SubState="start", NRestarts=0, MainPID=0, generation=generation)
    supervisor = subprocess.Popen(
        [sys.executable, __file__, "--supervise", name, str(generation)],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(HOME / "supervisor.log", "a"),
    )
    (HOME / "supervisor.pid").write_text(str(supervisor.pid))
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        status = read_status()
        if status.get("started") == generation:
            return 0
        if status.get("failed") == generation:
            print(f"Job for {name} failed because the control process exited with error code.", file=sys.stderr)
            return 1
        time.sleep(0.05)
    print(f"Job for {name} failed because a timeout was exceeded.", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["--supervise"]:
        return supervise(argv[1], int(argv[2]))
    HOME.mkdir(parents=True, exist_ok=True)
    with open(HOME / "calls.log", "a") as log:
        log.write(" ".join(argv) + "\n")
    command = argv[0] if argv else ""
    if command == "daemon-reload":
        return 0
    if command in ("restart", "start"):
        stop_supervisor()
        return start(argv[1])
    if command == "stop":
        stop_supervisor()
        return 0
    if command == "show":
        wanted: list[str] = []
        for arg in argv[2:]:
            if arg.startswith("--property="):
                wanted += arg.split("=", 1)[1].split(",")
        status = read_status()
        for key in wanted:
            print(f"{key}={status.get(key, '')}")
        return 0
    if command == "is-active":
        state = read_status().get("ActiveState", "inactive")
        print(state)
        return 0 if state == "active" else 3
    print(f"fake systemctl: {command!r} is not faked", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
