"""Modules loaded when first used, not when a library imports them: Pillow's tables of EXIF and
TIFF tags, and three modules of the standard library that a start imports and never uses.

``PIL.Image`` imports ``PIL.ExifTags`` and ``PIL.TiffTags`` at its top, and they build enums of
several hundred members: about 30 million instructions of every start (a twentieth of it), for
tables the prop reads only when it opens a photograph, never while it draws on its displays.
``importlib.metadata`` (gpiozero looks up its pin factories with it) imports ``zipfile``, ``csv``
and its ``_adapters``, whose parser of a distribution's metadata is the standard library's
mail parser (``email.message`` and a dozen modules with it), and ``linecache`` (by way of
``logging``) imports ``tokenize``: each used only inside functions a start does not call (a
traceback's source lines, a zipped distribution, a distribution's metadata): 15.4 M together.
A module a library uses as it loads (``textwrap``: ``from textwrap import dedent``) gains nothing.
:class:`DeferringFinder`, first on ``sys.meta_path``, answers the import of such a module with a
module made from its spec but not run (the import system puts it in ``sys.modules`` and on its
package, as any import does); the first attribute asked of it (``ExifTags.Base``, ``from
PIL.ExifTags import IFD``) runs it there, once, under a lock (a thread asking meanwhile waits), and
from then on it is the module as a plain import leaves it. Nothing is imported to set this up.
The standard library's ``importlib.util.LazyLoader`` does the same but, before Python 3.13, lets
two threads run a module twice.

>>> import sys
>>> install(("json.tool",))
>>> import json.tool
>>> "main" in json.tool.__dict__  # imported, not run
False
>>> callable(json.tool.main)  # the first attribute asked runs it
True
>>> "main" in json.tool.__dict__
True
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterable
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

#: The modules a start puts off (see the module's text).
DEFERRED = frozenset(
    {"PIL.ExifTags", "PIL.TiffTags", "tokenize", "zipfile", "csv", "calendar", "quopri", "importlib.metadata._adapters"}
)

_lock = threading.RLock()
#: What the import system asks of a module as it sets it up: answered without running it.
_IMPORT_ATTRIBUTES = frozenset({"__path__", "__file__", "__cached__", "__loader__", "__package__", "__spec__"})


class _DeferredLoader:
    """Makes the module from the real spec and leaves running it to its first use."""

    def __init__(self, real: ModuleSpec) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        """The module the real loader would run in, with a ``__getattr__`` that runs it first."""
        from importlib.util import module_from_spec

        module = module_from_spec(self.real)
        loader = self.real.loader
        assert loader is not None  # find_spec returns no spec without one
        ran: list[bool] = []

        def run_then_get(attribute: str) -> object:
            """The module's ``__getattr__`` until it has run: run it (once), then look ``attribute`` up."""
            if attribute in _IMPORT_ATTRIBUTES and not ran:
                raise AttributeError(f"module {module.__name__!r} has no attribute {attribute!r}")
            with _lock:
                if not ran:
                    ran.append(True)
                    try:
                        loader.exec_module(module)
                    except BaseException:
                        ran.clear()  # the next use tries again, and raises again
                        raise
                    if module.__dict__.get("__getattr__") is run_then_get:
                        del module.__dict__["__getattr__"]
            if attribute in module.__dict__:
                return module.__dict__[attribute]
            return getattr(module, attribute)  # the module's own __getattr__, or AttributeError

        module.__dict__["__getattr__"] = run_then_get
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing now: the module runs at its first use."""


class DeferringFinder:
    """A finder for the names of :attr:`names` only: their real spec, its running put off."""

    names: frozenset[str] = DEFERRED
    #: The names not imported yet (once none is left, the finder takes itself off ``sys.meta_path``).
    pending: set[str] = set(DEFERRED)

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        """The spec of a deferred module (found as the path's finder finds it), or None for any other."""
        if name not in cls.names:
            return None
        cls.pending.discard(name)
        if not cls.pending:  # each has been imported: the finder is no longer asked at every import
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(cls)
        real = PathFinder.find_spec(name, path)
        if real is None or real.loader is None:
            return None
        spec = ModuleSpec(name, _DeferredLoader(real), origin=real.origin)  # type: ignore[arg-type]
        spec.has_location = real.has_location
        return spec


def install(names: Iterable[str] = DEFERRED) -> None:
    """Put off running ``names`` (:data:`DEFERRED`) at their import, from now on (the package
    ``firmware`` does it as it loads). A name already imported is left as it is."""
    with _lock:
        names = frozenset(names) - sys.modules.keys()
        DeferringFinder.names = DeferringFinder.names | names
        DeferringFinder.pending |= names
        if DeferringFinder.pending and DeferringFinder not in sys.meta_path:
            # just before the path's finder: the built-in and frozen modules' imports never ask it
            where = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
            sys.meta_path.insert(where, DeferringFinder)
