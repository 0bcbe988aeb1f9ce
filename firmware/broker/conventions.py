"""Room conventions on the MQTT service's connection: what M3/BAC and node-redscape share.

A convention (:mod:`.m3`, :mod:`.redscape`) is a few topics of a controller's own on the prop's
MQTT connection (the MQTT service's :class:`~firmware.broker.link.Link`), not a connection of its
own. :class:`Convention` gives each one the same rules:

- **One command path.** A controller's command is a request to ``prop.commands.handle``, as
  from every other surface: the same refusals (an exploded bomb ignores a solve, a command
  waits for the self-test's end), the same events on every other surface.
- **Bad input** (a payload too big or not text, an unknown subtopic or command, bad JSON) is a
  note of the link's :class:`~firmware.system.noise.Noise`: one line, then a count, never a
  traceback, and the connection goes on (the link guards every handler besides).
- **A bounded hand-over.** At most :data:`MAX_PENDING` of a convention's commands wait for the
  game at once (as OSC's): one more in a flood is dropped, a note of the link's noise (one line,
  then a count), so that 200,000 tiny messages from an anonymous broker neither grow the prop's
  memory nor keep the game master waiting; the game answers those it took, in order.
- **Retained commands** are ignored (one note): a command runs once, never again at each start
  or reconnect. (One published with the retain flag while the prop listens reaches it as a live
  message, without the flag: it runs that once, as on the prop's own command topic.) An empty
  message is a retained command being cleared: nothing runs (unless the topic says it all,
  :meth:`Convention.complete`).
- **Never the game thread's time.** The state is read in an ``on_settled`` hook (the game thread,
  after the frame) into a few strings; the link's queues publish them, never blocking.
- **A clean stop** publishes the outputs as the stopped prop leaves them (all off).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.numbers import show_value
from baccarat_core.strict import InputError, decode_text
from firmware.plugin.base import Running  # the base classes alone: firmware.plugin re-exports this module

if TYPE_CHECKING:
    from firmware.broker.link import Link
    from firmware.plugin.base import Prop

log = logging.getLogger("baccarat.mqtt")

T = TypeVar("T")

#: A convention's commands handed to the game and not yet answered, at most (OSC's cap too): the
#: next one in a flood is dropped, one line and then a count.
MAX_PENDING = 32


def output_name(outputs: Sequence[str], index: int) -> str:
    """The name of output ``index`` (counted from 0 in config order), or an :class:`InputError`
    naming the outputs there are.

    >>> output_name(("lock", "horn"), 1)
    'horn'
    >>> output_name(("lock",), 3)
    Traceback (most recent call last):
    ...
    baccarat_core.strict.InputError: no output 3: this prop has 1 (0 = lock)
    """
    if 0 <= index < len(outputs):
        return outputs[index]
    if not outputs:
        raise InputError(f"no output {index}: this prop has none ([[outputs]] in the config)")
    listed = ", ".join(f"{i} = {name}" for i, name in enumerate(outputs))
    raise InputError(f"no output {index}: this prop has {len(outputs)} ({listed})")


def start_on_mqtt(prop: Prop, what: str, make: Callable[[Link], Convention]) -> Running | None:
    """Start the convention ``make(link)`` makes on the MQTT service's connection; None (one log
    line naming ``what`` cannot reach the prop) when the MQTT service does not run."""
    mqtt = prop.service("mqtt")
    if mqtt is None:
        log.error("the MQTT service is not running: %s cannot reach the prop", what)
        return None
    convention = make(mqtt.link)
    convention.start()
    return Running(convention.stop, convention)


class Convention:
    """One controller's topics on the prop's MQTT link (a base class: see the module).

    A subclass names its topics (:meth:`listen`), reads each message (:meth:`receive`, paho's
    thread), and publishes from the state it is handed (:meth:`settled`, the game thread);
    :meth:`connected` and :meth:`tick` run on paho's thread after each connect and about once a
    second. ``what`` starts its log lines.
    """

    what = "convention"

    def __init__(self, prop: Prop, link: Link) -> None:
        self.daemon = prop.daemon
        self.commands = prop.commands
        self.link = link
        self.lock = threading.Lock()
        self._topics: list[str] = []
        self._document: dict[str, Any] | None = None  # the newest state document handed over
        self._count = threading.Lock()
        self._pending = 0  # commands handed to the one command path and not yet answered
        #: The most commands that waited at once (a test counts the bound with it).
        self.most_pending = 0
        #: Commands dropped because :data:`MAX_PENDING` were waiting.
        self.dropped = 0

    # -- for subclasses --------------------------------------------------------------
    def listen(self, topic: str) -> None:
        """Subscribe to ``topic`` (wildcards allowed) from the start on."""
        self._topics.append(topic)

    def receive(self, topic: str, payload: bytes) -> None:
        """One live, non-empty message on a topic of :meth:`listen` (paho's thread; may raise
        :class:`InputError`, which is noted as bad input)."""

    def complete(self, topic: str) -> bool:
        """Whether a message on ``topic`` says all it asks without a payload (an empty one is
        otherwise a retained command being cleared: nothing runs)."""
        return False

    def settled(self, events: list[ev.Event], document: dict[str, Any] | None) -> None:
        """The game thread caught up: its ``events`` and the state document now (None before the
        first deck). Publish from them without waiting."""

    def connected(self) -> None:
        """The link listens again after a connect (paho's thread)."""

    def tick(self) -> None:
        """About once a second while connected (paho's thread); quick."""

    def note(self, text: str) -> None:
        """Bad input from the broker: one line, then a count (the link's noise)."""
        self.link.noise.note(f"{self.what} input", f"{self.what}: {text}")

    def text(self, payload: bytes, what: str, limit: int) -> str:
        """``payload`` as text of at most ``limit`` bytes of UTF-8 (else :class:`InputError`)."""
        return decode_text(payload, what, max_bytes=limit)

    def run(self, request: dict[str, Any], then: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Hand ``request`` to the one command path; ``then(reply)`` once it is answered (on the thread
        that answers it). A refusal is logged there, as for every surface. With :data:`MAX_PENDING`
        commands waiting already, it is dropped instead (a note: one line, then a count)."""
        with self._count:
            full = self._pending >= MAX_PENDING
            if full:
                self.dropped += 1
            else:
                self._pending += 1
                self.most_pending = max(self.most_pending, self._pending)
        if full:
            self.link.noise.note(
                f"{self.what} flood",
                f"{self.what}: dropped a command ({show_value(request.get('command'), 40)}): {MAX_PENDING} of its "
                "commands are waiting for the game already (a flood: the game answers those in order)",
            )
            return
        try:
            reply = self.commands.handle(request)
        except BaseException:
            self._answered_one()
            raise
        reply.add_done_callback(lambda done: self._answered_one())
        if then is not None:
            reply.add_done_callback(lambda done: self._then(then, done.result()))

    def _answered_one(self) -> None:
        with self._count:
            self._pending -= 1

    def _then(self, then: Callable[[dict[str, Any]], None], reply: dict[str, Any]) -> None:
        try:
            then(reply)
        except Exception:  # the game thread may be the one answering: it must go on
            log.exception("%s: handling a reply failed", self.what)

    @property
    def document(self) -> dict[str, Any] | None:
        """The newest state document handed over (any thread)."""
        with self.lock:
            return self._document

    # -- wiring ----------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe, and listen to the game and the link."""
        for topic in self._topics:
            self.link.on_topic(topic, self._receive)
        self.link.connect_hooks.append(self.connected)
        self.link.tick_hooks.append(self.tick)
        self.daemon.on_settled.append(self._settled)

    def stop(self) -> None:
        """Unsubscribe and let go of the hooks; after a clean stop, publish the outputs as the
        stopped prop leaves them (the link, stopped after this, sends it first)."""
        for topic in self._topics:
            self.link.on_topic(topic, None)
        _discard(self.link.connect_hooks, self.connected)
        _discard(self.link.tick_hooks, self.tick)
        _discard(self.daemon.on_settled, self._settled)
        document = self.document
        if document is not None and document.get("outputs") and not self.daemon.running():
            self.settled([], {**document, "outputs": self.daemon.board.outputs.states()})

    def _settled(self, events: list[ev.Event], module: BaccaratModule) -> None:
        if not events:  # only frames changed (a card turned): the state did not
            return
        document = self.commands.document() if module.deck is not None else None
        if document is not None:
            with self.lock:
                self._document = document
        self.settled(events, document)

    def _receive(self, topic: str, payload: bytes, retained: bool) -> None:
        if retained:
            self.note(
                f"ignored a retained message on {show_value(topic, 80)}: a command runs once, never again at "
                f"each start or reconnect (clear it with: mosquitto_pub -r -n -t {show_value(topic, 80)})"
            )
            return
        if not payload and not self.complete(topic):  # a retained command being cleared
            log.debug("%s: ignored an empty message on %s", self.what, topic)
            return
        try:
            self.receive(topic, payload)
        except InputError as error:
            self.note(f"{show_value(topic, 80)}: {error}; ignored")


def _discard(hooks: list[T], hook: T) -> None:
    """``hook`` out of ``hooks``, if it is there."""
    if hook in hooks:
        hooks.remove(hook)
