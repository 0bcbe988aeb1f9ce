"""The webhooks that must arrive: a small outbox on disk, beside the state file.

A solve webhook opens a room's next door, a strike's counts against the players, a bomb's
explosion ends the game: a ``solved``, ``strike`` or ``exploded`` delivery (:data:`DURABLE`) is
written here when the web thread takes it, and removed once the receiver answered or the retries
gave up. A prop that dies meanwhile (``kill -9``, a power cut, a clean stop) delivers it again at
its next start: at least once. Each delivery has an id (:func:`new_id`), sent as the
``Idempotency-Key`` header and, in a POST's body, as ``"id"``, the same at every attempt and after a
restart, so a receiver can drop a repeat. A ``reset`` is sent at most once: the game master does it
in front of the room, and a late one could land in the next game.

Bounded: at most :data:`MAX_ENTRIES` deliveries wait (beyond, the oldest is dropped: a line at the
1st, 10th, 100th ... drop),
and one older than :data:`MAX_AGE_SECONDS` at a start is dropped with one line (yesterday's solve
must not open today's door); so is one whose hook is no longer in the config. The file names a
hook by a digest of its method and URL, never the URL (its path may be a secret). A file that
cannot be read or written is one line; the deliveries go on from memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.plugin import write_atomic

from .settings import Webhook

log = logging.getLogger("baccarat.web")

#: The events whose webhooks are delivered at least once, across restarts.
DURABLE = frozenset({"solved", "strike", "exploded"})
#: Deliveries waiting at most; beyond, the oldest is dropped.
MAX_ENTRIES = 64
#: A delivery older than this at a start is dropped, not sent.
MAX_AGE_SECONDS = 3600.0
#: The header that carries a delivery's id.
HEADER = "Idempotency-Key"


def new_id() -> str:
    """A delivery's id: 128 random bits, hex."""
    return secrets.token_hex(16)


def hook_key(hook: Webhook) -> str:
    """How the file names ``hook``: a digest of its event, method and URL (the URL is not written)."""
    return hashlib.sha256(f"{hook.event} {hook.method} {hook.url}".encode()).hexdigest()[:24]


class Outbox:
    """The deliveries of :data:`DURABLE` events not yet answered, kept in ``path`` (or in memory)."""

    def __init__(self, path: Path | None, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._entries: dict[str, dict[str, Any]] = {}
        self._failed = False
        #: Deliveries dropped because :data:`MAX_ENTRIES` were waiting.
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._entries)

    def load(self, hooks: tuple[Webhook, ...]) -> list[tuple[Webhook, dict[str, Any], str]]:
        """The deliveries a previous run left, to send again: (hook, body, id) each, oldest first.
        Drops (one line each kind) the ones too old, for a hook no longer configured, or unreadable."""
        if self.path is None:
            return []
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError, RecursionError) as error:
            log.warning("webhook outbox %s cannot be read (%s): its deliveries are lost", self.path, _why(error))
            return []
        entries = document if isinstance(document, list) else []
        by_key = {hook_key(hook): hook for hook in hooks}
        now = self.clock()
        out: list[tuple[Webhook, dict[str, Any], str]] = []
        old = gone = bad = 0
        for entry in entries:
            if not _valid(entry):
                bad += 1
            elif now - entry["at"] > MAX_AGE_SECONDS:
                old += 1
            elif entry["hook"] not in by_key:
                gone += 1
            else:
                self._entries[entry["id"]] = entry
                out.append((by_key[entry["hook"]], entry["body"], entry["id"]))
        for count, why in (
            (old, f"older than {MAX_AGE_SECONDS / 60:g} minutes"),
            (gone, "for a webhook no longer in the config"),
            (bad, "that could not be read"),
        ):
            if count:
                log.warning("webhook outbox: %d undelivered webhook(s) %s dropped, not sent", count, why)
        if old or gone or bad:
            self._save()
        return out[-MAX_ENTRIES:]

    def add(self, hook: Webhook, body: dict[str, Any], delivery: str) -> None:
        """Keep one delivery until :meth:`done`; the oldest goes when :data:`MAX_ENTRIES` wait."""
        self._entries[delivery] = {"id": delivery, "hook": hook_key(hook), "at": self.clock(), "body": body}
        while len(self._entries) > MAX_ENTRIES:
            dropped = self._entries.pop(next(iter(self._entries)))
            self.dropped += 1
            if str(self.dropped).strip("0") == "1":  # the 1st, 10th, 100th ...: a dead receiver is a few lines
                log.warning(
                    "webhook outbox: %d deliveries wait; the oldest (%s) dropped (%d dropped so far)",
                    MAX_ENTRIES,
                    dropped["body"]["event"],
                    self.dropped,
                )
        self._save()

    def done(self, delivery: str) -> None:
        """The delivery was answered, or given up: not sent again."""
        if self._entries.pop(delivery, None) is not None:
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            if self._entries:
                write_atomic(self.path, json.dumps(list(self._entries.values())))
            else:
                self.path.unlink(missing_ok=True)
        except OSError as error:
            if not self._failed:
                log.warning(
                    "webhook outbox %s cannot be written (%s): a restart may lose a delivery", self.path, _why(error)
                )
            self._failed = True
            return
        self._failed = False


def _valid(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("id"), str)
        and isinstance(entry.get("hook"), str)
        and isinstance(entry.get("at"), int | float)
        and isinstance(entry.get("body"), dict)
        and isinstance(entry["body"].get("event"), str)
    )


def _why(error: BaseException) -> str:
    return getattr(error, "strerror", None) or type(error).__name__
