"""Loading aiohttp without reading the system's CA bundle, and reading it when a client first needs it.

``import aiohttp`` builds the two TLS contexts its client uses by default (verified and not), and
each reads the system's CA bundle (``/etc/ssl/certs/ca-certificates.crt``: about 240 million
instructions each under callgrind, 0.4 s on a Pi Zero 2 W), although the console is a server and
makes no TLS connection until a webhook to an ``https://`` address first sends. :func:`import_aiohttp`
imports it with that reading put off: on the importing thread alone,
``SSLContext.set_default_verify_paths`` (which ``ssl.create_default_context`` calls through
``load_default_certs``) notes the context instead of reading; every other thread's call is untouched.
:func:`ready_for_clients` does the reading it put off, once, before the first client request
(:class:`~firmware.web.webhooks.WebhookSender` calls it before its first delivery).

A context whose reading is put off verifies nothing yet: a client that used it would fail every
certificate (closed, not open). The put-off contexts are aiohttp's own two: nothing else in the
prop uses aiohttp's client.
"""

from __future__ import annotations

import importlib
import ssl
import sys
import threading
from types import ModuleType

_lock = threading.RLock()
#: Contexts made while importing, whose CA reading is put off (:func:`ready_for_clients` reads it).
_pending: list[ssl.SSLContext] = []


def import_aiohttp(name: str = "aiohttp") -> ModuleType:
    """``importlib.import_module(name)``, with the CA reading of the contexts it makes put off.

    ``name`` is aiohttp or a module that imports it (the console's server). Once aiohttp is
    loaded this is a plain import: its contexts were made already.
    """
    with _lock:
        if "aiohttp.connector" in sys.modules:
            return importlib.import_module(name)
        importer = threading.get_ident()
        own = ssl.SSLContext.__dict__.get("set_default_verify_paths")
        base = ssl.SSLContext.set_default_verify_paths

        def put_off(context: ssl.SSLContext) -> None:
            if threading.get_ident() == importer:
                _pending.append(context)
            else:
                base(context)

        ssl.SSLContext.set_default_verify_paths = put_off  # type: ignore[method-assign,assignment]
        try:
            return importlib.import_module(name)
        finally:
            if own is None:
                del ssl.SSLContext.set_default_verify_paths
            else:
                ssl.SSLContext.set_default_verify_paths = own  # type: ignore[method-assign]


def ready_for_clients() -> None:
    """Read the system's CA store into the contexts :func:`import_aiohttp` made (once; blocking:
    call it from a thread, or accept one pause of a fraction of a second on the loop)."""
    with _lock:
        while _pending:
            _pending.pop().set_default_verify_paths()


def pending() -> int:
    """How many contexts still wait for their CA reading (0 once a client may connect)."""
    return len(_pending)
