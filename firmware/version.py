"""The version of the prop's software that runs: one source for every place that shows it."""

from __future__ import annotations

import functools
from importlib import metadata


@functools.cache
def version() -> str:
    """The installed package's version (``baccarat-prop``), or ``unknown`` when run from a bare checkout.

    The one source of the version the prop reports: ``baccarat --version``, the state document, the
    console, the diagnostics document and Home Assistant's update entity. It is the package metadata,
    that is pyproject.toml's ``version`` as installed; ``scripts/update.sh`` installs each release with
    the commit it came from added (``0.1.0+g1a2b3c4``: see :mod:`firmware.updates.releases`). Read once per
    process (a process runs one version), and only when first asked: ``importlib.metadata`` is not
    loaded at every start.
    """
    try:
        return metadata.version("baccarat-prop")
    except metadata.PackageNotFoundError:
        return "unknown"
