"""Clue Control over Modbus TCP: the prop as Clue Control's "switch" and "trigger".

- :mod:`.protocol`: what the numbers mean (commands in holding register 1, coils back), no network;
- :mod:`.switch`: the Modbus TCP server Clue Control writes its commands to;
- :mod:`.trigger`: the Modbus TCP client that writes the prop's state to Clue Control's coils;
- :mod:`.link`: both on a thread of their own (:class:`ClueControl`), for the service;
- :mod:`.tally`: bad input from the network as few log lines.

Importing this package does not import pymodbus: the link does, on its own thread.
docs/integrate/clue-control.md says what to enter in Clue Control.
"""

from .link import ClueControl, ClueControlError
from .protocol import Coils, Command, commands_for, output_value, split_host_port

__all__ = ["ClueControl", "ClueControlError", "Coils", "Command", "commands_for", "output_value", "split_host_port"]
