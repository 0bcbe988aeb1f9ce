"""The daemon's small exception base."""


class PropError(Exception):
    """Base of the daemon's errors; the message is one line fit for a user.

    Not a ``ValueError`` and not a :class:`baccarat_core.BaccaratError`: the
    command line turns both into one-line messages in one place
    (:func:`firmware.cli.main`).
    """


class ConfigError(PropError):
    """A config file that cannot describe a prop: the message names the key and value."""
