"""Value classes like ``dataclasses``, without generating code at import time.

``@record`` gives a class what ``@dataclass`` gives it: an ``__init__`` over the
annotated fields (defaults and ``field(default_factory=...)`` included,
``__post_init__`` called), ``__repr__``, ``__eq__``, ``__hash__`` when frozen,
``__match_args__``, and with ``frozen=True`` (the default here) instances that
refuse assignment. ``replace()`` and ``asdict()`` work as their ``dataclasses``
namesakes do, and type checkers treat ``@record`` as ``@dataclass``
(``typing.dataclass_transform``).

Why not ``dataclasses``: it writes each generated method as source text and
compiles it with ``exec`` when the module is imported, six methods for a frozen
class. The project's 48 value classes cost 19 ms of a 120 ms start on a fast
PC (benchmarks/README.md, "Start-up"), several times that on a Pi Zero 2 W.
Here the methods are shared functions that read a per-class tuple of fields:
nothing is compiled, and building a class costs a few microseconds. An
instance costs about half a microsecond more to make than a dataclass's (0.8
against 0.35 µs for three fields on the benchmark's PC); a chip press makes a
handful.

A class that keeps its constructor's arguments and has behaviour of its own
(a device, a service's state) is a record too: ``@record(frozen=False, eq=False,
repr=False)`` keeps ``object``'s identity, hash and repr, and a ``_: KW_ONLY``
line (``dataclasses.KW_ONLY``, imported for the type checker only) makes the
fields after it keyword-only, as in a dataclass.

What is left out, because nothing here uses it: ``order``, the ``kw_only``
argument, ``InitVar``, ``unsafe_hash``, ``fields()`` and ``astuple()``. ``asdict()``
copies records, lists, tuples and dicts as ``dataclasses.asdict`` does, and
shares every other value instead of deep-copying it (the records here hold
strings, numbers and tuples).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["FrozenInstanceError", "asdict", "field", "record", "replace"]

T = TypeVar("T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to (or deleting) a field of a frozen record."""


class Field:
    """One field of a record: its name, default and whether it shows in ``repr`` and counts in ``==``."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare", "kw_only")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | Any = MISSING,
        repr: bool = True,  # noqa: A002 - the name dataclasses.field uses
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.kw_only = False  # after a ``_: KW_ONLY`` line of its class

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    repr: bool = True,  # noqa: A002 - the name dataclasses.field uses
    compare: bool = True,
) -> Any:
    """A field with a default factory, or left out of ``repr`` or ``==`` (as ``dataclasses.field``)."""
    return Field(default, default_factory, repr, compare)


def _is_class_var(annotation: object) -> bool:
    # Annotations are strings under ``from __future__ import annotations``.
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__origin__", annotation)
    if isinstance(text, str):
        return text.startswith(("ClassVar", "typing.ClassVar"))
    return repr(text).startswith("typing.ClassVar")


#: ``_: KW_ONLY``, as the annotation reads under ``from __future__ import annotations`` (as everywhere here).
_KW_ONLY = frozenset({"KW_ONLY", "dataclasses.KW_ONLY"})


def _own_fields(cls: type) -> list[Field]:
    found = []
    kw_only = False
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        if annotation.__class__ is str and annotation in _KW_ONLY:
            kw_only = True
            continue
        value = cls.__dict__.get(name, MISSING)
        given = isinstance(value, Field)  # field(...): the class attribute becomes its default, or goes
        spec = value if given else Field(default=value)
        spec.name = name
        spec.kw_only = kw_only
        if isinstance(spec.default, (list, dict, set)):
            raise ValueError(
                f"mutable default {type(spec.default)} for field {name} of {cls.__qualname__} is not allowed: "
                "use default_factory"
            )
        if given:  # (a plain default is the class attribute already: setting a class's attribute costs)
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        found.append(spec)
    return found


def _collect_fields(cls: type) -> tuple[Field, ...]:
    fields: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        for spec in base.__dict__.get("__record_fields__", ()):
            fields[spec.name] = spec
    for spec in _own_fields(cls):
        fields.pop(spec.name, None)
        fields[spec.name] = spec
    ordered = tuple(fields.values())
    seen_default = False
    for spec in ordered:
        if spec.kw_only:
            continue  # given by name: a default before it is no matter
        if spec.default is not MISSING or spec.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {spec.name!r} follows default argument in {cls.__qualname__}")
    return ordered


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _: ()
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda obj: (get(obj),)
    return attrgetter(*names)


def _make_init(cls: type, fields: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    names = tuple(spec.name for spec in fields)
    count = len(names)
    keywords = [spec for spec in fields if spec.kw_only]
    if keywords:  # the fields given by position come first, then the keyword-only ones (as dataclasses)
        fields = tuple(spec for spec in fields if not spec.kw_only) + tuple(keywords)
        count -= len(keywords)
    whole = not keywords  # every field can be given by position
    post_init = hasattr(cls, "__post_init__")
    set_field = object.__setattr__ if frozen else setattr
    title = cls.__qualname__
    # Every field given by position, the usual call: straight into the instance's dict, where the
    # class keeps one and no field is a descriptor (a slot, a property) or goes through a __setattr__
    # of its own (a loop of set_field calls cost about 14,000 instructions a record). Found out at
    # the first such call: most record classes a start defines are never made then.
    direct: bool | None = None

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal direct
        made: Any = self.__class__  # (a subclass that is no record goes the long way: it may add a __setattr__)
        if whole and len(args) == count and not kwargs and made is cls:
            if direct is None:
                direct = (
                    cls.__dictoffset__ != 0
                    and not any(hasattr(type(getattr(cls, name, None)), "__set__") for name in names)
                    and (frozen or all("__setattr__" not in base.__dict__ for base in cls.__mro__[:-1]))
                )
            if direct:
                self.__dict__.update(zip(names, args, strict=True))
                if post_init:
                    self.__post_init__()
                return
        if len(args) > count:
            raise TypeError(f"{title}() takes {count} positional arguments but {len(args)} were given")
        for spec, value in zip(fields, args, strict=False):
            set_field(self, spec.name, value)
        for spec in fields[len(args) :]:
            name = spec.name
            if name in kwargs:
                value = kwargs.pop(name)
            elif spec.default_factory is not MISSING:
                value = spec.default_factory()
            elif spec.default is not MISSING:
                value = spec.default
            else:
                raise TypeError(f"{title}() missing required argument: {name!r}")
            set_field(self, name, value)
        if kwargs:
            name = next(iter(kwargs))
            if name in names:
                raise TypeError(f"{title}() got multiple values for argument {name!r}")
            raise TypeError(f"{title}() got an unexpected keyword argument {name!r}")
        if post_init:
            self.__post_init__()

    return __init__


def _make_methods(cls: type[Any], fields: tuple[Field, ...], frozen: bool, eq: bool, show: bool) -> dict[str, Any]:
    shown = tuple(spec.name for spec in fields if spec.repr)
    key = _key(tuple(spec.name for spec in fields if spec.compare))
    names = frozenset(spec.name for spec in fields)

    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    methods: dict[str, Any] = {"__init__": _make_init(cls, fields, frozen)}
    if show:
        methods["__repr__"] = __repr__
    if eq:
        methods["__eq__"] = __eq__
    if frozen:
        methods.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    return methods


def _with_slots(cls: type, fields: tuple[Field, ...]) -> type:
    inherited = {spec.name for base in cls.__mro__[1:] for spec in base.__dict__.get("__record_fields__", ())}
    body = dict(cls.__dict__)
    for spec in fields:
        body.pop(spec.name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = tuple(spec.name for spec in fields if spec.name not in inherited)
    slotted = type(cls)(cls.__name__, cls.__bases__, body)
    slotted.__qualname__ = cls.__qualname__
    return slotted


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, spec.name) for spec in type(self).__record_fields__)


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for spec, value in zip(type(self).__record_fields__, state, strict=True):
        object.__setattr__(self, spec.name, value)


def _build(cls: type, frozen: bool, slots: bool, eq: bool = True, show: bool = True) -> type:
    for base in cls.__mro__[1:]:
        if "__record_fields__" in base.__dict__ and base.__dict__["__record_frozen__"] != frozen:
            raise TypeError(f"{cls.__qualname__}: a frozen record cannot inherit from a non-frozen one, or back")
    fields = _collect_fields(cls)
    if slots:
        cls = _with_slots(cls, fields)
    # Attributes the record builder adds to the class (here and in replace): mypy cannot know them.
    cls.__record_fields__ = fields  # type: ignore[attr-defined]
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    # setattr: mypy takes a class's __match_args__ (and __getstate__ below) as fixed; this one is being built
    setattr(cls, "__match_args__", tuple(spec.name for spec in fields if not spec.kw_only))  # noqa: B010
    methods = _make_methods(cls, fields, frozen, eq, show)
    for name in ("__setattr__", "__delattr__"):
        if name in methods and name in cls.__dict__:
            raise TypeError(f"cannot overwrite attribute {name} in frozen record {cls.__qualname__}")
    class_hash = cls.__dict__.get("__hash__", MISSING)  # None when the body defines __eq__ only
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    for name, method in methods.items():
        if name in cls.__dict__ and name not in ("__setattr__", "__delattr__", "__hash__"):
            continue  # written in the class body: kept, as dataclasses does
        if name == "__hash__" and explicit_hash:
            continue
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    if eq and not frozen and not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]  # mutable and compared by value, as dataclasses
    if slots and frozen:
        setattr(cls, "__getstate__", _getstate)  # noqa: B010
        setattr(cls, "__setstate__", _setstate)  # noqa: B010
    return cls


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(
    *,
    frozen: bool = True,
    slots: bool = False,
    eq: bool = True,
    repr: bool = True,  # noqa: A002 - the name dataclasses uses
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(
    cls: type[T] | None = None,
    /,
    *,
    frozen: bool = True,
    slots: bool = False,
    eq: bool = True,
    repr: bool = True,  # noqa: A002 - the name dataclasses uses
) -> Any:
    """Make ``cls`` a record: ``@record``, ``@record(frozen=False)`` or ``@record(slots=True)``;
    ``eq=False`` and ``repr=False`` leave ``object``'s ``==``, hash and repr."""
    show = repr

    def wrap(cls: type[T]) -> type[T]:
        return _build(cls, frozen, slots, eq, show)

    return wrap if cls is None else wrap(cls)


def _is_record(obj: object) -> bool:
    return hasattr(type(obj), "__record_fields__")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes`` (checked and ``__post_init__``-ed again)."""
    if not _is_record(obj):
        raise TypeError(f"replace() should be called on a record, not {type(obj).__qualname__}")
    for spec in type(obj).__record_fields__:  # type: ignore[attr-defined]
        if spec.name not in changes:
            changes[spec.name] = getattr(obj, spec.name)
    return type(obj)(**changes)


def asdict(obj: Any) -> dict[str, Any]:
    """The record's fields as a dict; nested records, lists, tuples and dicts are copied too."""
    if not _is_record(obj):
        raise TypeError(f"asdict() should be called on a record, not {type(obj).__qualname__}")
    return _copy_fields(obj)


def _copy_fields(obj: Any) -> dict[str, Any]:
    return {spec.name: _copy(getattr(obj, spec.name)) for spec in type(obj).__record_fields__}


def _copy(value: Any) -> Any:
    if _is_record(value):
        return _copy_fields(value)
    if isinstance(value, list | tuple):
        return type(value)(_copy(item) for item in value)
    if isinstance(value, dict):
        return type(value)((_copy(k), _copy(v)) for k, v in value.items())
    return value
