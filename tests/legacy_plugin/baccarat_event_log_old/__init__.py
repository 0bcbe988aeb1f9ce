# ruff: noqa: I001  - the old module names are not known to ruff as the project's own
"""A copy of examples/service as it was at ada7407 (before firmware.plugin), under another name:
the plugin API of that release must keep working for one more (tests/test_plugin_legacy.py).

A room service that writes each game event to a file, one JSON line each.

The whole plugin: a :class:`~firmware.services.Service` subclass with its config section's keys,
its check-config and doctor lines, one command, and what it starts and stops.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from firmware.findings import FAIL, OK, Finding
from firmware.room.command_table import Argument, CommandError, CommandSpec
from firmware.sections import Key, Section
from firmware.services import Prop, Running, Service

__all__ = ["EventLog"]


def _events_problem(value: list[Any]) -> str | None:
    if all(isinstance(name, str) and name for name in value):
        return None
    return "must be a list of event names in quotes"


def _note(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise CommandError("log_note_old: text must be 1-200 characters")
    return value.strip()


class Writer:
    """Appends lines to the file from a thread of its own: the game thread only queues them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="event-log", daemon=True)
        self._thread.start()

    def write(self, record: dict[str, Any]) -> None:
        """Queue one line (any thread)."""
        self._lines.put(json.dumps({"time": round(time.time(), 3), **record}))

    def close(self) -> None:
        """Write what is queued, then stop."""
        self._lines.put(None)
        self._thread.join(5)

    def _run(self) -> None:
        with open(self.path, "a", encoding="utf-8") as file:
            while (line := self._lines.get()) is not None:
                file.write(line + "\n")
                file.flush()


class EventLog(Service):
    """``[event_log] path``: each event the players saw, as a JSON line; ``log_note``: a note."""

    name = "event_log_old"
    title = "Event log"
    keys = (
        Key("path", str, ..., help="the file the lines are appended to"),
        Key("events", list, [], check=_events_problem, help="only these events (default: every event)"),
    )
    docs = "develop/services.md"

    def configure(self, values: dict[str, Any], section: Section, config: Any) -> dict[str, Any]:
        """The path, expanded; the events as a set (empty: all)."""
        return {"path": Path(values["path"]).expanduser(), "events": frozenset(values["events"])}

    def describe(self, settings: dict[str, Any]) -> list[str]:
        """``Event log: /var/lib/baccarat/events.jsonl (every event)``."""
        which = ", ".join(sorted(settings["events"])) or "every event"
        return [f"Event log: {settings['path']} ({which})"]

    def doctor(self, settings: dict[str, Any], host: Any) -> list[Finding]:
        """Whether the file's folder can be written."""
        folder = settings["path"].parent
        if os.access(folder, os.W_OK):
            return [Finding(OK, f"event log: {folder} is writable")]
        return [Finding(FAIL, f"event log: {folder} cannot be written", "choose another [event_log] path")]

    def commands(self) -> list[CommandSpec]:
        """``log_note <text>``: the game master's line in the log."""
        return [
            CommandSpec(
                "log_note_old",
                self.note,
                (Argument("text", _note, required=True),),
                rest="text",
                help="write a note in the event log",
            )
        ]

    def start(self, prop: Prop, settings: dict[str, Any]) -> Running:
        """Queue each settled event (game thread) for the writer's thread."""
        writer = Writer(settings["path"])
        wanted = settings["events"]

        def on_settled(events: list[Any], module: Any) -> None:
            for event in events:
                if not wanted or event.kind in wanted:
                    writer.write(event.to_dict())

        prop.daemon.on_settled.append(on_settled)
        self.writer = writer
        return Running(writer.close, writer)

    writer: Writer | None = None

    def note(self, master: Any, command: Any) -> Future[dict[str, Any]]:
        """The ``log_note`` command: the note goes into the file (any thread)."""
        done: Future[dict[str, Any]] = Future()
        if self.writer is None:
            done.set_exception(CommandError("log_note_old: the event log is not running"))
        else:
            self.writer.write({"event": "note", "text": command.text})
            done.set_result({"written": True})
        return done
