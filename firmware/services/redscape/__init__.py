"""node-redscape (Node-RED): the prop as one of its devices on the prop's connection (``[redscape]``).

``[redscape] id`` names the device: ``ToDevice/<id>`` (and ``ToDevice/All``) in, ``FromDevice/<id>``
out. The section turns the service on; it rides on ``[mqtt]``'s broker (a section without
``[mqtt]`` is a config error). The messages: :mod:`.messages`; on the link: :mod:`.device`. A
Node-RED flow that drives the prop: ``examples/node-red/baccarat-flow.json``. Docs:
``docs/integrate/node-redscape.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baccarat_core.records import record
from firmware.plugin import OK, WARN, Finding, Key, Prop, Running, Section, Service, topic_level_problem, within

if TYPE_CHECKING:
    from firmware.plugin import Config

#: The topic every device hears: ``ToDevice/All``.
ALL = "All"
#: What ``state`` says in a report: node-redscape's flows' words (solved, unsolved).
STATES = ("SOLVED", "UNSOLVED")

#: Longest word for a state in a report.
MAX_STATE_WORD = 32
#: The report is published again after this many seconds without one (``[redscape] refresh_seconds``).
REFRESH_SECONDS = 10.0


def device_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be the prop's node-redscape id, or None."""
    if value.strip().lower() == ALL.lower():
        return f'is the topic every device hears (ToDevice/{ALL}); choose the prop\'s own, e.g. "baccarat"'
    return topic_level_problem(value)


def states_problem(value: list[Any]) -> str | None:
    """two different words, solved first"""
    if len(value) != 2 or not all(isinstance(word, str) and 0 < len(word) <= MAX_STATE_WORD for word in value):
        return f'must be two words of 1-{MAX_STATE_WORD} characters, solved first: ["SOLVED", "UNSOLVED"]'
    if value[0] == value[1]:
        return "must be two different words"
    return None


@record
class RedscapeSettings:
    """The device's id, the words of its report's ``state`` (solved, unsolved), the outputs'
    names in config order (an ``OUTPUT`` command's number counts them from 0), and the seconds
    without a report after which it is published again (0: never)."""

    id: str
    states: tuple[str, str] = STATES
    outputs: tuple[str, ...] = ()
    refresh: float = REFRESH_SECONDS


class Redscape(Service):
    """node-redscape's ``ToDevice/<id>`` and ``FromDevice/<id>`` on the MQTT service's connection."""

    name = "redscape"
    title = "node-redscape"
    keys = (
        Key("id", str, "baccarat", check=device_id_problem, help="the device's id: ToDevice/<id>, FromDevice/<id>"),
        Key(
            "states",
            list,
            list(STATES),
            check=states_problem,
            help='the report\'s "state" when solved and unsolved (["S", "U"]: the short words)',
        ),
        Key(
            "refresh_seconds",
            float,
            REFRESH_SECONDS,
            check=within(0, 3600),
            help="the report again after this many seconds without one, for a flow that started later (0: never)",
        ),
    )
    after = ("mqtt",)
    needs = ("mqtt",)
    order = 46
    docs = "integrate/node-redscape.md"

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> RedscapeSettings:
        """The id, the state words and the outputs an ``OUTPUT`` command counts."""
        solved, unsolved = values["states"]
        outputs = tuple(output.name for output in config.outputs)
        return RedscapeSettings(values["id"], (solved, unsolved), outputs, values["refresh_seconds"])

    def describe(self, settings: RedscapeSettings) -> list[str]:
        """``node-redscape: ToDevice/baccarat and ToDevice/All in, FromDevice/baccarat out``."""
        i = settings.id
        return [
            f"node-redscape: commands on ToDevice/{i} and ToDevice/{ALL}; reports on FromDevice/{i} "
            f'(state "{settings.states[0]}" or "{settings.states[1]}")'
        ]

    def doctor(self, settings: RedscapeSettings, host: Any) -> list[Finding]:
        """What the Node-RED flow is to use; a warning for words node-redscape's dashboards do not read."""
        i = settings.id
        found = [
            Finding(
                OK,
                f'node-redscape: Node-RED sends {{"command": "SOLVE"}} to ToDevice/{i} and reads FromDevice/{i} '
                "on the [mqtt] broker (examples/node-red/baccarat-flow.json)",
            )
        ]
        if settings.states[0] != STATES[0]:
            found.append(
                Finding(
                    WARN,
                    f'node-redscape: the prop reports "{settings.states[0]}" when solved; node-redscape\'s '
                    f'dashboard panels look for "{STATES[0]}"',
                    f'leave [redscape] states out, or make the flow read "{settings.states[0]}"',
                )
            )
        return found

    def start(self, prop: Prop, settings: RedscapeSettings) -> Running | None:
        """Add the device's topics to the MQTT service's connection."""
        from firmware.plugin import start_on_mqtt

        from .device import RedscapeDevice

        return start_on_mqtt(prop, "Node-RED", lambda link: RedscapeDevice(prop, link, settings))
