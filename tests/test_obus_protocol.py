"""The OBUS codec against the spec page's tables (../shared/spec/bomb-bus.md, from OBUS's
protocol.txt and lib/obus_can.cpp): every id, every message's bytes, and bad frames refused by kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.services.obus import protocol as p
from firmware.services.obus.serial import from_obus, readings, to_obus

# -- the id: priority << 10 | type << 8 | module id ------------------------------------------


@pytest.mark.parametrize(
    ("node", "priority", "expected"),
    [
        (p.CONTROLLER, p.LOW, 0x400),
        (p.CONTROLLER, p.HIGH, 0x000),
        (p.Node(p.CONTROLLER_TYPE, 1), p.LOW, 0x401),  # info module 1: the serial number
        (p.Node(p.PUZZLE, 1), p.LOW, 0x501),
        (p.Node(p.PUZZLE, 255), p.LOW, 0x5FF),
        (p.Node(p.NEEDY, 3), p.LOW, 0x603),
        (p.Node(p.NEEDY, 3), p.HIGH, 0x203),
    ],
)
def test_ids_as_the_table_gives_them(node: p.Node, priority: int, expected: int) -> None:
    assert p.can_id(node, priority) == expected
    assert p.split_id(expected) == (priority, node)


def test_an_id_beyond_11_bits_and_a_reserved_type_are_refused() -> None:
    with pytest.raises(p.BadFrame) as beyond:
        p.decode(0x800, b"\x00")
    assert beyond.value.kind == "extended"
    with pytest.raises(p.BadFrame) as reserved:
        p.decode(0x701, b"\x00")
    assert reserved.value.kind == "reserved"
    with pytest.raises(ValueError):
        p.can_id(p.Node(4, 1))


# -- the controller's messages ---------------------------------------------------------------

STATUS = p.Status(left_ms=0x0004_93E0, strikes=1, max_strikes=3, count=4)  # 300,000 ms
STATUS_BYTES = b"\x00\x04\x93\xe0\x01\x03\x04"


@pytest.mark.parametrize(
    ("message", "data"),
    [
        (p.ack(p.Node(p.PUZZLE, 7)), b"\x00\x01\x07"),
        (p.ack(p.Node(p.NEEDY, 2)), b"\x00\x02\x02"),
        (p.hello(), b"\x01"),
        (p.Message(p.CONTROLLER, p.GAME_START, status=STATUS), b"\x02" + STATUS_BYTES),
        (p.Message(p.CONTROLLER, p.STATE, status=STATUS), b"\x03" + STATUS_BYTES),
        (p.Message(p.CONTROLLER, p.SOLVED, status=STATUS), b"\x04" + STATUS_BYTES),
        (p.Message(p.CONTROLLER, p.TIMEOUT, status=STATUS), b"\x05" + STATUS_BYTES),
        (p.Message(p.CONTROLLER, p.STRIKEOUT, status=STATUS), b"\x06" + STATUS_BYTES),
        (p.info_start(0xDEADBEEF), b"\x07\xde\xad\xbe\xef"),
    ],
)
def test_controller_messages_byte_for_byte(message: p.Message, data: bytes) -> None:
    assert p.encode(message) == (0x400, data)
    assert p.decode(0x400, data) == message
    # bytes beyond what the type needs are ignored (OBUS's library reads them so)
    assert p.decode(0x400, (data + b"\xaa" * 8)[:8]) == message


@pytest.mark.parametrize(
    ("kind", "need"), [(p.ACK, 3), (p.GAME_START, 8), (p.STATE, 8), (p.TIMEOUT, 8), (p.INFO_START, 5)]
)
def test_controller_frames_shorter_than_their_type_are_short(kind: int, need: int) -> None:
    with pytest.raises(p.BadFrame) as short:
        p.decode(0x400, bytes([kind]) + b"\x00" * (need - 2))
    assert short.value.kind == "short"
    assert f"needs {need}" in str(short.value)


def test_unknown_controller_types_and_an_empty_frame() -> None:
    for kind in (8, 9, 200, 255):
        with pytest.raises(p.BadFrame) as unknown:
            p.decode(0x400, bytes([kind]) + b"\x00" * 7)
        assert unknown.value.kind == "unknown"
    with pytest.raises(p.BadFrame) as empty:
        p.decode(0x400, b"")
    assert empty.value.kind == "empty"
    with pytest.raises(p.BadFrame) as bad_ack:
        p.decode(0x400, b"\x00\x05\x01")  # an ACK for module type 5
    assert bad_ack.value.kind == "unknown"


def test_a_status_longer_than_32_bits_of_ms_is_clipped_not_wrapped() -> None:
    big = p.status_message(p.STATE, 2**40, 300, -1, 7)
    assert p.encode(big)[1] == b"\x03\xff\xff\xff\xff\xff\x00\x07"


# -- the modules' messages -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "frame"),
    [
        (p.module_message(p.Node(p.PUZZLE, 1), p.REGISTER), (0x501, b"\x00")),
        (p.module_message(p.Node(p.PUZZLE, 1), p.STRIKE, 2), (0x501, b"\x01\x02")),
        (p.module_message(p.Node(p.PUZZLE, 1), p.MODULE_SOLVED), (0x501, b"\x02")),
        (p.module_message(p.Node(p.NEEDY, 9), p.REGISTER), (0x609, b"\x00")),
        (p.module_message(p.Node(p.NEEDY, 9), p.STRIKE, 1), (0x609, b"\x01\x01")),
    ],
)
def test_module_messages_byte_for_byte(message: p.Message, frame: tuple[int, bytes]) -> None:
    assert p.encode(message) == frame
    assert p.decode(*frame) == message


def test_bad_module_frames() -> None:
    with pytest.raises(p.BadFrame) as short:
        p.decode(0x501, b"\x01")  # a STRIKE without its count
    assert short.value.kind == "short"
    with pytest.raises(p.BadFrame) as unknown:
        p.decode(0x501, b"\x03")
    assert unknown.value.kind == "unknown"
    with pytest.raises(p.BadFrame) as needy:
        p.decode(0x601, b"\x02")  # needy modules are never solved
    assert needy.value.kind == "unknown"


def test_extended_and_remote_frames_are_refused() -> None:
    for flags, kind in (({"extended": True}, "extended"), ({"remote": True}, "remote")):
        with pytest.raises(p.BadFrame) as refused:
            p.decode(0x501, b"\x00", **flags)
        assert refused.value.kind == kind


# -- the info modules ------------------------------------------------------------------------


def test_info_messages_and_their_content() -> None:
    serial = p.decode(0x401, b"\x00AB3ZDE4")
    assert serial.sender == p.Node(0, 1) and serial.info == b"AB3ZDE4"
    assert p.read_serial(serial.info) == "AB3ZDE4"
    assert p.encode(p.info_message(1, b"AB3ZDE4")) == (0x401, b"\x00AB3ZDE4")
    colours, lit, unlit = p.read_indicators(bytes((0x01, 0x23, 0x45, 0x67, 0b0001_0000)))
    assert colours == (0, 1, 2, 3, 4, 5, 6, 7) and lit == ("ZEUS",) and len(unlit) == 7
    assert p.read_ports(b"\x0f") == ()  # every bit 1: no port shown
    assert p.read_ports(b"\x00") == ("VGA", "Serial", "MIDI", "Parallel")
    assert p.read_ports(b"\x0b") == ("Serial",)
    assert p.ports_byte(("Serial",)) & 0x0F == 0x0B


@pytest.mark.parametrize("data", [b"AB3DE4", b"ab3de4z", b"ABCDEFG", b"1234567", b"AB3DE4!"])
def test_bad_serial_numbers(data: bytes) -> None:
    with pytest.raises(p.BadFrame) as bad:
        p.read_serial(data)
    assert bad.value.kind == "info"


def test_unknown_message_from_an_info_module() -> None:
    with pytest.raises(p.BadFrame) as unknown:
        p.decode(0x402, b"\x01\x00")
    assert unknown.value.kind == "unknown"


def test_spread_delays_as_obus_modules_wait() -> None:
    assert p.register_delay(p.Node(p.PUZZLE, 0)) == 0.0
    assert p.register_delay(p.Node(p.PUZZLE, 7)) == 1.75
    assert p.register_delay(p.Node(p.PUZZLE, 8)) == 0.008
    assert p.register_delay(p.Node(p.NEEDY, 1)) == 2.25  # needy modules after every puzzle's slot
    assert p.info_delay(1) == 0.5 and p.info_delay(9) == 0.516


@given(st.integers(0, 0x7FF), st.binary(max_size=8))
def test_any_frame_is_a_message_or_a_bad_frame(arbitration_id: int, data: bytes) -> None:
    try:
        message = p.decode(arbitration_id, data)
    except p.BadFrame as error:
        assert error.kind in {"short", "unknown", "reserved", "empty"}
        return
    again = p.decode(*p.encode(message, arbitration_id >> 10))
    assert again == message


# -- KTANE's serial and OBUS's ---------------------------------------------------------------


@given(st.text("ABCDEFGHIJKLMNPQRSTUVWXZ0123456789", min_size=6, max_size=6))
def test_a_serial_put_on_the_bus_reads_as_the_prop_reads_its_own(serial: str) -> None:
    seven = to_obus(serial)
    if seven is None:
        return
    assert len(seven) == 7 and readings(seven) == readings(serial)
    assert p.read_serial(seven.encode()) == seven
    six = from_obus(seven)
    assert six is not None and readings(six) == readings(seven)


def test_three_letters_and_three_digits_rarely_fit() -> None:
    assert to_obus("A13DE4") is None
    assert from_obus("KT3XQ47") is None
    assert to_obus("AB3ZDE") is not None
