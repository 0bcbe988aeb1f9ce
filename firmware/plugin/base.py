"""The plugin's base classes: :class:`Service` (a room system), :class:`Running` (what its start
leaves running) and :class:`Prop` (what its start is given). Import them from :mod:`firmware.plugin`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from baccarat_core.records import record
from firmware.config.findings import Finding
from firmware.config.sections import Key, PinUse, Section
from firmware.errors import ConfigError

if TYPE_CHECKING:
    from dataclasses import KW_ONLY

    from gpiozero.pins import Factory

    from firmware.config.model import Config
    from firmware.game.daemon import Daemon
    from firmware.plugin.hooks import HookRunner
    from firmware.room.command_table import CommandSpec
    from firmware.room.commands import GameMaster
    from firmware.web.extension import ExtensionFactory

log = logging.getLogger("baccarat")

__all__ = ["Finding", "Key", "PinUse", "Prop", "Running", "Section", "Service"]


class Running:
    """What a started service leaves running: ``stop()`` ends it (after the game stopped).

    ``value`` is what other services may use (:meth:`Prop.service`): the MQTT connection, the
    history keeper.
    """

    def __init__(self, stop: Callable[[], None], value: Any = None) -> None:
        self._stop = stop
        self.value = value

    def stop(self) -> None:
        """End the service: close its sockets, threads and files."""
        self._stop()


@record(frozen=False, eq=False, repr=False)
class Prop:
    """What a service gets at its start: the prop to listen to and command, and its neighbours.

    - ``daemon``: its hooks (``on_handled``, ``on_shown``, ``on_frame``, ``on_settled``, see
      :mod:`firmware.game.daemon`) and ``board.outputs``; never call the game from another thread
      except through ``commands``;
    - ``commands``: the one command path (:class:`~firmware.room.commands.GameMaster`):
      ``handle(request)`` runs a request as every surface does, ``document()`` is the state
      document;
    - ``config``: the core config (``outputs``, ``limits``, ``timing``, ``source``...);
    - ``simulate``: the simulator on a PC (``pin_driver`` presses its buttons, ``pin_factory``
      makes its pins).
    """

    daemon: Daemon
    commands: GameMaster
    config: Config
    _: KW_ONLY
    simulate: bool = False
    pin_factory: Factory | None = None
    pin_driver: Any = None

    def __post_init__(self) -> None:
        #: The started services' values, by name (:attr:`Running.value`).
        self.running: dict[str, Any] = {}
        #: The third parties' hook runners, by service name (:mod:`firmware.plugin.hooks`).
        self.plugins: dict[str, HookRunner] = {}
        self._console: list[ExtensionFactory] | None = []

    def extend_console(self, factory: ExtensionFactory) -> bool:
        """Add to the web console: ``factory(host)`` makes a :class:`~firmware.web.extension.ConsoleExtension`
        (routes on its port, work on its event loop) when the console is made, on its thread once
        the game is ready. False, with one log line, once the console has taken its extensions
        (call it from a service's ``start`` whose ``order`` is below the web service's 50)."""
        if self._console is None:
            log.warning("console extension %r refused: the console has started; start the service before it", factory)
            return False
        self._console.append(factory)
        return True

    def console_extensions(self) -> list[ExtensionFactory]:
        """The factories handed over so far, for the console (it takes them once: later ones are refused)."""
        factories, self._console = self._console or [], None
        return factories

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until every third-party plugin's queued hooks have run (tests, tools); False when
        one had not caught up within ``timeout`` seconds."""
        return all(runner.drain(timeout) for runner in list(self.plugins.values()))

    def service(self, name: str) -> Any:
        """What the service ``name`` shares (its :attr:`Running.value`), or None when it does not run."""
        return self.running.get(name)

    def settings(self, name: str) -> Any:
        """The settings the config gives the service ``name``, or None when it has none."""
        return self.config.settings.get(name)


class Service:
    """A room system, declared as a class (one instance per process).

    Class attributes:

    - ``name``: the entry point's name, and the config section's unless ``section`` says otherwise;
    - ``section``: the config table it reads (``""``: ``name``; None: no section). Several services
      may read one table, each its own keys (Home Assistant and Room 2.0 add theirs to ``[mqtt]``);
    - ``keys``: its keys (:class:`~firmware.config.sections.Key`): type, default, limits, help, secret;
    - ``always``: configured even when the file has no such section (read with the defaults);
      otherwise the section's presence turns the service on;
    - ``after``: services to start before this one (it finds them with :meth:`Prop.service`);
    - ``needs``: services that must be configured with it (a section of its own without theirs is a
      config error naming the table to add: ``[m3]`` rides on ``[mqtt]``'s connection);
    - ``order``: where it starts among the others (lower first; third parties after the prop's own);
    - ``title`` and ``docs`` (the page of the docs site that explains it);
    - ``error``: the :class:`~firmware.errors.ConfigError` its section's problems raise;
    - ``reader``: the function that makes its settings record from the checked values.

    Methods, each with a default that does nothing: :meth:`configure` (checks across keys, and the
    settings record), :meth:`describe` (``check-config``), :meth:`doctor`, :meth:`gpios`,
    :meth:`groups`, :meth:`commands`, :meth:`unit` and :meth:`start`.

    A service that keeps the kinds of the events the players saw, started on a prop of mock pins
    and dummy displays as the simulator runs it:

    >>> from firmware.plugin import Key, Prop, Running, Service
    >>> from firmware.app import build_daemon, close_daemon, mock_pin_factory
    >>> from firmware.config import load_config
    >>> from firmware.devices.displays import open_dummy_device
    >>> from firmware.room.commands import GameMaster
    >>> class Seen(Service):
    ...     name = "seen"
    ...     keys = (Key("most", int, 100, help="how many events to keep"),)
    ...     def describe(self, settings):
    ...         return [f"Seen: the last {settings['most']} events"]
    ...     def start(self, prop, settings):
    ...         seen = []
    ...         def keep(events, module):
    ...             seen.extend(event.kind for event in events)
    ...             del seen[: -settings["most"]]
    ...         prop.daemon.on_settled.append(keep)
    ...         return Running(seen.clear, seen)
    >>> config = load_config()
    >>> daemon = build_daemon(config, pin_factory=mock_pin_factory(), device_factory=open_dummy_device)
    >>> prop = Prop(daemon, GameMaster(daemon), config)
    >>> running = Seen().start(prop, {"most": 100})
    >>> daemon.start()
    >>> prop.commands.handle({"command": "force_solve"}).result(5)["ok"]
    True
    >>> daemon.wait_idle()
    >>> "solved" in running.value
    True
    >>> daemon.stop()
    >>> running.stop()
    >>> close_daemon(daemon)
    """

    name: ClassVar[str] = ""
    section: ClassVar[str | None] = ""
    title: ClassVar[str] = ""
    keys: ClassVar[tuple[Key, ...]] = ()
    always: ClassVar[bool] = False
    after: ClassVar[tuple[str, ...]] = ()
    needs: ClassVar[tuple[str, ...]] = ()
    order: ClassVar[int] = 100
    docs: ClassVar[str] = ""
    error: ClassVar[type[ConfigError]] = ConfigError
    #: ``reader(values, section)``: the settings record from the checked values (what the default
    #: :meth:`configure` returns; None: the values themselves).
    reader: ClassVar[Callable[[dict[str, Any], Section], Any] | None] = None

    @property
    def table(self) -> str | None:
        """The config table this service reads (None: none)."""
        return None if self.section is None else (self.section or self.name)

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> Any:
        """The settings the service runs with, from its keys' checked ``values``: a record, or the
        dict itself. Check here what spans keys (``section.fail(key, problem)`` names the key),
        and what spans the core ``config`` (its outputs, say). By default: :attr:`reader`'s record."""
        reader = type(self).reader
        return values if reader is None else reader(values, section)

    def describe(self, settings: Any) -> list[str]:
        """Its lines in ``check-config`` (secrets never shown)."""
        return []

    def doctor(self, settings: Any, host: Any) -> list[Finding]:
        """Its lines in ``baccarat doctor`` (``host``: :class:`firmware.doctor.Host`, the machine)."""
        return []

    def gpios(self, settings: Any) -> list[PinUse]:
        """The GPIOs it takes (checked with every other part's: a pin used twice is a config error)."""
        return []

    def groups(self, settings: Any) -> list[str]:
        """The device groups its user needs (``audio`` for a sound card): the unit's
        ``SupplementaryGroups=``, and what ``doctor`` checks."""
        return []

    def commands(self) -> Sequence[CommandSpec]:
        """The commands it adds to the one command path (every surface can send them)."""
        return ()

    def unit(self, settings: Any) -> dict[str, str]:
        """What it needs from the systemd unit beyond the prop's own settings (``install-service.sh``
        adds them): ``{"AmbientCapabilities": "CAP_NET_BIND_SERVICE"}`` for a port below 1024."""
        return {}

    def start(self, prop: Prop, settings: Any) -> Running | None:
        """Attach to ``prop`` and start (before the game thread does, so the hooks see its first
        events); None when there is nothing to stop. An exception here is one log line, and the
        prop runs on without this service."""
        return None
