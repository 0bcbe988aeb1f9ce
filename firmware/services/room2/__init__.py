"""Room 2.0 (xcape.io): the prop's inbox and outbox on the MQTT service's broker (``[mqtt] room``).

On when ``room`` is set; a second connection with its own will (``DISCONNECTED``). Docs:
``docs/integrate/room2.md``.
"""

from __future__ import annotations

from firmware.plugin import ROOM_KEYS, Prop, RoomSettings, Running, Service, room_settings


class Room2(Service):
    """Room 2.0's ``Room/<room>/Props/<prop>/inbox`` and ``outbox``."""

    name = "room2"
    section = "mqtt"
    title = "Room 2.0"
    keys = ROOM_KEYS
    after = ("mqtt",)
    order = 42
    docs = "integrate/room2.md"
    reader = room_settings

    def describe(self, settings: RoomSettings) -> list[str]:
        """``Room 2.0: Room/Casino/Props/baccarat/...``, when on."""
        if not settings.room:
            return []
        requests = sum(len(lines) for _, lines in settings.requests)
        extra = f", {requests} request(s) on events" if requests else ""
        return [f"Room 2.0: Room/{settings.room}/Props/{settings.prop}/inbox and outbox{extra}"]

    def start(self, prop: Prop, settings: RoomSettings) -> Running | None:
        """Connect its own link to the MQTT service's broker."""
        mqtt = prop.settings("mqtt")
        if not settings.room or mqtt is None:
            return None
        from firmware.services.room2.link import RoomService

        room = RoomService(prop.daemon, prop.commands, mqtt, settings)
        room.start()
        return Running(room.stop, room)
