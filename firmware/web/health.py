"""Is the game running? What the controllers' health answers (``/status``, ``/enable_status``,
``/json``) ask before they answer from the state document.

The console's thread answers from the newest state document, which a frozen game thread (a hook
that blocks, a display write that hangs) leaves as it was: a controller polling ``/status`` saw a
healthy prop. Here the game thread is asked to come round (an empty call through its queue, the
same path every command takes); when it has not answered for :data:`STALE_SECONDS` the answer is
``503`` with the reason. An idle game thread sleeps without a timer and answers at once, so it
is never taken for a frozen one; the question is asked only when a health answer is wanted and
the last answer is older than :data:`STALE_SECONDS` (one question in flight at most).

The service manager's watchdog is the other health answer: it is pinged from the game thread
itself (:mod:`firmware.system.sdnotify`), so a frozen game stops its pings and systemd restarts
the prop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: The game thread must have come round within this many seconds for the prop to be healthy.
STALE_SECONDS = 3.0
#: The controllers' answers that say how the prop is (with the right token): ``503`` when it is not.
HEALTH_PATHS = frozenset({"/status", "/enable_status", "/json"})


class GameHealth:
    """Asks ``probe()`` (a future the game thread completes when it comes round) and says whether
    the game answered within :attr:`stale` seconds."""

    def __init__(
        self,
        probe: Callable[[], Future[Any]] | None,
        *,
        stale: float = STALE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.probe = probe
        self.stale = stale
        self.clock = clock
        self._answered: float | None = None
        self._asked: tuple[float, Future[Any]] | None = None

    async def problem(self) -> str | None:
        """Why the game is not healthy, in one line, or None (waits up to :attr:`stale` seconds for
        an answer when the last one is older)."""
        if self.probe is None:
            return None
        now = self.clock()
        if self._answered is not None and now - self._answered < self.stale:
            return None
        if self._asked is None or self._asked[1].done():
            self._asked = (now, self._ask())
        asked, future = self._asked
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), max(0.0, asked + self.stale - now))
        except TimeoutError:
            return (
                f"the game has not come round for {self.clock() - asked:.0f} s (frozen: a hook or a device blocks it)"
            )
        except Exception:  # the game thread has stopped: calls fail at once
            return "the game is not running"
        return None

    def _ask(self) -> Future[Any]:
        assert self.probe is not None
        future = self.probe()
        future.add_done_callback(self._came_round)
        return future

    def _came_round(self, future: Future[Any]) -> None:
        if not future.cancelled() and future.exception() is None:
            self._answered = self.clock()
