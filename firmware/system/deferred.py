"""Modules loaded when first used, not when a library imports them: Pillow's tables of EXIF and
TIFF tags.

``PIL.Image`` imports ``PIL.ExifTags`` and ``PIL.TiffTags`` at its top, and they build enums of
several hundred members: about 30 million instructions of every start (a twentieth of it), for
tables the prop reads only when it opens a photograph, never while it draws on its displays.
:func:`defer` puts a module in ``sys.modules`` under its name, made from its spec but not run; the
first attribute asked of it (``ExifTags.Base``, ``from PIL.ExifTags import IFD``) runs it there,
once, under a lock, and from then on it is the module as a plain import leaves it. A name already
imported, or one that cannot be found, is left alone.

>>> import sys
>>> defer("json.tool")
>>> "main" in sys.modules["json.tool"].__dict__  # in sys.modules, not run
False
>>> callable(sys.modules["json.tool"].main)  # the first attribute asked runs it
True
>>> "main" in sys.modules["json.tool"].__dict__
True
"""

from __future__ import annotations

import importlib.util
import sys
import threading

#: The modules a start puts off (see the module's text).
DEFERRED = ("PIL.ExifTags", "PIL.TiffTags")

_lock = threading.RLock()


def defer(name: str) -> None:
    """Put off running module ``name`` until one of its attributes is first asked for."""
    with _lock:
        if name in sys.modules:
            return
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        loader = spec.loader

        ran: list[bool] = []

        def run_then_get(attribute: str) -> object:
            """The module's ``__getattr__`` until it has run: run it (once; another thread asking
            meanwhile waits for it), then look ``attribute`` up."""
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
        sys.modules[name] = module


def defer_all() -> None:
    """Put off each of :data:`DEFERRED` (the package ``firmware`` does it as it loads)."""
    for name in DEFERRED:
        defer(name)
