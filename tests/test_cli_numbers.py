"""Every numeric flag of ``baccarat`` is checked as the config's value would be: NaN, infinity,
1e9, negative and huge numbers are one line naming the flag and exit 2, before anything
starts (issue 26: ``run --card-seconds nan`` hung every deal)."""

from __future__ import annotations

import pytest

from firmware import cli
from firmware.config import ConfigError, parse_config
from tests.conftest import config_data

#: Every numeric flag and argument, with a command line that is valid but for it.
NUMERIC = {
    "run --card-seconds": ["run", "--card-seconds", "{}"],
    "run --scale": ["run", "--simulate", "--scale", "{}"],
    "deck --solved": ["deck", "--serial", "AB3DE4", "--min", "25", "--max", "1000", "--color", "red", "--solved", "{}"],
    "deck --min": ["deck", "--serial", "AB3DE4", "--min", "{}", "--max", "1000", "--color", "red"],
    "deck --max": ["deck", "--serial", "AB3DE4", "--min", "25", "--max", "{}", "--color", "red"],
    "play --seed": ["play", "--serial", "AB3DE4", "--color", "red", "--seed", "{}"],
    "play --solved": ["play", "--serial", "AB3DE4", "--color", "red", "--solved", "{}"],
    "solved COUNT": ["solved", "{}", "--socket", "/nonexistent/control.sock"],
    "reset --min": ["reset", "--min", "{}", "--max", "1000", "--socket", "/nonexistent/control.sock"],
    "reset --max": ["reset", "--min", "25", "--max", "{}", "--socket", "/nonexistent/control.sock"],
}
HOSTILE = ["nan", "NaN", "inf", "-inf", "1e9", "1e400", "-1", "1" + "0" * 400, "0x10", "", "3.5e"]


@pytest.mark.parametrize("flag", list(NUMERIC))
@pytest.mark.parametrize("value", HOSTILE, ids=lambda v: v[:12] or "empty")
def test_a_numeric_flag_refuses_what_no_config_could_hold(flag, value, capsys):
    argv = [part.format(value) for part in NUMERIC[flag]]
    with pytest.raises(SystemExit) as leaving:
        cli.main(argv)
    err = capsys.readouterr().err
    assert leaving.value.code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    named = flag.split()[-1]
    assert (named.lower() if named == "COUNT" else named) in err, err


@pytest.mark.parametrize("text", ["0", "0.6", "60", "1e1", " 2 ", "60.001", "-0.1", "nan", "inf", "-inf", "1e9"])
def test_card_seconds_takes_exactly_what_the_config_takes(text, capsys):
    try:
        parse_config(config_data(timing={"card_seconds": float(text)}))
        in_file = True
    except ConfigError:
        in_file = False
    try:
        args = cli.build_parser("run").parse_args(["run", "--card-seconds", text])
        on_flag = True
    except SystemExit:
        on_flag = False
    assert on_flag == in_file, capsys.readouterr().err
    if on_flag:
        assert args.card_seconds == float(text)


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--output", "none", "--volume", "nan"], "[sound] volume"),
        (["--output", "none", "--volume", "1e9"], "[sound] volume"),
        (["--output", "none", "--volume=-inf"], "[sound] volume"),
        (["--output", "buzzer", "--pin", "1" + "0" * 30], "[sound] pin"),
        (["--output", "buzzer", "--pin=-1"], "[sound] pin"),
    ],
)
def test_the_sound_check_takes_its_numbers_through_the_sound_sections_checks(argv, named, capsys):
    """``python -m firmware.sound`` (the bring-up check) too: one line naming the key, exit 2."""
    from firmware.sound.__main__ import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and named in err, err
