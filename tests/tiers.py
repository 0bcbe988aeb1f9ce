"""The suite's tiers (docs/develop/tests.md): markers put on by what a test uses, the fast tier,
hypothesis's profiles, and the time a test's own subprocesses may take.

Markers (registered in pyproject.toml, ``--strict-markers``), put on here so that no test file
has to name them:

- ``browser``: the test drives Debian's Chromium (its fixtures include ``chromium``, tests/browser.py);
- ``broker``: it starts a real Mosquitto (tests/mosquitto.py's ``Broker``, or the benchmark's own), in
  its body or in one of its fixtures;
- ``install``: it runs the install scripts and pip for real, or asks the package index (put on by
  the modules that do: tests/test_pi_install.py, tests/test_install_messages.py, tests/test_update.py,
  tests/test_pi_wheels.py).

``--fast`` is the fast tier: every test but the ``install`` and ``browser`` ones, with hypothesis's
``dev`` profile (a tenth of the examples; :func:`examples`) unless ``--hypothesis-profile`` names
another. Without it the ``ci`` profile runs the full counts.
"""

from __future__ import annotations

import inspect
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

#: Hypothesis's profiles: ``ci`` runs each property test's full count, ``dev`` a tenth of it (a test
#: asks for its count with :func:`examples`; one that names none gets the profile's own). Neither
#: times an example (no ``deadline``) nor fails a test for slow data generation: on a loaded machine
#: those would be timed assertions, which fail for the neighbours' load, not for a bug.
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=100, **_UNTIMED)
settings.register_profile("dev", max_examples=10, **_UNTIMED)
settings.load_profile("ci")

#: The markers the fast tier leaves out.
NOT_FAST = ("install", "browser")
#: Test files whose tests take longest on the clock, mostly waiting (measured with ``--durations``).
LONG_FILES = frozenset(
    {
        "test_obus_module.py",
        "test_obus_controller.py",
        "test_web_trust.py",
        "test_selftest.py",
        "test_bench.py",
        "test_obus_hostile.py",
        "test_clue_control_flood.py",
        "test_web_hostile.py",
        "test_simulator_terminal.py",
        "test_redscape.py",
        "test_mqtt_commands.py",
        "test_history.py",
    }
)


def examples(full: int) -> int:
    """A property test's number of examples: ``full`` under the ``ci`` profile, a tenth of it under
    ``dev`` (in proportion to the loaded profile's ``max_examples``; at least 10)."""
    return max(10, round(full * settings().max_examples / 100))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier: every test but the install and browser ones, hypothesis's dev profile",
    )


def pytest_configure(config: pytest.Config) -> None:
    # hypothesis's own plugin has loaded the profile --hypothesis-profile names, if any, by now
    if config.getoption("fast") and not config.getoption("hypothesis_profile", None):
        settings.load_profile("dev")


# -- markers by what a test uses ---------------------------------------------------------------------


_broker_users: dict[Callable[..., Any], bool] = {}


def _uses_mosquitto(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s own code starts a Mosquitto: a ``Broker``, or needs its binary (the
    benchmark starts its own); read once per function."""
    found = _broker_users.get(function)
    if found is None:
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            source = ""
        found = "Broker(" in source or "mosquitto_binary(" in source
        _broker_users[function] = found
    return found


def _functions(item: pytest.Item) -> list[Callable[..., Any]]:
    """The test function and every fixture function it uses (directly or through other fixtures)."""
    functions = [item.function] if isinstance(item, pytest.Function) else []
    info = getattr(item, "_fixtureinfo", None)
    for definitions in getattr(info, "name2fixturedefs", {}).values():
        functions += [definition.func for definition in definitions]
    return functions


#: The fixtures that drive Chromium (tests/browser.py): a test using one is ``browser``.
BROWSER_FIXTURES = ("chromium", "chromium_session")


def tiers_of(item: pytest.Item) -> set[str]:
    """The markers ``item`` earns by what it uses."""
    found = set()
    names = getattr(item, "fixturenames", ())
    if any(name in names for name in BROWSER_FIXTURES):
        found.add("browser")
    if any(_uses_mosquitto(function) for function in _functions(item)):
        found.add("broker")
    return found


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in sorted(tiers_of(item)):
            item.add_marker(name)
    # The install tests' files first (each takes minutes, mostly waiting on pip and daemons): with
    # pytest-xdist's --dist loadfile they start at once on their own workers while the others share
    # the rest, instead of starting last. The order within a file stays.
    # Then the files whose tests wait longest (a bomb of processes, real timeouts): started first, they
    # overlap the rest instead of being the last to finish (pytest-xdist's worksteal takes the queue's
    # tail from a busy worker, never a test that runs).
    items.sort(key=lambda item: (item.get_closest_marker("install") is None, item.path.name not in LONG_FILES))
    if config.getoption("fast"):
        keep = [item for item in items if not any(item.get_closest_marker(name) for name in NOT_FAST)]
        if len(keep) < len(items):
            kept = set(keep)
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = keep


# -- the time a test's subprocesses may take ---------------------------------------------------------

_deadline: float | None = None


def _timeout(item: pytest.Item) -> float:
    """The test's pytest-timeout in seconds (its ``timeout`` marker, else ``--timeout``, else the ini's); 0: none."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout", 0)
    else:
        value = item.config.getoption("timeout", None)
        if value is None:
            value = item.config.getini("timeout") or 0
    return float(value or 0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    global _deadline
    budget = _timeout(item)
    # a tenth of it (at least 5 s) is kept for the test to report a step's timeout and clean up
    _deadline = time.monotonic() + budget - max(5.0, budget / 10) if budget > 0 else None
    try:
        return (yield)
    finally:
        _deadline = None


def seconds_left(cap: float | None = None) -> float | None:
    """The timeout for a subprocess of the running test: what is left of the test's own pytest-timeout
    (its setup, call and teardown, module fixtures included, which run inside the first test that
    needs them) less a tenth for the test to report and clean up, at most ``cap``. A step that hangs
    then fails with its own ``TimeoutExpired``, naming the command, before pytest-timeout ends the
    whole test, and no step can outlast the test. ``cap`` alone (None: no limit) when the test has
    no timeout (``--timeout 0`` while debugging)."""
    if _deadline is None:
        return cap
    left = max(_deadline - time.monotonic(), 1.0)
    return left if cap is None else min(cap, left)


def remove_later(path: Path) -> None:
    """Remove the tree at ``path`` in a process of its own that nobody waits for: a fake install's
    tens of thousands of files take half a minute to delete on a busy disk (more with ext4's
    ``discard``), which would otherwise hold up the test that made them."""
    subprocess.Popen(
        ["rm", "-rf", "--", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
