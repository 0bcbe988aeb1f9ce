"""The Baccarat prop: the daemon, its hardware and its command line."""

from typing import Any

from . import moved

moved.install()  # the old names of the modules that moved (issue 40), for one release


def __getattr__(name: str) -> Any:
    """``firmware.__version__``: the installed version (as ``baccarat --version`` prints it), read from
    the package metadata only when asked (``importlib.metadata`` is not loaded at every start)."""
    if name == "__version__":
        from .version import version

        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
