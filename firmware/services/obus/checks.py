"""``baccarat doctor``'s lines for ``[obus]``: the CAN link, and whether the bomb's controller is heard.

On SocketCAN the interface must exist (the MCP2515 board's ``dtoverlay``), be up, and run at OBUS's
50 kbit/s. Then the doctor listens to the bus for :data:`LISTEN_SECONDS` itself (python-can lets
several programs read one bus, the running prop's among them): a module's controller sends STATE
every half second during a game, so silence there means no game, or a controller that stopped
(off, crashed, unplugged); a controller hears whether another controller is on its bus.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.plugin import FAIL, OK, WARN, Finding

from . import protocol as p

if TYPE_CHECKING:
    from . import ObusSettings

#: How long the doctor listens to the bus.
LISTEN_SECONDS = 1.5
#: What the docs call the board's setup.
SETUP_DOCS = "docs/integrate/obus.md#the-can-board"


def link_findings(settings: ObusSettings, host: Any) -> list[Finding]:
    """SocketCAN's interface: present, up, at the bus's speed (nothing to check for the others)."""
    s = settings
    if s.interface != "socketcan":
        return []
    state = host.read(f"/sys/class/net/{s.channel}/operstate")
    if state is None:
        return [
            Finding(
                FAIL,
                f"no CAN interface {s.channel}: the MCP2515 board's overlay is not loaded",
                f"add the dtoverlay=mcp2515-can0,... line to /boot/firmware/config.txt and reboot ({SETUP_DOCS})",
            )
        ]
    up = f"sudo ip link set {s.channel} up type can bitrate {s.bitrate}"
    if state.strip() == "down":
        return [Finding(FAIL, f"CAN interface {s.channel} is down", up)]
    done = host.command("ip", "-details", "link", "show", s.channel)
    text = done[1] if done is not None and done[0] == 0 else ""
    if "bitrate" in text and f"bitrate {s.bitrate} " not in text + " ":
        rate = text.split("bitrate", 1)[1].split()[0]
        return [
            Finding(
                FAIL,
                f"CAN interface {s.channel} runs at {rate} bit/s; OBUS's bus runs at {s.bitrate}",
                f"sudo ip link set {s.channel} down; {up}",
            )
        ]
    if "state BUS-OFF" in text:
        return [
            Finding(
                FAIL,
                f"CAN interface {s.channel} is bus-off: its controller gave up after too many errors",
                "check the wiring, the 120-ohm ends and every node's 50 kbit/s; "
                f"sudo ip link set {s.channel} type can restart (restart-ms 100 does it by itself)",
            )
        ]
    if "state ERROR-PASSIVE" in text or "state ERROR-WARNING" in text:
        return [
            Finding(
                WARN,
                f"CAN interface {s.channel} counts many errors ({text.split('state ', 1)[1].split()[0]})",
                "check the wiring, the 120-ohm ends and that every node runs at 50 kbit/s",
            )
        ]
    return [Finding(OK, f"CAN interface {s.channel} is up" + (f" at {s.bitrate} bit/s" if text else ""))]


def listen(settings: ObusSettings, seconds: float) -> tuple[list[p.Message], int]:
    """The messages heard on the bus in ``seconds`` (bad frames left out), and the error frames."""
    from .link import open_bus

    bus = open_bus(settings.interface, settings.channel, settings.options)
    heard: list[p.Message] = []
    errors = 0
    try:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            frame = bus.recv(left)
            if frame is None:
                break
            if frame.is_error_frame:
                errors += 1
                continue
            try:
                heard.append(
                    p.decode(
                        frame.arbitration_id,
                        bytes(frame.data),
                        extended=frame.is_extended_id,
                        remote=frame.is_remote_frame,
                    )
                )
            except p.BadFrame:
                continue
    finally:
        bus.shutdown()
    return heard, errors


def bus_findings(
    settings: ObusSettings,
    host: Any,
    listener: Callable[[ObusSettings, float], tuple[list[p.Message], int]] = listen,
) -> list[Finding]:
    """The link's lines, then what the bus says in :data:`LISTEN_SECONDS`."""
    s = settings
    findings = link_findings(s, host)
    if any(f.status == FAIL for f in findings):
        return findings
    try:
        heard, errors = listener(s, LISTEN_SECONDS)
    except Exception as error:  # noqa: BLE001 - python-can's errors, OSError, no msgpack: one line
        text = str(error).splitlines()[0][:160] if str(error) else type(error).__name__
        return [*findings, Finding(FAIL, f"the OBUS bus {s.where} cannot be opened ({text})", f"see {SETUP_DOCS}")]
    if errors:
        findings.append(
            Finding(
                WARN,
                f"{errors} CAN error frames in {LISTEN_SECONDS:g} s on {s.where}",
                "check the wiring, the 120-ohm ends and that every node runs at 50 kbit/s",
            )
        )
    controller = [m for m in heard if m.sender.is_controller]
    if s.role == "controller":
        if controller:
            return [
                *findings,
                Finding(
                    FAIL, f"another OBUS controller is on {s.where}", "a bomb has one controller: unplug the other"
                ),
            ]
        return [*findings, Finding(OK, f"no other OBUS controller on {s.where}")]
    states = [m for m in controller if m.kind == p.STATE and m.status is not None]
    if states:
        left = states[-1].status.left_ms // 1000 if states[-1].status else 0
        return [*findings, Finding(OK, f"the OBUS controller is heard on {s.where} (a game with {left} s left)")]
    if controller:
        return [*findings, Finding(OK, f"the OBUS controller is heard on {s.where} (no game running)")]
    return [
        *findings,
        Finding(
            WARN,
            f"the OBUS controller is silent: no frame from it in {LISTEN_SECONDS:g} s on {s.where} (no game "
            "running, or the controller is off or not wired)",
            "mid-game it sends STATE every half second: check that it runs, and its CAN wiring",
        ),
    ]
