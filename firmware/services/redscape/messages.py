"""node-redscape's messages, read and written without a broker.

node-redscape (playfultechnology/node-redscape) runs an escape room from Node-RED; its props
listen on ``ToDevice/<id>`` and ``ToDevice/All`` for a JSON object whose ``command`` is
``SOLVE`` or ``RESET`` (its flows send more keys beside it: the prop's id, name, description,
which a prop ignores), and report on ``FromDevice/<id>`` with ``{"id": ..., "state": ...}``,
once a command ran and whenever their state changes. Its flows' dashboards read ``state ==
"SOLVED"`` (one example prop says ``"S"``/``"U"``: ``[redscape] states`` picks the words).

This prop takes more commands, in the same form: ``ENABLE``, ``DISABLE``, ``STATUS`` (only the
report) and ``OUTPUT`` (``"output"``: the name or the number from 0 in config order; ``"state"``:
``on``, ``off``, ``pulse``, or true/false):

>>> parse_command(b'{"id": "Wires-1", "name": "Baccarat", "command": "solve"}', ("lock",))
{'command': 'force_solve'}
>>> parse_command(b'{"command": "OUTPUT", "output": 0, "state": true}', ("lock",))
{'command': 'output', 'name': 'lock', 'state': 'on'}
>>> parse_command(b'{"command": "EXPLODE"}', ())
Traceback (most recent call last):
...
baccarat_core.strict.InputError: unknown command "EXPLODE" (known: SOLVE, RESET, ENABLE, DISABLE, STATUS, OUTPUT)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat_core import strict
from baccarat_core.numbers import show_value
from baccarat_core.strict import InputError
from firmware.plugin import output_name

from . import STATES

#: node-redscape's commands (upper case; read in any case) -> the prop's command.
COMMANDS: dict[str, str] = {
    "SOLVE": "force_solve",
    "RESET": "reset",
    "ENABLE": "enable",
    "DISABLE": "disable",
    "STATUS": "status",
    "OUTPUT": "output",
}
#: The longest command read, in bytes (node-redscape's RESET carries its flow's description of the prop).
MAX_MESSAGE = 16 * 1024
_OUTPUT_STATES = {"on": "on", "off": "off", "pulse": "pulse", True: "on", False: "off"}


def parse_command(payload: bytes, outputs: Sequence[str]) -> dict[str, Any]:
    """The prop's request for a node-redscape command (``outputs``: the outputs' names in config
    order); an :class:`InputError` says why nothing runs."""
    data = strict.loads(payload, "message", max_bytes=MAX_MESSAGE)
    if not isinstance(data, dict):
        raise InputError(f"message {show_value(data)} is not a JSON object")
    word = data.get("command")
    if not isinstance(word, str):
        raise InputError(f'message has no "command" (got {show_value(word)})')
    command = COMMANDS.get(word.upper())
    if command is None:
        raise InputError(f"unknown command {show_value(word)} (known: {', '.join(COMMANDS)})")
    if command != "output":
        return {"command": command}
    which, state = data.get("output"), data.get("state")
    if isinstance(which, int) and not isinstance(which, bool):
        name = output_name(outputs, which)
    elif isinstance(which, str):
        name = which  # the one command path names the outputs there are if it is none of them
    else:
        raise InputError(f'OUTPUT: "output" must be an output\'s name or number from 0, not {show_value(which)}')
    key = state.lower() if isinstance(state, str) else state
    if not isinstance(key, str | bool) or key not in _OUTPUT_STATES:
        raise InputError(f'OUTPUT: "state" must be "on", "off", "pulse", true or false, not {show_value(state)}')
    return {"command": "output", "name": name, "state": _OUTPUT_STATES[key]}


def report(device: str, document: dict[str, Any], states: Sequence[str] = STATES) -> dict[str, Any]:
    """The report on ``FromDevice/<device>`` from a state document (``states``: the words for
    solved and unsolved).

    >>> sent = report("baccarat", {"solved": False, "status": "armed", "enabled": True, "strikes": 1,
    ...                            "outputs": [{"name": "lock", "on": False}]})
    >>> sent["state"], sent["outputs"]
    ('UNSOLVED', {'lock': False})
    """
    return {
        "id": device,
        "state": states[0] if document["solved"] else states[1],
        "status": document["status"],
        "enabled": document["enabled"],
        "strikes": document["strikes"],
        "outputs": {output["name"]: output["on"] for output in document.get("outputs", ())},
    }
