"""What the MQTT service keeps across restarts: ``mqtt.json`` beside the state file.

- **The events' ``seq``** goes on from one run to the next: a consumer that drops a ``seq`` it
  has seen (a QoS 1 duplicate) never drops a new run's events. Numbers are reserved in blocks of
  :data:`SEQ_BLOCK`: the file says the highest one a run may have used, written once at the
  first event of a run and once more each :data:`SEQ_BLOCK` events, never one write per event
  (an SD card is spared). The next run starts above it, so after a ``kill -9`` or a power cut
  ``seq`` skips ahead (at most :data:`SEQ_BLOCK`), never back.
- **The identity**: the client id the prop first ran with on these topics. Home Assistant's
  device is named by it (:mod:`firmware.services.home_assistant`), so that renaming
  ``client_id`` leaves the device where it was instead of making a second one that mirrors the
  prop. A new ``topic_prefix`` is another device's topics: the identity follows ``client_id``
  then.

Without a state file (``[state] file = ""``) nothing is kept: ``seq`` starts at 1 at each start
and the identity is ``client_id``. A file that cannot be read or written is one log line, and the
prop goes on as without one.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "mqtt.json"
>>> first = Memory(path, client_id="baccarat", topic_prefix="bomb/baccarat")
>>> [first.next_seq() for _ in range(3)]
[1, 2, 3]
>>> again = Memory(path, client_id="casino-7", topic_prefix="bomb/baccarat")
>>> again.next_seq(), again.identity
(1001, 'baccarat')
>>> import shutil; shutil.rmtree(path.parent)
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

from baccarat_core import BaccaratError, strict
from baccarat_core.numbers import show_value
from firmware.plugin import write_atomic

log = logging.getLogger("baccarat.mqtt")

#: The file's name, in the state file's directory.
FILE = "mqtt.json"
#: Sequence numbers reserved with each write of the file.
SEQ_BLOCK = 1000
#: Largest file read (a real one is under 200 bytes).
MAX_BYTES = 4096
#: Largest ``seq`` kept: beyond it (after 2**53 events, never) the count starts again at 1.
MAX_SEQ = 2**53 - SEQ_BLOCK


class Memory:
    """``seq`` and the identity across restarts, in ``path`` (None: nothing kept). See the module."""

    def __init__(self, path: Path | None, *, client_id: str, topic_prefix: str) -> None:
        self.path = path
        self.topic_prefix = topic_prefix
        data = self._read()
        same_topics = data.get("topic_prefix") == topic_prefix
        identity = data.get("identity")
        #: The client id the prop first ran with on these topics (Home Assistant's device).
        self.identity: str = identity if same_topics and isinstance(identity, str) and identity else client_id
        seq = data.get("seq")
        self._seq = seq if isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ else 0
        self._reserved = self._seq  # the highest seq the file allows this run to use
        self._lock = threading.Lock()
        self._failed = False

    def next_seq(self) -> int:
        """The next event's ``seq`` (the out thread): the file is written when a new block begins."""
        with self._lock:
            self._seq = self._seq + 1 if self._seq < MAX_SEQ else 1
            if self._seq > self._reserved or self._seq == 1:
                self._reserved = self._seq + SEQ_BLOCK - 1
                self._write()
            return self._seq

    def _read(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        except FileNotFoundError:
            return {}
        except OSError as error:
            log.warning("mqtt: %s cannot be read (%s): seq starts at 1", self.path, error.strerror or error)
            return {}
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                log.warning("mqtt: %s is not a regular file: it is left alone, seq starts at 1", self.path)
                return {}
            text = os.read(fd, MAX_BYTES + 1)
        except OSError as error:
            log.warning("mqtt: %s cannot be read (%s): seq starts at 1", self.path, error.strerror or error)
            return {}
        finally:
            os.close(fd)
        try:
            data = strict.loads(text, FILE, max_bytes=MAX_BYTES)
        except BaccaratError as error:
            log.warning("mqtt: %s is ignored (%s): seq starts at 1", self.path, error)
            return {}
        if not isinstance(data, dict):
            log.warning("mqtt: %s is ignored (%s is not an object): seq starts at 1", self.path, show_value(data))
            return {}
        return data

    def _write(self) -> None:
        """The file as of now, atomically (temporary file, fsync, rename, fsync of the directory)."""
        if self.path is None:
            return
        text = json.dumps({"seq": self._reserved, "identity": self.identity, "topic_prefix": self.topic_prefix})
        try:
            write_atomic(self.path, text)
        except OSError as error:
            if not self._failed:  # once: the events go on being published
                log.warning(
                    "mqtt: %s cannot be written (%s): after a restart seq may repeat",
                    self.path,
                    error.strerror or error,
                )
            self._failed = True
            return
        self._failed = False
