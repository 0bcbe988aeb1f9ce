"""``baccarat_core.records``: the value classes behave as ``dataclasses`` would make them.

Each behaviour is checked side by side with the same class made by
``dataclasses``, so that a difference in ``repr``, equality, hashing, defaults,
errors or ``replace``/``asdict`` shows as a failure here, not as a changed log
line or JSON message elsewhere.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
from typing import ClassVar

import pytest

from baccarat_core import records
from baccarat_core.cards import Card
from baccarat_core.events import DealStarted, LimitsSet, RoundPlayed
from baccarat_core.records import FrozenInstanceError, asdict, field, record, replace


def _fixup_dataclass_field():
    # The dataclass twin needs dataclasses.field for its factory.
    @dataclasses.dataclass(frozen=True)
    class Base:
        kind: ClassVar[str] = "base"
        name: str

    @dataclasses.dataclass(frozen=True)
    class Point(Base):
        x: int
        y: int = 2
        tags: list[str] = dataclasses.field(default_factory=list)

    return Base, Point


@record
class Base:
    """The record twin of the classes above."""

    kind: ClassVar[str] = "base"
    name: str


@record
class Point(Base):
    """Inherits ``name``; ``y`` has a default, ``tags`` a factory."""

    x: int
    y: int = 2
    tags: list[str] = field(default_factory=list)


DBase, DPoint = _fixup_dataclass_field()


def _same_error(call_record, call_dataclass) -> str:
    with pytest.raises(TypeError) as ours:
        call_record()
    with pytest.raises(TypeError) as theirs:
        call_dataclass()
    return f"{ours.value} | {theirs.value}"


def test_fields_defaults_and_factories_match_dataclasses():
    a, b = Point("p", 1), DPoint("p", 1)
    assert (a.name, a.x, a.y, a.tags) == (b.name, b.x, b.y, b.tags) == ("p", 1, 2, [])
    assert Point("p", 1).tags is not Point("p", 1).tags, "a factory runs for each instance"
    assert Point(x=3, name="q", y=4) == Point("q", 3, 4)
    assert Point.__match_args__ == DPoint.__match_args__ == ("name", "x", "y", "tags")
    assert Point.kind == "base" and "kind" not in Point.__match_args__
    assert Point.y == DPoint.y == 2, "a default stays readable on the class"


def test_repr_matches_dataclasses_apart_from_the_class_path():
    a, b = Point("p", 1, tags=["t"]), DPoint("p", 1, tags=["t"])
    assert repr(a) == "Point(name='p', x=1, y=2, tags=['t'])"
    assert repr(b).endswith(repr(a)), (repr(a), repr(b))


def test_equality_and_hash_follow_the_fields_and_the_class():
    assert Point("p", 1) == Point("p", 1)
    assert Point("p", 1) != Point("p", 2)
    assert Point("p", 1) != DPoint("p", 1), "another class is never equal, as with dataclasses"
    assert (Point("p", 1) == ("p", 1, 2, [])) is False
    card = Card("K", "D")
    assert hash(card) == hash(Card("K", "D")) and len({card, Card("K", "D"), Card("Q", "D")}) == 2
    with pytest.raises(TypeError, match="unhashable"):
        hash(DealStarted({"player": 5}))  # a dict field, as with dataclasses


def test_wrong_arguments_fail_as_dataclasses_do():
    for ours, theirs in [
        (lambda: Point("p"), lambda: DPoint("p")),
        (lambda: Point("p", 1, 2, [], 5), lambda: DPoint("p", 1, 2, [], 5)),
        (lambda: Point("p", 1, name="q"), lambda: DPoint("p", 1, name="q")),
        (lambda: Point("p", 1, z=3), lambda: DPoint("p", 1, z=3)),
    ]:
        both = _same_error(ours, theirs)
        left = both.split(" | ")[0]
        assert left.startswith("Point()"), both
    assert "'x'" in _same_error(lambda: Point("p"), lambda: DPoint("p")).split(" | ")[0]
    assert "'z'" in _same_error(lambda: Point("p", 1, z=3), lambda: DPoint("p", 1, z=3)).split(" | ")[0]


def test_frozen_refuses_assignment_and_deletion():
    point = Point("p", 1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 5
    with pytest.raises(FrozenInstanceError):
        del point.x
    with pytest.raises(AttributeError):  # FrozenInstanceError is one, as with dataclasses
        point.other = 1
    assert point.x == 1


def test_mutable_records_compare_but_do_not_hash():
    @record(frozen=False)
    class Box:
        items: list[int] = field(default_factory=list)

    box = Box()
    box.items = [1]
    assert box == Box([1]) and Box.__hash__ is None


def test_post_init_runs_and_replace_runs_it_again():
    from baccarat_core.limits import LimitsError, TableLimits

    limits = TableLimits(25, 1000)
    assert replace(limits, maximum=2000) == TableLimits(25, 2000)
    with pytest.raises(LimitsError):
        replace(limits, maximum=10)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        replace(limits, nope=1)
    with pytest.raises(TypeError, match="record"):
        replace(object())


def test_asdict_copies_nested_values_as_dataclasses_does():
    event = RoundPlayed(("KD", "2S"), ("AH",), 2, 1, "player", 2600, {"player": 2600})
    data = asdict(event)
    assert data == dataclasses.asdict(_as_dataclass(event))
    assert data["results"] is not event.results, "dicts are copied"
    assert LimitsSet(25, 1000, True).to_dict() == {"event": "limits", "min": 25, "max": 1000, "random": True}
    assert asdict(Point("p", 1, tags=["a"]))["tags"] == ["a"]


def _as_dataclass(event: RoundPlayed):
    twin = dataclasses.make_dataclass("RoundPlayed", [spec.name for spec in type(event).__record_fields__])
    return twin(*(getattr(event, spec.name) for spec in type(event).__record_fields__))


def test_slots_record_has_no_dict_and_survives_copy_and_pickle():
    card = Card("10", "S")
    assert not hasattr(card, "__dict__")
    assert copy.copy(card) == card and copy.deepcopy(card) == card
    assert pickle.loads(pickle.dumps(card)) == card
    assert str(card) == "10S" and card.points == 0


def test_class_definitions_refused_as_dataclasses_refuses_them():
    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Bad:
            items: list[int] = []  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError, match=re.escape("non-default argument 'b' follows default argument")):

        @record
        class Order:
            a: int = 1
            b: int

    with pytest.raises(TypeError, match="frozen"):

        @record(frozen=False)
        class Thaw(Base):
            extra: int = 0


def test_methods_written_in_the_class_body_are_kept():
    @record
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Named("x")) == "<x>"


def test_the_module_compiles_nothing_at_import(monkeypatch):
    """The reason the module exists: making a record must not exec or compile generated code."""
    calls = []
    monkeypatch.setattr("builtins.exec", lambda *a, **k: calls.append(a))
    monkeypatch.setattr("builtins.compile", lambda *a, **k: calls.append(a))

    @record
    class Quick:
        a: int
        b: str = "x"

    assert Quick(1) == Quick(1, "x") and calls == []
    assert records.MISSING is not None


def test_class_attributes_are_the_defaults_as_dataclasses_leaves_them():
    """A plain default stays the class attribute; ``field(default=...)`` becomes it; a field with a
    factory, or none, leaves no class attribute (not the ``Field`` written in the body)."""

    @record
    class Made:
        a: int
        b: int = 1
        c: int = field(default=3)
        d: list[int] = field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Twin:
        a: int
        b: int = 1
        c: int = dataclasses.field(default=3)
        d: list[int] = dataclasses.field(default_factory=list)

    for name in "abcd":
        assert hasattr(Made, name) == hasattr(Twin, name), name
        assert getattr(Made, name, None) == getattr(Twin, name, None), name
    assert (Made.b, Made.c) == (1, 3)


def test_made_by_position_as_by_keyword_whatever_keeps_the_fields():
    """The call with every field by position (a fast path) gives what the keyword call gives, and
    goes through what the class puts in the way: its own ``__setattr__``, slots, ``__post_init__``."""
    seen = []

    @record(frozen=False)
    class Watched:
        a: int
        b: str = "x"

        def __setattr__(self, name, value):
            seen.append(name)
            object.__setattr__(self, name, value)

    @dataclasses.dataclass
    class WatchedTwin:
        a: int
        b: str = "x"

        def __setattr__(self, name, value):
            seen.append(name)
            object.__setattr__(self, name, value)

    assert Watched(1, "y") == Watched(a=1, b="y") and seen == ["a", "b", "a", "b"]
    seen.clear()
    WatchedTwin(1, "y")
    assert seen == ["a", "b"]

    @record(frozen=False)
    class Plain:
        a: int
        b: str = "x"

    class Sub(Plain):  # a subclass that is no record: its __setattr__ sees the fields too
        def __setattr__(self, name, value):
            seen.append(name)
            object.__setattr__(self, name, value)

    seen.clear()
    assert Plain(1, "y") == Plain(a=1, b="y") and seen == []
    Sub(1, "y")
    assert seen == ["a", "b"]

    @record(slots=True)
    class Slotted:
        a: int
        b: int

    made = Slotted(1, 2)
    assert (made.a, made.b) == (1, 2) and not hasattr(made, "__dict__")

    @record
    class Checked:
        a: int
        b: int

        def __post_init__(self):
            if self.a > self.b:
                raise ValueError("a > b")

    assert Checked(1, 2) == Checked(a=1, b=2) and list(vars(Checked(1, 2))) == ["a", "b"]
    with pytest.raises(ValueError, match="a > b"):
        Checked(3, 2)
    with pytest.raises(FrozenInstanceError):
        Checked(1, 2).a = 5


def _twins_with_keyword_only_fields():
    """The same class twice, by ``dataclasses`` and by ``record``: a ``_: KW_ONLY`` line, no
    ``==`` or repr of its own, and a ``__post_init__`` that keeps private state."""
    made = []
    for decorate in (dataclasses.dataclass(eq=False, repr=False), record(frozen=False, eq=False, repr=False)):

        @decorate
        class Button:
            pin: int
            _: dataclasses.KW_ONLY
            on_press: object
            debounce: float = 0.02
            high: bool = False

            def __post_init__(self):
                self._presses = 0

        made.append(Button)
    return made


def test_keyword_only_fields_are_taken_and_refused_as_dataclasses_does():
    for cls in _twins_with_keyword_only_fields():
        button = cls(17, on_press=print, high=True)
        assert (button.pin, button.on_press, button.debounce, button.high, button._presses) == (
            17,
            print,
            0.02,
            True,
            0,
        )
        assert cls(pin=4, on_press=None).pin == 4
        assert cls.__match_args__ == ("pin",)
        with pytest.raises(TypeError, match="positional"):
            cls(17, print)
        with pytest.raises(TypeError, match="on_press"):
            cls(17)
        with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
            cls(17, on_press=None, colour="red")


def test_eq_and_repr_false_keep_objects_identity_hash_and_repr():
    for cls in _twins_with_keyword_only_fields():
        a, b = cls(1, on_press=None), cls(1, on_press=None)
        assert a != b and a == a and len({a, b}) == 2
        assert hash(a) == object.__hash__(a)
        assert repr(a) == object.__repr__(a)
