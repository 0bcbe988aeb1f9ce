"""The OBUS protocol as the spec page's tables give it (../shared/spec/bomb-bus.md), written for the
tests alone: nothing here comes from the product (firmware/services/obus), so that a frame the
prop sends is checked against a second reading of the tables, not against its own code.

:func:`problems` says what is wrong with a frame, as strictly as OBUS's own library writes them:
the exact length each message has, a known message type for the sender's type, the ACK's module
type, a serial number of 7 capital letters and digits.
"""

from __future__ import annotations

# id = priority << 10 | type << 8 | module id; priority 1 is the normal (low) one
CONTROLLER_ID = 0x400


def make_id(kind: int, number: int, priority: int = 1) -> int:
    """The 11-bit id of node (``kind``, ``number``)."""
    return (priority << 10) | (kind << 8) | number


def node_of(can_id: int) -> tuple[int, int]:
    """(type, id) of an 11-bit id."""
    return (can_id >> 8) & 3, can_id & 0xFF


# The controller's messages: type -> (name, exact length as OBUS's library sends it)
CONTROLLER = {
    0: ("ACK", 3),
    1: ("HELLO", 1),
    2: ("GAME START", 8),
    3: ("STATE", 8),
    4: ("SOLVED", 8),
    5: ("TIMEOUT", 8),
    6: ("STRIKEOUT", 8),
    7: ("INFO START", 5),
}
# A puzzle or needy module's messages
MODULE = {0: ("REGISTER", 1), 1: ("STRIKE", 2), 2: ("SOLVED", 1)}


def name(can_id: int, data: bytes) -> str:
    """The message's name (``STATE``, ``REGISTER``, ``INFO``), or ``?``."""
    kind, number = node_of(can_id)
    if not data:
        return "?"
    if kind == 0 and number == 0:
        return CONTROLLER.get(data[0], ("?", 0))[0]
    if kind == 0:
        return "INFO"
    return MODULE.get(data[0], ("?", 0))[0]


def problems(can_id: int, data: bytes, extended: bool = False) -> list[str]:
    """What is wrong with the frame by the spec's tables (empty: nothing)."""
    out = []
    if extended or not 0 <= can_id <= 0x7FF:
        return [f"id {can_id:#x} is not a standard 11-bit id"]
    if (can_id >> 10) & 1 != 1:
        out.append(f"id {can_id:#x} has the high priority; nodes send the low one")
    kind, number = node_of(can_id)
    if kind == 3:
        return [*out, f"id {can_id:#x} has the reserved type 3"]
    if not 1 <= len(data) <= 8:
        return [*out, f"{len(data)} data bytes"]
    if kind == 0 and number == 0:
        entry = CONTROLLER.get(data[0])
        if entry is None:
            return [*out, f"controller message type {data[0]}"]
        if len(data) != entry[1]:
            out.append(f"{entry[0]} has {len(data)} bytes, not {entry[1]}")
        if data[0] == 0 and len(data) >= 3 and data[1] not in (1, 2):
            out.append(f"ACK for module type {data[1]}")
        return out
    if kind == 0:
        if data[0] != 0:
            out.append(f"info message type {data[0]}")
        if number == 1:
            serial = data[1:]
            text = serial.decode("ascii", "replace")
            if len(serial) != 7 or not all(c.isdigit() or "A" <= c <= "Z" for c in text):
                out.append(f"serial number {serial!r} is not 7 capital letters and digits")
            elif text.isdigit() or text.isalpha():
                out.append(f"serial number {text} has no letter or no digit")
        return out
    entry = MODULE.get(data[0])
    if entry is None:
        return [*out, f"module message type {data[0]}"]
    if len(data) != entry[1]:
        out.append(f"{entry[0]} has {len(data)} bytes, not {entry[1]}")
    if kind == 2 and data[0] == 2:
        out.append("SOLVED from a needy module")
    return out


def status(kind: int, left_ms: int, strikes: int, max_strikes: int, count: int) -> bytes:
    """GAME START, STATE, SOLVED, TIMEOUT or STRIKEOUT's 8 bytes."""
    return bytes([kind]) + max(0, left_ms).to_bytes(4, "big") + bytes([strikes, max_strikes, count])


def read_status(data: bytes) -> dict[str, int]:
    """Bytes 1-7 of a status message."""
    return {
        "left_ms": int.from_bytes(data[1:5], "big"),
        "strikes": data[5],
        "max_strikes": data[6],
        "count": data[7],
    }
