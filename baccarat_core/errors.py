"""The small exception base of the rules engine."""


class BaccaratError(Exception):
    """Base of every error the rules engine raises for bad input.

    The message is one line that names the offending value, fit to show a
    user as it is. It is deliberately not a ``ValueError``: callers catch the
    rules' refusals by name, never together with unrelated errors.
    """


class EdgeworkError(BaccaratError):
    """A serial number, port, indicator or solved count that is not valid."""


class LimitsError(BaccaratError):
    """Table limits that the module cannot show."""
