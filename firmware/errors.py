"""The daemon's small exception base."""

from baccarat_core import BaccaratError


class PropError(BaccaratError):
    """Base of the daemon's errors; the message is one line fit for a user."""


class ConfigError(PropError):
    """A config file that cannot describe a prop: the message names the key and value."""
