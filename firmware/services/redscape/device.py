"""The prop as a node-redscape device on the prop's MQTT link (the messages: :mod:`.messages`).

- in: ``ToDevice/<id>`` and ``ToDevice/All`` (paho's thread), each command one request to the one
  command path;
- out: the report on ``FromDevice/<id>`` (retained) whenever it changes, again once each command
  ran (as node-redscape's props answer every message), at each connect, and after
  ``refresh_seconds`` (10) without one.

**A Node-RED that starts later.** node-redscape's prop flows publish nothing at start: each
stores its own description of the prop (``"state": "UNSOLVED"``) in its global context, and
subscribes to ``FromDevice/<id>``. Where that subscription is made when Node-RED connects (the
Button flow's), the retained report arrives first and is overwritten by the flow's own
``UNSOLVED``; the refresh puts it right within ``refresh_seconds``, and a flow that asks with
``{"command": "STATUS"}`` once it has stored its description gets the report at once (a
``STATUS`` is answered like any command).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baccarat_core import events as ev
from baccarat_core import strict
from firmware.plugin import Convention

from . import ALL
from .messages import parse_command, report

if TYPE_CHECKING:
    from firmware.plugin import Link, Prop

    from . import RedscapeSettings


class RedscapeDevice(Convention):
    """``ToDevice/<id>``, ``ToDevice/All`` in; ``FromDevice/<id>`` out (see the module).

    Node-RED's RESET for every device, then SOLVE for this one, handed over as the broker hands
    them (the link needs no broker for that):

    >>> from firmware.app import build_daemon, close_daemon, mock_pin_factory
    >>> from firmware.config import load_config
    >>> from firmware.devices.displays import open_dummy_device
    >>> from firmware.room.commands import GameMaster
    >>> from firmware.broker.link import Link
    >>> from firmware.broker.settings import MqttConfig
    >>> from firmware.plugin import Prop
    >>> from firmware.services.redscape import RedscapeSettings
    >>> config = load_config()
    >>> daemon = build_daemon(config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device)
    >>> link = Link(MqttConfig(host="127.0.0.1"), "doc", will=("doc/status", "offline"))
    >>> device = RedscapeDevice(Prop(daemon, GameMaster(daemon), config), link, RedscapeSettings("baccarat"))
    >>> device.start()
    >>> daemon.start()
    >>> link.deliver("ToDevice/All", b'{"command": "RESET"}')
    >>> link.deliver("ToDevice/baccarat", b'{"id": "baccarat", "command": "SOLVE"}')
    >>> daemon.wait_idle()
    >>> daemon.module.solved
    True
    >>> daemon.stop()
    >>> device.stop()
    >>> close_daemon(daemon)
    """

    what = "redscape"

    def __init__(
        self, prop: Prop, link: Link, settings: RedscapeSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(prop, link)
        self.id = settings.id
        self.refresh = settings.refresh
        #: What the refresh is timed on (a test's own clock).
        self.clock = clock
        self._sent = float("-inf")  # clock() of the last report handed to the link
        self.states = settings.states
        self.outputs = settings.outputs
        self.topic = f"FromDevice/{self.id}"
        self.listen(f"ToDevice/{self.id}")
        self.listen(f"ToDevice/{ALL}")
        self._report: str | None = None  # the newest report
        self._reports = 0  # reports published so far

    # -- in (paho's thread) -----------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> None:
        """One command through the one command path; a report answers it (the one its events
        made, or, when it changed nothing, the report again)."""
        request = parse_command(payload, self.outputs)
        with self.lock:
            before = self._reports
        self.run(request, lambda reply: self._answered(reply, before))

    def _answered(self, reply: dict[str, Any], before: int) -> None:
        if reply["command"] == "status" and reply["ok"]:
            self._publish(reply["result"], force=True)  # the state as of now, even between events
            return
        with self.lock:
            answered = self._reports != before
        if not answered:
            self._send()

    # -- out ---------------------------------------------------------------------------
    def settled(self, events: list[ev.Event], document: dict[str, Any] | None) -> None:
        """The report, when it changed (the game thread: only hands a string to the link)."""
        if document is not None:
            self._publish(document, force=False)

    def connected(self) -> None:
        """After each connect: the newest report."""
        self._send()

    def tick(self) -> None:
        """The report again once ``refresh`` seconds passed without one (paho's thread)."""
        if self.refresh and self.clock() - self._sent >= self.refresh:
            self._send()

    def _publish(self, document: dict[str, Any], *, force: bool) -> None:
        text = strict.dumps(report(self.id, document, self.states))
        with self.lock:
            changed = text != self._report
            self._report = text
        if changed or force:
            self._send()

    def _send(self) -> None:
        """The newest report, if the broker listens (otherwise the connect sends it). Under the lock:
        an older report never overtakes a newer one on its way to the link."""
        with self.lock:
            if self._report is None or not self.link.listening.is_set():
                return
            self._reports += 1
            self._sent = self.clock()
            self.link.publish_latest(self.topic, self._report, retain=True)
