"""Issue 11 in the config file: damaged files, upper bounds, and 1,000 generated broken configs,
each a one-line error naming the key, from ``load_config``, ``check-config`` and ``run`` alike."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from firmware import cli
from firmware.config import DEFAULT_CONFIG, ConfigError, load_config
from firmware.services.control import MAX_SOCKET_PATH
from tests.hostile import DEEP, HUGE_INT

REFERENCE = DEFAULT_CONFIG.read_text(encoding="utf-8")


def one_line_error(path: Path, capsys) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message and len(message) <= 300, message[:400]
    code = cli.main(["check-config", str(path)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.splitlines()) == 1 and "Traceback" not in captured.err
    return message


@pytest.mark.parametrize(
    "content, named",
    [
        (b"\xff" + REFERENCE.encode(), "not UTF-8"),
        (f"x = {DEEP}\n".encode(), "nested too deeply"),
        (f"x = {HUGE_INT}\n".encode(), "not valid TOML"),
        (b"x = " + b'"' + b"y" * (300 * 1024) + b'"\n', "larger than"),
    ],
    ids=["0xff", "deep", "5000 digits", "300 KiB"],
)
def test_damaged_config_files(tmp_path, capsys, content, named):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    assert named in one_line_error(path, capsys)


def test_a_device_as_the_config_file(capsys):
    assert "larger than" in one_line_error(Path("/dev/zero"), capsys)


@pytest.mark.parametrize(
    "section, key, value, named",
    [
        ("edgework", "solved", "1" + "0" * 4000, "[edgework] solved"),
        ("edgework", "solved", "10000", "[edgework] solved"),
        ("limits", "max", "1" + "0" * 4000, "[limits] max"),
        ("edgework", "ports", '["Paralel", "Serial"]', "did you mean Parallel?"),
        ("edgework", "ports", "[" + ", ".join(['"USB"'] * 65) + "]", "at most 64"),
        ("edgework", "lit", '["FRK", "frk"]', "FRK is given twice"),
        ("inputs", "player", "1", "GPIO0/1 carry the HAT EEPROM bus"),
        ("inputs", "banker", "0", "GPIO0/1 carry the HAT EEPROM bus"),
        ("timing", "hold_seconds", "nan", "[timing] hold_seconds"),
        ("timing", "card_seconds", "inf", "[timing] card_seconds"),
        ("timing", "result_seconds", "1e9", "[timing] result_seconds"),
        ("state", "file", '"/var/lib/baccarat/state\\u0000.json"', "[state] file"),
        ("control", "socket", '"' + "s" * 5000 + '"', "[control] socket"),
    ],
)
def test_upper_bounds_and_typos(tmp_path, capsys, section, key, value, named):
    text = REFERENCE if f"[{section}]" in REFERENCE else REFERENCE + f"\n[{section}]\n"
    path = tmp_path / "bad.toml"
    path.write_text(_with(text, section, key, value))
    assert named in one_line_error(path, capsys)


def _with(text: str, section: str, key: str, value: str) -> str:
    lines = text.splitlines()
    start = lines.index(f"[{section}]")
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("["):
            break
        if re.match(rf"{re.escape(key)}\s*=", lines[i]):
            lines[i] = f"{key} = {value}"
            return "\n".join(lines) + "\n"
    lines.insert(start + 1, f"{key} = {value}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("table", ["displays", "outputs"])
def test_a_list_of_tables_given_as_a_long_string_is_named_and_shown_short(tmp_path, capsys, table):
    head = REFERENCE[: REFERENCE.index("\n[[")]
    path = tmp_path / "bad.toml"
    path.write_text(f'{table} = "{"x" * 5000}"\n' + head)
    message = one_line_error(path, capsys)
    assert f'[[{table}]] must be a list of tables, not "xxx' in message and len(message) < 200, message


def test_mqtt_upper_bounds(tmp_path, capsys):
    for key, value in (("queue_limit", "1" + "0" * 40), ("keepalive", "70000"), ("reconnect_max_seconds", "inf")):
        path = tmp_path / "bad.toml"
        path.write_text(REFERENCE + f'\n[mqtt]\nhost = "127.0.0.1"\n{key} = {value}\n')
        assert f"[mqtt] {key}" in one_line_error(path, capsys)


@pytest.mark.parametrize(
    "key, value, named",
    [
        ("room", '"Casino/+"', "contains +, an MQTT wildcard"),
        ("client_id", '"Casino/+"', "contains +, an MQTT wildcard, which brokers refuse in a client id"),
        ("client_id", '"prop#2"', "contains #, an MQTT wildcard"),
        ("topic_prefix", '"bomb/#"', "contains #, an MQTT wildcard"),
        ("bomb_prefix", '"+/bomb"', "contains +, an MQTT wildcard"),
        ("prop", '"baccarat+"', "contains +, an MQTT wildcard"),
        ("home_assistant_prefix", '"ha/+"', "contains +, an MQTT wildcard"),
        ("room", '"Casino/Hall 2"', "one topic level, without /"),
        ("prop", '"table/1"', "one topic level, without /"),
        ("topic_prefix", '"$SYS/baccarat"', "must not start with $"),
        ("client_id", '"prop\\u0007"', "control character U+0007"),
        ("username", '"gm\\u009b"', "control character U+009B"),
        ("room", '"Casino\\ufdd0"', "U+FDD0, a Unicode non-character"),
        ("prop", '"x\\U0001FFFF"', "U+1FFFF, a Unicode non-character"),
        ("client_id", '""', "must not be empty"),
        ("prop", '""', "must not be empty"),
    ],
)
def test_mqtt_names_a_broker_refuses_are_refused_by_check_config(tmp_path, capsys, key, value, named):
    """Each would make the broker refuse the CONNECT, or a topic, of every connection the prop makes."""
    path = tmp_path / "bad.toml"
    path.write_text(REFERENCE + f'\n[mqtt]\nhost = "127.0.0.1"\n{key} = {value}\n')
    message = one_line_error(path, capsys)
    assert message.startswith(f"{path}: [mqtt] {key} = ") and named in message, message


def test_mqtt_names_a_broker_takes_are_accepted(tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(
        REFERENCE + '\n[mqtt]\nhost = "127.0.0.1"\nclient_id = "casino/baccarat 1"\nroom = "Salle Écarté"\n'
        'prop = "baccarat-1"\ntopic_prefix = "casino/$baccarat/"\nusername = "gm+1"\nhome_assistant_prefix = "ha"\n'
    )
    config = load_config(path)
    mqtt, room = config.settings["mqtt"], config.settings["room2"]
    assert (mqtt.client_id, room.room, mqtt.topic_prefix, mqtt.username) == (
        "casino/baccarat 1",
        "Salle Écarté",
        "casino/$baccarat",
        "gm+1",
    )


def test_a_control_socket_path_longer_than_a_unix_socket_takes_is_refused(tmp_path, capsys):
    """108 bytes and more cannot be bound (sun_path); 107 can, and passes."""
    import socket

    for length, fits in ((MAX_SOCKET_PATH, True), (MAX_SOCKET_PATH + 1, False)):
        name = str(tmp_path / "s")
        name += "x" * (length - len(name.encode()))
        assert len(name.encode()) == length
        path = tmp_path / "socket.toml"
        path.write_text(_with(REFERENCE + "\n[control]\n", "control", "socket", f'"{name}"'))
        with socket.socket(socket.AF_UNIX) as probe:
            if fits:
                assert load_config(path).settings["control"] == name
                probe.bind(name)  # the kernel agrees
                Path(name).unlink()
            else:
                assert f"is {length} bytes long" in one_line_error(path, capsys)
                with pytest.raises(OSError):
                    probe.bind(name)


# -- 1,000 generated broken configs ----------------------------------------------------------------

#: (section, key) and values each of which that key refuses.
BAD = {
    ("edgework", "serial"): ['""', '"ABCDEFG"', '"AB-12"', "5", "true", '"\\u00c4B1"', '"' + "X" * 2000 + '"'],
    ("edgework", "ports"): ['["Paralel"]', '["PS3"]', "[1]", '"Parallel"', '["' + "P" * 40 + '"]', '[""]'],
    ("edgework", "lit"): ['["FRK", "FRK"]', '["B-B"]', '["TOOLONGLABEL"]', "[1]", '"FRK"'],
    ("edgework", "unlit"): ['["FRK"]', '["CAR", "car"]', '["\\u0000"]'],  # FRK is lit in the reference
    ("edgework", "solved"): ["-1", "10000", "1.5", "true", '"3"', "1" + "0" * 4000, "nan", "[3]"],
    ("edgework", "mode"): ['"randm"', "1", '"RANDOM"', "[]"],
    ("edgework", "seed"): ["7", "-1", '"7"'],  # the reference's edgework is fixed: no seed is read
    ("edgework", "batteries"): ['["AAA"]', '"AA"', "[1]", "[" + ", ".join(['"D"'] * 33) + "]"],
    ("edgework", "plates"): ['[["Paralel"]]', '["Parallel"]', "[[1]]", '[["USB"]]', "[[[]]]"],
    ("limits", "mode"): ['"fixd"', "1", "true", '""'],
    ("deck", "first_color"): ['"pink"', "1", '"RED "', "[]"],
    ("inputs", "player"): ["-1", "28", "0", "1", "12", '"5"', "5.0", "true", "1" + "0" * 4000],
    ("inputs", "pull_up"): ['"true"', "1", "0", "[]", "nan"],
    ("status_light", "red"): ["99", "-3", '"17"', "17.5"],
    ("deck_light", "pwm"): ['"yes"', "2"],
    ("timing", "hold_seconds"): ["0", "-1", "61", "nan", "inf", '"0.5"', "true", "1e300"],
    ("timing", "debounce_seconds"): ["-0.01", "0.5", "0.6", "nan", "61"],
    ("timing", "card_seconds"): ["-1", "inf", "-inf", "1e9"],
    ("state", "file"): ["1", "true", '"a\\u0000b"', '"' + "f" * 2000 + '"', "[]"],
    ("control", "socket"): ["1", '"\\u0000"', '"' + "s" * 2000 + '"'],
    ("bogus", "key"): ["1"],
    ("edgework", "colour"): ['"red"'],
}
DISPLAY_BAD = {
    "width": ["8", "600", "1" + "0" * 4000, '"128"', "128.0"],
    "address": ["0x02", "0x78", "-1", '"0x3C"'],
    "rotate": ["4", "-1", "1.5"],
    "driver": ['"ssd9999"', "1"],
    "role": ['"scoreboard"', "1"],
}
#: Values each key of the reference build's ``[[outputs]]`` table refuses (the key's line is replaced).
OUTPUT_BAD = {
    "name": ['""', '"Lock"', '"front door"', '"l\u00f6ck"', '"' + "x" * 40 + '"', "1", '"9lives"'],
    "pin": ["5", "0", "28", "2", "12", '"15"', "15.0", "true", "-1"],
    "active_high": ['"true"', "1"],
    "on": ['"win"', '"SOLVED"', "true", '""', '["solved"]'],
    "mode": ['"latch"', '"Hold"', "0"],
    "off_on": ['"solved"', '"never"', "false"],
    "pulse_seconds": ["0", "-1", "nan", "inf", "3601", '"1"'],
    "max_on_seconds": ["0", "-5", "nan", "1e9", '"10"', "false"],
    "colour": ['"red"'],
}

TEXT_DAMAGE = [
    lambda t, r: t.replace("=", "", 1),
    lambda t, r: t + "\n[edgework]\n",
    lambda t, r: t.replace("[limits]", "[limits", 1),
    lambda t, r: t + '\nx = """unterminated\n',
    lambda t, r: t[: r.randrange(10, len(t) // 2)] + "\x00" + t[len(t) // 2 :],
    lambda t, r: t + "\nz = " + "[" * r.randrange(200, 3000),
]


def _in_first_display(text: str, key: str, value: str) -> str:
    """``text`` with ``key`` of the first ``[[displays]]`` table replaced by ``value``."""
    lines = text.splitlines()
    first = lines.index("[[displays]]")
    for i in range(first + 1, len(lines)):
        if lines[i].startswith("["):
            break
        if re.match(rf"{re.escape(key)}\s*=", lines[i]):
            lines[i] = f"{key} = {value}"
            return "\n".join(lines) + "\n"
    raise AssertionError(f"the reference's first display has no {key}")


#: What a message about damage to the text itself names instead of a key.
DAMAGE_NAMED = ("not valid TOML", "not UTF-8")


def hostile_configs(seed: int, count: int) -> list[tuple[str, tuple[str, ...]]]:
    """Broken configs, each with what its message must name (any one of them): the key
    it breaks (as ``[section] key``), or for damage to the text, what the damage is."""
    rng = random.Random(seed)
    keys = list(BAD)
    out = []
    for _ in range(count):
        text = REFERENCE + "\n[state]\n\n[control]\n"
        shape = rng.randrange(11)
        if shape < 7:
            section, key = rng.choice(keys)
            if f"[{section}]" not in text:
                text += f"\n[{section}]\n"
            text = _with(text, section, key, rng.choice(BAD[(section, key)]))
            named = (f"[{section}] {key}" if section != "bogus" else "[bogus]",)
            if shape == 0:  # a second fault does not hide the first: the message names one of them
                section, key = rng.choice(keys)
                if f"[{section}]" in text:
                    text = _with(text, section, key, rng.choice(BAD[(section, key)]))
                    named += (f"[{section}] {key}",)
        elif shape < 9:
            key = rng.choice(list(DISPLAY_BAD))
            text = _in_first_display(text, key, rng.choice(DISPLAY_BAD[key]))
            named = (f"[displays.0] {key}",)
        elif shape == 9:
            text = rng.choice(TEXT_DAMAGE)(text, rng)
            named = DAMAGE_NAMED
        else:  # the lock's table: one key replaced (or added) with a value it refuses
            key = rng.choice(list(OUTPUT_BAD))
            lines = text.splitlines()
            first = lines.index("[[outputs]]")
            end = next(i for i in range(first + 1, len(lines)) if lines[i].startswith("["))
            line = f"{key} = {rng.choice(OUTPUT_BAD[key])}"
            mine = [i for i in range(first + 1, end) if re.match(rf"{key}\s*=", lines[i])]
            if mine:
                lines[mine[0]] = line
            else:
                lines.insert(first + 1, line)
            text = "\n".join(lines) + "\n"
            # the key in the lock's table, the lock in a pin check, or (its name broken) the first output's name
            named = (f"[outputs.lock] {key}", "[outputs] lock", "[outputs.0] name")
        out.append((text, named))
    return out


def test_1000_generated_broken_configs_each_give_one_line_naming_the_key(tmp_path):
    generated = hostile_configs(51, 1100)
    assert len({text for text, _ in generated}) > 200
    assert sum(1 for _, named in generated if named[0].startswith("[displays.0]")) > 150
    path = tmp_path / "bad.toml"
    for index, (text, named) in enumerate(generated):
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        message = str(caught.value)
        assert "\n" not in message and len(message) <= 300, (index, message[:400])
        assert any(name in message for name in named), (index, named, message)
