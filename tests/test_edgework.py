"""Edgework: serial number, ports, indicators, solved count and their validation."""

import json

import pytest

from baccarat_core import VANILLA_PORTS, Edgework, EdgeworkError
from baccarat_core.edgework import normalize_port, split_list


def test_vanilla_ports_in_manual_column_order():
    assert VANILLA_PORTS == ("DVI-D", "Parallel", "PS/2", "RJ-45", "Serial", "Stereo RCA")


@pytest.mark.parametrize("serial", ["A", "7", "AB12C3", "ZZZZZZ", "123456", "Q9"])
def test_valid_serials(serial):
    assert Edgework(serial).serial == serial


def test_lowercase_serial_is_upper_cased():
    edgework = Edgework("ab12c3")
    assert edgework.serial == "AB12C3"
    assert edgework.letters == "ABC"
    assert edgework.digits == "123"


def test_letters_and_digits_keep_their_order():
    edgework = Edgework("ZK9Y15")
    assert edgework.letters == "ZKY"
    assert edgework.digits == "915"


def test_serial_without_letters_or_digits():
    assert Edgework("123456").letters == ""
    assert Edgework("ABCDEF").digits == ""


@pytest.mark.parametrize("serial", ["", "ABCDEFG", "1234567", "AB-12", "AB 12", "AB_12", "AB.12", "ÄB12"])
def test_bad_serials_name_the_value(serial):
    with pytest.raises(EdgeworkError) as caught:
        Edgework(serial)
    assert f'"{serial}"' in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "given, expected",
    [
        ("parallel", "Parallel"),
        ("PARALLEL", "Parallel"),
        ("rj-45", "RJ-45"),
        ("RJ45", "RJ-45"),
        ("PS/2", "PS/2"),
        ("ps2", "PS/2"),
        ("stereo rca", "Stereo RCA"),
        ("Stereo RCA", "Stereo RCA"),
        ("dvi-d", "DVI-D"),
        ("DVI-D", "DVI-D"),
        ("serial", "Serial"),
        ("Serial", "Serial"),
        (" Parallel ", "Parallel"),
    ],
)
def test_vanilla_port_names_case_insensitive(given, expected):
    assert normalize_port(given) == expected
    assert Edgework("A1", (given,)).ports == (expected,)


@pytest.mark.parametrize("name", ["HDMI", "USB", "AC Power", "Component Video", "PCMCIA"])
def test_other_port_kinds_are_kept(name):
    edgework = Edgework("A1", (name, "Serial"))
    assert edgework.ports == (name, "Serial")
    counts = edgework.vanilla_port_counts()
    assert name not in counts
    assert sum(counts.values()) == 1


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_port_name(name):
    with pytest.raises(EdgeworkError, match="empty"):
        Edgework("A1", (name,))


def test_vanilla_port_counts():
    edgework = Edgework("A1", ("serial", "Serial", "rj45", "HDMI", "parallel", "Serial"))
    assert edgework.vanilla_port_counts() == {
        "DVI-D": 0,
        "Parallel": 1,
        "PS/2": 0,
        "RJ-45": 1,
        "Serial": 3,
        "Stereo RCA": 0,
    }
    assert list(edgework.vanilla_port_counts()) == list(VANILLA_PORTS)
    assert len(edgework.ports) == 6


def test_indicators_upper_cased():
    edgework = Edgework("A1", lit=("bob",), unlit=("frk",))
    assert edgework.lit == ("BOB",)
    assert edgework.unlit == ("FRK",)
    assert edgework.has_lit("BOB")
    assert edgework.has_lit("bob")
    assert not edgework.has_lit("FRK")


@pytest.mark.parametrize(
    "lit, unlit, said",
    [
        (("FRK", "frk"), (), "indicator FRK is given twice as lit"),
        ((), ("CAR", "CAR"), "indicator CAR is given twice as unlit"),
        (("BOB",), ("bob",), "indicator BOB is given both lit and unlit"),
    ],
)
def test_a_label_given_twice_is_refused(lit, unlit, said):
    """A bomb carries each indicator label once (upper and lower case are one label)."""
    with pytest.raises(EdgeworkError, match=said):
        Edgework("A1", lit=lit, unlit=unlit)


@pytest.mark.parametrize("label", ["", "B-B", "TOOLONGLABEL"])
def test_bad_indicator(label):
    with pytest.raises(EdgeworkError):
        Edgework("A1", lit=(label,))


@pytest.mark.parametrize("solved", [0, 1, 11, 500])
def test_solved_valid(solved):
    assert Edgework("A1", solved=solved).solved == solved


@pytest.mark.parametrize("solved", [-1, -20, True, False, 1.5, "3", None])
def test_solved_invalid(solved):
    with pytest.raises(EdgeworkError) as caught:
        Edgework("A1", solved=solved)
    assert json.dumps(solved) in str(caught.value)  # as JSON spells it: true, null, "3"


def test_with_solved_keeps_the_rest():
    edgework = Edgework("AB12", ("Serial",), ("BOB",), ("CAR",), 2)
    later = edgework.with_solved(5)
    assert later.solved == 5
    assert (later.serial, later.ports, later.lit, later.unlit) == ("AB12", ("Serial",), ("BOB",), ("CAR",))
    assert edgework.solved == 2
    with pytest.raises(EdgeworkError):
        edgework.with_solved(-1)


def test_from_dict_round_trip():
    edgework = Edgework("ab12c3", ("rj45", "HDMI"), ("BOB",), ("frk",), 4)
    again = Edgework.from_dict(edgework.to_dict())
    assert again == edgework
    assert again.ports == ("RJ-45", "HDMI")


def test_from_dict_defaults_and_comma_strings():
    edgework = Edgework.from_dict({"serial": "KT5", "ports": "parallel, serial", "lit": "bob"})
    assert edgework.ports == ("Parallel", "Serial")
    assert edgework.lit == ("BOB",)
    assert edgework.unlit == ()
    assert edgework.solved == 0


def test_from_dict_unknown_key_is_named():
    with pytest.raises(EdgeworkError, match='"serail"'):
        Edgework.from_dict({"serial": "A1", "serail": "A1"})


@pytest.mark.parametrize(
    "data",
    [
        {},  # no serial
        {"serial": 12},  # serial not a string
        {"serial": "A1", "ports": [1, 2]},  # ports not names
        {"serial": "A1", "solved": -1},
        {"serial": "A1", "solved": "2"},
        ["serial", "A1"],  # not a table
    ],
)
def test_from_dict_errors(data):
    with pytest.raises(EdgeworkError):
        Edgework.from_dict(data)


@pytest.mark.parametrize(
    "text, parts",
    [
        (None, ()),
        ("", ()),
        ("   ", ()),
        ("Serial", ("Serial",)),
        ("a, b ,c", ("a", "b", "c")),
    ],
)
def test_split_list(text, parts):
    assert split_list(text) == parts
