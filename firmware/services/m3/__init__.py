"""M3 and Escape Room Techs (BAC) panels: their MQTT convention on the prop's connection (``[m3]``).

``[m3] name`` is the topic prefix (``baccarat/set/solve``, ``baccarat/solve``...); the section
turns the service on, and it rides on ``[mqtt]``'s broker (a section without ``[mqtt]`` is a
config error). The topics: :mod:`.topics`; on the link: :mod:`.convention`. Docs:
``docs/integrate/m3.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baccarat_core.records import record
from firmware.plugin import OK, WARN, Finding, Key, Prop, Running, Section, Service, topic_level_problem

if TYPE_CHECKING:
    from firmware.plugin import Config


@record
class M3Settings:
    """The topic prefix, and the outputs' names in config order (``output<N>`` is the N-th, from 0)."""

    name: str
    outputs: tuple[str, ...] = ()


class M3(Service):
    """An M3 or BAC panel's topics under ``<name>/`` on the MQTT service's connection."""

    name = "m3"
    title = "M3 / Escape Room Techs"
    keys = (
        Key(
            "name",
            str,
            "baccarat",
            check=topic_level_problem,
            help="the topic prefix: <name>/set/solve, <name>/solve, <name>/output0, ...",
        ),
    )
    after = ("mqtt",)
    needs = ("mqtt",)
    order = 45
    docs = "integrate/m3.md"

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> M3Settings:
        """The prefix, and the outputs ``output<N>`` counts."""
        return M3Settings(values["name"], tuple(output.name for output in config.outputs))

    def describe(self, settings: M3Settings) -> list[str]:
        """``M3/BAC: baccarat/set/... in; baccarat/solve, /output<N>, /heartbeat out (output0 = lock)``."""
        from .topics import HEARTBEAT_SECONDS  # the convention itself: loaded when asked for

        n = settings.name
        outputs = ", ".join(f"output{i} = {name}" for i, name in enumerate(settings.outputs)) or "no outputs"
        return [
            f"M3/BAC: commands on {n}/set/...; {n}/solve, {n}/output<N>, {n}/get/<event> and "
            f"{n}/heartbeat (every {HEARTBEAT_SECONDS:g} s) out ({outputs})"
        ]

    def doctor(self, settings: M3Settings, host: Any) -> list[Finding]:
        """What a panel is to be set up with; a warning when it has no outputs to switch."""
        n = settings.name
        found = [
            Finding(
                OK,
                f"M3/BAC: a panel sends to {n}/set/<command> and reads {n}/solve (Yes/No) and "
                f"{n}/heartbeat on the [mqtt] broker",
            )
        ]
        if not settings.outputs:
            found.append(
                Finding(
                    WARN,
                    "M3/BAC: this prop has no [[outputs]]: a panel's output<N> and relay<N> buttons are refused",
                    "add [[outputs]] to the config, or take those buttons off the panel",
                )
            )
        return found

    def start(self, prop: Prop, settings: M3Settings) -> Running | None:
        """Add the topics to the MQTT service's connection."""
        from firmware.plugin import start_on_mqtt

        from .convention import M3Convention

        return start_on_mqtt(prop, "M3/BAC panels", lambda link: M3Convention(prop, link, settings))
