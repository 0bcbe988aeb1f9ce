"""MQTT: the bomb's edgework and solved count in, events, state and replies out.

:class:`MqttService` speaks this project's topics (see docs/integrate/mqtt.md) over one
:class:`~.link.Link` (the connection, :mod:`.link`), which Home Assistant's discovery
(:mod:`.home_assistant`) and any other service on the same broker share;
``room2.py`` speaks the Room 2.0 convention over a second link.

- **Retained commands**: a retained message on the command topic (or the Room
  inbox) is a command that would run again at every start and reconnect; it is
  ignored with one log line. (One published with the retain flag while the prop
  listens reaches it as a live message, without the flag: it runs that once.)
- **Bad messages** are answered on ``P/reply`` each; the log says the first and then
  how many more came (:mod:`.noise`), so a flood of them is a few lines.
- **A clean stop** publishes the state once more as the stopped prop leaves it: every
  output off (the daemon turned them off), whatever the last game's document said.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from baccarat_core import BaccaratError, BaccaratModule, Edgework, strict
from baccarat_core import events as ev
from baccarat_core.edgework import check_solved
from baccarat_core.errors import EdgeworkError
from baccarat_core.numbers import show_value
from firmware.plugin import Daemon, Diagnostics, GameMaster, Handler, Link, MqttConfig, failure_reason, speaks_tls

from .memory import Memory

__all__ = ["Handler", "Link", "MqttService", "failure_reason", "parse_edgework", "parse_solved", "speaks_tls"]

log = logging.getLogger("baccarat.mqtt")

#: What the game or a log line hands the out thread to publish the diagnostics document again.
DIAGNOSTICS = "diagnostics"

#: The prop's topics: name -> (the ``[mqtt]`` key of its prefix, the rest, who publishes, what it
#: carries). The one list of them: the service builds its topics from it, the docs' MQTT reference
#: is generated from it.
TOPICS: dict[str, tuple[str, str, str, str]] = {
    "state": ("topic_prefix", "state", "prop, retained", "the state document (JSON), at every change"),
    "events": ("topic_prefix", "events", "prop", "each game event as it is shown (JSON, with a sequence number)"),
    "status": ("topic_prefix", "status", "prop, retained", "online, or offline (the will)"),
    "diagnostics": ("topic_prefix", "diagnostics", "prop, retained", "version, start, last warning, self-test"),
    "command": ("topic_prefix", "command", "you", 'a command: {"command": "reset", "id": 7} or {"words": ...}'),
    "reply": ("topic_prefix", "reply", "prop", "the reply to each command (JSON, with its id)"),
    "edgework": ("bomb_prefix", "edgework", "the bomb, retained", "the bomb's edgework (JSON)"),
    "solved": ("bomb_prefix", "solved", "the bomb, retained", "modules solved on the bomb (a number)"),
}


def topics(cfg: MqttConfig) -> dict[str, str]:
    """The prop's topics for ``cfg``'s prefixes (:data:`TOPICS`)."""
    return {name: f"{getattr(cfg, prefix)}/{rest}" for name, (prefix, rest, _, _) in TOPICS.items()}


class MqttService:
    """The prop's own topics: events, state, presence, commands and the bomb's edgework."""

    def __init__(self, daemon: Daemon, commands: GameMaster, cfg: MqttConfig, *, memory: Memory | None = None) -> None:
        self.daemon = daemon
        self.commands = commands
        self.cfg = cfg
        self.topics = topics(cfg)
        t = self.topics
        self.link = Link(cfg, cfg.client_id, will=(t["status"], "offline"), name="mqtt")
        for topic in (t["command"], t["edgework"], t["solved"]):
            self.link.on_topic(topic, self._on_message)
        self.link.connect_hooks.append(self._on_connect)
        #: ``seq`` and the identity across restarts (:mod:`.memory`; none kept by default).
        self.memory = memory or Memory(None, client_id=cfg.client_id, topic_prefix=cfg.topic_prefix)
        self._state_lock = threading.Lock()
        self._state_text: str | None = None
        self._state_document: dict[str, Any] | None = None  # the one _state_text was made from
        # What the game thread hands over once its frame is sent (``settled``); the out thread
        # formats and sends it, so that a press's frame never waits for JSON or a socket, nor
        # shares the interpreter with them (benchmarks/README.md).
        # Items: (events, state document or None), a reply document, or DIAGNOSTICS; None ends the thread.
        self._out: queue.SimpleQueue[tuple[list[ev.Event], dict[str, Any] | None] | dict[str, Any] | str | None] = (
            queue.SimpleQueue()
        )
        self._out_thread: threading.Thread | None = None
        #: The version, start time and last warning or error, retained on ``P/diagnostics``.
        self.diagnostics = Diagnostics(self._diagnostics_changed)
        self._diagnostics_queued = threading.Event()  # one request in the queue at most, whatever floods the log

    @property
    def identity(self) -> str:
        """The client id the prop first ran with on these topics: Home Assistant's device (:mod:`.memory`)."""
        return self.memory.identity

    def start(self) -> None:
        """Listen to the daemon now; connect in the background once it is ready (after its first frame)."""
        self._out_thread = threading.Thread(target=self._send_out, name="baccarat-mqtt-out", daemon=True)
        self._out_thread.start()
        self.diagnostics.attach()
        self.daemon.on_settled.append(self.on_events)
        self.link.start(after=self.daemon.ready)

    def stop(self) -> None:
        """Send what the game handed over, say ``offline`` and close."""
        self.diagnostics.detach()
        if self._out_thread is not None:
            self._out.put(None)
            self._out_thread.join(5.0)
            self._out_thread = None
        try:
            self._publish_stopped_state()
        except Exception:
            log.exception("mqtt: publishing the stopped prop's state failed")
        self.link.stop(farewell=(self.topics["status"], "offline"))

    def _publish_stopped_state(self) -> None:
        """The game thread has ended (a clean stop turned every output off): the retained state
        once more, with the outputs as the stopped prop leaves them."""
        if self.daemon.running():
            return
        with self._state_lock:
            document = self._state_document
        if document is not None and document.get("outputs"):
            self._publish([], {**document, "outputs": self.daemon.board.outputs.states()})

    # -- out ------------------------------------------------------------------------
    def on_events(self, events: list[ev.Event], module: BaccaratModule) -> None:
        """Daemon ``on_settled`` hook (game thread, after the frame): hand the events and the state as it
        is now (the document shared with the console) to the out thread."""
        if not events:  # only frames changed (a card turned): the state did not
            return
        for event in events:
            if event.kind == "self_test_result":  # kept, retained, in the diagnostics document
                result = event.to_dict()
                self.diagnostics.self_test_done(result["ok"], result["summary"])
                self._diagnostics_changed()
        self._out.put((events, self.commands.document() if module.deck is not None else None))

    def _send_out(self) -> None:
        while (item := self._out.get()) is not None:
            if item == DIAGNOSTICS:
                self._diagnostics_queued.clear()  # a warning from now on asks again
                with self.diagnostics.quiet():  # a failure here is no new last problem: no loop
                    try:
                        self.publish_diagnostics()
                    except Exception:
                        log.exception("mqtt: publishing the diagnostics failed; the game goes on")
                continue
            try:
                if isinstance(item, dict):
                    self._send_reply(item)
                elif isinstance(item, tuple):
                    self._publish(*item)
            except Exception:
                log.exception("mqtt: publishing failed; the game goes on")

    def _publish(self, events: list[ev.Event], document: dict[str, Any] | None) -> None:
        """Every event, then the state if it changed (the out thread)."""
        for event in events:
            seq = self.memory.next_seq()
            self.link.publish(self.topics["events"], strict.dumps({"seq": seq, **event.to_dict()}), kind="event")
        if document is None:
            return
        text = strict.dumps(document)
        with self._state_lock:
            if text == self._state_text:
                return
            self._state_text = text
            self._state_document = document
        if self.link.listening.is_set():  # otherwise the connect sends the newest one
            self.link.publish_latest(self.topics["state"], text)

    def _on_connect(self) -> None:
        """Listening (every subscription acknowledged): presence and the newest state, whatever is queued."""
        self.link.publish(self.topics["status"], "online", retain=True)
        with self._state_lock:
            text = self._state_text
        if text is not None:
            self.link.publish_latest(self.topics["state"], text)
        self.publish_diagnostics()

    def _diagnostics_changed(self) -> None:
        """A new warning or error (any thread): the out thread publishes the document, once for a burst."""
        if not self._diagnostics_queued.is_set():
            self._diagnostics_queued.set()
            self._out.put(DIAGNOSTICS)

    def publish_diagnostics(self) -> None:
        """The diagnostics document, retained, if the broker is listening (every connect sends it)."""
        if self.link.listening.is_set():
            self.link.publish_latest(self.topics["diagnostics"], strict.dumps(self.diagnostics.document()))

    def reply(self, reply: dict[str, Any]) -> None:
        """Publish a reply document: after the events of its command, which the out thread sends
        first (from the game thread, a command's reply is handed over just after them)."""
        if self._out_thread is None:
            self._send_reply(reply)
        else:
            self._out.put(reply)

    def _send_reply(self, reply: dict[str, Any]) -> None:
        self.link.publish(self.topics["reply"], strict.dumps(reply), kind="reply")

    # -- in (paho's thread: nothing here may wait for the game) -----------------------
    def _on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if topic == self.topics["command"]:
            if self.link.stale_command(topic, payload, retained, log):
                return
            self.commands.handle(payload).add_done_callback(lambda f: self.reply(f.result()))
        elif topic == self.topics["edgework"] or topic == self.topics["solved"]:
            if not payload:  # a cleared retained message
                return
            try:
                if topic == self.topics["edgework"]:
                    from firmware.plugin import set_edgework  # with the command table, at the first use

                    edgework, keep = parse_edgework(payload)
                    self.daemon.apply(lambda m: set_edgework(m, edgework, keep_solved=keep, only_if_changed=True))
                else:
                    self.daemon.set_solved(parse_solved(payload), only_if_changed=True)
            except BaccaratError as error:
                problem = strict.one_line(str(error))
                self.link.noise.note("bomb", f"ignored the message on {topic}: {problem}")
                self.reply({"id": None, "ok": False, "topic": topic, "error": problem})


def parse_edgework(payload: bytes | str) -> tuple[Edgework, bool]:
    """The bomb's edgework (strict JSON), and whether the module keeps its own solved count (none given)."""
    data = strict.loads(payload, "edgework")
    if not isinstance(data, dict):
        raise EdgeworkError(f"edgework {show_value(data)} is not an object")
    if "solved" in data:
        return Edgework.from_dict(data), False
    return Edgework.from_dict({**data, "solved": 0}), True


def parse_solved(payload: bytes | str) -> int:
    """The bomb's solved count (strict JSON): ``3`` or ``{"solved": 3}``."""
    data = strict.loads(payload, "solved count")
    if isinstance(data, dict) and set(data) == {"solved"}:
        data = data["solved"]
    return check_solved(data)
