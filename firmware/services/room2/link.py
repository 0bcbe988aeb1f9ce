"""The Room 2.0 prop convention (xcape.io / Faure Systems), for existing consoles.

Topics ``Room/<room>/Props/<prop>/inbox`` (commands as plain words) and
``.../outbox`` (human-readable messages):

- ``CONNECTED`` (retained) on connect, ``DISCONNECTED`` as the retained will;
- ``DATA key=value ...`` with the module's state (and each output's, ``output_lock=on``) whenever it changes, and the
  same line again once 30 s passed without one (the convention's periodic
  resend, which a console may take for a heartbeat);
- ``DONE <command>`` once a command ran, ``OMIT <command>`` for one that is
  unknown or invalid (followed by ``MESG`` with the reason);
- ``OVER baccarat`` when the module is solved;
- ``REQU <prop> -> <command>`` and ``PROG <program>`` lines from the config
  (``[mqtt.room_requests]``) on a game event: ask another prop or the room's
  controller to act (open a door, start a sound program);
- ``PONG`` for ``@PING``; ``app:startup`` re-sends all ``DATA``.

Commands go through the one command path (:mod:`.commands`), like MQTT JSON and the shell.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from baccarat_core import BaccaratModule, strict
from baccarat_core import events as ev
from baccarat_core.timer import shown_seconds
from firmware.plugin import Daemon, GameMaster, Link, MqttConfig, RoomSettings

log = logging.getLogger("baccarat.room")

CHALLENGE = "baccarat"
#: The full ``DATA`` line goes out again once this many seconds passed without one.
DATA_SECONDS = 30.0


def data_line(doc: dict[str, Any]) -> str:
    """``DATA status=armed strikes=0 ...`` from a state document (no spaces in values)."""
    edgework = doc["edgework"]
    items = {
        "status": doc["status"],
        "enabled": "yes" if doc.get("enabled", True) else "no",
        "strikes": doc["strikes"],
        "limits": f"{doc['limits']['min']}-{doc['limits']['max']}",
        "deck": doc["deck"],
        "cards_left": doc["cards_left"],
        "chip": doc["denomination"],
        **{f"bet_{area}": amount for area, amount in doc["bets"].items()},
        "serial": edgework["serial"],
        "bomb_solved": edgework["solved"],
        **{f"output_{o['name']}": "on" if o["on"] else "off" for o in doc.get("outputs", ())},
    }
    timer = doc.get("timer")
    if timer:  # a bomb with a countdown: the whole seconds left as of this state, and what it does
        items["time_left"] = shown_seconds(timer["seconds_left"])
        items["timer"] = timer["state"]
    return "DATA " + " ".join(f"{k}={v}" for k, v in items.items())


class RoomService:
    """A second MQTT connection that speaks Room 2.0 (its own will: ``DISCONNECTED``)."""

    def __init__(
        self,
        daemon: Daemon,
        commands: GameMaster,
        cfg: MqttConfig,
        room: RoomSettings,
        *,
        data_seconds: float = DATA_SECONDS,
    ) -> None:
        self.daemon = daemon
        self.commands = commands
        self.data_seconds = data_seconds
        self.requests = dict(room.requests)
        base = f"Room/{room.room}/Props/{room.prop}"
        self.inbox, self.outbox = f"{base}/inbox", f"{base}/outbox"
        self.link = Link(cfg, f"{cfg.client_id}-room", will=(self.outbox, "DISCONNECTED"), name="room")
        self.link.on_topic(self.inbox, self._on_message)
        self.link.connect_hooks.append(self._on_connect)
        self.link.tick_hooks.append(self._tick)
        self._lock = threading.Lock()
        self._data: str | None = None
        self._data_sent = float("-inf")  # time.monotonic() of the last DATA line sent

    def start(self) -> None:
        """Listen to the daemon now; connect in the background once it is ready (after its first frame)."""
        self.daemon.on_settled.append(self.on_events)
        self.link.start(after=self.daemon.ready)

    def stop(self) -> None:
        """Say ``DISCONNECTED`` and close."""
        self.link.stop(farewell=(self.outbox, "DISCONNECTED"))

    def send(self, text: str, *, retain: bool = False, kind: str = "reply") -> None:
        """One message on the outbox (``kind`` picks its limit: ``reply``, ``event`` or ``presence``)."""
        self.link.publish(self.outbox, text, retain=retain, kind=kind)

    # -- out ----------------------------------------------------------------------------
    def on_events(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread, after the frame): ``DATA`` when the state changed,
        ``OVER`` on a solve."""
        if not events:  # only frames changed (a card turned): the state did not
            return
        if module.deck is not None:
            line = data_line(self.commands.document())
            with self._lock:
                changed = line != self._data
                self._data = line
            if changed and self.link.listening.is_set():
                self._send_data(kind="event")
        if any(isinstance(e, ev.Solved) for e in events):
            self.send(f"OVER {CHALLENGE}", kind="event")
        if self.requests:
            for event in events:
                for request in self.requests.get(event.kind, ()):
                    log.info("room: %s: %s", event.kind, request)
                    self.send(request, kind="event")

    def _on_connect(self) -> None:
        self.send("CONNECTED", retain=True, kind="presence")
        self._send_data(kind="presence")

    def _send_data(self, *, kind: str = "reply") -> None:
        with self._lock:
            line = self._data
            if line is not None:
                self._data_sent = time.monotonic()
        if line is not None:
            self.send(line, kind=kind)

    def _tick(self) -> None:
        """paho's thread, at each pass of its loop (about once a second): ``DATA`` again when due."""
        with self._lock:
            due = time.monotonic() - self._data_sent >= self.data_seconds
        if due and self.link.listening.is_set():
            self._send_data(kind="event")

    # -- in ---------------------------------------------------------------------------------
    def _on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if self.link.stale_command(topic, payload, retained, log, "room: "):
            return
        text = payload.decode("utf-8", "replace").strip() if len(payload) <= strict.MAX_BYTES else ""
        if text == "@PING":
            self.send("PONG")
            return
        if text == "app:startup":
            self._send_data()
            self.send(f"DONE {text}")
            return
        self.commands.handle(payload, words=True).add_done_callback(lambda f: self._answer(payload, f.result()))

    def _answer(self, payload: bytes, reply: dict[str, Any]) -> None:
        text = echo(payload)
        if not reply["ok"]:
            self.send(f"OMIT {text}")
            self.send(f"MESG {reply['error']}")
            return
        result = reply["result"]
        if reply["command"] == "hint":
            self.send(
                f"MESG hint: {result['winner']} wins next ({result['advice']}); player "
                f"{' '.join(result['player'])} = {result['player_score']}, banker "
                f"{' '.join(result['banker'])} = {result['banker_score']}"
            )
        elif reply["command"] == "status":
            self.send(data_line(result))
        elif reply["command"] == "bet":
            self.send(f"MESG {result['summary']}")
        elif reply["command"] == "self_test":
            verdict = "passed" if result["ok"] else "found faults"
            self.send(strict.one_line(f"MESG self-test {verdict}: {result['summary']}", 240))
        self.send(f"DONE {text}")


def echo(payload: bytes) -> str:
    """The command as ``DONE``/``OMIT`` repeat it: one printable line, cut short."""
    text = payload[: 4 * 80].decode("utf-8", "replace")
    text = "".join(c if c.isprintable() else " " for c in text)
    return strict.one_line(text.strip(), 80)
