"""The started ``[obus]`` service: the link's thread, the role it runs, and the prop's hooks.

The game thread only picks the events a role cares about out of each settled batch
(:meth:`ObusService.on_settled`) and queues them for the link's thread, which alone touches the
role; the role answers through :class:`~.game.PropGame` (commands, queued for the game thread).
The state document's ``obus`` part (``baccarat status``, the console) is the role's view, taken
under the link's lock.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from firmware.plugin import (
    EdgeworkChanged,
    EnabledChanged,
    Exploded,
    ModuleReset,
    Noise,
    Solved,
    Strike,
    TimeAdded,
    TimerStarted,
)

from . import protocol as p
from .controller_role import ControllerRole
from .game import PropGame
from .link import Link
from .module_role import ModuleRole
from .roles import PropEvent

if TYPE_CHECKING:
    from baccarat_core import BaccaratModule
    from baccarat_core.events import Event
    from firmware.plugin import Prop

    from . import ObusSettings

log = logging.getLogger("baccarat.obus")


def prop_event(event: Event) -> PropEvent | None:
    """The role's view of one of the prop's events, or None for the events no role reads."""
    if isinstance(event, Strike):
        return PropEvent("strike", event.strikes)
    if isinstance(event, Solved):
        return PropEvent("solved")
    if isinstance(event, Exploded):
        return PropEvent("exploded", event.cause)
    if isinstance(event, ModuleReset):
        return PropEvent("reset")
    if isinstance(event, TimerStarted):
        return PropEvent("timer_started", event.seconds_left)
    if isinstance(event, TimeAdded):
        return PropEvent("time_added", event.seconds)
    if isinstance(event, EnabledChanged):
        return PropEvent("enabled", event.enabled)
    return None


class ObusService:
    """What the started service runs (its :attr:`~firmware.plugin.Running.value`)."""

    def __init__(self, prop: Prop, settings: ObusSettings) -> None:
        self.settings = settings
        self.noise = Noise(log)
        node = p.Node(p.PUZZLE, settings.id) if settings.role == "module" else p.CONTROLLER
        self.link = Link(
            node, self.noise, interface=settings.interface, channel=settings.channel, options=settings.options
        )
        self.game = PropGame(prop, self.noise)
        self.serial: str = prop.daemon.module.edgework.serial  # before the game thread starts
        self.drawn: bool = prop.daemon.module.edgework_drawn
        self.lock = threading.Lock()
        self.role: ModuleRole | ControllerRole
        if settings.role == "module":
            self.role = ModuleRole(node, self.link.send, self.game, count=settings.count, note=self.noise.note)
        else:
            self.role = ControllerRole(
                self.link.send,
                self.game,
                settings.rules,
                serial=lambda: self.serial,
                drawn=lambda: self.drawn,
                count=settings.count,
                note=self.noise.note,
            )
        self.link.lock = self.lock

    def start(self, prop: Prop) -> None:
        """Hook into the prop and start the link (a controller's rounds begin once the bus is open)."""
        prop.daemon.on_settled.append(self.on_settled)
        prop.commands.document_extras.append(self.document)
        self.link.start(self.role)
        if isinstance(self.role, ControllerRole):
            self.link.later(self.role.begin)

    def on_settled(self, events: list[Event], module: BaccaratModule) -> None:
        """Daemon hook (game thread): the role's events to the link's thread."""
        for event in events:
            if isinstance(event, EdgeworkChanged):
                self.serial, self.drawn = module.edgework.serial, module.edgework_drawn
            seen = prop_event(event)
            if seen is not None:
                self.link.prop_event(seen)

    def document(self) -> dict[str, Any]:
        """The state document's ``obus`` part: the role's view, and whether the bus is up."""
        with self.lock:
            view = self.role.document()
        view["bus"] = {"where": self.settings.where, "up": self.link.up}
        return {"obus": view}

    def stop(self) -> None:
        """Close the bus and end the thread."""
        self.link.stop()


def start_service(prop: Prop, settings: ObusSettings) -> ObusService:
    """Make the service and start it."""
    service = ObusService(prop, settings)
    service.start(prop)
    return service
