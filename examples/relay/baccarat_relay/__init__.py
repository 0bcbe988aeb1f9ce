"""Relays the prop's game events to a webhook: each event of the kinds asked for, POSTed as JSON.

A third party's room service, written against the public plugin API (:mod:`firmware.plugin`)
alone; docs/develop/tutorial.md builds it step by step.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from concurrent.futures import Future
from typing import Any
from urllib.parse import urlsplit

from firmware.plugin import (
    WARN,
    CommandError,
    CommandSpec,
    Event,
    Finding,
    Key,
    Prop,
    Running,
    Section,
    Service,
    within,
)

__all__ = ["Relay", "Sender"]

log = logging.getLogger("baccarat.relay")

#: The kinds relayed when the section does not say.
DEFAULT_EVENTS = ["solved", "strike", "exploded"]


def _url_problem(value: str) -> str | None:
    """an http:// or https:// URL"""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL"
    return None


def _events_problem(value: list[Any]) -> str | None:
    """a list of event kinds (`solved`, `strike`...)"""
    if value and all(isinstance(kind, str) and kind for kind in value):
        return None
    return "must be a list of event kinds in quotes"


def _site(url: str) -> str:
    """``https://example.com``: the URL without its path, which may hold a secret."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class Sender:
    """POSTs JSON documents to the webhook; says when it stops answering, and when it answers again."""

    def __init__(self, url: str, token: str, timeout: float) -> None:
        self.url = url
        self.token = token
        self.timeout = timeout
        #: How many documents the webhook took.
        self.sent = 0
        self._failing = False
        self._lock = threading.Lock()

    def post(self, document: dict[str, Any]) -> int:
        """POST ``document``; the HTTP status, or 0 when the webhook could not be reached."""
        request = urllib.request.Request(self.url, data=json.dumps(document).encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status = int(response.status)
        except urllib.error.HTTPError as error:
            status = error.code
        except (OSError, ValueError) as error:
            self._note(f"cannot reach {_site(self.url)} ({type(error).__name__}); events are dropped until it answers")
            return 0
        with self._lock:
            self.sent += 1
        self._note(None if status < 400 else f"{_site(self.url)} answered {status}")
        return status

    def _note(self, problem: str | None) -> None:
        """One line when the webhook starts failing, one when it works again: not one per event."""
        with self._lock:
            was, self._failing = self._failing, problem is not None
        if problem is not None and not was:
            log.warning("relay: %s", problem)
        elif problem is None and was:
            log.info("relay: %s answers again", _site(self.url))


class Relay(Service):
    """``[relay] url``: each game event of the kinds in ``events`` is POSTed there as JSON."""

    name = "relay"
    title = "Webhook relay"
    keys = (
        Key("url", str, ..., check=_url_problem, help="where the events are POSTed"),
        Key("token", str, "", secret=True, help="sent as `Authorization: Bearer <token>` (default: none)"),
        Key("events", list, DEFAULT_EVENTS, check=_events_problem, help="the kinds of event relayed"),
        Key("timeout", (int, float), 5.0, check=within(0.5, 60), help="seconds a POST may take"),
    )

    def configure(self, values: dict[str, Any], section: Section, config: Any) -> dict[str, Any]:
        """A token goes only over https:// (or to this machine)."""
        parts = urlsplit(values["url"])
        if values["token"] and parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "::1", "localhost"):
            raise section.fail("token", "would be sent in the clear: use an https:// url")
        return {**values, "events": frozenset(values["events"])}

    def describe(self, settings: dict[str, Any]) -> list[str]:
        """``Webhook relay: solved, strike to https://example.com`` (never the path, nor the token)."""
        return [f"Webhook relay: {', '.join(sorted(settings['events']))} to {_site(settings['url'])}"]

    def doctor(self, settings: dict[str, Any], host: Any) -> list[Finding]:
        """A plain http:// webhook on another machine: anyone on the way reads the game."""
        if urlsplit(settings["url"]).scheme == "http":
            return [Finding(WARN, f"relay: {_site(settings['url'])} is plain http", "use an https:// url")]
        return []

    def commands(self) -> list[CommandSpec]:
        """``relay_test``: POST a test event now; the reply says what the webhook answered."""
        return [CommandSpec("relay_test", self.test, help="send the webhook a test event")]

    sender: Sender | None = None

    def start(self, prop: Prop, settings: dict[str, Any]) -> Running:
        """POST each settled event of the kinds asked for (the hook runs on the plugin's own thread)."""
        sender = Sender(settings["url"], settings["token"], settings["timeout"])
        wanted = settings["events"]

        def on_settled(events: list[Event], module: Any) -> None:
            for event in events:
                if event.kind in wanted:
                    sender.post(event.to_dict())

        prop.daemon.on_settled.append(on_settled)
        self.sender = sender
        return Running(lambda: None, sender)

    def test(self, master: Any, command: Any) -> Future[dict[str, Any]]:
        """The ``relay_test`` command: the POST runs on a thread of its own (the command's caller
        may be the console's event loop)."""
        done: Future[dict[str, Any]] = Future()
        sender = self.sender
        if sender is None:
            done.set_exception(CommandError("relay_test: the relay is not running"))
            return done

        def post() -> None:
            done.set_result({"status": sender.post({"event": "test"})})

        threading.Thread(target=post, name="relay-test", daemon=True).start()
        return done
