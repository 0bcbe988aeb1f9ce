"""Hooks that cannot freeze the game: a third party's hooks run on a thread of their own.

The daemon calls its hooks (``on_handled``, ``on_shown``, ``on_frame``, ``on_settled``) on the
game thread, between a chip press and the next frame. The prop's own services hand their work
to threads of their own there, and their tests hold them to it. A service installed from
another distribution is not trusted to: each such plugin gets a :class:`HookRunner`, and the
hooks it adds through :attr:`Prop.daemon <firmware.plugin.Prop.daemon>` are queued to that
runner's thread instead of called. What the game thread pays for a plugin's hook is an append
to a queue.

- **Slow**: a call that runs past :data:`SLOW_SECONDS` is one warning naming the plugin and
  the hook, once per hook (not once per event), while the game goes on.
- **Behind**: a plugin keeps at most :data:`BACKLOG` calls waiting; past that, the oldest
  waiting call is dropped, with one warning when the dropping starts and one line with the
  count when the plugin has caught up.
- **Failing**: a hook that raises anything (``SystemExit`` and ``KeyboardInterrupt`` included)
  is one error line naming the plugin, the hook and the exception, with its traceback once;
  the plugin is then disabled (no more calls), and the prop goes on.

>>> import logging, threading
>>> runner = HookRunner("demo", logging.getLogger("doc"))
>>> seen = []
>>> hooks = []
>>> guarded = GuardedHooks(hooks, runner, "on_shown")
>>> guarded.append(seen.append)
>>> for hook in hooks:  # what the game thread does: queue, not call
...     hook("a chip")
>>> runner.drain(5)
True
>>> seen
['a chip']
>>> runner.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

#: A call that runs longer than this is one warning naming the plugin and its hook.
SLOW_SECONDS = 1.0
#: The calls a plugin may have waiting; past this, the oldest waiting call is dropped.
BACKLOG = 1000
#: The daemon's hook lists a plugin's hooks go to.
HOOKS = ("on_handled", "on_shown", "on_frame", "on_settled")


class HookRunner:
    """One plugin's thread, and the calls that wait for it (see the module)."""

    def __init__(self, name: str, log: logging.Logger, *, backlog: int = BACKLOG) -> None:
        self.name = name
        self._log = log
        self._backlog = backlog
        self._calls: deque[tuple[str, Callable[..., None], tuple[Any, ...]]] = deque()
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy: tuple[str, float] | None = None  # the hook running, and since when
        self._warned: set[str] = set()  # hooks said to be slow
        self._dropped = 0
        self._closed = False
        #: True once a hook raised (or the plugin was given up on): no more calls.
        self.disabled = False

    def call(self, hook: str, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        """Queue ``fn(*args)`` for the plugin's thread (the game thread calls this)."""
        with self._lock:
            if self.disabled or self._closed:
                return
            self._check_slow(time.monotonic())
            if len(self._calls) >= self._backlog:
                self._calls.popleft()
                self._dropped += 1
                if self._dropped == 1:
                    self._log.warning(
                        "plugin %s is %d calls behind (its %s is running); the oldest waiting calls are dropped",
                        self.name,
                        self._backlog,
                        self._busy[0] if self._busy else "thread",
                    )
            self._calls.append((hook, fn, args))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=f"plugin-{self.name}", daemon=True)
                self._thread.start()
            self._lock.notify()

    def disable(self, why: str, *, say: bool = True) -> None:
        """Call nothing more (``why`` is logged once, unless ``say`` is False: the caller said it)."""
        with self._lock:
            if not self.disabled:
                self.disabled = True
                self._calls.clear()
                if say:
                    self._log.error("plugin %s is disabled (%s); the prop goes on without it", self.name, why)
            self._lock.notify_all()

    def drain(self, timeout: float) -> bool:
        """Wait until every queued call has run (tests, a clean stop); False on ``timeout``."""
        end = time.monotonic() + timeout
        with self._lock:
            while self._calls or self._busy is not None:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def close(self) -> None:
        """Stop the thread once the calls queued so far have run (it is a daemon thread: a stuck
        hook never holds up the prop's exit)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def _check_slow(self, now: float) -> None:
        busy = self._busy
        if busy is not None and now - busy[1] >= SLOW_SECONDS and busy[0] not in self._warned:
            self._warned.add(busy[0])
            self._log.warning(
                "plugin %s: its %s hook has run for %.1f s; the game goes on, the plugin's events wait",
                self.name,
                busy[0],
                now - busy[1],
            )

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._calls and not self._closed and not self.disabled:
                    self._lock.wait()
                if not self._calls or self.disabled:
                    return
                hook, fn, args = self._calls.popleft()
                self._busy = (hook, time.monotonic())
            try:
                fn(*args)
            except BaseException as error:  # noqa: BLE001 - SystemExit in a hook costs the plugin only
                self._log.error(
                    "plugin %s: its %s hook raised %s: %s",
                    self.name,
                    hook,
                    type(error).__name__,
                    error,
                    exc_info=(type(error), error, error.__traceback__),
                )
                self.disable(f"its {hook} hook raised {type(error).__name__}")
            with self._lock:
                self._check_slow(time.monotonic())
                self._busy = None
                if not self._calls and self._dropped:
                    self._log.warning("plugin %s caught up; %d calls were dropped", self.name, self._dropped)
                    self._dropped = 0
                self._lock.notify_all()


class _Queued:
    """A plugin's hook as the daemon's list holds it: calling it queues the call."""

    __slots__ = ("fn", "hook", "runner")

    def __init__(self, runner: HookRunner, hook: str, fn: Callable[..., None]) -> None:
        self.runner = runner
        self.hook = hook
        self.fn = fn

    def __call__(self, *args: Any) -> None:
        self.runner.call(self.hook, self.fn, args)

    def __repr__(self) -> str:
        return f"<{self.hook} hook of plugin {self.runner.name}: {self.fn!r}>"


class GuardedHooks:
    """A daemon's hook list as a plugin sees it: what it appends is queued to its runner."""

    def __init__(self, hooks: list[Any], runner: HookRunner, hook: str) -> None:
        self._hooks = hooks
        self._runner = runner
        self._hook = hook

    def append(self, fn: Callable[..., None]) -> None:
        """Add ``fn``: the game thread will queue its calls to the plugin's thread."""
        self._hooks.append(_Queued(self._runner, self._hook, fn))

    def extend(self, fns: list[Callable[..., None]]) -> None:
        """Add each of ``fns``."""
        for fn in fns:
            self.append(fn)

    def remove(self, fn: Callable[..., None]) -> None:
        """Take ``fn`` out again (ValueError when it is not there, as a list's remove)."""
        for queued in self._hooks:
            if isinstance(queued, _Queued) and queued.runner is self._runner and queued.fn == fn:
                self._hooks.remove(queued)
                return
        raise ValueError(f"{fn!r} is not a hook of plugin {self._runner.name}")

    def _own(self) -> list[Callable[..., None]]:
        return [q.fn for q in self._hooks if isinstance(q, _Queued) and q.runner is self._runner]

    def __iter__(self) -> Iterator[Callable[..., None]]:
        return iter(self._own())

    def __len__(self) -> int:
        return len(self._own())

    def __contains__(self, fn: object) -> bool:
        return fn in self._own()


class DaemonView:
    """The daemon as a plugin's :class:`~firmware.plugin.Prop` shows it: its hook lists are
    :class:`GuardedHooks`; everything else is the daemon's own."""

    def __init__(self, daemon: Any, runner: HookRunner) -> None:
        self._daemon = daemon
        self._guarded = {name: GuardedHooks(getattr(daemon, name), runner, name) for name in HOOKS}

    def __getattr__(self, name: str) -> Any:
        guarded = self.__dict__.get("_guarded", {})
        if name in guarded:
            return guarded[name]
        return getattr(self._daemon, name)


def run_bounded(what: str, fn: Callable[[], Any], seconds: float) -> tuple[str, Any]:
    """Run ``fn`` on a thread of its own for at most ``seconds``: ``("ok", its result)``,
    ``("error", the exception)`` when it raised anything (``SystemExit`` included), or
    ``("timeout", None)`` when it had not returned in time (the thread is left to finish on its
    own: a daemon thread, which never holds up the prop's exit). ``what`` names the thread."""
    outcome: list[tuple[str, Any]] = []

    def target() -> None:
        try:
            outcome.append(("ok", fn()))
        except BaseException as error:  # noqa: BLE001 - SystemExit in a plugin costs the plugin only
            outcome.append(("error", error))

    thread = threading.Thread(target=target, name=f"plugin-{what}", daemon=True)
    thread.start()
    thread.join(seconds)
    return outcome[0] if outcome else ("timeout", None)
