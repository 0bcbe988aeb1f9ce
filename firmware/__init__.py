"""The Baccarat prop: the daemon, its hardware and its command line.

The modules that moved when ``firmware/`` became a package per part (issue 40) keep their old
names for one release: importing one works, with a :class:`DeprecationWarning` that names the new
place (a finder after the path's own, here: a start loads no module more for it). A plugin takes
what it needs from :mod:`firmware.plugin` instead.

>>> import sys, warnings
>>> _ = sys.modules.pop("firmware.sections", None)  # a name imported before warns no more
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     import firmware.sections as old
>>> import firmware.config.sections as new
>>> old is new
True
>>> str(caught[0].message)
'firmware.sections is deprecated: it is firmware.config.sections now (a plugin imports from firmware.plugin)'
"""

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from firmware.system import deferred

if TYPE_CHECKING:
    from importlib.abc import Loader  # importing it costs every start 5 ms: a loader is duck-typed

#: Old name -> new name.
MOVED = {
    "firmware.config_sections": "firmware.config.core",
    "firmware.config_report": "firmware.config.report",
    "firmware.config_perms": "firmware.config.perms",
    "firmware.sections": "firmware.config.sections",
    "firmware.findings": "firmware.config.findings",
    "firmware.daemon": "firmware.game.daemon",
    "firmware.gameloop": "firmware.game.loop",
    "firmware.presentation": "firmware.game.presentation",
    "firmware.stage": "firmware.game.stage",
    "firmware.scene": "firmware.game.scene",
    "firmware.pacing": "firmware.game.pacing",
    "firmware.selftest_mode": "firmware.selftest.mode",
    "firmware.selftest_parts": "firmware.selftest.parts",
    "firmware.releases": "firmware.updates.releases",
    "firmware.release_archive": "firmware.updates.archive",
    "firmware.release_build": "firmware.updates.build",
    "firmware.sdnotify": "firmware.system.sdnotify",
    "firmware.storage": "firmware.system.storage",
    "firmware.netaddr": "firmware.system.netaddr",
    "firmware.room.noise": "firmware.system.noise",
    "firmware.room.link": "firmware.broker.link",
    "firmware.room.link_client": "firmware.broker.client",
    "firmware.room.link_queues": "firmware.broker.queues",
    "firmware.services.conventions": "firmware.broker.conventions",
    "firmware.room.mqtt": "firmware.services.mqtt.room",
    "firmware.room.mqtt_settings": "firmware.broker.settings",
    "firmware.room.home_assistant": "firmware.services.home_assistant.discovery",
    "firmware.room.ha_templates": "firmware.services.home_assistant.templates",
    "firmware.room.room2": "firmware.services.room2.link",
    "firmware.room.control_socket": "firmware.services.control.socket",
    "firmware.web.controllers": "firmware.services.erm.endpoints",
    "firmware.web.webhooks": "firmware.services.webhooks.sender",
    "firmware.web.outbox": "firmware.services.webhooks.outbox",
}


class _Alias:
    """The loader of an old name: the module under its new name, imported once."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} is deprecated: it is {self.new} now (a plugin imports from firmware.plugin)",
            DeprecationWarning,
            stacklevel=4,
        )
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran under its new name."""


class MovedFinder:
    """A finder on ``sys.meta_path`` (after the path's own: asked only for names not found)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        """The spec of an old name, or None for any other."""
        new = MOVED.get(name)
        return None if new is None else ModuleSpec(name, cast("Loader", _Alias(new)))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if MovedFinder not in sys.meta_path:
        sys.meta_path.append(MovedFinder)


def __getattr__(name: str) -> Any:
    """``firmware.__version__``: the installed version (as ``baccarat --version`` prints it), read from
    the package metadata only when asked (``importlib.metadata`` is not loaded at every start)."""
    if name == "__version__":
        from .version import version

        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


install()  # the old names of the modules that moved, for one release
deferred.install()  # Pillow's EXIF and TIFF tag tables, run when first used (firmware/system/deferred.py)
