"""The OBUS protocol: CAN ids, message types and payloads, read and written as bytes.

OBUS (ZeusWPI/OBUS, MIT) is a KTANE bomb on a CAN bus: a controller that owns the timer, the
strikes and the game's rounds, info modules that show the edgework, puzzle and needy modules.
This module is the protocol alone (no bus, no python-can): a frame is an 11-bit id and 1 to 8
data bytes, and :func:`decode` turns one into a :class:`Message` or raises :class:`BadFrame`
naming what is wrong, :func:`encode` turns a message back into the frame.

The id (``protocol.txt``, ``lib/obus_can.cpp``)::

    id = priority << 10 | type << 8 | module_id

priority 0 is the high one (CAN's dominant bit wins arbitration; every node normally sends 1),
type 0 is the controller (module id 0) or an info module (1-255), 1 a puzzle module, 2 a
needy module, 3 is reserved. Byte 0 of the data is the message type, read by the sender's type;
numbers are big-endian.

>>> encode(Message(CONTROLLER, ACK, target=Node(PUZZLE, 1)))
(1024, b'\\x00\\x01\\x01')
>>> decode(0x501, b"\\x01\\x02")
Message(sender=Node(type=1, id=1), kind=1, target=None, status=None, count=2, seed=None, info=b'')
>>> decode(0x400, b"\\x03\\x00\\x00")
Traceback (most recent call last):
...
firmware.services.obus.protocol.BadFrame: short: STATE from the controller has 3 bytes; it needs 8
"""

from __future__ import annotations

from baccarat_core.records import record

#: The bus's speed: the MCP2515 library's ``CAN_50KBPS``, which every OBUS node uses.
BITRATE = 50_000

#: Priority bits: 0 wins arbitration (CAN's dominant bit); nodes normally send :data:`LOW`.
HIGH, LOW = 0, 1

#: Node types (bits 8-9 of the id).
CONTROLLER_TYPE = 0  # the controller (id 0) and the info modules (ids 1-255)
PUZZLE = 1
NEEDY = 2
RESERVED = 3
TYPE_NAMES = {CONTROLLER_TYPE: "info", PUZZLE: "puzzle", NEEDY: "needy", RESERVED: "reserved"}

#: The controller's messages (byte 0, from type 0 id 0).
ACK, HELLO, GAME_START, STATE, SOLVED, TIMEOUT, STRIKEOUT, INFO_START = range(8)
CONTROLLER_NAMES = ("ACK", "HELLO", "GAME START", "STATE", "SOLVED", "TIMEOUT", "STRIKEOUT", "INFO START")
#: The messages that carry the game's status (time left, strikes, max strikes, a module count).
STATUS_KINDS = (GAME_START, STATE, SOLVED, TIMEOUT, STRIKEOUT)
#: The messages that end a game.
END_KINDS = (SOLVED, TIMEOUT, STRIKEOUT)

#: A puzzle or needy module's messages (byte 0).
REGISTER, STRIKE, MODULE_SOLVED = range(3)
MODULE_NAMES = ("REGISTER", "STRIKE", "SOLVED")

#: An info module's one message (byte 0), its information in bytes 1-7.
INFO = 0

#: The info modules' ids this prop reads (OBUS's registry, "MOANA").
SERIAL_INFO, INDICATORS_INFO, PORTS_INFO = 1, 2, 3
#: Characters in an OBUS serial number (info module 1).
SERIAL_LENGTH = 7
#: Info module 2's labelled lights, most significant bit of byte 5 first (not KTANE's labels).
INDICATOR_LABELS = ("WPI", "KEL", "DER", "ZEUS", "JDV", "QRV", "PSE", "DRV")
#: Info module 3's ports by bit; a bit is 0 when the port is shown.
PORT_BITS = ((8, "VGA"), (4, "Serial"), (2, "MIDI"), (1, "Parallel"))

#: Bytes each message needs (byte 0 included), by (sender, kind): shorter frames are refused.
STATUS_LENGTH = 8
ACK_LENGTH = 3
INFO_START_LENGTH = 5
STRIKE_LENGTH = 2

#: Largest values of the fields.
MAX_MS = 0xFFFF_FFFF
MAX_BYTE = 0xFF


class BadFrame(ValueError):
    """A frame that is no OBUS message: ``kind`` is one of ``short``, ``unknown``, ``reserved``,
    ``extended``, ``empty``, ``remote``, ``error``, ``info`` (a known info module's bad content), so
    that a flood of one kind is one log line."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(f"{kind}: {text}")
        self.kind = kind
        self.text = text


@record
class Node:
    """A node of the bus: its type (:data:`CONTROLLER_TYPE`, :data:`PUZZLE`, :data:`NEEDY`) and id."""

    type: int
    id: int

    def __str__(self) -> str:
        if self == CONTROLLER:
            return "the controller"
        return f"{TYPE_NAMES.get(self.type, '?')} module {self.id}"

    @property
    def is_controller(self) -> bool:
        """True for the controller (type 0, id 0)."""
        return self.type == CONTROLLER_TYPE and self.id == 0

    @property
    def is_info(self) -> bool:
        """True for an info module (type 0, id 1-255)."""
        return self.type == CONTROLLER_TYPE and self.id != 0


#: The controller's address.
CONTROLLER = Node(CONTROLLER_TYPE, 0)


@record
class Status:
    """The game's status as the controller sends it: ``left_ms`` time left (ms), ``strikes``,
    ``max_strikes``, and ``count`` (byte 7: puzzle modules left, or solved by OBUS's Arduino
    controller; see the spec page)."""

    left_ms: int
    strikes: int
    max_strikes: int
    count: int


@record
class Message:
    """One OBUS message: who sent it, its ``kind`` (byte 0) and what it carries.

    ``target``: an ACK's module; ``status``: the game's status (GAME START, STATE and the ends);
    ``count``: a STRIKE's count; ``seed``: INFO START's seed; ``info``: an info module's bytes.
    """

    sender: Node
    kind: int
    target: Node | None = None
    status: Status | None = None
    count: int | None = None
    seed: int | None = None
    info: bytes = b""

    def name(self) -> str:
        """``STATE``, ``STRIKE``, ``INFO``: the message's name as the spec's tables give it."""
        if self.sender.is_controller:
            return CONTROLLER_NAMES[self.kind] if self.kind < len(CONTROLLER_NAMES) else f"type {self.kind}"
        if self.sender.is_info:
            return "INFO"
        return MODULE_NAMES[self.kind] if self.kind < len(MODULE_NAMES) else f"type {self.kind}"


def can_id(node: Node, priority: int = LOW) -> int:
    """The 11-bit CAN id of ``node``'s frames.

    >>> hex(can_id(CONTROLLER)), hex(can_id(Node(PUZZLE, 7))), hex(can_id(Node(NEEDY, 255), HIGH))
    ('0x400', '0x507', '0x2ff')
    """
    if not (0 <= node.type <= RESERVED and 0 <= node.id <= MAX_BYTE and priority in (HIGH, LOW)):
        raise ValueError(f"no OBUS id for {node!r} at priority {priority!r}")
    return priority << 10 | node.type << 8 | node.id


def split_id(arbitration_id: int) -> tuple[int, Node]:
    """``(priority, node)`` of an 11-bit id (:class:`BadFrame` for an id beyond 11 bits)."""
    if not 0 <= arbitration_id <= 0x7FF:
        raise BadFrame("extended", f"id {arbitration_id:#x} is beyond CAN 2.0A's 11 bits")
    return arbitration_id >> 10 & 1, Node(arbitration_id >> 8 & 3, arbitration_id & 0xFF)


def _need(data: bytes, length: int, message: Message) -> None:
    if len(data) < length:
        raise BadFrame("short", f"{message.name()} from {message.sender} has {len(data)} bytes; it needs {length}")


def decode(arbitration_id: int, data: bytes, *, extended: bool = False, remote: bool = False) -> Message:
    """The message of one frame; :class:`BadFrame` for a frame that is none (an extended or remote
    frame, no data, a reserved node type, a message type its sender does not have, fewer bytes than
    the type needs). Bytes beyond what the type needs are ignored, as OBUS's own library does."""
    if extended:
        raise BadFrame("extended", f"an extended (29-bit) id {arbitration_id:#x}; OBUS uses 11-bit ids")
    if remote:
        raise BadFrame("remote", f"a remote frame for id {arbitration_id:#x}")
    _, sender = split_id(arbitration_id)
    if sender.type == RESERVED:
        raise BadFrame("reserved", f"id {arbitration_id:#x} is of the reserved module type 3")
    if not data:
        raise BadFrame("empty", f"a frame with no data from {sender}")
    if len(data) > 8:
        raise BadFrame("long", f"{len(data)} bytes from {sender}; CAN carries 8 at most")
    kind = data[0]
    message = Message(sender, kind)
    if sender.is_info:
        if kind != INFO:
            raise BadFrame("unknown", f"message type {kind} from {sender} (info modules send 0)")
        return Message(sender, kind, info=bytes(data[1:]))
    if sender.is_controller:
        if kind == ACK:
            _need(data, ACK_LENGTH, message)
            if data[1] > RESERVED:
                raise BadFrame("unknown", f"ACK for module type {data[1]} (types are 0-3)")
            return Message(sender, kind, target=Node(data[1], data[2]))
        if kind == HELLO:
            return message
        if kind in STATUS_KINDS:
            _need(data, STATUS_LENGTH, message)
            left = int.from_bytes(data[1:5], "big")
            return Message(sender, kind, status=Status(left, data[5], data[6], data[7]))
        if kind == INFO_START:
            _need(data, INFO_START_LENGTH, message)
            return Message(sender, kind, seed=int.from_bytes(data[1:5], "big"))
        raise BadFrame("unknown", f"message type {kind} from the controller (it sends 0-7)")
    if kind in (REGISTER, MODULE_SOLVED):
        if kind == MODULE_SOLVED and sender.type == NEEDY:
            raise BadFrame("unknown", f"SOLVED from {sender}: needy modules are never solved")
        return message
    if kind == STRIKE:
        _need(data, STRIKE_LENGTH, message)
        return Message(sender, kind, count=data[1])
    raise BadFrame("unknown", f"message type {kind} from {sender} (modules send 0-2)")


def encode(message: Message, priority: int = LOW) -> tuple[int, bytes]:
    """``(id, data)`` of ``message``, as OBUS's library writes it (only the bytes its type needs)."""
    kind = message.kind
    head = bytes((kind,))
    if message.sender.is_info:
        return can_id(message.sender, priority), head + bytes(message.info[:7])
    if message.sender.is_controller:
        if kind == ACK:
            assert message.target is not None, "an ACK names its module"
            return can_id(message.sender, priority), head + bytes((message.target.type, message.target.id))
        if kind in STATUS_KINDS:
            s = message.status
            assert s is not None, f"{message.name()} carries the game's status"
            body = _clip(s.left_ms, MAX_MS).to_bytes(4, "big")
            body += bytes((_clip(s.strikes), _clip(s.max_strikes), _clip(s.count)))
            return can_id(message.sender, priority), head + body
        if kind == INFO_START:
            return can_id(message.sender, priority), head + _clip(message.seed or 0, MAX_MS).to_bytes(4, "big")
        return can_id(message.sender, priority), head
    if kind == STRIKE:
        return can_id(message.sender, priority), head + bytes((_clip(message.count or 0),))
    return can_id(message.sender, priority), head


def _clip(value: int, top: int = MAX_BYTE) -> int:
    return min(max(int(value), 0), top)


# -- the controller's messages, as the roles build them ---------------------------------------


def status_message(kind: int, left_ms: int, strikes: int, max_strikes: int, count: int) -> Message:
    """GAME START, STATE or an end, from the controller."""
    return Message(CONTROLLER, kind, status=Status(_clip(left_ms, MAX_MS), strikes, max_strikes, count))


def ack(node: Node) -> Message:
    """The controller took ``node``'s REGISTER."""
    return Message(CONTROLLER, ACK, target=node)


def hello() -> Message:
    """The registration round starts."""
    return Message(CONTROLLER, HELLO)


def info_start(seed: int) -> Message:
    """The info round starts, with a random seed."""
    return Message(CONTROLLER, INFO_START, seed=seed & MAX_MS)


def module_message(node: Node, kind: int, count: int | None = None) -> Message:
    """REGISTER, STRIKE (with the module's strike count) or SOLVED from ``node``."""
    return Message(node, kind, count=count)


def info_message(info_id: int, data: bytes) -> Message:
    """Info module ``info_id``'s message (up to 7 bytes)."""
    return Message(Node(CONTROLLER_TYPE, info_id), INFO, info=bytes(data[:7]))


# -- spreading, as OBUS's module library does -------------------------------------------------


def register_delay(node: Node) -> float:
    """Seconds a module waits after HELLO before its REGISTER: 250 ms slots by type and the id's
    low 3 bits, 8 ms steps by the rest.

    >>> register_delay(Node(PUZZLE, 1)), register_delay(Node(NEEDY, 9))
    (0.25, 2.258)
    """
    slot = ((node.type & 2) << 2) | (node.id & 7)
    return round(0.25 * slot + 0.008 * (node.id >> 3), 3)


def info_delay(info_id: int) -> float:
    """Seconds info module ``info_id`` waits after INFO START: 500 ms slots by the id's low 3 bits,
    16 ms steps by the rest.

    >>> info_delay(1), info_delay(3)
    (0.5, 1.5)
    """
    return round(0.5 * (info_id & 7) + 0.016 * (info_id >> 3), 3)


# -- the info modules' content ----------------------------------------------------------------


def read_serial(data: bytes) -> str:
    """Info module 1's serial number: 7 capital letters and digits, at least one of each.

    >>> read_serial(b"AB3DE4Z")
    'AB3DE4Z'
    """
    text = bytes(data[:SERIAL_LENGTH])
    if len(text) < SERIAL_LENGTH or not all(48 <= c <= 57 or 65 <= c <= 90 for c in text):
        raise BadFrame("info", f"serial number {text!r} is not {SERIAL_LENGTH} capital letters and digits")
    serial = text.decode("ascii")
    if serial.isdigit() or serial.isalpha():
        raise BadFrame("info", f"serial number {serial} needs a letter and a digit")
    return serial


def read_indicators(data: bytes) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
    """Info module 2: the eight coloured lights' colours (a nibble each, bytes 1-4), and the labelled
    lights lit and unlit (byte 5, most significant bit first).

    >>> read_indicators(bytes((0x12, 0x34, 0x56, 0x78, 0b1000_0001)))
    ((1, 2, 3, 4, 5, 6, 7, 8), ('WPI', 'DRV'), ('KEL', 'DER', 'ZEUS', 'JDV', 'QRV', 'PSE'))
    """
    if len(data) < 5:
        raise BadFrame("info", f"indicators of {len(data)} bytes; they take 5")
    colours = tuple(n for byte in data[:4] for n in (byte >> 4, byte & 15))
    bits = data[4]
    lit = tuple(label for i, label in enumerate(INDICATOR_LABELS) if bits & (0x80 >> i))
    unlit = tuple(label for label in INDICATOR_LABELS if label not in lit)
    return colours, lit, unlit


def read_ports(data: bytes) -> tuple[str, ...]:
    """Info module 3: the ports shown (a bit is 0 when its port is shown).

    >>> read_ports(bytes((0b1111_1010,)))
    ('Serial', 'Parallel')
    """
    if not data:
        raise BadFrame("info", "ports with no byte")
    return tuple(name for bit, name in PORT_BITS if not data[0] & bit)


def ports_byte(ports: tuple[str, ...]) -> int:
    """Info module 3's byte for the ``ports`` shown (the reverse of :func:`read_ports`; other ports
    are not OBUS's and are left out).

    >>> ports_byte(("Serial", "Parallel", "Serial"))
    250
    """
    byte = 0xFF
    for bit, name in PORT_BITS:
        if name in ports:
            byte &= ~bit
    return byte
