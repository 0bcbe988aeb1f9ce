"""Optional services around the daemon: saved state, MQTT, the local control socket.

``restore_module`` runs before the daemon is built; ``attach_services`` after,
and returns what must be closed on the way out. Everything is optional: with
no ``[mqtt]`` section the prop runs standalone.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from baccarat_core import BaccaratModule

from . import state_store
from .config import Config
from .daemon import Daemon

log = logging.getLogger("baccarat")


def restore_module(config: Config, rng: random.Random) -> BaccaratModule | None:
    """The module saved before a restart, or None for a fresh game (the log says why)."""
    return state_store.restore(config, rng)


def attach_services(daemon: Daemon, config: Config) -> list[Callable[[], None]]:
    """Start the services the config asks for; returns their stop functions.

    Call before the daemon's game thread starts, so that the listeners see the
    first events.
    """
    closers: list[Callable[[], None]] = []
    path = state_store.state_path(config)
    if path is not None:
        daemon.listeners.append(state_store.StateKeeper(path, config))
        log.info("game state is saved to %s", path)
    try:
        _start_control(daemon, config, closers)
        if config.mqtt is not None:
            from .mqtt_link import MqttService

            service = MqttService(daemon, config.mqtt)
            service.start()
            closers.append(service.stop)
            if config.mqtt.room:
                from .room import RoomService

                room = RoomService(daemon, config.mqtt)
                room.start()
                closers.append(room.stop)
    except BaseException:
        for close in reversed(closers):
            close()
        raise
    return closers[::-1]


def _start_control(daemon: Daemon, config: Config, closers: list[Callable[[], None]]) -> None:
    from .control import ControlServer, socket_path

    path = socket_path(config)
    if path is None:
        log.info("control socket off")
        return
    try:
        server = ControlServer(daemon, path)
    except OSError as error:  # the game matters more than the shell commands
        log.error("control socket %s cannot be opened (%s); shell commands will not work",
                  path, error.strerror or error)
        return
    server.start()
    closers.append(server.stop)
