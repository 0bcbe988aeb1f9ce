"""Generated hostile inputs, one generator per surface; every input made here must be refused.

Each generator starts from a valid input of its surface and applies at least one
change that makes it invalid by construction (never "probably invalid"): a value
of the wrong type or out of bounds, an unknown or missing key, a typo of a port
kind, a label given twice, or damage to the text itself (NaN, a 5,000-digit
number, a key given twice, nesting 5,000 deep, bytes that are not UTF-8, more
than 64 KiB, a cut-off document). A seeded ``random.Random`` makes every run the
same, so a failure names an input that can be replayed with its index.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

DEEP = "[" * 5000 + "]" * 5000
HUGE_INT = "7" * 5000
BIG = 70 * 1024  # over the 64 KiB limit

#: Values that are no whole number a count could take (as JSON text).
BAD_COUNTS = [
    "-1",
    "-5",
    "10000",
    "99999999",
    "1e308",
    "1.9",
    "3.0",
    "-0.5",
    "true",
    "false",
    "null",
    '"3"',
    '"false"',
    '"\\u0663"',
    '"1_000"',
    "[]",
    "{}",
    "[3]",
    '{"n": 3}',
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    HUGE_INT,
    "1" + "0" * 25,
    DEEP,
]
#: Values that are no table limit (min, max) pair.
BAD_LIMITS = [
    ("7", "100"),
    ("0", "100"),
    ("25", "25"),
    ("25", "10"),
    ("25", "1000001"),
    ("25", "1" + "0" * 4000),
    ("25", HUGE_INT),
    ('"25"', "1000"),
    ("25", '"1000"'),
    ("25.0", "1000"),
    ("25", "1000.5"),
    ("true", "1000"),
    ("25", "null"),
    ("NaN", "1000"),
    ("25", "Infinity"),
    ("-25", "1000"),
    ("[25]", "1000"),
    ("25", DEEP),
]
BAD_SERIALS = [
    '""',
    '"ABCDEFG"',
    '"AB-12"',
    '"AB 12"',
    '"\\u00c4B12"',
    '"a\\u00df"',
    '"AB\\u0000"',
    "12",
    "null",
    "true",
    '["AB12"]',
    json.dumps("X" * 70_000),
    "NaN",
]
BAD_PORT_LISTS = [
    '["Paralel"]',
    '["Serial", "Seiral"]',
    '["PS3"]',
    '["Stero RCA"]',
    '["DVI-I"]',
    '["RJ46"]',
    '["Parallel", 5]',
    "[null]",
    '[""]',
    '["   "]',
    '["RJ\\u0664\\u0665"]',
    json.dumps(["P" * 40]),
    json.dumps(["Serial"] * 65),
    json.dumps(["HDMI"] * 20000),
    '"Paralel"',
    "5",
    "true",
    '{"Parallel": 1}',
    '[["Parallel"]]',
]
BAD_LABEL_LISTS = [
    '["FRK", "frk"]',
    '["BOB", "BOB"]',
    '["B-B"]',
    '["TOOLONGLABEL"]',
    '[""]',
    '["\\u0424RK"]',
    "[1]",
    "[null]",
    "7",
    json.dumps(["A"] * 33),
    json.dumps([f"L{i}" for i in range(40)]),
]
BAD_IDS = [
    "[1]",
    '{"a": 1}',
    "1.5",
    "true",
    json.dumps("i" * 65),
    str(2**60),
    "-" + str(2**60),
    "NaN",
    "Infinity",
    HUGE_INT,
]
#: Text that is no command name.
BAD_NAMES = [
    '"explode"',
    '""',
    '"re set"',
    '"RESET!"',
    '"set solved"',
    '"\\u0000reset"',
    "5",
    "null",
    "true",
    '["reset"]',
    '{"reset": 1}',
    json.dumps("x" * 70_000),
    json.dumps("\u202e" * 50),
]
#: Keys no command, edgework or input has.
#: Amounts a ``bet`` takes, and amounts no chips make (zero, negative, not whole, not ASCII digits,
#: above the largest bet, a thousands separator in the wrong place).
GOOD_BET_AMOUNTS = ["25", "$25", "1,000", "$5", "5", "100", "$1,000,000", "007"]
BAD_BET_AMOUNTS = [
    *["0", "$0", "0,000", "00", "-5", "-$5", "-0", "2.5", "25.00", "1e3", "0x10", "+5"],
    *["five", "\u0663", "\u00bd", "25$", "5.", "1_000", "$$5", "\uff15", "5\u00a2", "$-5"],
    *["1000001", "2000000", "1" + "0" * 30, HUGE_INT, "9" * 21, "1,00", "1,0000", "12,34,567"],
]
#: Names that are no betting area (look-alike letters and invisible characters included).
BAD_BET_AREAS = [
    *["table", "players", "player pairs", "pair", "deck", "tie tie", "b\u0430nker", "banker\u200b"],
    *["tie\x00", "player_pair_", "player-pair-x", "on", "$5", "5", "p", "\u00e9tie", "TIE!"],
]
BAD_KEYS = ["colour", "", " ", "Serial", "MIN", "solved ", "\u0000", "k" * 5000, "\ud800", "__proto__", "id2"]


class Hostile:
    """Generators of refused inputs for each surface."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, options: list):
        return options[self.rng.randrange(len(options))]

    # -- damage to the text, each refused whatever the text said ---------------------------
    def damage(self, text: str) -> bytes:
        """``text`` (a valid JSON object) made unreadable as strict JSON."""
        r = self.rng
        kind = r.randrange(12)
        if kind == 0:  # cut short: the closing brace is gone
            return text[: r.randrange(1, len(text) - 1)].encode()
        if kind == 1:  # bytes that are not UTF-8
            at = r.randrange(len(text) + 1)
            raw = text.encode()
            return raw[:at] + self.pick([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xfe", b"\x80"]) + raw[at:]
        if kind == 2:  # over 64 KiB
            return (text[:-1] + ', "pad": "' + "p" * BIG + '"}').encode()
        if kind == 3:  # nested 5,000 deep
            return (text[:-1] + f', "deep": {DEEP}}}').encode()
        if kind == 4:  # a key given twice
            first_key = text[1 : text.index(":")]
            return (text[:-1] + f", {first_key}: 1}}").encode()
        if kind == 5:  # trailing garbage
            return (text + self.pick(["x", "}", "{}", " 1", "\x00", "//"])).encode()
        if kind == 6:  # not an object at all
            return self.pick([f"[{text}]", json.dumps(text), "-42", "null", "true", "[]", '"x"']).encode()
        if kind == 7:  # a byte-order mark, or NUL bytes
            return self.pick(["\ufeff" + text, "\x00" + text, text.replace('"', "\x00", 1)]).encode()
        if kind == 8:  # single quotes, bare words
            return self.pick([text.replace('"', "'"), text.replace('"', "", 2)]).encode()
        if kind == 9:  # an added member with a number strict JSON refuses
            return (text[:-1] + f', "n": {self.pick(["NaN", "Infinity", "-Infinity", "1e400", HUGE_INT])}}}').encode()
        if kind == 10:  # a control character raw inside a string
            at = text.index('"') + 1
            return (text[:at] + self.pick(["\n", "\t", "\x01", "\x1f"]) + text[at:]).encode()
        return (text[:-1] + ", }").encode()  # a trailing comma

    # -- game-master commands (MQTT command topic, control socket) -------------------------
    def command(self) -> bytes:
        """One refused JSON command."""
        r = self.rng
        name = self.pick(["reset", "force_solve", "set_limits", "set_edgework", "set_solved", "hint", "status"])
        members: dict[str, str] = {"id": json.dumps(f"h{r.randrange(10**6)}"), "command": json.dumps(name)}
        if name in ("reset", "set_limits"):
            members |= {"min": "25", "max": "1000"}
        elif name == "set_solved":
            members["solved"] = "3"
        elif name == "set_edgework":
            members |= {"serial": '"AB3DE4"', "ports": '["Parallel"]', "lit": '["FRK"]', "unlit": "[]"}
        faults: list[Callable[[], None]] = [
            lambda: members.__setitem__("command", self.pick(BAD_NAMES)),
            lambda: members.__setitem__("id", self.pick(BAD_IDS)),
            lambda: members.__setitem__(json.loads(json.dumps(self.pick(BAD_KEYS))), "1"),
            lambda: members.pop("command"),
        ]
        if name in ("reset", "set_limits"):
            faults += [self._limits_fault(members)] * 3
            faults.append(lambda: members.pop(self.pick(["min", "max"])))
        if name == "set_solved":
            faults += [lambda: members.__setitem__("solved", self.pick(BAD_COUNTS))] * 3
            faults.append(lambda: members.pop("solved"))
        if name == "set_edgework":
            faults += [
                lambda: members.__setitem__("serial", self.pick(BAD_SERIALS)),
                lambda: members.__setitem__("ports", self.pick(BAD_PORT_LISTS)),
                lambda: members.__setitem__(self.pick(["lit", "unlit"]), self.pick(BAD_LABEL_LISTS)),
                lambda: members.__setitem__("solved", self.pick(BAD_COUNTS)),
                lambda: members.pop("serial"),
                lambda: members.__setitem__("lit", '["FRK"]') or members.__setitem__("unlit", '["frk"]'),
            ]
        text_damage = r.random() < 0.3
        if not text_damage:
            self.pick(faults)()
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in members.items()) + "}"
        if text_damage or r.random() < 0.1:
            return self.damage(text)
        return text.encode()

    def _limits_fault(self, members: dict[str, str]) -> Callable[[], None]:
        def fault() -> None:
            low, high = self.pick(BAD_LIMITS)
            members["min"], members["max"] = low, high

        return fault

    # -- the bomb's topics -------------------------------------------------------------------
    def edgework(self) -> bytes:
        """One refused message for ``bomb/edgework``."""
        members = {"serial": '"AB3DE4"', "ports": '["Parallel", "RJ-45"]', "lit": '["FRK"]', "unlit": '["CAR"]'}
        if self.rng.random() < 0.5:
            members["solved"] = "2"
        faults = [
            lambda: members.__setitem__("serial", self.pick(BAD_SERIALS)),
            lambda: members.__setitem__("ports", self.pick(BAD_PORT_LISTS)),
            lambda: members.__setitem__(self.pick(["lit", "unlit"]), self.pick(BAD_LABEL_LISTS)),
            lambda: members.__setitem__("lit", '["CAR"]'),  # lit and unlit CAR
            lambda: members.__setitem__("solved", self.pick(BAD_COUNTS)),
            lambda: members.pop("serial"),
            lambda: members.__setitem__(json.loads(json.dumps(self.pick(BAD_KEYS))), "1"),
        ]
        text_damage = self.rng.random() < 0.3
        if not text_damage:
            self.pick(faults)()
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in members.items()) + "}"
        return self.damage(text) if text_damage else text.encode()

    def solved(self) -> bytes:
        """One refused message for ``bomb/solved``."""
        value = self.pick(BAD_COUNTS)
        shape = self.rng.randrange(4)
        if shape == 0:
            return value.encode()
        if shape == 1:
            return f'{{"solved": {value}}}'.encode()
        if shape == 2:
            return self.pick([b"three", b"3 4", b'{"solved": 3, "x": 1}', b"\xff3", b" ", b"3\x00", b"+3", b"0x3"])
        return self.damage('{"solved": 3}')

    # -- Room 2.0 words ------------------------------------------------------------------------
    def words(self) -> bytes:
        """One refused Room 2.0 inbox message."""
        r = self.rng
        shape = r.randrange(10)
        if shape == 9:  # a known command with an argument it does not take
            junk = "".join(r.choice("abcXYZ019_-.$\u00e9\u0663") for _ in range(r.randrange(1, 12)))
            command = self.pick(["reset", "force-solve", "hint", "status", "set-limits", "set-solved"])
            return f"{command} x{junk}={junk}".encode()
        if shape == 0:
            return self.pick(["dance", "explode now", "set_solved_", "reset!", "PING", "@PONG", "\u202ereset"]).encode()
        if shape == 1:
            bad = ["-1", "10000", "1.9", "3.0", "true", "\u0663", "1_000", "1e3", "0x3", "+3", "$3", "3,000", "-0"]
            return f"set-solved {self.pick(bad + ['NaN', '1' * 30, 'three', '[3]', '3$'])}".encode()
        if shape == 2:
            return self.pick(["set-solved 3 4", "set-solved 1 1", "set-solved", "set-solved solved=3 4"]).encode()
        if shape == 3:
            low, high = self.pick([(a, b) for a, b in BAD_LIMITS if a.isdigit() and b.isdigit()])
            return f"{self.pick(['reset', 'set-limits'])} min={low} max={high}".encode()
        if shape == 4:
            return self.pick(
                ["reset min=25 min=50 max=1000", "reset min=25", "set-limits max=1000", "reset x=1"]
            ).encode()
        if shape == 5:
            return self.pick(
                [
                    "set-edgework serial=AB1 ports=Paralel",
                    "set-edgework serial=AB1 lit=FRK,frk",
                    "set-edgework serial=TOOLONG1",
                    "set-edgework ports=Serial",
                    "set-edgework serial=AB1 colour=red",
                ]
            ).encode()
        if shape == 6:
            return b"set-solved " + self.pick([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])
        if shape == 7:
            return ("force-solve " + "x" * r.choice([10, 300, BIG])).encode()
        return (
            self.pick(["hint", "status", "reset"]) + " " + self.pick(["\x00", "=", "min=", "max==5", "a=b=c"])
        ).encode()

    # -- remote play: the bet command's words -----------------------------------------------------
    def bet_words(self) -> str:
        """Words for ``bet`` that no chips can place: each is refused, whatever else it holds."""
        r = self.rng
        areas = ["banker", "tie", "player pair", "bankerpair", "player"]
        good = [f"{self.pick(GOOD_BET_AMOUNTS)} on {area}" for area in r.sample(areas, r.randrange(0, 4))]
        area = self.pick([*areas, "Player", "TIE", "playerpair"])
        amount = self.pick(["25", "$5", "1,000"])
        bad = self.pick(
            [
                f"{self.pick(BAD_BET_AMOUNTS)} on {area}",
                f"{amount} on {self.pick(BAD_BET_AREAS)}",
                self.pick(
                    [f"{amount} {area}", f"{amount}on {area}", f"{amount} on", f"on {area}", f"{amount} at {area}"]
                ),
                self.pick(
                    [amount, "on", f"{amount} on on", f"{amount} onn {area}", f"\u1d0fn {area}", f"{amount} \u1d0fn"]
                ),
            ]
        )
        parts = [*good, bad]
        r.shuffle(parts)
        shape = r.randrange(8)
        if shape == 0 and good:  # the same area twice (two valid bets)
            parts = [good[0], good[0].replace(" on ", " on  ", 1)]
        elif shape == 1:  # nothing at all
            parts = self.pick([[], [""], [" ", " "], [",", ","]])
        return self.pick(["bet ", "Bet ", "BET\t", "", "bet\n"]) + ", ".join(parts)

    # -- baccarat play lines -------------------------------------------------------------------
    def play_line(self) -> bytes:
        """One refused ``baccarat play`` line (without its newline)."""
        area = json.dumps(self.pick(["table", "Player", "player ", "", "tie_pair", "PLAYER"]))
        hold = self.pick(["1", "null", "true", "[]", area])
        arrow = self.pick(['"up"', '"LEFT"', "1", "null", '["left"]'])
        deal = self.pick(["false", "1", '"true"', "null", "[]", "{}"])
        choices = [
            '{"press": ' + area + "}",
            '{"hold": ' + hold + "}",
            '{"arrow": ' + arrow + "}",
            '{"deal": ' + deal + "}",
            '{"solved": ' + self.pick(BAD_COUNTS) + "}",
            '{"press": "player", "deal": true}',
            '{"jump": 1}',
            "{}",
            '"deal"',
            "[]",
        ]
        text = self.pick(choices)
        if self.rng.random() < 0.25 and text.startswith("{") and text != "{}":
            return self.damage(text).replace(b"\n", b" ")
        return text.encode()

    # -- the saved state file ------------------------------------------------------------------
    def state(self, good: dict) -> bytes:
        """A damaged version of the valid state file ``good`` (as ``json.loads`` reads it)."""
        r = self.rng
        data = json.loads(json.dumps(good))
        module = data["module"]
        deck = module["deck"]
        edits: list[Callable[[], None]] = [
            lambda: module.__setitem__("solved", self.pick(["false", "true", 0, 1, None, [], "yes"])),
            lambda: module.__setitem__("strikes", self.pick(["2", 1.9, -5, 1e308, True, None, 10**7, [1]])),
            lambda: module.__setitem__("position", self.pick([True, False, -1, 47, 1.0, "3", None, 10**9])),
            lambda: module.__setitem__("denomination", self.pick([True, 7, 2.5, "25", None, 0])),
            lambda: module.__setitem__("limits_random", self.pick(["false", 0, 1, None])),
            lambda: module.__setitem__("round_pending", self.pick(["true", 1, None, []])),
            lambda: deck.__setitem__("solved", self.pick([-3, 1.5, "0", True, None, 10**5])),
            lambda: deck.__setitem__("color", self.pick(["pink", "RED", 3, None, ""])),
            lambda: deck.__setitem__("unshuffled", self.pick([1, 0, "false", None])),
            lambda: deck.__setitem__("cards", self.pick([deck["cards"][:51], deck["cards"][::-1], "AH", [], None])),
            lambda: deck.__setitem__("first_index", self.pick([0, 53, "3", None, 3.0, True])),
            lambda: deck.__setitem__("multiplier", self.pick([0, "12", 12.5, None])),
            lambda: deck.__setitem__("letter", self.pick(["a", "", 1, "AB"])),
            lambda: deck.__setitem__("digit", self.pick([-1, 10, "3", 3.0])),
            lambda: deck.__setitem__("port_column", self.pick([0, 7, "1", True])),
            lambda: module["limits"].__setitem__("min", self.pick([7, "25", 25.0, True, -25, 10**30])),
            lambda: module["limits"].__setitem__("max", self.pick([1, "1000", 1000.5, 10**7, 10**30])),
            lambda: module["edgework"].__setitem__("serial", self.pick(["", "AB-12", 12, None, "X" * 100])),
            lambda: module["edgework"].__setitem__("ports", self.pick([["Paralel"], 5, [1], ["Serial"] * 70])),
            lambda: module["edgework"].__setitem__("lit", self.pick([["FRK", "FRK"], ["B-B"], "FRK,,", [None]])),
            lambda: module["edgework"].__setitem__("solved", self.pick([-1, 10000, 2.0, "2", True])),
            lambda: module.pop(self.pick(["limits", "deck", "position", "strikes", "solved", "edgework"])),
            lambda: deck.pop(self.pick(["cards", "color", "solved", "unshuffled"])),
            lambda: module.__setitem__(self.pick(["bets", "extra", "Solved"]), 1),
            lambda: data.__setitem__("version", self.pick([2, 0, "1", True, None, 1.0])),
            lambda: data.pop(self.pick(["version", "module", "config"])),
            lambda: data.__setitem__("extra", 1),
            lambda: data.__setitem__("module", self.pick([[], "module", None, 3])),
        ]
        if r.random() < 0.3:
            return self.damage(json.dumps(data))
        self.pick(edits)()
        if r.random() < 0.2:  # a second edit
            try:
                self.pick(edits)()
            except (KeyError, TypeError, AttributeError):
                pass
        return json.dumps(data).encode()

    def stream(self, make: Callable[[], bytes], count: int) -> Iterator[bytes]:
        for _ in range(count):
            yield make()
