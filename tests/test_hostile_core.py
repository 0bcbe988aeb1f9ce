"""Issue 11 in the rules engine: the strict reader, strict restore, bounds, port typos, play lines, CLI arguments.

Every test here failed on the code before the hardening (see NOTES-harden.md for how
that was checked); the generated ones run at least 1,000 refused inputs each.
"""

from __future__ import annotations

import io
import json
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat_core import BaccaratError, BaccaratModule, Edgework, TableLimits, build_deck
from baccarat_core.cheatsheet import cheat_sheet
from baccarat_core.numbers import parse_count, parse_dollars
from firmware import cli
from firmware.cli.deck_play import run_session
from tests.hostile import DEEP, HUGE_INT, Hostile

DECK = ["deck", "--serial", "AB3DE4", "--min", "25", "--max", "1000", "--color", "red"]


def good_state() -> dict:
    module = BaccaratModule(
        Edgework("AB3DE4", ("Parallel", "Serial"), ("FRK",), ("CAR",), 2),
        TableLimits(25, 1000),
        rng=random.Random(1),
        first_color="red",
    )
    module.start()
    module.press("player")
    module.arrow("right")
    return json.loads(json.dumps(module.snapshot()))


# -- item 2: restore checks instead of coercing ------------------------------------------------------

COERCED = [
    (("solved",), "false"),
    (("solved",), 1),
    (("strikes",), "2"),
    (("strikes",), 1.9),
    (("strikes",), -5),
    (("strikes",), 1e308),
    (("strikes",), True),
    (("position",), True),
    (("position",), 3.0),
    (("denomination",), True),
    (("deck", "solved"), -3),
    (("deck", "solved"), 2.0),
    (("deck", "unshuffled"), 0),
    (("deck", "first_index"), "30"),
    (("deck", "color"), "RED"),
    (("limits_random",), "false"),
    (("round_pending",), 1),
    (("limits", "max"), 1000.0),
    (("edgework", "solved"), "2"),
]


@pytest.mark.parametrize("path, value", COERCED, ids=[f"{'.'.join(p)}={v!r}" for p, v in COERCED])
def test_restore_refuses_what_it_used_to_coerce(path, value):
    state = good_state()
    target = state
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(BaccaratError) as caught:
        BaccaratModule.restore(state)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_restore_refuses_a_deck_its_edgework_does_not_deal():
    state = good_state()
    cards = state["deck"]["cards"]
    cards[0], cards[1] = cards[1], cards[0]  # still 52 different cards
    with pytest.raises(BaccaratError, match="not the deck"):
        BaccaratModule.restore(state)


def test_restore_round_trip_is_exact():
    state = good_state()
    again = BaccaratModule.restore(state)
    assert again.snapshot() == state


# -- the strict reader --------------------------------------------------------------------------

STRICT_REFUSALS = [
    (b"\xff{}", "not UTF-8"),
    (b'{"a": NaN}', "strict JSON"),
    (b'{"a": Infinity}', "strict JSON"),
    (b'{"a": -Infinity}', "strict JSON"),
    (b'{"a": 1e400}', "out of range"),
    (('{"a": ' + HUGE_INT + "}").encode(), "too long"),
    (DEEP.encode(), "nested deeper"),
    (b'{"a": 1, "a": 2}', "twice"),
    (b"x" * (64 * 1024 + 1), "longer than 65536 bytes"),
    (b'{"a": "\x01"}', "not JSON"),
]


@pytest.mark.parametrize("payload, problem", STRICT_REFUSALS, ids=[p for _, p in STRICT_REFUSALS])
def test_strict_reader_refuses(payload, problem):
    from baccarat_core import strict

    with pytest.raises(strict.InputError, match=problem):
        strict.loads(payload)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(10**15), 10**15)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    )
)
def test_strict_reader_reads_what_json_writes(value):
    from baccarat_core import strict

    text = json.dumps(value)
    if text.count("[") + text.count("{") > strict.MAX_DEPTH:  # may be deeper than the limit
        return
    assert strict.loads(text) == json.loads(text)


def _depth_by_characters(text: str, limit: int) -> bool:
    """The depth check's meaning, one character at a time: brackets outside strings, a backslash in
    a string escaping the next character."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='[]{}"\\a,:1 ', max_size=60), st.integers(0, 4))
def test_the_depth_check_agrees_with_a_scan_of_every_character(text, limit):
    """Text with and without escapes, strings closed or not: the fast path (no backslash: the pieces
    between quotes) and the escape-aware scan give what a scan of every character gives."""
    from baccarat_core import strict

    assert strict.deeper_than(text, limit) == _depth_by_characters(text, limit)
    history_like = '{"t": "round", "cards": [["A", "S"], ["10", "H"]], "bets": {"player": [5, 25]}}'
    assert strict.deeper_than(history_like, 2) and not strict.deeper_than(history_like, 3)


# -- item 9: upper bounds and strict numbers --------------------------------------------------------


@pytest.mark.parametrize("text", ["1_000_000", "\u0661\u0662", "\uff13", "1" * 30, "3 4", "+3", "0x10"])
def test_typed_numbers_are_ascii_digits_only(text):
    with pytest.raises(BaccaratError):
        parse_count(text, "count")
    with pytest.raises(BaccaratError):
        parse_dollars(text, "amount")


@pytest.mark.parametrize(("text", "message"), [("0", r"port 0 is below the least allowed \(1\)"), ("65536", "most")])
def test_a_typed_count_keeps_within_its_least_and_most(text, message):
    assert parse_count("1", "port", minimum=1, maximum=65535) == 1
    assert parse_count("65535", "port", minimum=1, maximum=65535) == 65535
    with pytest.raises(BaccaratError, match=message):
        parse_count(text, "port", minimum=1, maximum=65535)


def test_edgework_bounds():
    with pytest.raises(BaccaratError, match="at most 64"):
        Edgework("A1", ("HDMI",) * 65)
    with pytest.raises(BaccaratError, match="at most 32"):
        Edgework("A1", lit=tuple(f"L{i}" for i in range(20)), unlit=tuple(f"U{i}" for i in range(13)))
    with pytest.raises(BaccaratError, match="above the most allowed"):
        Edgework("A1", solved=10**4000)
    assert Edgework("A1", ("HDMI",) * 64, solved=9999).solved == 9999


def test_table_maximum_bound_on_every_surface(capsys):
    from baccarat_core import strict

    with pytest.raises(BaccaratError, match=r"\$1,000,000"):
        strict.check_limits(25, 10**4000)
    assert strict.check_limits(25, 1_000_000).maximum == 1_000_000
    with pytest.raises(SystemExit):
        cli.main([*DECK[:-6], "--min", "25", "--max", "1" + "0" * 4000, "--color", "red"])
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and len(err) < 300


# -- item 10: typos are errors, other ports are said to count toward the total only ----------------


@pytest.mark.parametrize(
    "name, kind",
    [("Paralel", "Parallel"), ("Seiral", "Serial"), ("PS3", "PS/2"), ("Stero RCA", "Stereo RCA"), ("RJ46", "RJ-45")],
)
def test_a_near_miss_of_a_vanilla_port_is_an_error(name, kind):
    with pytest.raises(BaccaratError, match=f"did you mean {kind}"):
        Edgework("A1", (name,))


@pytest.mark.parametrize("name", ["RJ45", "rj-45", "PS2", "ps/2", "Stereo RCA", "stereo", "rca", "dvi", "SERIAL"])
def test_common_spellings_of_vanilla_ports(name):
    assert Edgework("A1", (name,)).other_ports == ()


def test_deck_names_the_ports_that_count_toward_the_total_only(capsys):
    code = cli.main([*DECK, "--ports", "Parallel,HDMI,Serial,USB"])
    out = capsys.readouterr().out
    assert code == 0
    assert "counted toward the total of 4 ports only: HDMI, USB" in out
    edgework = Edgework("AB3DE4", ("Parallel", "HDMI"))
    sheet = cheat_sheet(edgework, TableLimits(25, 1000), build_deck(edgework, TableLimits(25, 1000), "red"))
    assert "only: HDMI" in sheet


@pytest.mark.parametrize(
    "option, value, named",
    [
        ("--ports", "Paralel,Serial,RJ45", "did you mean Parallel?"),
        ("--lit", "FRK,frk", "FRK is given twice"),
        ("--unlit", "CAR,car", "CAR is given twice"),
    ],
)
def test_typos_on_the_command_line_are_one_line_errors(option, value, named, capsys):
    code = cli.main([*DECK, option, value])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.splitlines()) == 1 and named in captured.err


# -- generated: baccarat play lines ---------------------------------------------------------------


def test_1000_hostile_play_lines_each_get_one_line_and_change_nothing():
    hostile = Hostile(11)
    lines = [hostile.play_line() for _ in range(1200)]
    assert len(set(lines)) > 150
    out, err = io.StringIO(), io.StringIO()
    edgework = Edgework("AB3DE4", ("Parallel",))
    code = run_session(edgework, TableLimits(25, 1000), "red", 1, [line + b"\n" for line in lines], out, err)
    assert code == 0
    assert [json.loads(x)["event"] for x in out.getvalue().splitlines()] == ["limits", "deck"]
    said = err.getvalue().splitlines()
    assert len(said) == len(lines)
    for number, line in enumerate(said, start=1):
        assert line.startswith(f"baccarat play: line {number}: ") and len(line) <= 300, line


def test_play_over_stdin_bounds_a_line_without_end(monkeypatch, capsys):
    huge = b'{"press": "' + b"p" * (1 << 20) + b'"}\n{"press": "tie"}\n'

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(huge), encoding="utf-8"))
    code = cli.main(["play", "--serial", "AB3DE4", "--min", "25", "--max", "1000", "--color", "red"])
    captured = capsys.readouterr()
    assert code == 0
    assert [json.loads(x)["event"] for x in captured.out.splitlines()] == ["limits", "deck", "chip"]
    assert len(captured.err.splitlines()) == 1 and "longer than 65536 bytes" in captured.err
    assert len(captured.err) < 300


# -- generated: command-line arguments ------------------------------------------------------------


def hostile_argvs(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    values = {
        "--serial": ["", "ABCDEFG", "AB-12", "A B", "\u00c4B1", "a\u00df", "X" * 5000, "AB\x00"],
        "--ports": [
            "Paralel",
            "Serial,Seiral",
            "PS3",
            "DVI-I",
            ",",
            "RJ\u0664\u0665",
            "P" * 40,
            ",".join(["USB"] * 65),
        ],
        "--lit": ["FRK,frk", "B-B", "TOOLONGLABEL", ",", "\u0424RK", ",".join(f"L{i}" for i in range(33))],
        "--unlit": ["CAR,car", "B-B", ""],
        "--solved": ["-1", "10000", "1_000", "\u0663", "1" * 5000, "3.0", "x", "", "+3", "1e3"],
        "--min": ["7", "0", "-5", "25.0", "1_0", "$-5", "1" * 30, "\u0662\u0665", "five"],
        "--max": ["1000001", "1" + "0" * 4000, "25", "-1", "1,0000", "x"],
        "--color": ["pink", "re d", "", "r" * 5000, "\u0440ed"],
    }
    out = []
    while len(out) < count:
        argv = list(DECK)
        option = rng.choice(list(values))
        value = rng.choice(values[option])
        if option == "--unlit" and value == "":  # blank is allowed there: pair it with a lit twin
            argv += ["--lit", "CAR"]
            value = "CAR"
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
        if rng.random() < 0.1:
            argv.insert(rng.randrange(1, len(argv)), rng.choice(["--bogus", "--seed=1", "-x", "--json=1"]))
        if rng.random() < 0.05:
            argv = [a for a in argv if a not in ("--serial", "AB3DE4")]
        out.append(argv)
    return out


def test_1000_hostile_command_lines_each_get_one_line_and_no_traceback(capsys):
    argvs = hostile_argvs(3, 1100)
    assert len({tuple(a) for a in argvs}) > 100
    for argv in argvs:
        try:
            code = cli.main(argv)
        except SystemExit as exit_info:
            code = exit_info.code
        captured = capsys.readouterr()
        assert code == 2, argv
        assert captured.out == ""
        lines = captured.err.splitlines()
        assert len(lines) == 1 and len(lines[0]) <= 300, (argv[:12], captured.err[:400])
        assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "argv",
    [[*DECK, "--" + "x" * 5000], ["run", "--view", "v" * 5000], ["r" * 5000], ["run", "--log-level", "\x1b" * 999]],
    ids=["unknown option", "not a choice", "not a command", "escapes"],
)
def test_what_argparse_itself_refuses_is_one_short_line_too(argv, capsys):
    """argparse quotes the offending argument whole; the parser cuts its line short."""
    with pytest.raises(SystemExit) as leaving:
        cli.main(argv)
    err = capsys.readouterr().err
    assert leaving.value.code == 2
    assert len(err.splitlines()) == 1 and len(err) <= 300, err[:400]
