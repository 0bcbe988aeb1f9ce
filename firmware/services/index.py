"""Where the prop's own services stand, for the registry before it imports them (firmware/services/indexed.py).

Written by ``python -m firmware.services.index_tool``; tests/test_service_index.py checks it against the classes.
"""

from typing import Any

INDEX: dict[str, dict[str, Any]] = {
    "firmware.services.clue_control.service:ClueControlService": {
        "name": "clue_control",
        "table": "clue_control",
        "always": False,
        "order": 60,
        "after": [],
        "commands": False,
    },
    "firmware.services.control:Control": {
        "name": "control",
        "table": "control",
        "always": True,
        "order": 30,
        "after": [],
        "commands": False,
    },
    "firmware.services.history:History": {
        "name": "history",
        "table": None,
        "always": True,
        "order": 10,
        "after": [],
        "commands": False,
    },
    "firmware.services.home_assistant:HomeAssistant": {
        "name": "home_assistant",
        "table": "mqtt",
        "always": False,
        "order": 41,
        "after": ["mqtt"],
        "commands": False,
    },
    "firmware.services.m3:M3": {
        "name": "m3",
        "table": "m3",
        "always": False,
        "order": 45,
        "after": ["mqtt"],
        "commands": False,
    },
    "firmware.services.mqtt:Mqtt": {
        "name": "mqtt",
        "table": "mqtt",
        "always": False,
        "order": 40,
        "after": [],
        "commands": False,
    },
    "firmware.services.obus:Obus": {
        "name": "obus",
        "table": "obus",
        "always": False,
        "order": 70,
        "after": [],
        "commands": False,
    },
    "firmware.services.osc:Osc": {
        "name": "osc",
        "table": "osc",
        "always": False,
        "order": 45,
        "after": [],
        "commands": False,
    },
    "firmware.services.redscape:Redscape": {
        "name": "redscape",
        "table": "redscape",
        "always": False,
        "order": 46,
        "after": ["mqtt"],
        "commands": False,
    },
    "firmware.services.room2:Room2": {
        "name": "room2",
        "table": "mqtt",
        "always": False,
        "order": 42,
        "after": ["mqtt"],
        "commands": False,
    },
    "firmware.services.sound:Sound": {
        "name": "sound",
        "table": "sound",
        "always": True,
        "order": 20,
        "after": [],
        "commands": False,
    },
    "firmware.services.web:Web": {
        "name": "web",
        "table": "web",
        "always": True,
        "order": 50,
        "after": ["history"],
        "commands": False,
    },
}
