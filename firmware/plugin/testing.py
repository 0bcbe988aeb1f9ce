"""Testing fixtures for a room service's own tests: a pytest plugin, installed with the prop.

pytest loads it by itself wherever the prop is installed (the entry point ``baccarat`` of the
group ``pytest11``; ``-p no:baccarat`` turns it off). It gives one fixture, ``baccarat_prop``: call
it with a service and its config section, and it starts a prop on gpiozero's mock pins and dummy
displays with that service attached, as ``baccarat run`` attaches a plugin (its section checked as
``check-config`` checks it, its hooks on a thread of its own). Everything it started is stopped at
the end of the test.

.. code-block:: python

    def test_a_solve_reaches_the_plugin(baccarat_prop):
        prop = baccarat_prop(Relay(), {"url": "http://127.0.0.1:8080/hook"})
        prop.send({"command": "force_solve"})  # the reply document; the hooks have run
        prop.press("player")  # a button, pressed as a player presses it
        prop.fire(Strike("loss", "the round lost $26.00", 1))  # an event, through every hook
        assert prop.value.sent  # what the service's start shared (Running.value)

Its module loads nothing of the prop until a test asks for the fixture: a suite that never does
pays nothing for it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from baccarat_core.events import Event
    from firmware.config import Config
    from firmware.game.daemon import Daemon
    from firmware.plugin.base import Prop, Service
    from firmware.room.commands import GameMaster
    from firmware.simulator.pins import PinDriver

__all__ = ["PluginProp", "PropMaker", "baccarat_prop"]

#: The core's sections a test prop runs with over the reference build's config: fixed limits, the
#: first deck's colour, and deals shown at once (no card's pause: a test waits for no clock).
TEST_CORE: dict[str, dict[str, Any]] = {
    "timing": {"card_seconds": 0.0, "result_seconds": 0.0, "pacing": "quick"},
    "limits": {"mode": "fixed", "min": 25, "max": 1000},
    "deck": {"first_color": "red"},
}
#: How long a wait for the game, or for a plugin's hooks, may take before the test fails.
WAIT_SECONDS = 10.0


class PluginProp:
    """A running prop with one service attached (what ``baccarat_prop(...)`` returns).

    ``prop`` is the :class:`~firmware.plugin.Prop` the service was started with, ``value`` what
    its start shared (:attr:`Running.value <firmware.plugin.Running.value>`), ``settings`` what
    its :meth:`~firmware.plugin.Service.configure` made, ``events`` every event the game handled
    so far (in order).
    """

    def __init__(self, prop: Prop, service: Service, settings: Any, driver: PinDriver) -> None:
        self.prop = prop
        self.service = service
        self.settings = settings
        self.driver = driver
        self.events: list[Event] = []
        prop.daemon.on_handled.append(lambda events, module: self.events.extend(events))

    @property
    def daemon(self) -> Daemon:
        """The game's daemon (its hooks, its board)."""
        return self.prop.daemon

    @property
    def commands(self) -> GameMaster:
        """The one command path, as every surface sends commands."""
        return self.prop.commands

    @property
    def config(self) -> Config:
        """The core config the prop runs with."""
        return self.prop.config

    @property
    def value(self) -> Any:
        """What the service's start shared, or None (it returned no :class:`Running`, or failed)."""
        return self.prop.service(self.service.name)

    def kinds(self) -> list[str]:
        """The kinds of :attr:`events` (``["limits", "deck", "chip", ...]``)."""
        return [event.kind for event in self.events]

    def settle(self, timeout: float = WAIT_SECONDS) -> None:
        """Wait until the game has handled and shown everything queued so far, and the service's
        hooks have run for it (a third party's run on a thread of their own)."""
        self.daemon.wait_idle(timeout)
        if not self.prop.drain(timeout):
            raise AssertionError(f"the hooks of {self.service.name} had not run within {timeout:g} s")

    def send(self, request: Any, *, words: bool = False, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        """Send a command (a JSON object, JSON text, or words with ``words=True``) as every surface
        does; its reply document, once the hooks have run for what it did."""
        reply: dict[str, Any] = self.commands.handle(request, words=words).result(timeout)
        self.settle(timeout)
        return reply

    def press(self, name: str, seconds: float = 0.04) -> None:
        """Press and release the input ``name`` (``player``, ``banker``, ``tie``, ``player_pair``,
        ``banker_pair``, ``left``, ``right``, ``deal``) as a player does: on the board's own clock,
        so that ``seconds`` past the hold time is a hold; then :meth:`settle`."""
        self.driver.tap(name, seconds)
        self.settle()

    def fire(self, *events: Event) -> None:
        """Hand ``events`` to the hooks as the game hands its own (``on_handled``, ``on_shown``,
        ``on_settled``, on the game thread), whatever the module's state; then :meth:`settle`."""
        daemon = self.daemon
        daemon.call(lambda: daemon.emit(list(events))).result(WAIT_SECONDS)
        self.settle()


class PropMaker:
    """The ``baccarat_prop`` fixture: ``baccarat_prop(service, section)`` starts a prop with it."""

    def __init__(self) -> None:
        self._stops: list[Callable[[], None]] = []

    def configure(self, service: Service, section: dict[str, Any] | None = None, **core: dict[str, Any]) -> Any:
        """The settings ``service`` gets from ``section`` (its table's keys, as a TOML file gives
        them), checked as ``check-config`` checks them: a problem raises
        :class:`~firmware.plugin.ConfigError` naming the table and the key. ``core``: sections of the
        prop's own over the test's (``timing={...}``, ``outputs=[...]``)."""
        return self._settings(service, section, self._core(core))

    def __call__(
        self, service: Service, section: dict[str, Any] | None = None, *, seed: int = 1, **core: Any
    ) -> PluginProp:
        """Start a prop on mock pins and dummy displays with ``service`` attached (its section
        ``section``); ``seed`` makes its decks; ``core`` as for :meth:`configure`. A service that
        does not start fails the test with the line the prop logs."""
        from firmware.app import _start, build_daemon, close_daemon, mock_pin_factory
        from firmware.devices.displays import open_dummy_device
        from firmware.plugin.base import Prop
        from firmware.room.commands import GameMaster
        from firmware.simulator.pins import ManualClock, PinDriver
        from firmware.system.said import Said

        config = self._core(core)
        settings = self._settings(service, section, config)
        clock = ManualClock()
        factory = mock_pin_factory()
        daemon = build_daemon(
            config, pin_factory=factory, device_factory=open_dummy_device, rng=random.Random(seed), clock=clock
        )
        commands = GameMaster(daemon, default_limits=config.limits, commands=service.commands())
        prop = Prop(daemon, commands, config, pin_factory=factory)
        closers: list[Callable[[], None]] = []

        def stop() -> None:
            daemon.stop()
            for close in reversed(closers):
                close()
            close_daemon(daemon)
            factory.reset()

        self._stops.append(stop)
        under_test = PluginProp(prop, service, settings, PinDriver(daemon.board, clock=clock))
        said = Said(logging.ERROR)
        logging.getLogger("baccarat").addHandler(said)
        try:
            _start(service, prop, settings, closers)
        finally:
            logging.getLogger("baccarat").removeHandler(said)
        runner = prop.plugins.get(service.name)
        if (runner is not None and runner.disabled) or (runner is None and said.messages):
            pytest.fail(f"service {service.name} did not start: {'; '.join(said.messages) or 'see the log'}")
        daemon.start()
        if not daemon.ready.wait(WAIT_SECONDS):
            raise AssertionError(f"the prop did not get ready within {WAIT_SECONDS:g} s")
        under_test.settle()
        return under_test

    def close(self) -> None:
        """Stop every prop made: the game, then the services, then the pins and displays."""
        while self._stops:
            self._stops.pop()()

    @staticmethod
    def _core(core: dict[str, Any]) -> Config:
        import tomllib

        from firmware.config import DEFAULT_CONFIG, parse_config

        data = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
        for name, value in [*TEST_CORE.items(), *core.items()]:  # a table's keys over the table's
            known = data.get(name)
            data[name] = {**known, **value} if isinstance(known, dict) and isinstance(value, dict) else value
        return parse_config(data, source="<baccarat_prop>")

    @staticmethod
    def _settings(service: Service, values: dict[str, Any] | None, config: Config) -> Any:
        from firmware.config.sections import Section, read_keys

        table = service.table or service.name
        section = Section(table, values or {}, error=service.error, present=values is not None)
        settings = service.configure(read_keys(section, service.keys, finish=False), section, config)
        section.finish()
        return settings


@pytest.fixture
def baccarat_prop() -> Iterator[PropMaker]:
    """Start a prop with a service attached: ``baccarat_prop(service, section)`` (see the module)."""
    maker = PropMaker()
    yield maker
    maker.close()
