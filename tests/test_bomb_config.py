"""``[bomb]`` in the config, the ``start`` and ``add_time`` commands, and the explosion's cue (issue 24
part 3): every bad value one line naming it, from the file, the commands' JSON and words."""

from __future__ import annotations

import pytest

from baccarat_core import events as ev
from baccarat_core.timer import MAX_STRIKE_LIMIT, MAX_TIMER_SECONDS, BombRules
from firmware import cli
from firmware.config import DEFAULT_CONFIG, ConfigError, describe_wiring, load_config
from firmware.room.commands import CommandError, parse_command, parse_words
from firmware.sound.cues import PRIORITY, CuePlanner
from tests.conftest import make_config

REFERENCE = DEFAULT_CONFIG.read_text(encoding="utf-8")


def test_no_bomb_section_means_no_timer_and_no_limit_as_before():
    config = load_config()
    assert config.bomb == BombRules(None, None, True)
    assert "Bomb: no timer, no strike limit" in describe_wiring(config)


def test_a_bomb_section_is_read_and_described():
    config = make_config(bomb={"timer_seconds": 300, "strike_limit": 3, "speed_up": False})
    assert config.bomb == BombRules(300.0, 3, False)
    assert isinstance(config.bomb.timer_seconds, float)
    assert "Bomb: timer 05:00 (same speed throughout), explodes at 3 strikes" in describe_wiring(config)
    fast = make_config(bomb={"timer_seconds": 5400.5})
    assert fast.bomb.speed_up and "timer 1:30:01 (faster after each strike" in describe_wiring(fast)


@pytest.mark.parametrize(
    "lines, named",
    [
        ('timer_seconds = "300"', '[bomb] timer_seconds = "300": must be a number'),
        ("timer_seconds = 0", "[bomb] timer_seconds = 0: must be at least 1"),
        ("timer_seconds = -60", "[bomb] timer_seconds = -60: must be at least 1"),
        ("timer_seconds = nan", "[bomb] timer_seconds = nan: must be a finite number"),
        ("timer_seconds = inf", "[bomb] timer_seconds = inf: must be a finite number"),
        (f"timer_seconds = {int(MAX_TIMER_SECONDS) + 1}", "[bomb] timer_seconds = 36001: must be at least 1"),
        ("timer_seconds = true", "[bomb] timer_seconds = true: must be a number"),
        ("timer_seconds = 1" + "0" * 4000, "[bomb] timer_seconds = (a number of over 1000 digits): must be"),
        ("timer_seconds = [300]", "[bomb] timer_seconds = [300]: must be a number"),
        ("strike_limit = 0", "[bomb] strike_limit = 0: must be at least 1"),
        ("strike_limit = 2.5", "[bomb] strike_limit = 2.5: must be a whole number"),
        (f"strike_limit = {MAX_STRIKE_LIMIT + 1}", "[bomb] strike_limit = 100: must be at least 1 and at most 99"),
        ('strike_limit = "3"', '[bomb] strike_limit = "3": must be a whole number'),
        ("speed_up = true", "[bomb] speed_up = true: is only read with timer_seconds"),
        ('timer_seconds = 300\nspeed_up = "yes"', '[bomb] speed_up = "yes": must be true or false'),
        ("timer_seconds = 300\nspeedup = true", "[bomb] speedup: unknown key"),
        ("timer = 300", "[bomb] timer: unknown key"),
    ],
)
def test_hostile_bomb_lines_are_one_line_naming_the_value(tmp_path, capsys, lines, named):
    path = tmp_path / "bad.toml"
    path.write_text(REFERENCE + "\n[bomb]\n" + lines + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert named in message and "\n" not in message, message[:300]
    assert cli.main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_bomb_must_be_a_table():
    with pytest.raises(ConfigError, match=r'\[bomb\] must be a table, not "yes"'):
        make_config(bomb="yes")


def test_the_casing_display_role_is_optional_and_checked_like_the_others():
    config = make_config()
    assert "(no casing display)" not in describe_wiring(config)
    with pytest.raises(ConfigError, match='role = "clock": must be one of placard, table, bets, casing'):
        make_config(displays=[{"role": "clock", "driver": "ssd1306", "interface": "i2c", "width": 128, "height": 32}])


# -- the commands -------------------------------------------------------------------------------------------


def test_start_and_add_time_parse_from_json_and_words():
    assert parse_command({"command": "start"}).name == "start"
    assert parse_command({"command": "add_time", "seconds": 60}).seconds == 60.0
    assert parse_command({"command": "Add-Time", "seconds": -30.5}).seconds == -30.5
    assert parse_words("add-time 60").seconds == 60.0
    assert parse_words("add_time:-90").seconds == -90.0  # Room 2.0's colon form
    assert parse_words("add-time seconds=1.5").seconds == 1.5
    assert parse_words("start").name == "start"


@pytest.mark.parametrize(
    "payload, named",
    [
        ({"command": "add_time"}, 'add_time: missing "seconds"'),
        ({"command": "add_time", "seconds": "60"}, 'add_time: seconds "60" is not a number of seconds'),
        ({"command": "add_time", "seconds": True}, "add_time: seconds true is not a number of seconds"),
        ({"command": "add_time", "seconds": None}, "add_time: seconds null is not a number of seconds"),
        ({"command": "add_time", "seconds": 1e12}, "is not from -36000 to 36000 seconds"),
        ({"command": "add_time", "seconds": 60, "minutes": 1}, 'add_time: unknown argument "minutes"'),
        ({"command": "start", "seconds": 60}, 'start: unknown argument "seconds"'),
    ],
)
def test_bad_time_commands_are_refused_with_one_line(payload, named):
    with pytest.raises(CommandError) as caught:
        parse_command(payload)
    assert named in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("words", ["add-time sixty", "add-time 1e9", "add-time 60 70", "add-time nan", "add-time 0x10"])
def test_bad_time_words_are_refused(words):
    with pytest.raises(CommandError, match="add_time"):
        parse_words(words)


# -- the cue -----------------------------------------------------------------------------------------------------


def test_the_explosion_has_its_cue_and_it_outranks_every_other():
    assert CuePlanner().for_event(ev.Exploded("timer", 1)) == [(0.0, "explosion")]
    assert CuePlanner().for_event(ev.Exploded("strikes", 3)) == [(0.0, "explosion")]
    assert PRIORITY["explosion"] > max(rank for cue, rank in PRIORITY.items() if cue != "explosion")


# -- the shell: baccarat start-timer, add-time, status ------------------------------------------------------------


@pytest.fixture
def bomb_served(mock_factory, short_dir):
    from firmware.simulator.pins import ManualClock
    from tests.conftest import served_prop

    sock = short_dir / "control.sock"
    config = make_config(
        control={"socket": str(sock)}, state={"file": ""}, bomb={"timer_seconds": 300, "strike_limit": 3}
    )
    clock = ManualClock()
    with served_prop(config, mock_factory, seed=5, clock=clock, schedule_clock=clock) as rig:
        yield rig.daemon, clock, str(sock)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_shell_starts_the_countdown_adds_time_and_shows_it(bomb_served, capsys):
    daemon, clock, sock = bomb_served
    code, out, _ = run(capsys, "status", "--socket", sock)
    assert code == 0 and "bomb: 05:00 left, waiting; explodes at 3 strikes" in out
    assert run(capsys, "start-timer", "--socket", sock)[1].strip() == "timer started: 05:00 left"
    assert run(capsys, "start-timer", "--socket", sock)[1].strip() == "the timer runs already"
    clock.advance(60.0)
    assert run(capsys, "add-time", "-30", "--socket", sock)[1].strip() == "03:30 left"
    assert run(capsys, "add-time", "90.5", "--socket", sock)[1].strip() == "05:01 left"
    assert "bomb: 05:01 left, running;" in run(capsys, "status", "--socket", sock)[1]
    with pytest.raises(SystemExit) as exited:
        cli.main(["add-time", "soon", "--socket", sock])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and 'seconds "soon" is not a number' in err and "Traceback" not in err
    code, out, _ = run(capsys, "add-time", "-36000", "--socket", sock)
    assert code == 0 and "the bomb exploded" in out and daemon.module.exploded == "timer"
