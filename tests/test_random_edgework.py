"""Random edgework on the prop: `[edgework] mode = "random"` in the config, a bomb drawn at the start
and at each reset, kept by a restart, published over MQTT, overridden by fed edgework, and the
`baccarat deck --seed` / `--config` cheat sheet for it."""

from __future__ import annotations

import json
import random
import re

import pytest

from baccarat_core import Edgework, build_deck
from baccarat_core.bomb import RandomBombs
from firmware import cli
from firmware.app import restore_module
from firmware.config import ConfigError, load_config, parse_config
from firmware.room import saved_state
from firmware.room.commands import GameMaster, state_document
from tests import test_mqtt
from tests.conftest import config_data, start_served

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
P = test_mqtt.P


def random_config(edgework: dict | None = None, **sections):
    """The tests' reference config with ``[edgework]`` replaced (not merged) by ``edgework``."""
    data = config_data(**sections)
    data["edgework"] = {"mode": "random", "seed": 7} if edgework is None else edgework
    return parse_config(data)


def config_file(tmp_path, edgework_lines: str) -> str:
    from firmware.config import DEFAULT_CONFIG

    text = DEFAULT_CONFIG.read_text()
    start = text.index("[edgework]")
    end = text.index("[limits]")
    path = tmp_path / "config.toml"
    path.write_text(text[:start] + "[edgework]\n" + edgework_lines + "\n\n" + text[end:])
    return str(path)


# -- the config ---------------------------------------------------------------------------------


def test_random_mode_reads_a_seed_and_a_first_solved_count():
    config = random_config({"mode": "random", "seed": 7, "solved": 2})
    assert config.edgework is None and config.bombs == RandomBombs(7, 2)
    assert random_config({"mode": "random"}).bombs == RandomBombs(None, 0)
    fixed = random_config({"serial": "AB1", "batteries": ["AA", "d"], "plates": [["Parallel", "Serial"], []]})
    assert fixed.bombs is None
    assert fixed.edgework == Edgework(
        "AB1", ("Parallel", "Serial"), batteries=("AA", "D"), plates=(("Parallel", "Serial"), ())
    )
    assert random_config({"serial": "AB1", "mode": "fixed"}).edgework == Edgework("AB1")


@pytest.mark.parametrize(
    "edgework, message",
    [
        ({"mode": "randm"}, '[edgework] mode = "randm": must be fixed or random'),
        ({"mode": 1}, "[edgework] mode = 1: must be a string in quotes"),
        ({"mode": "random", "seed": -1}, "[edgework] seed = -1: must be from 0 to 9223372036854775807"),
        ({"mode": "random", "seed": 2**64}, "[edgework] seed = (a number of 20 digits): must be from 0"),
        ({"mode": "random", "seed": 1.5}, "[edgework] seed = 1.5: must be a whole number"),
        ({"mode": "random", "seed": "7"}, '[edgework] seed = "7": must be a whole number'),
        ({"mode": "random", "seed": True}, "[edgework] seed = true: must be a whole number"),
        ({"mode": "random", "serial": "AB1"}, '[edgework] serial = "AB1": is only read with mode = "fixed"'),
        ({"mode": "random", "ports": []}, '[edgework] ports = []: is only read with mode = "fixed"'),
        ({"mode": "random", "solved": -1}, "[edgework] solved = -1"),
        ({"mode": "random", "sead": 1}, "[edgework] sead: unknown key"),
        ({"serial": "AB1", "seed": 7}, '[edgework] seed = 7: is only read with mode = "random"'),
        ({"serial": "AB1", "batteries": ["AAA"]}, '[edgework] batteries: "AAA" is not a battery holder'),
        ({"serial": "AB1", "batteries": "AA"}, '[edgework] batteries = "AA": must be a list'),
        ({"serial": "AB1", "plates": ["Parallel"]}, '[edgework] plates = ["Parallel"]: must be a list of port plates'),
        ({"serial": "AB1", "plates": [["Paralel"]]}, "did you mean Parallel?"),
        ({"serial": "AB1", "ports": ["Serial"], "plates": [["Parallel"]]}, "are not the ports on the plates"),
        ({"mode": "fixed"}, "[edgework] serial is missing"),
    ],
)
def test_bad_edgework_settings_are_one_line_naming_the_key(edgework, message):
    with pytest.raises(ConfigError) as caught:
        random_config(edgework)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_check_config_says_how_the_bombs_are_drawn(tmp_path, capsys):
    path = config_file(tmp_path, 'mode = "random"\nseed = 7')
    assert cli.main(["check-config", path]) == 0
    first = RandomBombs(7).bomb(1).serial
    assert (
        f"Edgework: a bomb drawn at random for each game, seed 7 (game 1 has serial {first};" in capsys.readouterr().out
    )
    path = config_file(tmp_path, 'mode = "random"')
    assert cli.main(["check-config", path]) == 0
    assert "Edgework: a new bomb drawn at random for each game (no seed)" in capsys.readouterr().out


# -- the prop -------------------------------------------------------------------------------------


def _daemon(config, mock_factory, seed: int = 1):
    """The prop restored as ``baccarat run`` restores it, and its stop function."""
    return start_served(config, mock_factory, seed=seed, restore=lambda: restore_module(config, random.Random(seed)))


def test_each_game_gets_its_bomb_and_a_restart_keeps_it(tmp_path, mock_factory):
    """Seed 7: game 1's bomb at the first start, game 2's after a reset; a restart (the saved game)
    keeps game 2's bomb, and the next reset draws game 3's. The deck is always the one the rules deal."""
    bombs = RandomBombs(7)
    config = random_config(state={"file": str(tmp_path / "state.json")}, control={"socket": ""})
    rig, stop = _daemon(config, mock_factory)
    try:
        module = rig.daemon.module
        assert module.edgework == bombs.bomb(1)
        assert rig.events[0].kind == "edgework" and rig.events[0].drawn
        GameMaster(rig.daemon).handle({"command": "reset"}).result(5)
        assert module.edgework == bombs.bomb(2) and module.game == 2
        doc = rig.daemon.call(lambda: state_document(module)).result(5)
        assert doc["edgework"] == bombs.bomb(2).to_dict() and doc["game"] == 2 and doc["edgework_drawn"] is True
        deck = module.deck
        assert deck.cards == build_deck(bombs.bomb(2), module.limits, deck.color, 0).cards
    finally:
        stop()
    rig, stop = _daemon(config, mock_factory, seed=2)
    try:
        module = rig.daemon.module
        assert module.edgework == bombs.bomb(2) and module.game == 2, "the restart kept the bomb in play"
        assert module.deck.cards == deck.cards
        GameMaster(rig.daemon).handle({"command": "reset"}).result(5)
        assert module.edgework == bombs.bomb(3) and module.game == 3
    finally:
        stop()


def test_a_new_seed_or_mode_starts_afresh_but_the_same_config_restores(tmp_path, mock_factory):
    path = tmp_path / "state.json"
    config = random_config(state={"file": str(path)}, control={"socket": ""})
    rig, stop = _daemon(config, mock_factory)
    GameMaster(rig.daemon).handle({"command": "reset"}).result(5)
    stop()
    assert restore_module(config, random.Random(1)).edgework == RandomBombs(7).bomb(2)
    other_seed = random_config({"mode": "random", "seed": 8}, state={"file": str(path)})
    assert saved_state.fingerprint(other_seed) != saved_state.fingerprint(config)
    assert restore_module(other_seed, random.Random(1)) is None
    fixed = random_config({"serial": RandomBombs(7).bomb(2).serial}, state={"file": str(path)})
    assert restore_module(fixed, random.Random(1)) is None
    no_seed = random_config({"mode": "random"}, state={"file": str(path)})
    assert restore_module(no_seed, random.Random(1)) is None


def test_without_a_seed_the_saved_bomb_is_the_truth(tmp_path, mock_factory):
    """No seed: a restart cannot draw the bomb again, so the saved one is the bomb."""
    config = random_config({"mode": "random"}, state={"file": str(tmp_path / "state.json")}, control={"socket": ""})
    rig, stop = _daemon(config, mock_factory)
    bomb = rig.daemon.module.edgework
    stop()
    rig, stop = _daemon(config, mock_factory, seed=99)
    try:
        assert rig.daemon.module.edgework == bomb
    finally:
        stop()


# -- MQTT -----------------------------------------------------------------------------------------


def test_a_drawn_bomb_is_published_and_fed_edgework_still_overrides_it(mock_factory, broker, watcher_factory):
    w = watcher_factory()
    config = random_config(mqtt=test_mqtt.mqtt_section(broker), state={"file": ""}, control={"socket": ""})
    rig, stop = _daemon(config, mock_factory)
    try:
        test_mqtt.connected(rig)
        first = json.loads(w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "edgework"))
        assert first == {"seq": 1, "event": "edgework", **RandomBombs(7).bomb(1).to_dict(), "drawn": True}
        assert w.command({"command": "reset"})["ok"]
        drawn = json.loads(
            w.wait_for(f"{P}/events", lambda p: json.loads(p)["event"] == "edgework" and json.loads(p)["seq"] > 1)
        )
        assert {k: v for k, v in drawn.items() if k != "seq"} == {
            "event": "edgework",
            **RandomBombs(7).bomb(2).to_dict(),
            "drawn": True,
        }
        state = json.loads(w.wait_for(f"{P}/state", lambda p: json.loads(p)["game"] == 2))
        assert state["edgework"] == RandomBombs(7).bomb(2).to_dict() and state["edgework_drawn"] is True
        # An escape room's bomb still wins: its edgework replaces the drawn one, casing and all.
        fed = {"serial": "Z9Y8X7", "ports": ["DVI-D"], "lit": ["BOB"], "unlit": [], "batteries": ["D", "AA"]}
        w.publish("bomb/edgework", json.dumps(fed))
        state = json.loads(w.wait_for(f"{P}/state", lambda p: json.loads(p)["edgework"]["serial"] == "Z9Y8X7"))
        assert state["edgework"] == {**fed, "solved": 0} and state["edgework_drawn"] is False
        module = rig.daemon.module
        assert (
            module.deck.cards
            == build_deck(Edgework("Z9Y8X7", ("DVI-D",), ("BOB",)), module.limits, module.deck.color, 0).cards
        )
        reply = w.command({"command": "set_edgework", "serial": "QQ1QQ1", "plates": [["Parallel", "Serial"], []]})
        assert reply["ok"], reply
        assert module.edgework.ports == ("Parallel", "Serial") and module.edgework.plates == (
            ("Parallel", "Serial"),
            (),
        )
    finally:
        stop()


# -- baccarat deck and play -------------------------------------------------------------------------


def run(argv, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as exit:  # argparse refused an argument
        code = exit.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_deck_for_the_configs_seed_is_the_deck_the_prop_deals(tmp_path, capsys, mock_factory):
    path = config_file(tmp_path, 'mode = "random"\nseed = 41')
    data = load_config(path)
    module_limits = "--min", "25", "--max", "1000"
    code, out, err = run(["deck", "--config", path, *module_limits, "--color", "blue", "--json"], capsys)
    assert code == 0 and err == ""
    bomb = RandomBombs(41).bomb(1)
    assert data.bombs == RandomBombs(41)
    from baccarat_core import TableLimits

    assert json.loads(out) == build_deck(bomb, TableLimits(25, 1000), "blue").to_dict()
    code, same, _ = run(["deck", "--seed", "41", *module_limits, "--color", "blue", "--json"], capsys)
    assert same == out
    code, game3, _ = run(["deck", "--config", path, "--game", "3", *module_limits, "--color", "blue"], capsys)
    assert f"Edgework: serial {RandomBombs(41).bomb(3).serial}," in game3
    assert "Casing: port plates" in game3 or "Casing: battery holders" in game3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seed", "7", "--serial", "AB1"], "--serial describes a bomb and the seed draws one"),
        (["--seed", "7", "--batteries", "AA"], "--batteries describes a bomb and the seed draws one"),
        ([], "give the bomb's --serial (and --ports, --lit, --unlit), or --seed N for a random bomb"),
        (["--serial", "AB1", "--game", "2"], "--game is only read with --seed"),
        (["--seed", "-3"], "argument --seed: seed -3 is negative"),
        (["--seed", "x"], 'argument --seed: seed "x" is not a whole number'),
        (["--seed", "1" * 30], "argument --seed:"),
        (["--seed", "7", "--game", "0"], "argument --game: game number 0 is not a game"),
        (["--serial", "AB1", "--batteries", "AAA"], 'batteries: "AAA" is not a battery holder'),
    ],
)
def test_bad_deck_arguments_are_one_line(argv, message, capsys):
    code, out, err = run(["deck", *argv, "--min", "25", "--max", "1000", "--color", "red"], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_deck_with_a_config_without_a_seed_says_what_to_do(tmp_path, capsys):
    path = config_file(tmp_path, 'mode = "random"')
    code, out, err = run(["deck", "--config", path, "--min", "25", "--max", "1000", "--color", "red"], capsys)
    assert code == 2 and "draws a new bomb for each game without a seed: give --seed N" in err
    code, out, err = run(["deck", "--config", path, "--color", "red", "--seed", "3"], capsys)
    assert code == 2 and re.search(r"give the table's --min and --max \(.* draws the limits at random\)", err)


def test_deck_with_a_fixed_config_uses_its_edgework_and_fixed_limits(tmp_path, capsys):
    path = config_file(tmp_path, 'serial = "AB12C3"\nsolved = 2')
    text = open(path).read().replace('mode = "random"', 'mode = "fixed"\nmin = 5\nmax = 200', 1)
    open(path, "w").write(text)
    code, out, err = run(["deck", "--config", path, "--color", "red", "--json"], capsys)
    assert code == 0, err
    code, same, err = run(
        ["deck", "--serial", "AB12C3", "--solved", "2", "--min", "5", "--max", "200", "--color", "red", "--json"],
        capsys,
    )
    assert same == out


def test_play_with_a_seed_and_no_serial_plays_the_bomb_the_seed_draws(capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO('{"deal": true}\n'))
    code, out, err = run(["play", "--seed", "7", "--min", "25", "--max", "1000", "--color", "red"], capsys)
    assert code == 0 and err == ""
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0] == {"event": "edgework", **RandomBombs(7).bomb(1).to_dict(), "drawn": True}
    deck = build_deck(RandomBombs(7).bomb(1), __import__("baccarat_core").TableLimits(25, 1000), "red")
    assert events[2]["event"] == "deck" and events[2]["top"] == str(deck.cards[0])


def test_the_shells_status_and_the_console_name_the_drawn_bomb_and_its_game(mock_factory, short_dir, capsys):
    sock = short_dir / "control.sock"
    config = random_config(state={"file": ""}, control={"socket": str(sock)})
    rig, stop = _daemon(config, mock_factory)
    try:
        code, out, err = run(["reset", "--socket", str(sock)], capsys)
        assert code == 0, err
        code, out, err = run(["status", "--socket", str(sock)], capsys)
        bomb = RandomBombs(7).bomb(2)
        line = out.splitlines()[-1]
        assert line.startswith(f"edgework: serial {bomb.serial}, ") and line.endswith(
            "0 solved (drawn at random for game 2)"
        )
        assert ("battery holders " + ", ".join(bomb.batteries)) in line if bomb.batteries else "battery" not in line
        from firmware.web.live import words

        doc = rig.daemon.call(lambda: state_document(rig.daemon.module)).result(5)
        assert words(doc)["edgework"].endswith("solved on the bomb (drawn at random for game 2)")
        GameMaster(rig.daemon).handle({"command": "set_edgework", "serial": "AB1"}).result(5)
        code, out, err = run(["status", "--socket", str(sock)], capsys)
        assert out.splitlines()[-1] == "edgework: serial AB1, ports none, lit none, unlit none, 0 solved"
    finally:
        stop()
