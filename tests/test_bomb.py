"""Random edgework in the core: bombs drawn as the game draws them, game after game, and the deck
the module deals for one equal to what `baccarat deck --seed` prints."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_core import COLORS, BaccaratError, BaccaratModule, Edgework, EdgeworkError, TableLimits, build_deck
from baccarat_core import events as ev
from baccarat_core.bomb import (
    INDICATOR_LABELS,
    PLATE_KINDS,
    SERIAL_CHARACTERS,
    RandomBombs,
    draw_bomb,
)
from baccarat_core.limits import MAXIMA
from baccarat_core.strict import MAX_SEED
from firmware import cli

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: The game's pattern: two letters or digits, a digit, two letters, a digit; never O or Y.
SERIAL = re.compile(r"[A-NP-XZ0-9]{2}[0-9][A-NP-XZ]{2}[0-9]")
LIMITS = [(low, high) for low, rows in MAXIMA.items() for row in rows for high in row]

seeds = st.integers(min_value=0, max_value=MAX_SEED)
games = st.integers(min_value=1, max_value=10_000)


def _is_plate_of_one_kind(plate: tuple[str, ...]) -> bool:
    """A plate holds ports of one kind only, each at most once, in the kind's order."""
    return any(list(plate) == [port for port in kind if port in plate] for kind in PLATE_KINDS)


@SETTINGS
@given(seed=seeds)
def test_every_drawn_bomb_is_one_the_game_could_draw(seed):
    bomb = draw_bomb(random.Random(seed))
    assert SERIAL.fullmatch(bomb.serial), bomb.serial
    assert bomb.plates is not None
    widgets = len(bomb.plates) + len(bomb.lit) + len(bomb.unlit) + len(bomb.batteries)
    assert widgets == 5
    assert all(_is_plate_of_one_kind(plate) for plate in bomb.plates), bomb.plates
    assert bomb.ports == tuple(port for plate in bomb.plates for port in plate)
    assert not bomb.other_ports  # only the six vanilla kinds
    labels = bomb.lit + bomb.unlit
    assert len(set(labels)) == len(labels) and set(labels) <= set(INDICATOR_LABELS)
    assert set(bomb.batteries) <= {"AA", "D"}
    assert bomb.battery_count == 2 * bomb.batteries.count("AA") + bomb.batteries.count("D")
    assert bomb.solved == 0
    assert Edgework.from_dict(json.loads(json.dumps(bomb.to_dict()))) == bomb  # it survives its JSON form


def test_the_draws_have_the_games_odds():
    """20,000 bombs from one seed (the counts are the same on every run): each widget kind a third
    of the time; E twice as often as another letter, no O or Y; 60 % of indicators lit; half the
    holders AA; each plate of either kind with even odds and each port on it with odds of one half,
    so each of the six ports is on a quarter of the plates and 5/32 of the plates are empty."""
    rng = random.Random(2024)
    bombs = [draw_bomb(rng) for _ in range(20_000)]
    kinds = Counter()
    letters = Counter()
    lit = unlit = 0
    ports = Counter()
    empty = 0
    holders = Counter()
    for bomb in bombs:
        kinds["plate"] += len(bomb.plates)
        kinds["indicator"] += len(bomb.lit) + len(bomb.unlit)
        kinds["battery"] += len(bomb.batteries)
        letters.update(bomb.serial[3:5])
        lit += len(bomb.lit)
        unlit += len(bomb.unlit)
        for plate in bomb.plates:
            ports.update(plate)
            empty += not plate
        holders.update(bomb.batteries)
    total = sum(kinds.values())
    assert total == 100_000
    for kind in ("plate", "indicator", "battery"):
        assert abs(kinds[kind] / total - 1 / 3) < 0.01, kinds
    assert set(letters) == set("ABCDEFGHIJKLMNPQRSTUVWXZ")  # every letter but O and Y, vowels too
    others = [count for letter, count in letters.items() if letter != "E"]
    assert 1.8 < letters["E"] / (sum(others) / len(others)) < 2.2, letters
    assert abs(lit / (lit + unlit) - 0.6) < 0.01
    assert abs(holders["AA"] / sum(holders.values()) - 0.5) < 0.01
    assert set(ports) == {port for kind in PLATE_KINDS for port in kind}
    for port, count in ports.items():
        assert abs(count / kinds["plate"] - 1 / 4) < 0.01, (port, count)
    assert abs(empty / kinds["plate"] - 5 / 32) < 0.01


def test_serial_characters_are_the_games_table():
    assert len(SERIAL_CHARACTERS) == 35
    assert SERIAL_CHARACTERS[14] == "E" and "O" not in SERIAL_CHARACTERS and "Y" not in SERIAL_CHARACTERS
    assert SERIAL_CHARACTERS[25:] == "0123456789"


@SETTINGS
@given(seed=seeds, game=games)
def test_a_seed_gives_game_k_the_same_bomb_every_time(seed, game):
    bombs = RandomBombs(seed)
    first = bombs.bomb(game)
    assert bombs.bomb(game, random.Random(1)) == first  # whatever else the module drew
    assert RandomBombs(seed).bomb(game) == first


def test_games_and_seeds_get_different_bombs():
    assert len({RandomBombs(7).bomb(game).serial for game in range(1, 51)}) > 45
    assert len({RandomBombs(seed).bomb(1).serial for seed in range(50)}) > 45
    # the stream is pinned: these are the bombs on every machine (a change here changes every seeded game)
    assert RandomBombs(7).bomb(1).serial == "P24KA0"
    assert RandomBombs(7).bomb(2).serial == "DH1EB9"


def test_without_a_seed_each_draw_is_new():
    bombs = RandomBombs()
    assert len({bombs.bomb(1).serial for _ in range(30)}) > 25
    assert bombs.bomb(1, random.Random(3)) == bombs.bomb(1, random.Random(3))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: RandomBombs(-1), "seed -1 is negative"),
        (lambda: RandomBombs(MAX_SEED + 1), "seed 9223372036854775808 is above"),
        (lambda: RandomBombs("7"), 'seed "7" is not a whole number'),
        (lambda: RandomBombs(7, solved=-2), "solved count -2"),
        (lambda: RandomBombs(7).bomb(0), "game number 0 is not a game"),
    ],
)
def test_bad_seeds_and_games_name_the_value(make, message):
    with pytest.raises(BaccaratError, match=re.escape(message)):
        make()


# -- batteries and plates in the edgework --------------------------------------------------------


def test_plates_give_the_ports_and_must_agree_with_them():
    edgework = Edgework("AB1", plates=(("parallel", "serial"), (), ("rj45",)), batteries=("aa", "D"))
    assert edgework.ports == ("Parallel", "Serial", "RJ-45")
    assert edgework.plates == (("Parallel", "Serial"), (), ("RJ-45",))
    assert edgework.batteries == ("AA", "D") and edgework.battery_count == 3
    assert Edgework("AB1", ("RJ-45", "Serial", "Parallel"), plates=edgework.plates).plates == edgework.plates
    with pytest.raises(EdgeworkError, match="are not the ports on the plates"):
        Edgework("AB1", ("Serial",), plates=(("Parallel",),))
    assert edgework.with_solved(3).batteries == ("AA", "D")  # a new solved count keeps the casing
    assert edgework.with_solved(3).plates == edgework.plates


@pytest.mark.parametrize(
    "data, message",
    [
        ({"batteries": ["AAA"]}, 'batteries: "AAA" is not a battery holder (AA: two AA cells, D: one D cell)'),
        ({"batteries": [1]}, "edgework batteries [1] is not a list of names"),
        ({"batteries": ["D"] * 33}, "33 battery holders are more than a bomb has"),
        ({"plates": "Parallel"}, 'plates "Parallel" is not a list of port plates'),
        ({"plates": ["Parallel"]}, 'plates: "Parallel" is not a port plate (a list of port names)'),
        (
            {"plates": [["Paralel"]]},
            'plates: port "Paralel" is not one of the six vanilla kinds; did you mean Parallel?',
        ),
        ({"plates": [[]] * 65}, "65 port plates are more than a bomb has"),
        ({"plates": [["USB"] * 40, ["USB"] * 40]}, "plates: they hold more ports than a bomb has (at most 64)"),
    ],
)
def test_bad_batteries_and_plates_name_the_value(data, message):
    with pytest.raises(EdgeworkError, match=re.escape(message)):
        Edgework.from_dict({"serial": "AB1", **data})


def test_edgework_without_a_casing_keeps_its_json_form():
    """Edgework fed as before (no batteries, no plates) has the same JSON as before, so an escape
    room's consumers and saved games see no new keys."""
    assert Edgework("AB1", ("Serial",), ("FRK",)).to_dict() == {
        "serial": "AB1",
        "ports": ["Serial"],
        "lit": ["FRK"],
        "unlit": [],
        "solved": 0,
    }


# -- the module in random mode ----------------------------------------------------------------------


def test_each_reset_draws_the_next_games_bomb_and_says_so():
    bombs = RandomBombs(7)
    module = BaccaratModule(None, TableLimits(25, 1000), rng=random.Random(1), first_color="red", bombs=bombs)
    start = module.start()
    assert isinstance(start[0], ev.EdgeworkChanged) and start[0].drawn
    assert module.edgework == bombs.bomb(1) and module.game == 1
    module.set_solved(4)
    events = module.reset()
    assert [e.kind for e in events] == ["reset", "edgework", "limits", "deck"]
    assert events[1].to_dict() == {"event": "edgework", **bombs.bomb(2).with_solved(4).to_dict(), "drawn": True}
    assert module.edgework == bombs.bomb(2).with_solved(4), "a reset keeps the bomb's solved count"
    assert module.game == 2
    assert module.deck.cards == build_deck(bombs.bomb(2), module.limits, module.deck.color, 4).cards


def test_edgework_the_game_master_sets_replaces_the_drawn_bomb_until_the_next_reset():
    bombs = RandomBombs(7)
    module = BaccaratModule(None, TableLimits(25, 1000), rng=random.Random(1), first_color="red", bombs=bombs)
    module.start()
    fed = Edgework("ZZ9ZZ9", ("Parallel",))
    assert module.set_edgework(fed)[0].drawn is False
    assert module.edgework == fed and not module.edgework_drawn
    assert module.snapshot()["edgework_drawn"] is False
    module.reset()
    assert module.edgework == bombs.bomb(2) and module.edgework_drawn


def test_fixed_edgework_is_not_drawn_and_a_reset_keeps_it():
    fixed = Edgework("AB3DE4", ("Serial",))
    module = BaccaratModule(fixed, TableLimits(25, 1000), rng=random.Random(1), first_color="red")
    assert [e.kind for e in module.start()] == ["limits", "deck"]
    assert [e.kind for e in module.reset()] == ["reset", "limits", "deck"]
    assert module.edgework == fixed and module.game == 2 and not module.edgework_drawn


def test_a_restored_game_keeps_its_bomb_and_its_number():
    bombs = RandomBombs(7)
    module = BaccaratModule(None, None, rng=random.Random(1), first_color="red", bombs=bombs)
    module.start()
    module.reset()
    module.reset()
    restored = BaccaratModule.restore(json.loads(json.dumps(module.snapshot())), bombs=bombs)
    assert restored.edgework == bombs.bomb(3) and restored.game == 3 and restored.edgework_drawn
    restored.reset()
    assert restored.edgework == bombs.bomb(4)


def test_a_game_saved_before_random_edgework_restores_as_game_one():
    module = BaccaratModule(Edgework("AB1"), TableLimits(25, 1000), rng=random.Random(1), first_color="red")
    module.start()
    old = module.snapshot()
    del old["game"], old["edgework_drawn"]
    restored = BaccaratModule.restore(old)
    assert restored.game == 1 and not restored.edgework_drawn


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("game", 0, "game number 0 is not a game"),
        ("game", "2", 'game number "2" is not a whole number'),
        ("game", 10**12, "is above the most allowed"),
        ("edgework_drawn", 1, "saved edgework_drawn flag"),
    ],
)
def test_a_bad_game_number_or_flag_in_a_saved_game_is_refused(key, value, message):
    module = BaccaratModule(Edgework("AB1"), TableLimits(25, 1000), rng=random.Random(1), first_color="red")
    module.start()
    state = module.snapshot()
    state[key] = value
    with pytest.raises(BaccaratError, match=re.escape(message)):
        BaccaratModule.restore(state)


def test_a_module_needs_edgework_or_bombs():
    with pytest.raises(BaccaratError, match="needs edgework"):
        BaccaratModule(None)


# -- against the rules: the deck the prop deals is the deck `baccarat deck --seed` prints ------------


def _deck_command(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["deck", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=seeds,
    resets=st.integers(min_value=0, max_value=4),
    limits=st.sampled_from(LIMITS),
    color=st.sampled_from(COLORS),
)
def test_the_deck_dealt_for_a_drawn_bomb_is_the_deck_the_cheat_sheet_prints(seed, resets, limits, color):
    low, high = limits
    module = BaccaratModule(
        None, TableLimits(low, high), rng=random.Random(seed), first_color=color, bombs=RandomBombs(seed)
    )
    module.start()
    for _ in range(resets):
        module.reset(TableLimits(low, high))
    deck = module.deck
    printed = _deck_command(
        "--seed", str(seed), "--game", str(module.game), "--min", str(low), "--max", str(high), "--color", deck.color
    )
    assert printed == deck.to_dict()
