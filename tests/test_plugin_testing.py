"""The testing fixtures for plugin authors (issue 40): ``firmware.plugin.testing``, a pytest plugin
installed with the prop (entry point ``pytest11``), tried here as a plugin's own suite uses it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import tomllib
from importlib import metadata
from typing import Any

import pytest

from firmware.plugin import ConfigError, Key, Running, Service, Solved, Strike, within
from firmware.plugin.testing import PropMaker
from tests.conftest import ROOT


class Seen(Service):
    """A third party's service (its module is not the prop's): what its hooks saw, by hook."""

    name = "seen"
    keys = (Key("delay", (int, float), 0.0, check=within(0, 5), help="seconds each settled call takes"),)

    def __init__(self) -> None:
        self.stopped = threading.Event()

    def start(self, prop: Any, settings: dict[str, Any]) -> Running:
        seen: dict[str, list[Any]] = {"handled": [], "shown": [], "settled": [], "threads": []}

        def settled(events: list[Any], module: Any) -> None:
            time.sleep(settings["delay"])  # a slow plugin: settle() must still wait for it
            seen["settled"].extend(event.kind for event in events)
            seen["threads"].append(threading.current_thread().name)

        prop.daemon.on_handled.append(lambda events, module: seen["handled"].extend(e.kind for e in events))
        prop.daemon.on_shown.append(lambda event: seen["shown"].append(event.kind))
        prop.daemon.on_settled.append(settled)
        return Running(self.stopped.set, seen)


class Failing(Service):
    name = "failing"
    section = None

    def start(self, prop: Any, settings: Any) -> Running:
        raise OSError(5, "Input/output error")


def test_the_fixtures_are_an_installed_pytest_plugin(request):
    """pyproject declares the entry point, the venv's metadata (``pip install -e .``) has it, and
    this very suite got the fixture from it, as a plugin's suite does."""
    import firmware.plugin.testing

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {"baccarat": "firmware.plugin.testing"}
    declared = {
        (ep.name, ep.value)
        for dist in metadata.distributions(name="baccarat-prop")
        for ep in dist.entry_points
        if ep.group == "pytest11"
    }
    assert ("baccarat", "firmware.plugin.testing") in declared
    assert request.config.pluginmanager.get_plugin("baccarat") is firmware.plugin.testing


def test_loading_the_plugin_loads_no_hardware_library_and_no_network():
    """pytest loads it in every suite of the venv, the prop's own included: it costs an import of
    the plugin API, nothing of the devices, the console or the broker until a test asks."""
    code = (
        "import sys, firmware.plugin.testing\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'gpiozero', 'luma', 'PIL', 'aiohttp', 'paho'}))\n"
        "game = ('firmware.app', 'firmware.game.daemon', 'firmware.services')\n"
        "print(sorted(m for m in sys.modules if m.startswith(game)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "[]"]


def test_a_press_a_command_and_an_event_reach_the_plugins_hooks(baccarat_prop):
    prop = baccarat_prop(Seen(), {"delay": 0.2})
    seen = prop.value
    assert seen["settled"][:2] == ["limits", "deck"]  # the start's events: the hooks saw the first ones
    prop.press("player")
    assert seen["settled"][-1] == "chip" and prop.kinds()[-1] == "chip"
    assert prop.send({"command": "force_solve"})["ok"]
    assert "solved" in seen["settled"]  # a slow hook has run by the reply: send() waited for it
    prop.fire(Strike("loss", "the round lost $26.00", 1))
    assert seen["handled"][-1] == seen["shown"][-1] == seen["settled"][-1] == "strike"
    assert set(seen["threads"]) == {"plugin-seen"}  # a third party's hooks: on a thread of their own


def test_a_deal_is_played_through_and_words_are_commands(baccarat_prop):
    prop = baccarat_prop(Seen())
    prop.press("banker")
    prop.press("deal")
    assert prop.value["settled"][-2:] == ["deal", "strike"]  # a $1 chip, under the $25 minimum
    reply = prop.send("set-solved 2", words=True)
    assert reply["ok"] and reply["command"] == "set_solved", reply


def test_a_fired_event_need_not_be_one_the_game_could_make(baccarat_prop):
    prop = baccarat_prop(Seen())
    prop.fire(Solved(), Solved(forced=True))
    assert prop.value["settled"].count("solved") == 2


def test_a_bad_section_is_the_config_error_check_config_gives(baccarat_prop):
    assert baccarat_prop.configure(Seen(), {"delay": 1}) == {"delay": 1}
    with pytest.raises(ConfigError, match=r"^\[seen\] delay = 9: must be at least 0 and at most 5$"):
        baccarat_prop.configure(Seen(), {"delay": 9})
    with pytest.raises(ConfigError, match=r"^\[seen\] delai: unknown key \(did you mean delay\?\)$"):
        baccarat_prop(Seen(), {"delai": 1})


def test_the_core_config_can_be_changed_for_a_test(baccarat_prop):
    prop = baccarat_prop(Seen(), limits={"min": 5, "max": 500})
    assert (prop.config.limits.minimum, prop.config.limits.maximum) == (5, 500)
    assert prop.config.timing.pacing == "quick"  # the test's own, kept beside


def test_a_service_that_does_not_start_fails_the_test_with_the_props_line():
    maker = PropMaker()
    try:
        with pytest.raises(pytest.fail.Exception, match=r"service failing did not start: .*OSError"):
            maker(Failing())
    finally:
        maker.close()


def test_the_end_of_the_test_stops_the_service_and_frees_the_pins():
    maker = PropMaker()
    service = Seen()
    prop = maker(service)
    assert prop.daemon.running()
    maker.close()
    assert service.stopped.is_set() and not prop.daemon.running()
    assert all(wrapper.button.closed for wrapper in prop.daemon.board.inputs.values())
