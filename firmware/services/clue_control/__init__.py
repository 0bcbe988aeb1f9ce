"""Clue Control over Modbus TCP: the prop as Clue Control's "switch" and "trigger".

- :mod:`.protocol`: what the numbers mean (commands in holding register 1, coils back), no network;
- :mod:`.switch`: the Modbus TCP server Clue Control writes its commands to;
- :mod:`.session`: one connection to it, and what a connection may cost (read, parse, answer);
- :mod:`.trigger`: the Modbus TCP client that writes the prop's state to Clue Control's coils;
- :mod:`.link`: both on a thread of their own (:class:`.link.ClueControl`);
- :mod:`.service`: the ``[clue_control]`` service (its keys, checks, unit needs and start).

Importing this package (or :mod:`.service`, which the prop loads through its entry point whether
or not the config has ``[clue_control]``) imports neither pymodbus nor asyncio: the link does, on
its own thread, once the service starts.
docs/integrate/clue-control.md says what to enter in Clue Control.
"""

#: ``coil_base`` (and the octet it stands for) runs from 0 to this.
MAX_COIL_BASE = 255
