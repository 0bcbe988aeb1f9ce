"""Optional services around the daemon: saved state, MQTT, the local control socket.

``restore_module`` runs before the daemon is built; ``attach_services`` after,
and returns what must be closed on the way out.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from baccarat_core import BaccaratModule

from .config import Config
from .daemon import Daemon


def restore_module(config: Config, rng: random.Random) -> BaccaratModule | None:
    """The module saved before a restart, or None for a fresh game."""
    return None


def attach_services(daemon: Daemon, config: Config) -> list[Callable[[], None]]:
    """Start the services the config asks for; returns their stop functions."""
    return []
