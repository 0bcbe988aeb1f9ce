"""Home Assistant: MQTT device discovery over the MQTT service's connection (``[mqtt] home_assistant``).

Off (the default), it only clears a discovery message an earlier config left, so that Home
Assistant drops the device. Docs: ``docs/integrate/home-assistant.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.plugin import HOME_ASSISTANT_KEYS, HomeAssistantSettings, Prop, Running, Section, Service, check_values

if TYPE_CHECKING:
    from firmware.plugin import Config


class HomeAssistant(Service):
    """Discovery documents for Home Assistant (2024.11 or newer), on the MQTT service's connection."""

    name = "home_assistant"
    section = "mqtt"
    title = "Home Assistant"
    keys = HOME_ASSISTANT_KEYS
    after = ("mqtt",)
    order = 41
    docs = "integrate/home-assistant.md"

    def configure(self, values: dict[str, Any], section: Section, config: Config) -> HomeAssistantSettings:
        """Its two keys, the prefix checked as a topic's first level."""
        values = {**values, "home_assistant_prefix": values["home_assistant_prefix"].rstrip("/")}
        check_values(section, values)
        return HomeAssistantSettings(values["home_assistant"], values["home_assistant_prefix"])

    def describe(self, settings: HomeAssistantSettings) -> list[str]:
        """``Home Assistant: discovery under homeassistant/``, when on."""
        return [f"Home Assistant: discovery under {settings.prefix}/"] if settings.enabled else []

    def start(self, prop: Prop, settings: HomeAssistantSettings) -> Running | None:
        """Publish the discovery (or clear an old one) over the MQTT service's connection."""
        mqtt = prop.service("mqtt")
        if mqtt is None:
            return None
        from firmware.services.home_assistant.discovery import HomeAssistantService

        home = HomeAssistantService(
            mqtt,
            prefix=settings.prefix,
            enabled=settings.enabled,
            outputs=[(output.name, output.mode) for output in prop.config.outputs],
        )
        home.start()
        return Running(home.stop, home)
