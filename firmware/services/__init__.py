"""The prop's own room services, one package or module each, found through the entry points
``baccarat.services`` as a third party's are (:mod:`.registry`).

A service is written against the public plugin API, :mod:`firmware.plugin`. The names this
package exported before that module existed (``Service``, ``Running``, ``Prop``, ``Key``,
``Section``, ``PinUse``, ``Finding``) still work for one release, with a
:class:`DeprecationWarning` that names the new place.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

_MOVED = ("Finding", "Key", "PinUse", "Prop", "Running", "Section", "Service")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import firmware.plugin

        # ``from firmware.services import Service`` asks twice: the import system's hasattr, then
        # the statement itself. One warning, for the statement (it names the plugin's line).
        if not sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
            warnings.warn(
                f"firmware.services.{name} is deprecated: import it from firmware.plugin",
                DeprecationWarning,
                stacklevel=2,
            )
        return getattr(firmware.plugin, name)
    raise AttributeError(f"module 'firmware.services' has no attribute {name!r}")
