"""aiohttp's server side without its client: the console's start does not load the client, nor read
the system's CA store, until a webhook first sends.

``import aiohttp`` runs the package's ``__init__``, which imports its client: the connector builds
the client's two default TLS contexts at import, each reading the system's CA bundle (about 240
million instructions each under callgrind), then the tracing's and the cookie jar's classes, though
the console is a server and makes no client request until a webhook to an ``https://`` (or
``http://``) address first sends. :func:`import_server_side` imports the console's server with
aiohttp's package made bare: the package's module exists (its ``__path__``, its ``__version__``)
and its submodules load as the server imports them (``aiohttp.web`` and what it uses), but its
``__init__`` has not run. :func:`ready_for_clients` runs it, once, in that same module: the client
loads, its contexts read the CA store, and ``aiohttp.ClientSession`` and the rest are there, as
after a plain ``import aiohttp``. Any other name asked of the bare package (``aiohttp.X``, ``from
aiohttp import X``) runs it first, so no caller can tell the difference but by the time it took.

Where the package is not laid out as expected (no ``__version__ = "..."`` line in its
``__init__``), or aiohttp is loaded already, the import is a plain one.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import threading
from pathlib import Path
from types import ModuleType

_lock = threading.RLock()
#: Set on the bare package's module while its ``__init__`` has not run.
_BARE = "_baccarat_bare"


def import_server_side(name: str) -> ModuleType:
    """``importlib.import_module(name)`` (a module that imports aiohttp's server side: the
    console's server), with aiohttp's package bare when aiohttp is not loaded yet."""
    with _lock:
        if "aiohttp" not in sys.modules:
            _install_bare()
        return importlib.import_module(name)


def _install_bare() -> None:
    spec = importlib.util.find_spec("aiohttp")
    if spec is None or spec.origin is None or spec.loader is None:
        return
    try:
        source = Path(spec.origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    version = re.search(r'^__version__\s*=\s*"([^"]+)"', source, re.MULTILINE)
    if version is None:
        return
    module = importlib.util.module_from_spec(spec)
    namespace = module.__dict__
    namespace["__version__"] = version.group(1)  # aiohttp.http's Server header reads it
    namespace[_BARE] = True
    namespace["__getattr__"] = _whole_then
    sys.modules["aiohttp"] = module


def _whole_then(name: str) -> object:
    """The bare package's ``__getattr__``: any name it lacks but a submodule's makes it whole, then
    is looked up."""
    if not name.startswith("__") and importlib.util.find_spec(f"aiohttp.{name}") is not None:
        raise AttributeError(name)  # a submodule (``from aiohttp import web``): the import system loads it
    ready_for_clients()
    module = sys.modules["aiohttp"]
    if name in module.__dict__:
        return module.__dict__[name]
    return getattr(module, name)  # the package's own __getattr__ (its lazy gunicorn workers), or AttributeError


def ready_for_clients() -> None:
    """Run aiohttp's ``__init__`` in the bare package, once: the client loads and its TLS contexts
    read the CA store (blocking, a fraction of a second on a Pi: call it from a thread, as
    :class:`~firmware.services.webhooks.sender.WebhookSender` does before its first delivery). Nothing to do
    once aiohttp is whole."""
    with _lock:
        module = sys.modules.get("aiohttp")
        if module is None or not module.__dict__.get(_BARE):
            return
        del module.__dict__[_BARE]
        del module.__dict__["__getattr__"]
        spec = module.__spec__
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(module)


def bare() -> bool:
    """True while aiohttp's package is bare (its client not loaded, the CA store not read)."""
    module = sys.modules.get("aiohttp")
    return module is not None and bool(module.__dict__.get(_BARE))


#: :func:`bare` under the name the plugin API gives it.
aiohttp_bare = bare
