"""Finding the room services: the entry-point group ``baccarat.services``.

Every service, the prop's own included, is registered in ``pyproject.toml`` under
``[project.entry-points."baccarat.services"]``; one installed with pip into the same venv is found
the same way. A service that cannot be imported is one log line (:attr:`Services.broken`), and
the prop runs on without it. Run from a checkout that was never installed, the prop reads its own
entry points from that checkout's ``pyproject.toml``, so that they are written in one place.

>>> services = installed()
>>> [service.name for service in services.ordered()][:3]
['history', 'sound', 'control']
"""

from __future__ import annotations

import logging
import os
import sys
import tomllib
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import cast

from firmware.plugin.base import Service

from ..errors import ConfigError
from .indexed import Indexed

log = logging.getLogger("baccarat.services")

GROUP = "baccarat.services"
#: Where the prop's own services live (their entry points name classes in it).
OWN_PACKAGE = "firmware.services."
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
#: The prop's own distribution (its services are trusted to hand work over; see firmware.plugin.hooks).
OWN_DISTRIBUTION = "baccarat-prop"
#: How long a third party's import may take before the prop starts without it.
IMPORT_SECONDS = 10.0


class Services:
    """The services found: by name, and those that could not be loaded (name -> why)."""

    def __init__(
        self, services: dict[str, Service], broken: dict[str, str], conflicts: dict[str, str] | None = None
    ) -> None:
        self.by_name = services
        self.broken = broken
        #: A name a second distribution claimed too: name -> the line that says which was refused.
        self.conflicts = conflicts or {}

    def __iter__(self) -> Iterator[Service]:
        return iter(self.by_name.values())

    def require(self, tables: Iterable[str]) -> None:
        """Import the services not imported yet (:class:`~.indexed.Indexed`) that read one of
        ``tables`` (a config's sections); one that cannot be imported is logged and broken, as
        :func:`installed` does with the rest."""
        wanted = set(tables)
        for name, service in list(self.by_name.items()):
            if isinstance(service, Indexed) and service.table in wanted:
                try:
                    self.by_name[name] = service.loaded()
                except Exception as error:  # noqa: BLE001 - a broken service costs itself, not the prop
                    del self.by_name[name]
                    self.broken[name] = f"{type(error).__name__}: {error}"
                    log.error("service %s cannot be loaded (%s); the prop runs without it", name, self.broken[name])

    def get(self, name: str) -> Service | None:
        """The service called ``name`` (imported now if it was not: :meth:`require`), or None."""
        service = self.by_name.get(name)
        if isinstance(service, Indexed) and service.table is not None:
            self.require([service.table])
            service = self.by_name.get(name)
        return service

    def tables(self) -> dict[str, list[Service]]:
        """Config table -> the services that read it, the table's own service first."""
        out: dict[str, list[Service]] = {}
        for service in self.ordered():
            if service.table is not None:
                out.setdefault(service.table, []).append(service)
        for table, owners in out.items():
            owners.sort(key=lambda s: s.name != table)
        return out

    def ordered(self) -> list[Service]:
        """Start order: by ``order``, then name, each after the services it names in ``after``."""
        pending = sorted(self.by_name.values(), key=lambda s: (s.order, s.name))
        done: list[Service] = []
        names: set[str] = set()
        while pending:
            ready = next(
                (s for s in pending if all(a in names or a not in self.by_name for a in s.after)), pending[0]
            )  # a circle of `after`s: the first in order goes first
            pending.remove(ready)
            done.append(ready)
            names.add(ready.name)
        return done


def scan(group: str = GROUP, path: list[str] | None = None) -> list[tuple[str, str]]:
    """(name, value) of each entry point of ``group`` (see :func:`scan_owned`)."""
    return [(name, value) for name, value, _ in scan_owned(group, path)]


def scan_owned(group: str = GROUP, path: list[str] | None = None) -> list[tuple[str, str, str]]:
    """(name, value) of each entry point of ``group`` that the distributions on ``path`` (``sys.path``)
    declare, as :func:`importlib.metadata.entry_points` finds them (the first distribution of a name
    wins), read straight from their ``entry_points.txt``: the library's way parses every
    distribution's metadata, a tenth of a Pi's start (tests/test_service_plugins.py checks both agree)."""
    header = f"[{group}]"
    seen: set[str] = set()
    found: list[tuple[str, str, str]] = []
    for entry in sys.path if path is None else path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip, or gone
            continue
        for name in sorted(n for n in names if n.endswith((".dist-info", ".egg-info"))):
            project = _normalized(name.rsplit(".", 1)[0].split("-")[0])
            if project in seen:
                continue
            seen.add(project)
            text = _small_text(os.path.join(entry or ".", name, "entry_points.txt"))
            if text is not None and header in text:
                found += [(name, value, project) for name, value in _section(text, header)]
    return found


def _small_text(path: str) -> str | None:
    """A small file's UTF-8 text, or None when it cannot be read (most distributions have no
    ``entry_points.txt``): the operating system's calls, where ``open()`` would build a text
    reader for each of them (a start asks every installed distribution)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO there: no wait
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _normalized(project: str) -> str:
    """A project's name as packaging normalizes it (``re.sub(r"[-_.]+", "-", name).lower()``, in
    string methods: a start scans every installed distribution's name)."""
    name = project.replace("_", "-").replace(".", "-").lower()
    while "--" in name:
        name = name.replace("--", "-")
    return name


def _section(text: str, header: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of the INI section ``header`` in ``text``."""
    lines = text.split(header, 1)[1].split("\n[", 1)[0]
    out = []
    for line in lines.splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", ";")):
            out.append((name.strip(), value.strip()))
    return out


def _entry_points() -> list[tuple[str, str, str]]:
    """(name, "module:Class", distribution) of every installed service; the checkout's own from its
    pyproject.toml when the prop's distribution is not installed (or installed without them). The
    prop's own come first: a name two distributions claim is the prop's when one is."""
    found = scan_owned()
    # The prop's own name their classes in its package (a distribution's name would cost parsing
    # its whole METADATA, README included: 20 ms of every start).
    if not any(value.startswith(OWN_PACKAGE) for _, value, _ in found) and PYPROJECT.is_file():
        project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
        own = project.get("project", {}).get("entry-points", {}).get(GROUP, {})
        found += [(name, value, OWN_DISTRIBUTION) for name, value in own.items()]
    return sorted(found, key=lambda entry: not entry[1].startswith(OWN_PACKAGE))  # stable: path order kept


def load(name: str, value: str) -> type[Service]:
    """The class ``value`` (``module:Class``) names; raises what importing it raises."""
    module_name, _, attribute = value.partition(":")
    module = __import__(module_name, fromlist=[attribute or "_"])
    cls = getattr(module, attribute) if attribute else module
    if not (isinstance(cls, type) and issubclass(cls, Service)):
        raise TypeError(f"{value} is not a firmware.plugin.Service")
    if cls.name != name:
        raise TypeError(f"{value} calls itself {cls.name!r}, not {name!r} as its entry point does")
    return cls


@cache
def installed() -> Services:
    """Every service installed (loaded once a process); those that fail to load are logged once,
    and so is a name that two distributions claim (the prop's own, or the first found, wins)."""
    services: dict[str, Service] = {}
    broken: dict[str, str] = {}
    conflicts: dict[str, str] = {}
    claimed: dict[str, str] = {}  # name -> the distribution whose entry point was taken
    for name, value, project in _entry_points():
        if name in claimed:
            if claimed[name] != project:
                line = (
                    f"service name {name!r} is claimed by both {claimed[name]} and {project} ({value}); "
                    f"{claimed[name]}'s is used, {project}'s is refused"
                )
                conflicts[name] = line
                log.error("%s", line)
            continue
        claimed[name] = project
        loaded = _load_own(name, value) if value.startswith(OWN_PACKAGE) else _load_third(name, value)
        if isinstance(loaded, Service | Indexed):
            services[name] = cast(Service, loaded)  # an Indexed stands in for its service until imported
        else:
            broken[name] = loaded
            log.error("service %s (%s) cannot be loaded (%s); the prop runs without it", name, value, loaded)
    return Services(services, broken, conflicts)


def _load_own(name: str, value: str) -> Service | Indexed | str:
    """One of the prop's own services, or why it cannot be loaded; one the index knows and that is
    not ``always`` on is imported when first needed (:mod:`.indexed`)."""
    from .index import INDEX

    entry = INDEX.get(value)
    if entry is not None and entry["name"] == name and not entry["always"]:
        return Indexed(entry, lambda: load(name, value)())
    try:
        return load(name, value)()
    except Exception as error:  # noqa: BLE001 - a broken plugin costs itself, not the prop
        return f"{type(error).__name__}: {error}"


def _load_third(name: str, value: str) -> Service | str:
    """A third party's service, imported on a thread of its own: one that raises anything
    (``SystemExit`` included) or blocks at import costs itself, not the prop's start."""
    from firmware.plugin.hooks import run_bounded  # a start with no third party never loads it

    state, result = run_bounded(name, lambda: load(name, value)(), IMPORT_SECONDS)
    if state == "ok":
        return result  # type: ignore[no-any-return]
    if state == "timeout":
        return f"its import has not finished after {IMPORT_SECONDS:.0f} s"
    return f"{type(result).__name__}: {result}"


def unknown_section(name: str, known: list[str]) -> ConfigError:
    """``[mqt]: unknown section (did you mean mqtt?)``."""
    from firmware.config.sections import did_you_mean

    return ConfigError(f"[{name}]: unknown section{did_you_mean(name, known)}")
